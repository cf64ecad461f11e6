import DBus
import EventLoop

/// chime-bench playing the notification server, so that it knows the instant each
/// `Notify` arrives: for `presses` (which then presses buttons) and `front`.
final class BenchServer {
    static let name = try! BusName("org.freedesktop.Notifications")
    static let path = try! ObjectPath("/org/freedesktop/Notifications")
    static let interface = try! InterfaceName("org.freedesktop.Notifications")

    /// The server id given to each summary (chime-bench puts its own key in the title).
    private(set) var notified: [String: UInt32] = [:]
    /// When each summary's Notify was handled, in monotonic seconds.
    private(set) var notifiedAt: [String: Double] = [:]
    private var nextServerID: UInt32 = 0
    private var registration: Registration?

    /// Serves the interface on `connection` and takes the name; fails if another server has it.
    init(connection: Connection) throws {
        registration = try connection.export([Interface(Self.interface, methods: [
            Method(try MemberName("Notify"), inputs: [
                Argument("app_name", "s"), Argument("replaces_id", "u"), Argument("app_icon", "s"), Argument("summary", "s"),
                Argument("body", "s"), Argument("actions", "as"), Argument("hints", "a{sv}"), Argument("expire_timeout", "i"),
            ], outputs: [Argument("id", "u")]) { [unowned self] call in
                let summary = call.arguments[3].stringValue ?? ""
                self.nextServerID += 1
                self.notified[summary] = self.nextServerID
                self.notifiedAt[summary] = Clock.monotonic()
                return [.uint32(self.nextServerID)]
            },
            Method(try MemberName("GetCapabilities"), outputs: [Argument("capabilities", "as")]) { _ in [.stringArray(["actions", "body"])] },
            Method(try MemberName("CloseNotification"), inputs: [Argument("id", "u")]) { _ in [] },
            Method(try MemberName("GetServerInformation"), outputs: [
                Argument("name", "s"), Argument("vendor", "s"), Argument("version", "s"), Argument("spec_version", "s"),
            ]) { _ in [.string("chime-bench"), .string("chime"), .string("1"), .string("1.2")] },
        ])], at: Self.path)
        guard try connection.requestName(Self.name) == .owned else {
            throw BenchError("org.freedesktop.Notifications is taken; stop the other server first")
        }
    }
}

extension EventLoop {
    /// Runs the loop until `done` holds, at most 30 s. The check is a prepare hook
    /// registered after the connection's, so it sees what was just dispatched before the
    /// loop would sleep.
    func wait(_ what: String, until done: @escaping () -> Bool) throws {
        var timedOut = false
        let check = prepare { [unowned self] in if done() { self.stop() } }
        let limit = timeout(afterMilliseconds: 30_000) { [unowned self] in
            timedOut = true
            self.stop()
        }
        try run()
        withExtendedLifetime((check, limit)) {}
        if timedOut { throw BenchError("timed out waiting for \(what)") }
    }
}
