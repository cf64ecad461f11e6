import Foundation
import CLinux
import Glibc

/// A private session bus with a notification server on it, for one test.
///
/// The bus's only service directory is the test's own, holding Chime's activation file
/// made from `dbus/io.github.chime.Chime.service.in`: no installed notification server
/// (Debian's dunst registers one) can be started behind the test's back, and the first
/// call to io.github.chime.Chime starts the built chimed exactly as on a desktop.
public final class TestSession {
    public let directory: URL
    public let address: String
    private let bus: Spawned
    public private(set) var mock: Spawned?
    /// The private system bus, when the test asked for one.
    public let systemBus: SystemBus?
    /// What `DBUS_SYSTEM_BUS_ADDRESS` is for every process of the session: the private
    /// system bus, or a socket that does not exist, so the machine's own GeoClue,
    /// NetworkManager or logind never take part in a test.
    public let systemAddress: String
    /// What the test added to the environment of every process of the session.
    public let extraEnvironment: [String: String]

    /// The system time zone chimed sees (through `TZ`).
    public let timeZone: String

    /// Starts the bus and, unless `capabilities` is nil, python-dbusmock's notification
    /// daemon with those capabilities. Services the bus starts (chimed) inherit its
    /// environment: this session's own data directory and `timeZone`.
    /// `serviceDirectory`, when given, replaces the test's own: an installed tree's
    /// `share/dbus-1/services`, say. With `systemBus`, a private system bus is started
    /// first (``SystemBus``: fakes of desktop services go there). `extraEnvironment` is
    /// added to what the bus, chimed and every command of the session get (`LANGUAGE`, say).
    public init(capabilities: String? = "body actions sound", timeZone: String = "Europe/Berlin",
                serviceDirectory: URL? = nil, systemBus: Bool = false, extraEnvironment: [String: String] = [:]) throws {
        self.timeZone = timeZone
        self.extraEnvironment = extraEnvironment
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chime-test-\(UUID().uuidString)")
        let services = serviceDirectory ?? directory.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if systemBus {
            let system = try SystemBus(directory: directory.appendingPathComponent("system"))
            self.systemBus = system
            systemAddress = system.address
        } else {
            self.systemBus = nil
            systemAddress = "unix:path=" + directory.appendingPathComponent("no-system-bus").path
        }
        if serviceDirectory == nil {
            try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
            try writeChimedServiceFile(in: services)
        }

        let config = directory.appendingPathComponent("bus.conf")
        let configTemplate = try String(contentsOf: packageRoot.appendingPathComponent("Tests/session-bus.conf.in"), encoding: .utf8)
        try configTemplate
            .replacingOccurrences(of: "@SERVICEDIR@", with: services.path)
            .replacingOccurrences(of: "@SOCKETDIR@", with: directory.path)
            .write(to: config, atomically: true, encoding: .utf8)

        var busEnvironment = Self.inheritedEnvironment
        busEnvironment["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        busEnvironment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        busEnvironment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        busEnvironment["TZ"] = timeZone
        busEnvironment["CHIME_LOG_LEVEL"] = "debug"
        busEnvironment["DBUS_SYSTEM_BUS_ADDRESS"] = systemAddress
        busEnvironment.merge(extraEnvironment) { _, extra in extra }
        bus = try Spawned(["dbus-daemon", "--config-file=\(config.path)", "--nofork", "--print-address=1"],
                          environment: busEnvironment)
        guard bus.stdout.wait(timeout: 30, until: { $0.contains("\n") }) else {
            throw TestFailure.failed("dbus-daemon did not start: \(bus.stderr.text)")
        }
        address = bus.stdout.text.split(separator: "\n")[0].trimmingCharacters(in: .whitespaces)
        if let capabilities { try startNotificationServer(capabilities: capabilities) }
    }

    deinit {
        mock?.stop()
        // chimed exits by itself when its bus goes away.
        bus.stop()
        systemBus?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The data directory chimed uses on this bus.
    public var dataDirectory: URL { directory.appendingPathComponent("data/chime") }

    /// The state directory chimed keeps the history in on this bus.
    public var stateDirectory: URL { directory.appendingPathComponent("state/chime") }

    /// What chimed has logged (it inherits the bus's standard error).
    public var daemonLog: String { bus.stderr.text }

    /// Waits until chimed has logged a line containing `fragment`; returns the log so far.
    @discardableResult
    public func waitForDaemonLog(containing fragment: String, timeout: TimeInterval = 60) throws -> String {
        guard bus.stderr.wait(timeout: timeout, until: { $0.contains(fragment) }) else {
            throw TestFailure.timeout("chimed logging '\(fragment)'; it logged: \(daemonLog)")
        }
        return daemonLog
    }

    /// Waits until chimed has logged a line containing any of `fragments`; returns the first
    /// of them it logged.
    @discardableResult
    public func waitForDaemonLog(containingAnyOf fragments: [String], timeout: TimeInterval = 60) throws -> String {
        guard bus.stderr.wait(timeout: timeout, until: { text in fragments.contains { text.contains($0) } }) else {
            throw TestFailure.timeout("chimed logging any of \(fragments); it logged: \(daemonLog)")
        }
        let log = daemonLog
        return fragments.min { (log.range(of: $0)?.lowerBound ?? log.endIndex) < (log.range(of: $1)?.lowerBound ?? log.endIndex) } ?? ""
    }

    /// Stops the bus itself, as when the session ends.
    public func stopBus() {
        bus.stop()
    }

    /// The runner's environment in English: tests that match Chime's words expect them
    /// untranslated, whatever language the machine running them is set to; a test that
    /// wants another language says so in `extraEnvironment`. Unit tests in this process
    /// point XDG_DATA_DIRS at a scratch folder and set systemd's watchdog variables
    /// (AppLauncherTests, WatchdogTests): a server started after them would find no
    /// GSettings schema (GNOME Shell aborts), so those are never passed on. Nor is the
    /// runner's `COLUMNS`: `chime list` would cut its titles to the runner's terminal.
    static var inheritedEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "XDG_DATA_DIRS", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "COLUMNS"] {
            env[name] = nil
        }
        env["LANG"] = "C.UTF-8"
        return env
    }

