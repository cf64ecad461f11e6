import DBus
import Glibc

/// What `chime doctor` finds about the session bus, chimed, the notification server and
/// the docks, gathered without changing anything: no call starts a service, and none
/// waits more than three seconds for a peer.
///
/// Healthy means a notification chime sends now, or schedules, reaches the screen:
/// a bus, a chimed that runs or can be started, and a notification server that runs or
/// can be started. Anything that works but could surprise (chimed not running yet, two
/// servers competing for the name) is a warning and leaves the verdict healthy.
struct Diagnosis {
    /// The session bus and how it was found.
    struct Bus {
        var address: String?
        /// `DBUS_SESSION_BUS_ADDRESS`, or `XDG_RUNTIME_DIR` for the `$XDG_RUNTIME_DIR/bus` fallback.
        var source: String?
        var connected = false
        var uniqueName: String?
    }

    /// chimed as the bus sees it, and as it describes itself (`Status`).
    struct Daemon {
        var running = false
        var activatable = false
        var owner: String?
        var pid: UInt32?
        var process: String?
        var version: String?
        var interface: String?
        var store: String?
        var scheduled: UInt32?
        var pending: UInt32?
        var nextFire: String?
        var timeZone: String?
        var notificationServer: String?
        /// False while chimed has not learned what its server can do (no answer to GetCapabilities yet).
        var capabilitiesKnown: Bool?
        var localSound: Bool?
        /// When chimed last backed up its store (ISO 8601).
        var backup: String?
        /// What chimed recovered from a damaged store, while the damaged file is kept.
        var recovery: String?
        /// Set when it answers, but in another version of the interface.
        var mismatch: InterfaceMismatch?
    }

    /// Whoever owns `org.freedesktop.Notifications`, and what it can do.
    struct Server {
        var running = false
        var activatable = false
        var owner: String?
        var pid: UInt32?
        var process: String?
        var name: String?
        var vendor: String?
        var version: String?
        var specVersion: String?
        var capabilities: [String]?
        /// For each capability Chime uses that the server lacks: what happens instead.
        var fallbacks: [(capability: String, instead: String)] = []
        /// The primary owner, then every connection queued for the name.
        var queuedOwners: [String] = []
        /// Activation files naming the server, in the order the bus searches them.
        var activationFiles: [String] = []
    }

    /// A known dock or panel that shows badges (com.canonical.Unity.LauncherEntry).
    struct BadgeListener {
        var busName: String
        var what: String
        /// False when the program shows badges only with an extension that cannot be seen from the bus.
        var certain: Bool
    }

    var bus = Bus()
    var daemon: Daemon?
    var server: Server?
    var badgeListeners: [BadgeListener]?
    var warnings: [String] = []
    var problems: [String] = []

    /// 0 healthy, 1 unhealthy, 69 no bus: the statuses `chime --help` documents.
    var exitStatus: Int32 {
        guard bus.connected else { return ExitStatus.unavailable.rawValue }
        return problems.isEmpty ? 0 : ExitStatus.failure.rawValue
    }

    static let chimeName = SchedulerClient.busName.rawValue
    static let chimePath = SchedulerClient.path.rawValue
    static let serverName = "org.freedesktop.Notifications"
    static let serverPath = "/org/freedesktop/Notifications"

    /// Docks and panels that listen for com.canonical.Unity.LauncherEntry. A bus cannot
    /// list another peer's match rules, so their bus names stand for them.
    static let knownBadgeListeners = [
        BadgeListener(busName: "com.canonical.Unity", what: "Unity's launcher", certain: true),
        BadgeListener(busName: "org.kde.plasmashell", what: "KDE Plasma's task manager", certain: true),
        BadgeListener(busName: "org.kde.lattedock", what: "Latte Dock", certain: true),
        BadgeListener(busName: "net.launchpad.plank", what: "Plank", certain: true),
        BadgeListener(busName: "org.gnome.Shell", what: "GNOME Shell with Ubuntu Dock or Dash to Dock", certain: false),
    ]

    // MARK: - Gathering

    /// Looks at everything, in the order a reader follows the report.
    static func run() -> Diagnosis {
        var diagnosis = Diagnosis()
        guard let connection = diagnosis.connect() else { return diagnosis }
        let lookups = BusLookups(connection: connection)
        let activatable = lookups.activatableNames()
        diagnosis.checkDaemon(lookups, activatable: activatable)
        diagnosis.checkServer(lookups, activatable: activatable)
        diagnosis.checkBadgeListeners(lookups)
        diagnosis.compareDaemonAndServer()
        return diagnosis
    }

