import Foundation
import Testing
import TestSupport

/// The app in front (io.github.chime.Presenter1.WillPresent), end to end: the real
/// chimed, the mock notification server, and the app as a separate Python process
/// (the example in docs/examples, or Tests/fake-front-app.py where it must misbehave).
@Suite(.timeLimit(.minutes(5)))
struct AppInFrontTests {
    static let app = "org.example.Front"

    /// Starts `argv` (python) on the session and waits until it owns `name`.
    func startApp(_ session: TestSession, _ argv: [String], owning name: String = app) throws -> Spawned {
        let process = try session.spawn(["/usr/bin/python3"] + argv)
        try session.waitForName(name)
        return process
    }

    func startExample(_ session: TestSession, _ words: String...) throws -> Spawned {
        try startApp(session, [packageRoot.appendingPathComponent("docs/examples/front-app.py").path] + words)
    }

    func startFake(_ session: TestSession, _ mode: String...) throws -> Spawned {
        try startApp(session, [packageRoot.appendingPathComponent("Tests/fake-front-app.py").path, Self.app] + mode)
    }

    /// The history of `id`, oldest first.
    func events(_ session: TestSession, _ id: String) throws -> [String] {
        let json = try session.run(["chime", "log", "--id", id, "--json"]).stdout
        let events = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], "\(json)")
        return events.compactMap { $0["event"] as? String }.reversed()
    }

    /// Shows a notification for no app and waits for it: every Notify before it has arrived.
    func showMarker(_ session: TestSession, after count: Int) throws -> [String] {
        #expect(try session.run(["chime", "notify", "Marker"]).status == 0)
        let calls = try session.waitForNotifyCalls(count + 1)
        #expect(calls.last?.contains("'Marker'") == true, "\(calls)")
        return Array(calls.dropLast())
    }

    @Test func theExampleInFrontHandlesItItself() throws {
        let session = try TestSession()
        let example = try startExample(session)
        let id = try session.presentNow("Tea", desktopEntry: Self.app)
        #expect(example.stdout.wait(timeout: 60) { $0.contains("In front, so shown here: Tea (\(id))") }, "\(example.stdout.text)")
        try session.waitForDaemonLog(containing: "handled by \(Self.app)")
        #expect(try showMarker(session, after: 0).isEmpty, "no Notify for Tea")
        #expect(try session.badge(of: Self.app) == "0", "no badge")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("handled") && log.contains("Handled by \(Self.app), the app in front"), "\(log)")
    }

    @Test func anAlertOnlyAnswerShowsItWithoutSoundOrBadge() throws {
        let session = try TestSession()
        let example = try startExample(session, "alert")
        _ = try session.presentNow("Tea", desktopEntry: Self.app)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'Tea'"))
        #expect(call.contains("'suppress-sound': <true>") && !call.contains("sound-name"), "\(call)")
        #expect(try session.badge(of: Self.app) == "0")
        #expect(example.stdout.text.contains("Tea"))
    }

    @Test func aScheduledOneIsAskedToo() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let example = try startExample(session, "badge")
        let id = try session.add("Stand-up", "--in", "1s", "--desktop-entry", Self.app, "--badge", "2")
        #expect(example.stdout.wait(timeout: 60) { $0.contains("(\(id))") })
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
        _ = try monitor.waitForLine(containing: "LauncherEntry.Update")
        #expect(try session.badge(of: Self.app) == "2", "the app asked for its badge")
        #expect(try showMarker(session, after: 0).isEmpty)
        #expect(try events(session, id) == ["fired", "handled"])
    }

    @Test(arguments: [
        (["late", "1"], "did not answer WillPresent within 250 ms"),
        (["answer", "frobnicate"], "none of alert, sound, badge; shown as usual"),
        (["string"], "not (as); shown as usual"),
        (["error"], "org.example.Front.Error.Broken"),
    ])
    func aSlowOrBrokenAppGetsTheUsualPopup(mode: [String], logged: String) throws {
        let session = try TestSession()
        let fake = try startApp(session, [packageRoot.appendingPathComponent("Tests/fake-front-app.py").path, Self.app] + mode)
        let id = try session.presentNow("Tea", desktopEntry: Self.app)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'Tea'") && call.contains("'sound-name': <'bell'>"), "\(call)")
        #expect(fake.stdout.text.contains("WillPresent \(id)"), "the app was asked")
        try session.waitForDaemonLog(containing: logged)
        #expect(try session.badge(of: Self.app) == "4")
    }

    @Test func anUnknownWordAmongKnownOnesIsIgnored() throws {
        let session = try TestSession()
        let fake = try startFake(session, "answer", "alert", "frobnicate")
        _ = try session.presentNow("Tea", desktopEntry: Self.app)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'suppress-sound': <true>"), "\(call)")
        try session.waitForDaemonLog(containing: "ignored 'frobnicate'")
        #expect(fake.stdout.text.contains("WillPresent"))
    }

    @Test func anAppThatIsNotRunningIsNeitherAskedNorStarted() throws {
        let session = try TestSession()
        // Activatable: a call that let the bus start it would leave this file behind.
        let marker = session.directory.appendingPathComponent("started")
        try """
            [D-BUS Service]
            Name=\(Self.app)
            Exec=/bin/sh -c 'touch \(marker.path); exec /usr/bin/python3 \(packageRoot.path)/docs/examples/front-app.py'
            """.write(to: session.directory.appendingPathComponent("services/\(Self.app).service"), atomically: true, encoding: .utf8)
        _ = try session.presentNow("Tea", desktopEntry: Self.app)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'sound-name': <'bell'>"))
        try session.waitForDaemonLog(containing: "\(Self.app) is not running; not asked")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func chimedKilledWhileTheAppIsAskedShowsItAfterItsRestart() throws {
        let session = try TestSession()
        let fake = try startFake(session, "kill")
        let id = try session.add("Stand-up", "--in", "1s", "--desktop-entry", Self.app)
        #expect(fake.stdout.wait(timeout: 60) { $0.contains("killed") }, "\(fake.stdout.text)")
        #expect(try session.notifyCalls().isEmpty)
        // The next call starts chimed again; it asks the app again, which now says "show it".
        let deadline = Date(timeIntervalSinceNow: 60)
        while try session.run(["chime", "list"]).status != 0, Date() < deadline {}
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'Stand-up'"))
        #expect(fake.stdout.text.components(separatedBy: "WillPresent \(id)").count == 3, "asked twice: \(fake.stdout.text)")
    }
}
