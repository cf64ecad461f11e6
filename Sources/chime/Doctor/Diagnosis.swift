import ChimeAPI
import DBus
import Localization

/// What `chime doctor` finds about the session bus, chimed, the notification server and
/// the docks, gathered without changing anything: no call starts a service, and none
/// waits more than three seconds for a peer.
///
/// Healthy means a notification chime sends now, or schedules, reaches the screen:
/// a bus, a chimed that runs or can be started, and a notification server that runs or
/// can be started. Anything that works but could surprise (chimed not running yet, two
/// servers competing for the name) is a warning and leaves the verdict healthy; an error
/// in the config is not, since the buttons or settings it names do not work until it is fixed.
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
        /// Unix seconds.
        var nextFire: Int64?
        var timeZone: String?
        var notificationServer: String?
        /// False while chimed has not learned what its server can do (no answer to GetCapabilities yet).
        var capabilitiesKnown: Bool?
        /// The server's capabilities as chimed learned them: what it acts on.
        var capabilities: [String]?
        var localSound: Bool?
        /// "played", or libcanberra's error for the last sound chimed played itself.
        var lastLocalSound: String?
        /// When chimed last backed up its store (Unix seconds).
        var backup: Int64?
        /// What chimed recovered from a damaged store, while the damaged file is kept.
        var recovery: String?
        /// Set when it serves another version of the interface than this chime's.
        var mismatch: InterfaceMismatch?
        /// GeoClue and NetworkManager as chimed sees them (`Status`).
        var locationSource: String?
        var networkSource: String?
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
        var fallbacks: [(capability: String, instead: Note)] = []
        /// What this server is known to do differently, and what chimed does about it.
        var quirks: [Quirk] = []
        /// The primary owner, then every connection queued for the name.
        var queuedOwners: [String] = []
        /// Activation files naming the server that the running bus reads, in the order it searches them.
        var activationFiles: [String] = []
        /// Activation files naming the server in the standard directories that the running bus does not offer.
        var unofferedActivationFiles: [String] = []
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
    /// The config chimed read; nil while chimed does not run or does not say.
    var config: ConfigFile?
    var server: Server?
    var badgeListeners: [BadgeListener]?
    var places: Places?
    /// The calendars chimed follows; nil while it does not run or does not say.
    var calendars: [CalendarText]?
    var warnings: [Note] = []
    var problems: [Note] = []

    /// 0 healthy, 1 unhealthy, 69 no bus: the statuses `chime --help` documents.
    var exitStatus: Int32 {
        guard bus.connected else { return ExitStatus.unavailable.rawValue }
        return problems.isEmpty ? 0 : ExitStatus.failure.rawValue
    }

    static let chimeName = ChimeBus.name.rawValue
    static let chimePath = ChimeBus.path.rawValue
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
        diagnosis.checkPlaces()
        diagnosis.checkCalendars(lookups)
        diagnosis.compareDaemonAndServer()
        return diagnosis
    }

    private mutating func checkDaemon(_ lookups: BusLookups, activatable names: Set<String>) {
        var daemon = Daemon()
        daemon.activatable = names.contains(Self.chimeName)
        daemon.running = lookups.hasOwner(Self.chimeName)
        defer { self.daemon = daemon }
        guard daemon.running else {
            if daemon.activatable {
                warnings.append(Note { localized("chimed is not running; the bus starts it on first use (any chime command), but reminders fire only while it runs: 'systemctl --user enable --now chimed.service' keeps it running from login.") })
            } else {
                problems.append(Note { localized("chimed is not running, and the bus cannot start it: no activation file for %1$s is in its service directories; install Chime, or run 'systemctl --user enable --now chimed.service'.", Self.chimeName) })
            }
            return
        }
        daemon.owner = lookups.owner(of: Self.chimeName)
        daemon.pid = lookups.processID(of: Self.chimeName)
        daemon.process = daemon.pid.flatMap(processName)
        do {
            let reply = try lookups.call(Self.chimeName, Self.chimePath, Scheduler1.name.rawValue, Scheduler1.status.name.rawValue)
            let status = DaemonStatus(reply.first?.stringKeyedEntries ?? [])
            daemon.version = status.version
            daemon.interface = status.interface
            daemon.store = status.store
            daemon.scheduled = status.scheduled
            daemon.pending = status.pending
            daemon.nextFire = status.nextFire
            daemon.timeZone = status.timeZone
            daemon.notificationServer = status.notificationServer
            // chimed leaves capabilities out while its server has not said what it can do.
            daemon.capabilitiesKnown = daemon.notificationServer == nil ? nil : status.capabilities != nil
            (daemon.capabilities, daemon.localSound, daemon.lastLocalSound) = (status.capabilities, status.localSound, status.lastLocalSound)
            daemon.backup = status.backup
            daemon.recovery = status.recovery
            (daemon.locationSource, daemon.networkSource) = (status.locationSource, status.networkSource)
            checkConfig(status, pid: daemon.pid)
        } catch {
            if let mismatch = InterfaceMismatch.diagnose(error, calling: Scheduler1.status, lookups: lookups) {
                daemon.mismatch = mismatch
                daemon.version = mismatch.version
                problems.append(Note(english: mismatch.sentence, text: mismatch.localizedSentence))
            } else if error.name == DBusError.noReplyName {
                let seconds = lookups.timeoutMilliseconds / 1000
                problems.append(Note {
                    daemon.pid.map { localized("chimed (pid %1$s) does not answer within %2$d s; restart it with 'systemctl --user restart chimed.service'.", $0, seconds) }
                        ?? localized("chimed does not answer within %1$d s; restart it with 'systemctl --user restart chimed.service'.", seconds)
                })
            } else {
                // TRANSLATORS: %1$s is chimed's error message, in English.
                problems.append(Note { localized("chimed answered Status with an error: %1$s", error.message) })
            }
            return
        }
        // It answers Status, but may lack other methods this chime calls (one built from
        // other sources with the same version number, say).
        var mismatch = InterfaceMismatch(lookups.introspect(Self.chimeName, Self.chimePath).flatMap(IntrospectedNode.init(xml:)),
                                         methods: Scheduler1.methods)
        if mismatch.detail != nil || mismatch.implementsInterface == false {
            (mismatch.version, mismatch.pid, mismatch.process) = (daemon.version, daemon.pid, daemon.process)
            daemon.mismatch = mismatch
            problems.append(Note(english: mismatch.sentence, text: mismatch.localizedSentence))
            return
        }
        if let version = daemon.version, version != chimeVersion {
            warnings.append(Note { localized("chimed is version %1$s, this chime %2$s; restart it to run the installed one: 'systemctl --user restart chimed.service'.", version, chimeVersion) })
        }
        if daemon.capabilitiesKnown == false, let server = daemon.notificationServer {
            problems.append(Note { localized("chimed does not know what the notification server %1$s can do (capabilities unknown: it has not answered GetCapabilities); until it does, chimed sends plain text and plays sounds itself, and asks again.", server) })
        }
        if let recovery = daemon.recovery {
            // TRANSLATORS: %1$s is chimed's account of what it recovered, in English.
            warnings.append(Note { localized("%1$s; remove that file once you no longer need it, and this warning goes.", recovery.withoutFullStop) })
        }
        if let pending = daemon.pending, pending > 0 {
            warnings.append(Note { pluralized("%1$d notification is due but waiting for a notification server; chimed delivers it when one appears.",
                                              "%1$d notifications are due but waiting for a notification server; chimed delivers them when one appears.",
                                              count: Int(pending), pending) })
        }
    }

    private mutating func checkServer(_ lookups: BusLookups, activatable names: Set<String>) {
        var server = Server()
        server.activatable = names.contains(Self.serverName)
        server.running = lookups.hasOwner(Self.serverName)
        // Only what the running bus reads can compete for the name: a package's file in
        // a directory this bus does not use (a test bus, a nested session) starts nothing.
        let busDirectories = Self.busServiceDirectories(lookups) ?? Self.serviceDirectories()
        server.activationFiles = server.activatable ? Self.activationFiles(naming: Self.serverName, in: busDirectories) : []
        server.unofferedActivationFiles = Self.activationFiles(naming: Self.serverName, in: Self.serviceDirectories())
            .filter { !server.activationFiles.contains($0) }
        defer { self.server = server }
        if server.activationFiles.count > 1 {
            let directories = server.activationFiles.map(Self.directory(of:))
            let (count, files) = (server.activationFiles.count, server.activationFiles.joined(separator: ", "))
            warnings.append(Note {
                directories[0] == directories[1]
                    ? localized("Two notification servers are registered: %1$d activation files name %2$s (%3$s); they share a directory, so the bus picks one of them arbitrarily. Remove the one you do not use.", count, Self.serverName, files)
                    : localized("Two notification servers are registered: %1$d activation files name %2$s (%3$s); the bus starts the first when no server runs. Remove the one you do not use.", count, Self.serverName, files)
            })
        }
        guard server.running else {
            if !server.activatable {
                problems.append(Note { localized("Nothing can show notifications: no program owns %1$s and the bus cannot start one; start your desktop's notification server (GNOME Shell and KDE Plasma have one built in; elsewhere dunst or mako). Until then chimed keeps due notifications waiting.", Self.serverName) })
            }
            return
        }
        server.owner = lookups.owner(of: Self.serverName)
        server.pid = lookups.processID(of: Self.serverName)
        server.process = server.pid.flatMap(processName)
        server.queuedOwners = lookups.queuedOwners(of: Self.serverName)
        if server.queuedOwners.count > 1 {
            let others = server.queuedOwners.dropFirst().map(Self.describeConnection(lookups)).joined(separator: ", ")
            let first = Self.describeConnection(lookups)(server.queuedOwners[0])
            warnings.append(Note {
                // TRANSLATORS: %2$s is one or more programs waiting in the queue, as many as the count says.
                pluralized("Two notification servers are running: %1$s shows notifications and %2$s waits in the queue for %3$s, taking over when it leaves; stop the one you do not use.",
                    "Two notification servers are running: %1$s shows notifications and %2$s wait in the queue for %3$s, taking over when it leaves; stop the one you do not use.",
                    count: server.queuedOwners.count - 1, first, others, Self.serverName)
            })
        }
        let who = { Self.describeServer(process: server.process, pid: server.pid) }
        do {
            let info = try lookups.call(Self.serverName, Self.serverPath, Self.serverName, "GetServerInformation")
            server.name = info.count > 0 ? info[0].stringValue : nil
            server.vendor = info.count > 1 ? info[1].stringValue : nil
            server.version = info.count > 2 ? info[2].stringValue : nil
            server.specVersion = info.count > 3 ? info[3].stringValue : nil
            server.quirks = Self.quirks(ofServerNamed: server.name)
        } catch {
            let seconds = lookups.timeoutMilliseconds / 1000
            problems.append(Note {
                error.name == DBusError.noReplyName
                    ? localized("%1$s does not answer within %2$d s, so notifications may not show; restart it, or log in again.", who(), seconds)
                    // TRANSLATORS: %2$s is the server's error message, in English.
                    : localized("%1$s fails GetServerInformation (%2$s), so notifications may not show; restart it, or log in again.",
                                who(), error.message.withoutFullStop)
            })
            return
        }
        do {
            let reply = try lookups.call(Self.serverName, Self.serverPath, Self.serverName, "GetCapabilities")
            let capabilities = reply.first?.arrayElements?.compactMap(\.stringValue) ?? []
            server.capabilities = capabilities
            server.fallbacks = Self.fallbacks(for: Set(capabilities), localSound: daemon?.localSound,
                                              lastLocalSound: daemon?.lastLocalSound)
            noteSilentSounds(serverCapabilities: capabilities)
        } catch {
            warnings.append(Note {
                localized("%1$s does not say what it can do (GetCapabilities: %2$s); chimed then assumes it has no buttons, sound or markup.",
                          who(), error.message.withoutFullStop)
            })
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
            warnings.append(Note {
                daemon.notificationServer.map {
                    localized("chimed follows %1$s, but %2$s owns %3$s; if this lasts, restart chimed: 'systemctl --user restart chimed.service'.",
                              $0, owner, Self.serverName)
                } ?? localized("chimed follows no notification server, but %1$s owns %2$s; if this lasts, restart chimed: 'systemctl --user restart chimed.service'.", owner, Self.serverName)
            })
        }
    }

    // MARK: - What Chime does without a capability

    /// What Chime does for each capability it uses that `capabilities` lacks; this
    /// must say what chimed really does (its NotifyArguments.swift, Presenter.swift, SoundPlayer.swift).
    /// `lastLocalSound` is how chimed's last sound of its own went: set up is not played.
    static func fallbacks(for capabilities: Set<String>, localSound: Bool?,
                          lastLocalSound: String? = nil) -> [(capability: String, instead: Note)] {
        let table: [(String, () -> String)] = [
            ("body", { localized("only the title is shown, not the body") }),
            ("actions", { localized("buttons are not shown; press them with 'chime act ID ACTION'") }),
            ("sound", {
                if localSound == false {
                    return localized("sounds stay silent: the server plays none, and chimed could not set up libcanberra to play them itself")
                }
                guard let lastLocalSound, lastLocalSound != "played" else {
                    return localized("chimed plays the sound itself through libcanberra")
                }
                // TRANSLATORS: %1$s is libcanberra's error message, in English (such as "IO error").
                return localized("chimed plays the sound itself through libcanberra, but the last one failed: %1$s", lastLocalSound)
            }),
            ("body-markup", { localized("bodies are shown as plain text, as Chime sends them anyway (it escapes markup for servers that parse it)") }),
            ("persistence", {
                localized("notifications leave the screen after the server's timeout and stay in no history; chimed does not show them again, but 'chime show ID' and 'chime act ID ACTION' still reach a scheduled one")
            }),
        ]
        return table.filter { !capabilities.contains($0.0) }.map { (capability: $0.0, instead: Note($0.1)) }
    }

    // MARK: - Helpers

    /// "The notification server (dunst, pid 1234)", or as much of it as is known.
    private static func describeServer(process: String?, pid: UInt32?) -> String {
        guard let process else { return localized("The notification server") }
        return pid.map { localized("The notification server (%1$s, pid %2$s)", process, $0) } ?? localized("The notification server (%1$s)", process)
    }

    /// "gnome-shell (:1.12, pid 1234)", or as much of it as the bus tells.
    private static func describeConnection(_ lookups: BusLookups) -> (String) -> String {
        { unique in
            guard let pid = lookups.processID(of: unique) else { return unique }
            return localized("%1$s (%2$s, pid %3$s)", processName(pid) ?? localized("pid %1$s", pid), unique, pid)
        }
    }
}