    /// Connects as libdbus would, but without X11 autolaunch, which would start a new
    /// bus of its own instead of finding the session's.
    private mutating func connect() -> Connection? {
        let runtime = environment("XDG_RUNTIME_DIR")
        if let address = environment("DBUS_SESSION_BUS_ADDRESS") {
            bus.address = address
            bus.source = "DBUS_SESSION_BUS_ADDRESS"
            do {
                let connection = try Connection.bus(address: address)
                bus.connected = true
                bus.uniqueName = connection.uniqueName
                return connection
            } catch {
                problems.append("No session bus answers at \(address), the address in DBUS_SESSION_BUS_ADDRESS (\(error.message.withoutFullStop)); "
                    + "the session it belonged to may have ended: log in again, or set DBUS_SESSION_BUS_ADDRESS to the running session's bus"
                    + (runtime.map { " (usually unix:path=\($0)/bus)" } ?? "") + ".")
                return nil
            }
        }
        guard let runtime, let socket = Self.userBusSocket(in: runtime) else {
            let where_ = runtime.map { "there is no bus socket at $XDG_RUNTIME_DIR/bus (\($0)/bus)" } ?? "XDG_RUNTIME_DIR is not set either"
            problems.append("No session bus: DBUS_SESSION_BUS_ADDRESS is not set and \(where_), so chime cannot reach chimed; "
                + "run chime inside your desktop session, or export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus "
                + "where a per-user bus runs (Debian's dbus-user-session).")
            return nil
        }
        let address = "unix:path=" + Self.escapedAddressValue(socket)
        bus.address = address
        bus.source = "XDG_RUNTIME_DIR"
        do {
            let connection = try Connection.bus(address: address)
            bus.connected = true
            bus.uniqueName = connection.uniqueName
            warnings.append("DBUS_SESSION_BUS_ADDRESS is not set; chime and chimed find the per-user bus at \(socket) by themselves, "
                + "but programs that only read the variable do not: run inside your desktop session, or "
                + "export DBUS_SESSION_BUS_ADDRESS=\(address).")
            return connection
        } catch {
            problems.append("No session bus: DBUS_SESSION_BUS_ADDRESS is not set and the bus socket \(socket) does not answer "
                + "(\(error.message.withoutFullStop)); run chime inside your desktop session.")
            return nil
        }
    }

    private mutating func checkDaemon(_ lookups: BusLookups, activatable names: Set<String>) {
        var daemon = Daemon()
        daemon.activatable = names.contains(Self.chimeName)
        daemon.running = lookups.hasOwner(Self.chimeName)
        defer { self.daemon = daemon }
        guard daemon.running else {
            if daemon.activatable {
                warnings.append("chimed is not running; the bus starts it on first use (any chime command), but reminders fire only "
                    + "while it runs: 'systemctl --user enable --now chimed.service' keeps it running from login.")
            } else {
                problems.append("chimed is not running, and the bus cannot start it: no activation file for \(Self.chimeName) "
                    + "is in its service directories; install Chime, or run 'systemctl --user enable --now chimed.service'.")
            }
            return
        }
        daemon.owner = lookups.owner(of: Self.chimeName)
        daemon.pid = lookups.processID(of: Self.chimeName)
        daemon.process = daemon.pid.flatMap(processName)
        do {
            let reply = try lookups.call(Self.chimeName, Self.chimePath, SchedulerClient.interface.rawValue, "Status")
            let status = Self.dictionary(reply.first)
            daemon.version = status["version"]?.stringValue
            daemon.interface = status["interface"]?.stringValue
            daemon.store = status["store"]?.stringValue
            daemon.scheduled = status["scheduled"]?.integerValue.flatMap(UInt32.init(exactly:))
            daemon.pending = status["pending"]?.integerValue.flatMap(UInt32.init(exactly:))
            daemon.nextFire = status["nextFire"]?.stringValue
            daemon.timeZone = status["timeZone"]?.stringValue
            daemon.notificationServer = status["notificationServer"]?.stringValue
            // chimed leaves capabilities out while its server has not said what it can do.
            daemon.capabilitiesKnown = daemon.notificationServer == nil ? nil : status["capabilities"] != nil
            daemon.localSound = status["localSound"]?.boolValue
            daemon.backup = status["backup"]?.stringValue
            daemon.recovery = status["recovery"]?.stringValue
        } catch {
            if let mismatch = InterfaceMismatch.diagnose(error, member: "Status", arguments: [], lookups: lookups) {
                daemon.mismatch = mismatch
                daemon.version = mismatch.version
                problems.append(mismatch.sentence)
            } else if error.name == DBusError.noReplyName {
                problems.append("chimed (pid \(daemon.pid.map(String.init) ?? "unknown")) does not answer within "
                    + "\(lookups.timeoutMilliseconds / 1000) s; restart it with 'systemctl --user restart chimed.service'.")
            } else {
                problems.append("chimed answered Status with an error: \(error.message)")
            }
            return
        }
        if let version = daemon.version, version != chimeClientVersion {
            warnings.append("chimed is version \(version), this chime \(chimeClientVersion); restart it to run the installed one: "
                + "'systemctl --user restart chimed.service'.")
        }
        if daemon.capabilitiesKnown == false, let server = daemon.notificationServer {
            problems.append("chimed does not know what the notification server \(server) can do (capabilities unknown: it has not "
                + "answered GetCapabilities); until it does, chimed sends plain text and plays sounds itself, and asks again.")
        }
        if let recovery = daemon.recovery {
            warnings.append(recovery.withoutFullStop + "; remove that file once you no longer need it, and this warning goes.")
        }
        if let pending = daemon.pending, pending > 0 {
            warnings.append("\(pending) notification\(pending == 1 ? " is" : "s are") due but waiting for a notification server; "
                + "chimed delivers \(pending == 1 ? "it" : "them") when one appears.")
        }
    }

