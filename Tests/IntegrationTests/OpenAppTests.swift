import DBus
import EventLoop
import Foundation
import Testing
import TestSupport

/// The default action opens the notification's app, as iOS launches an app with the
/// notification in its launch options.
@Suite(.timeLimit(.minutes(10)))
struct OpenAppTests {
    @Test func dbusActivatableAppReceivesActivateActionWithTheUserInfo() throws {
        let session = try TestSession()
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
            """.write(to: applications.appendingPathComponent("org.example.Fake.desktop"), atomically: true, encoding: .utf8)

        // The app: owns its name and serves org.freedesktop.Application.
        let loop = EventLoop()
        let app = try Connection.bus(address: session.address)
        app.attach(to: loop)
        var received: [Value]?
        let registration = try app.export([Interface(
            try InterfaceName("org.freedesktop.Application"),
            methods: [
                Method(try MemberName("ActivateAction"),
                       inputs: [Argument("action_name", "s"), Argument("parameter", "av"), Argument("platform_data", "a{sv}")]) { call in
                    received = call.arguments
                    return []
                },
                Method(try MemberName("Activate"), inputs: [Argument("platform_data", "a{sv}")]) { _ in [] },
            ]
        )], at: try ObjectPath("/org/example/Fake"))
        #expect(try app.requestName(try BusName("org.example.Fake")) == .owned)

        let sent = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                    "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.PresentNow",
                                    "{'title': <'Invoice due'>, 'desktopEntry': <'org.example.Fake'>, 'defaultAction': <'Open'>, 'userInfo': <{'invoice': <int64 42>}>}"])
        let id = try #require(sent.stdout.split(separator: "'").dropFirst().first.map(String.init), "\(sent)")
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'default'>]")

        let deadline = Date(timeIntervalSinceNow: 30)
        while received == nil && Date() < deadline { try loop.runOnce(timeoutMilliseconds: 500) }
        let arguments = try #require(received, "no ActivateAction; chimed log: \(session.daemonLog)")
        #expect(arguments[0] == .string("notification"))
        let parameter = try #require(arguments[1].arrayElements?.first?.unwrapped.stringKeyedEntries)
        let fields = Dictionary(parameter.map { ($0.key, $0.value.unwrapped) }, uniquingKeysWith: { a, _ in a })
        #expect(fields["id"] == .string(id))
        #expect(fields["userInfo"]?.stringKeyedEntries?.first?.key == "invoice")
        withExtendedLifetime(registration) {}
    }
}
