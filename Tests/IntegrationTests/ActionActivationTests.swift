import DBus
import EventLoop
import Foundation
import Glibc
import Testing
import TestSupport

/// Foreground buttons open the app first; buttons that require authentication wait for an
/// unlocked session (logind's `LockedHint`, faked on a private system bus).
@Suite(.timeLimit(.minutes(5)))
struct ActionActivationTests {
    /// Waits for a file a command writes; nothing announces it, so this looks again briefly.
    func waitForFile(_ url: URL) throws {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: url.path) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure.timeout("\(url.path)")
    }

    func config(marker: URL, options: String) -> String {
        """
        [Category todo]
        Actions=log;

        [Action log]
        Label=Log it
        Exec=/bin/touch;\(marker.path)
        \(options)
        """
    }

    @Test func aForegroundButtonOpensTheAppWithTheActionThenRunsTheHandler() throws {
        let session = try TestSession()
        let marker = session.directory.appendingPathComponent("ran")
        try ActionOptionsTests.writeConfig(session, config(marker: marker, options: "ActivationMode=foreground"))
        let app = try FakeApp(session: session)
        var handlerRanFirst = false
        app.onActivateAction = { handlerRanFirst = FileManager.default.fileExists(atPath: marker.path) }

        let sent = try ActionOptionsTests.present(session, "{'title': <'Invoice'>, 'category': <'todo'>, "
            + "'desktopEntry': <'org.example.Fake'>, 'userInfo': <{'invoice': <int64 42>}>}")
        let id = try #require(sent.stdout.split(separator: "'").dropFirst().first.map(String.init), "\(sent)")
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'log'>]")

        let arguments = try #require(try app.waitForActivateAction(), "no ActivateAction; chimed log: \(session.daemonLog)")
        #expect(!handlerRanFirst, "the handler ran before the app was opened")
        #expect(arguments[0] == .string("notification"))
        let fields = FakeApp.parameterFields(arguments)
        #expect(fields["id"] == .string(id))
        #expect(fields["action"] == .string("log"))
        #expect(fields["userInfo"]?.stringKeyedEntries?.first?.key == "invoice")
        let platform = try #require(arguments[2].stringKeyedEntries)
        #expect(platform.contains { $0.key == "chime-action" && $0.value.unwrapped == .string("log") })
        try waitForFile(marker)
    }

    @Test func aForegroundButtonWithoutAnAppRunsItsHandler() throws {
        let session = try TestSession()
        let marker = session.directory.appendingPathComponent("ran")
        try ActionOptionsTests.writeConfig(session, config(marker: marker, options: "ActivationMode=foreground"))
        #expect(try ActionOptionsTests.present(session, "{'title': <'Invoice'>, 'category': <'todo'>}").status == 0)
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'log'>]")
        try session.waitForDaemonLog(containing: "there is no app to bring forward")
        try waitForFile(marker)
    }

    /// A session with logind faking session `c1` of this user, locked, chimed started in it.
    func lockedSession(marker: URL) throws -> TestSession {
        let session = try TestSession(systemBus: true, extraEnvironment: ["XDG_SESSION_ID": "c1"])
        let system = try #require(session.systemBus)
        try system.startTemplate("logind", owning: "org.freedesktop.login1")
        try system.call("org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.DBus.Mock.AddSession",
                        "'c1'", "'seat0'", "uint32 \(getuid())", "'user'", "true")
        try setLocked(session, true)
        try ActionOptionsTests.writeConfig(session, config(marker: marker, options: "AuthenticationRequired=true"))
        #expect(try session.pingDaemon())
        try session.waitForDaemonLog(containing: "The session is locked.")
        return session
    }

    func setLocked(_ session: TestSession, _ locked: Bool) throws {
        try session.systemBus?.call("org.freedesktop.login1", "/org/freedesktop/login1/session/c1",
                                    "org.freedesktop.login1.Session.SetLockedHint", locked ? "true" : "false")
    }

    @Test func aPressWhileLockedIsHeldAndRunsAfterUnlock() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("chime-held-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let session = try lockedSession(marker: marker)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Invoice", "--in", "1h", "--category", "todo")
        #expect(try session.run(["chime", "act", id, "log"]).status == 0)
        try session.waitForDaemonLog(containing: "'log' on \(id) requires an unlocked session; held")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        #expect(!monitor.lines.contains { $0.contains("ActionInvoked") })

        try setLocked(session, false)
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'log'")
        try waitForFile(marker)
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("held until the session is unlocked"), "\(log)")
    }

    @Test func aHeldPressIsDroppedWhenItsNotificationIsCancelledMeanwhile() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("chime-held-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let session = try lockedSession(marker: marker)
        let id = try session.add("Invoice", "--in", "1h", "--category", "todo")
        #expect(try session.run(["chime", "act", id, "log"]).status == 0)
        try session.waitForDaemonLog(containing: "held until the session is unlocked")
        #expect(try session.run(["chime", "cancel", id]).status == 0)

        try setLocked(session, false)
        try session.waitForDaemonLog(containing: "Dropped the held 'log' on \(id): it was cancelled while the session was locked.")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("Log it: dropped, it was cancelled while the session was locked."), "\(log)")
    }

    @Test func withoutLogindThePressRunsAndSaysWhy() throws {
        let session = try TestSession()
        let marker = session.directory.appendingPathComponent("ran")
        try ActionOptionsTests.writeConfig(session, config(marker: marker, options: "AuthenticationRequired=true"))
        let id = try session.add("Invoice", "--in", "1h", "--category", "todo")
        #expect(try session.run(["chime", "act", id, "log"]).status == 0)
        try session.waitForDaemonLog(containing: "whether the session is locked cannot be told (there is no system bus); running it.")
        try waitForFile(marker)
    }
}