    private mutating func checkServer(_ lookups: BusLookups, activatable names: Set<String>) {
        var server = Server()
        server.activatable = names.contains(Self.serverName)
        server.running = lookups.hasOwner(Self.serverName)
        server.activationFiles = Self.activationFiles(naming: Self.serverName)
        defer { self.server = server }
        if server.activationFiles.count > 1 {
            let directories = server.activationFiles.map(Self.directory(of:))
            let rule = directories[0] == directories[1]
                ? "they share a directory, so the bus picks one of them arbitrarily"
                : "the bus starts the first when no server runs"
            warnings.append("Two notification servers are registered: \(server.activationFiles.count) activation files name "
                + "\(Self.serverName) (\(server.activationFiles.joined(separator: ", "))); \(rule). Remove the one you do not use.")
        }
        guard server.running else {
            if !server.activatable {
                problems.append("Nothing can show notifications: no program owns \(Self.serverName) and the bus cannot start one; "
                    + "start your desktop's notification server (GNOME Shell and KDE Plasma have one built in; elsewhere dunst or mako). "
                    + "Until then chimed keeps due notifications waiting.")
            }
            return
        }
        server.owner = lookups.owner(of: Self.serverName)
        server.pid = lookups.processID(of: Self.serverName)
        server.process = server.pid.flatMap(processName)
        server.queuedOwners = lookups.queuedOwners(of: Self.serverName)
        if server.queuedOwners.count > 1 {
            let others = server.queuedOwners.dropFirst().map(Self.describeConnection(lookups)).joined(separator: ", ")
            warnings.append("Two notification servers are running: \(Self.describeConnection(lookups)(server.queuedOwners[0])) "
                + "shows notifications and \(others) \(server.queuedOwners.count == 2 ? "waits" : "wait") in the queue for "
                + "\(Self.serverName), taking over when it leaves; stop the one you do not use.")
        }
        var who = "The notification server"
        if let process = server.process { who += " (\(process)" + (server.pid.map { ", pid \($0)" } ?? "") + ")" }
        do {
            let info = try lookups.call(Self.serverName, Self.serverPath, Self.serverName, "GetServerInformation")
            server.name = info.count > 0 ? info[0].stringValue : nil
            server.vendor = info.count > 1 ? info[1].stringValue : nil
            server.version = info.count > 2 ? info[2].stringValue : nil
            server.specVersion = info.count > 3 ? info[3].stringValue : nil
        } catch {
            let reason = error.name == DBusError.noReplyName
                ? "does not answer within \(lookups.timeoutMilliseconds / 1000) s" : "fails GetServerInformation (\(error.message.withoutFullStop))"
            problems.append("\(who) \(reason), so notifications may not show; restart it, or log in again.")
            return
        }
        do {
            let reply = try lookups.call(Self.serverName, Self.serverPath, Self.serverName, "GetCapabilities")
            let capabilities = reply.first?.arrayElements?.compactMap(\.stringValue) ?? []
            server.capabilities = capabilities
            server.fallbacks = Self.fallbacks(for: Set(capabilities), localSound: daemon?.localSound)
        } catch {
            warnings.append("\(who) does not say what it can do (GetCapabilities: \(error.message.withoutFullStop)); chimed then assumes it has no buttons, sound or markup.")
        }
    }

    private mutating func checkBadgeListeners(_ lookups: BusLookups) {
        badgeListeners = Self.knownBadgeListeners.filter { lookups.hasOwner($0.busName) }
    }