    /// The environment a process on this bus gets.
    public var environment: [String: String] {
        var env = Self.inheritedEnvironment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        env["CHIME_LOG_LEVEL"] = "debug"
        env["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        env["TZ"] = timeZone
        env["DBUS_SYSTEM_BUS_ADDRESS"] = systemAddress
        env.merge(extraEnvironment) { _, extra in extra }
        return env
    }

    /// Starts python-dbusmock's notification_daemon template and waits for its name.
    /// With `logFile`, the server appends every call it receives there (the file outlives it).
    public func startNotificationServer(capabilities: String, logFile: URL? = nil) throws {
        let parameters = "{\"capabilities\": \"\(capabilities)\"}"
        mock = try Spawned(["/usr/bin/python3", "-m", "dbusmock", "--session", "-t", "notification_daemon", "-p", parameters]
                               + (logFile.map { ["-l", $0.path] } ?? []),
                           environment: environment)
        try waitForName("org.freedesktop.Notifications")
    }

    public func stopNotificationServer() {
        mock?.stop()
        mock = nil
    }

    /// Waits (on the bus's own signal, through gdbus) until `name` has an owner.
    public func waitForName(_ name: String) throws {
        let result = try run(["gdbus", "wait", "--session", "--timeout", "60", name])
        guard result.status == 0 else { throw TestFailure.failed("\(name) never appeared: \(result)") }
    }

    /// Runs a command on this bus to completion.
    @discardableResult
    public func run(_ arguments: [String], stdin: String? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        try spawn(arguments, stdin: stdin).finish(timeout: timeout)
    }

    /// Runs `chime add ARGUMENTS…` and returns the id it printed: the first word, before
    /// the time it understood.
    public func add(_ arguments: String...) throws -> String {
        let result = try run(["chime", "add"] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("chime add failed: \(result)") }
        return String(result.stdout.split(whereSeparator: \.isWhitespace).first ?? "")
    }

    /// Starts a command on this bus; `chime` and `chimed` mean the built ones.
    public func spawn(_ arguments: [String], stdin: String? = nil) throws -> Spawned {
        var argv = arguments
        if argv[0] == "chime" || argv[0] == "chimed" { argv[0] = binDirectory.appendingPathComponent(argv[0]).path }
        return try Spawned(argv, environment: environment, stdin: stdin)
    }

    // MARK: - The mock server, driven as a user would, with gdbus

    /// The Notify calls the server received, in GVariant text form, one per element.
    public func notifyCalls() throws -> [String] {
        let result = try run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications",
                              "--object-path", "/org/freedesktop/Notifications",
                              "--method", "org.freedesktop.DBus.Mock.GetMethodCalls", "Notify"])
        guard result.status == 0 else { throw TestFailure.failed("GetMethodCalls failed: \(result)") }
        // Each call is "(TIME, [<args>...])"; gdbus types only the first TIME as uint64.
        return result.stdout.components(separatedBy: ", [<").dropFirst().map { "[<" + $0 }
    }

    /// Waits until the server has received `count` Notify calls; returns them.
    public func waitForNotifyCalls(_ count: Int, timeout: TimeInterval = 60) throws -> [String] {
        // The mock offers no signal for a received call, so this asks again at a short interval.
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let calls = try notifyCalls()
            if calls.count >= count { return calls }
            guard Date() < deadline else { throw TestFailure.timeout("\(count) Notify calls; have \(calls.count)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Every Notify call up to a marker scheduled a second from now: what chimed sent at
    /// once before it (a reminder it took for late, a summary of missed ones) is among them.
    public func notifyCallsUpToAMarker(timeout: TimeInterval = 60) throws -> [String] {
        _ = try add("Marker", "--in", "1s")
        let deadline = Date(timeIntervalSinceNow: timeout)
        // The mock offers no signal for a received call, so this asks again at a short interval.
        while true {
            let calls = try notifyCalls()
            if calls.contains(where: { $0.contains("<'Marker'>") }) { return calls }
            guard Date() < deadline else { throw TestFailure.timeout("the marker's Notify call; have \(calls)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Makes the server emit one of its signals, as a real server does when a button is pressed.
    public func emitServerSignal(_ name: String, signature: String, arguments: String) throws {
        let result = try run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications",
                              "--object-path", "/org/freedesktop/Notifications",
                              "--method", "org.freedesktop.DBus.Mock.EmitSignal",
                              "org.freedesktop.Notifications", name, signature, arguments])
        guard result.status == 0 else { throw TestFailure.failed("EmitSignal failed: \(result)") }
    }

    /// Kills chimed and waits until the bus has noticed (its name has no owner), so the
    /// next call starts a new one instead of going to the dead one.
    public func killDaemon(signal: Int32 = SIGKILL) throws {
        let pid = try daemonPID()
        kill(pid, signal)
        let deadline = Date(timeIntervalSinceNow: 30)
        // The bus offers no "wait until gone"; ask it at a short interval.
        while Date() < deadline {
            let owned = try run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                 "--method", "org.freedesktop.DBus.NameHasOwner", "io.github.chime.Chime"])
            if owned.stdout.contains("false") { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFailure.timeout("chimed \(pid) still owns its name after signal \(signal)")
    }

    /// The pid of the running chimed.
    public func daemonPID() throws -> pid_t {
        let text = try pid(of: "io.github.chime.Chime")
        guard let start = text.range(of: "uint32 "), let pid = pid_t(text[start.upperBound...].prefix { $0.isNumber }) else {
            throw TestFailure.failed("no pid in \(text)")
        }
        return pid
    }

    /// The pid of the process owning `name`.
    public func pid(of name: String) throws -> String {
        let result = try run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                              "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", name])
        guard result.status == 0 else { throw TestFailure.failed("no owner for \(name): \(result)") }
        return result.stdout
    }
}

/// `date` as an instant `chime add --at` reads: ISO 8601 with seconds, in UTC.
public func iso(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
}

extension TestSession {
    /// `date` on this session's wall clock as `chime add --at` reads it: `2026-11-01 10:00`.
    public func wallClock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: timeZone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    /// The instant `text` (`2026-11-01 10:00`) names on this session's wall clock.
    public func instant(wallClock text: String) throws -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: timeZone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        guard let date = formatter.date(from: text) else { throw TestFailure.failed("'\(text)' is no wall-clock time") }
        return date
    }

    /// Whole calendar years from `date` to now on this session's clock: what "N years ago" says.
    public func yearsSince(_ date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? .gmt
        return calendar.dateComponents([.year], from: date, to: Date()).year ?? 0
    }
}
