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
        let app = try FakeApp(session: session)

        let sent = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                    "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.PresentNow",
                                    "{'title': <'Invoice due'>, 'desktopEntry': <'org.example.Fake'>, 'defaultAction': <'Open'>, 'userInfo': <{'invoice': <int64 42>}>}"])
        let id = try #require(sent.stdout.split(separator: "'").dropFirst().first.map(String.init), "\(sent)")
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'default'>]")

        let arguments = try #require(try app.waitForActivateAction(), "no ActivateAction; chimed log: \(session.daemonLog)")
        #expect(arguments[0] == .string("notification"))
        let fields = FakeApp.parameterFields(arguments)
        #expect(fields["id"] == .string(id))
        #expect(fields["userInfo"]?.stringKeyedEntries?.first?.key == "invoice")
    }
}
