import Foundation

/// A private system bus for one test, with python-dbusmock fakes of the desktop services
/// Chime asks there (GeoClue, NetworkManager, logind).
///
/// Every process of a ``TestSession`` made with `systemBus: true` gets its address as
/// `DBUS_SYSTEM_BUS_ADDRESS`; without one they get a socket that does not exist.
public final class SystemBus {
    public let address: String
    private let bus: Spawned
    private var fakes: [Spawned] = []
    private let environment: [String: String]

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("system_bus_socket")
        let config = directory.appendingPathComponent("system-bus.conf")
        let template = try String(contentsOf: packageRoot.appendingPathComponent("Tests/system-bus.conf.in"), encoding: .utf8)
        try template.replacingOccurrences(of: "@SOCKET@", with: socket.path).write(to: config, atomically: true, encoding: .utf8)
        bus = try Spawned(["dbus-daemon", "--config-file=\(config.path)", "--nofork", "--print-address=1"],
                          environment: ProcessInfo.processInfo.environment)
        guard bus.stdout.wait(timeout: 30, until: { $0.contains("\n") }) else {
            throw TestFailure.failed("the system dbus-daemon did not start: \(bus.stderr.text)")
        }
        address = bus.stdout.text.split(separator: "\n")[0].trimmingCharacters(in: .whitespaces)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        self.environment = environment
    }

    /// Starts a python-dbusmock template (`logind`, `networkmanager`, …) with its
    /// parameters as JSON, and waits until it owns `name`.
    @discardableResult
    public func startTemplate(_ template: String, parameters: String? = nil, owning name: String) throws -> Spawned {
        try start(["-t", template] + (parameters.map { ["-p", $0] } ?? []), owning: name)
    }

    /// Starts an empty python-dbusmock object `path` with `interface` on bus name `name`,
    /// for a service without a template (GeoClue); fill it with ``call(_:)``
    /// (`org.freedesktop.DBus.Mock.AddMethod`, `AddProperty`, `AddObject`).
    @discardableResult
    public func startObject(name: String, path: String, interface: String) throws -> Spawned {
        try start([name, path, interface], owning: name)
    }

    private func start(_ arguments: [String], owning name: String) throws -> Spawned {
        let fake = try Spawned(["/usr/bin/python3", "-m", "dbusmock", "--system"] + arguments, environment: environment)
        fakes.append(fake)
        let waited = try run(["gdbus", "wait", "--system", "--timeout", "60", name])
        guard waited.status == 0 else { throw TestFailure.failed("\(name) never appeared on the system bus: \(waited) \(fake.stderr.text)") }
        return fake
    }

    /// Runs a command (gdbus, dbus-send) with this bus as the system bus.
    @discardableResult
    public func run(_ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessResult {
        try Spawned(arguments, environment: environment).finish(timeout: timeout)
    }

    /// `gdbus call --system` on this bus; throws unless it succeeds; returns its output.
    @discardableResult
    public func call(_ destination: String, _ path: String, _ method: String, _ arguments: String...) throws -> String {
        let result = try run(["gdbus", "call", "--system", "--dest", destination, "--object-path", path, "--method", method] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("\(method) on the system bus failed: \(result)") }
        return result.stdout
    }

    /// Stops every fake, then the bus.
    public func stop() {
        fakes.forEach { $0.stop() }
        fakes = []
        bus.stop()
    }

    deinit { stop() }
}