    /// Whether chimed follows the server the bus names (it learns of a new one from
    /// NameOwnerChanged, so a difference means it missed one).
    private mutating func compareDaemonAndServer() {
        guard let daemon, daemon.version != nil, daemon.mismatch == nil, let owner = server?.owner else { return }
        if daemon.notificationServer != owner {
            warnings.append("chimed follows \(daemon.notificationServer ?? "no notification server"), but \(owner) owns \(Self.serverName); "
                + "if this lasts, restart chimed: 'systemctl --user restart chimed.service'.")
        }
    }

    // MARK: - What Chime does without a capability

    /// What Chime does for each capability it uses that `capabilities` lacks; this
    /// must say what chimed really does (NotifyRequest.swift, Presenter.swift, SoundPlayer.swift).
    static func fallbacks(for capabilities: Set<String>, localSound: Bool?) -> [(capability: String, instead: String)] {
        let sound = localSound == false
            ? "sounds stay silent: the server plays none, and chimed could not set up libcanberra to play them itself"
            : "chimed plays the sound itself through libcanberra"
        let table: [(String, String)] = [
            ("body", "only the title is shown, not the body"),
            ("actions", "buttons are not shown; press them with 'chime act ID ACTION'"),
            ("sound", sound),
            ("body-markup", "bodies are shown as plain text, as Chime sends them anyway (it escapes markup for servers that parse it)"),
            ("persistence", "notifications leave the screen after the server's timeout and stay in no history; chimed does not show "
                + "them again, but 'chime show ID' and 'chime act ID ACTION' still reach a scheduled one"),
        ]
        return table.filter { !capabilities.contains($0.0) }.map { (capability: $0.0, instead: $0.1) }
    }

    // MARK: - Helpers

    /// "gnome-shell (:1.12, pid 1234)", or as much of it as the bus tells.
    private static func describeConnection(_ lookups: BusLookups) -> (String) -> String {
        { unique in
            guard let pid = lookups.processID(of: unique) else { return unique }
            return (processName(pid) ?? "pid \(pid)") + " (\(unique), pid \(pid))"
        }
    }

    private static func dictionary(_ value: Value?) -> [String: Value] {
        var result: [String: Value] = [:]
        for (key, value) in value?.stringKeyedEntries ?? [] where result[key] == nil { result[key] = value.unwrapped }
        return result
    }

    /// `$XDG_RUNTIME_DIR/bus` when it is a socket of this user's, as libdbus requires.
    static func userBusSocket(in runtime: String) -> String? {
        let path = runtime + "/bus"
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid() else { return nil }
        return path
    }

    /// `value` escaped for a D-Bus address: bytes outside `[-0-9A-Za-z_/.\*]` become `%XX`.
    static func escapedAddressValue(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }

    /// The directories a standard session bus reads activation files from, highest
    /// priority first (dbus-daemon(1), `<standard_session_servicedirs/>`).
    static func serviceDirectories() -> [String] {
        var directories: [String] = []
        if let runtime = environment("XDG_RUNTIME_DIR") { directories.append(runtime + "/dbus-1/services") }
        if let data = environment("XDG_DATA_HOME") ?? environment("HOME").map({ $0 + "/.local/share" }) {
            directories.append(data + "/dbus-1/services")
        }
        for data in (environment("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":") where data.hasPrefix("/") {
            directories.append(data + "/dbus-1/services")
        }
        directories.append("/usr/share/dbus-1/services")
        var seen: Set<String> = []
        return directories.filter { seen.insert($0).inserted }
    }

    /// The `*.service` files in the session service directories whose `Name=` is `name`.
    static func activationFiles(naming name: String) -> [String] {
        serviceDirectories().flatMap { directory in
            fileNames(in: directory).filter { $0.hasSuffix(".service") }.sorted().map { directory + "/" + $0 }.filter { path in
                guard let text = readSmallFile(path) else { return false }
                return text.split(whereSeparator: \.isNewline).contains { line in
                    let parts = line.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 && parts[0].trimmingSpaces == "Name" && parts[1].trimmingSpaces == name
                }
            }
        }
    }

    private static func directory(of path: String) -> Substring {
        path.lastIndex(of: "/").map { path[..<$0] } ?? Substring(path)
    }
}

// MARK: - Files and environment without Foundation

extension String {
    /// The sentence without its final full stop, to quote it inside another one.
    var withoutFullStop: Substring { hasSuffix(".") ? dropLast() : self[...] }
}

/// The environment variable `name`; unset and empty are the same here.
func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}

/// The names in `directory` (none when it cannot be read).
func fileNames(in directory: String) -> [String] {
    guard let handle = opendir(directory) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// A small text file's contents (at most 64 KiB), nil when it cannot be read.
func readSmallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 65_536 {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
