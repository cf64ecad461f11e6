import DBus
import EventLoop
import Foundation
import TestSupport

/// A D-Bus-activatable app for the tests that open one: its desktop entry (listing the
/// `notification` action) in the session's `XDG_DATA_HOME`, and `org.freedesktop.Application`
/// served on its own connection, recording the `ActivateAction` it gets.
final class FakeApp {
    let loop = EventLoop()
    private let connection: Connection
    private var registration: Registration?
    /// The arguments of the `ActivateAction` received, nil until one comes.
    private(set) var activateAction: [Value]?
    /// Runs as `ActivateAction` arrives, before it is answered.
    var onActivateAction: () -> Void = {}

    init(session: TestSession, id: String = "org.example.Fake") throws {
        // chimed inherits the bus's XDG_DATA_HOME, where GIO looks for desktop entries.
        let applications = session.directory.appendingPathComponent("data/applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try """
            [Desktop Entry]
            Type=Application
            Name=Fake
            Exec=/bin/false
            DBusActivatable=true
            Actions=notification;

            [Desktop Action notification]
            Name=Show notification
            Exec=/bin/false
            """.write(to: applications.appendingPathComponent("\(id).desktop"), atomically: true, encoding: .utf8)
        connection = try Connection.bus(address: session.address)
        connection.attach(to: loop)
        registration = try connection.export([Interface(
            try InterfaceName("org.freedesktop.Application"),
            methods: [
                Method(try MemberName("ActivateAction"),
                       inputs: [Argument("action_name", "s"), Argument("parameter", "av"), Argument("platform_data", "a{sv}")]) {
                    [unowned self] call in
                    self.activateAction = call.arguments
                    self.onActivateAction()
                    return []
                },
                Method(try MemberName("Activate"), inputs: [Argument("platform_data", "a{sv}")]) { _ in [] },
            ]
        )], at: try ObjectPath("/" + id.replacingOccurrences(of: ".", with: "/")))
        guard try connection.requestName(try BusName(id)) == .owned else { throw TestFailure.failed("\(id) is taken") }
    }

    /// Serves calls until `ActivateAction` came (answered and written), or 30 seconds passed.
    func waitForActivateAction() throws -> [Value]? {
        let deadline = Date(timeIntervalSinceNow: 30)
        while activateAction == nil && Date() < deadline { try loop.runOnce(timeoutMilliseconds: 500) }
        connection.flush()
        return activateAction
    }

    /// The entries of the `parameter` of `ActivateAction` (its one `a{sv}`), unwrapped.
    static func parameterFields(_ arguments: [Value]) -> [String: Value] {
        let entries = arguments[1].arrayElements?.first?.unwrapped.stringKeyedEntries ?? []
        return Dictionary(entries.map { ($0.key, $0.value.unwrapped) }, uniquingKeysWith: { a, _ in a })
    }
}
