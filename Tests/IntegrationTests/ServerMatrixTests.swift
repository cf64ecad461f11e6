import Foundation
import Testing
import TestSupport

/// One scenario, run against every notification server of the matrix (`MatrixServers`),
/// each driven through its own popup or control: fire, open the app, Complete a series,
/// Remind a one-shot, press a kept popup twice, expire, survive the server's crash.
/// `CHIME_SERVERS` picks servers; `make test-servers` runs all and tabulates the report.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct ServerMatrixTests {
    /// A category with Complete and a short snooze, so a reminded one-shot comes back
    /// within the test.
    static let config = """
        [Category matrix]
        Actions=complete;soon;

        [Action soon]
        Label=Remind in 2 seconds
        Snooze=2s
        """

    static let soonLabel = "Remind in 2 seconds"

    @Test(arguments: MatrixServers.selected)
    func scenario(_ serverName: String) throws {
        let type = try #require(MatrixServers.named(serverName), "CHIME_SERVERS names an unknown server '\(serverName)'")
        var run = MatrixRun(server: serverName)
        defer { run.record() }
        let session = try TestSession(capabilities: nil)
        try session.writeConfig(Self.config)
        let app = try FakeApp(session: session)
        let recorder = try BusRecorder(session: session)
        let server: any MatrixServer
        do {
            server = try type.init(session: session)
        } catch let error as MatrixServerError {
            run.result = "could not start"
            run.reason = "\(error)"
            // make test-servers reports it; make test installs every server it runs, so there
            // it is a failure.
            if ProcessInfo.processInfo.environment["CHIME_MATRIX_ALLOW_MISSING"] != "1" { Issue.record("\(serverName) \(error)") }
            return
        }
        defer { server.stop() }
        run.information = try Self.serverInformation(session)
        run.capabilities = try Self.capabilities(session)
        run.package = try Self.packageVersion(type.packages[0], session)
        let scenario = Scenario(session: session, server: server, recorder: recorder, app: app,
                                capabilities: Set(run.capabilities), information: run.information,
                                monitor: try SignalMonitor(session: session, startDaemon: true))
        for (name, body) in scenario.steps {
            if let error = run.step(name, body) { Issue.record("\(serverName), \(name): \(error)") }
            do { try scenario.cleanUp() } catch { Issue.record("\(serverName), cleaning up after \(name): \(error)") }
        }
    }

    static func serverInformation(_ session: TestSession) throws -> [String] {
        let reply = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                                     "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.GetServerInformation"])
        return reply.stdout.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func packageVersion(_ package: String, _ session: TestSession) throws -> String {
        let version = try session.run(["dpkg-query", "--show", "--showformat=${Version}", package]).stdout
        return version.isEmpty ? package : "\(package) \(version)"
    }

    static func capabilities(_ session: TestSession) throws -> [String] {
        let reply = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                                     "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.GetCapabilities"])
        return reply.stdout.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}

/// The steps, each returning what the server did differently (or "n/a: why").
private struct Scenario {
    let session: TestSession
    let server: any MatrixServer
    let recorder: BusRecorder
    let app: FakeApp
    let capabilities: Set<String>
    /// What GetServerInformation answered: name, vendor, version, specification version.
    let information: [String]
    let monitor: SignalMonitor
    /// What the popup steps saw the server do, as the quirk keys `chime doctor --json` uses.
    let seen = SeenQuirks()

    var steps: [(String, () throws -> String)] {
        [("fire", fire), ("default click opens the app", openApp), ("Complete ends a series", complete),
         ("Remind brings a one-shot back", remind), ("a second press on a kept popup is ignored", secondPress),
         ("expiry closes it", expiry), ("a server crash re-posts what was on screen", restart),
         ("chimed killed with a popup on screen: the press acts once", { try takeover(after: SIGKILL) }),
         ("chimed restarted with a popup on screen: the press acts once", { try takeover(after: SIGTERM) }),
         ("a popup closed while chimed was stopped stays closed", closedWhileStopped),
         ("doctor names what it does differently", doctor)]
    }

    /// Schedules a notification due in a second through gdbus; returns its id.
    func schedule(_ fields: String) throws -> String {
        let reply = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                     "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.Schedule",
                                     "{'when': <'in 1s'>, \(fields)}"])
        guard reply.status == 0, let id = reply.stdout.split(separator: "'").dropFirst().first else {
            throw TestFailure.failed("Schedule failed: \(reply)")
        }
        return String(id)
    }

    /// The server's id of the notification whose summary is `title`, once shown `count` times.
    func shown(_ title: String, count: Int = 1) throws -> BusRecorder.Notified {
        let notified = try recorder.waitForNotifications(summary: title, count: count)
        return notified[count - 1]
    }

    func state(of id: String) throws -> String {
        let reply = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                     "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.Get", id])
        guard let range = reply.stdout.range(of: "'state': <'") else { throw TestFailure.failed("Get \(id): \(reply)") }
        return String(reply.stdout[range.upperBound...].prefix { $0 != "'" })
    }

    var hasActions: Bool { capabilities.contains("actions") }

    func fire() throws -> String {
        let id = try schedule("'title': <'Matrix fire'>, 'body': <'Tea & <cake> at 5'>, 'sound': <'message-new-instant'>, 'category': <'matrix'>")
        let notified = try shown("Matrix fire")
        var notes: [String] = []
        if capabilities.contains("body-markup") {
            try expect(notified.body == "Tea &amp; &lt;cake&gt; at 5", "markup body sent as \(notified.body.debugDescription)")
        } else {
            try expect(notified.body == "Tea & <cake> at 5", "plain body sent as \(notified.body.debugDescription)")
            notes.append("no body-markup: the body is sent as plain text")
        }
        if hasActions {
            try expect(notified.actions == ["complete", "Complete", "soon", MatrixTestsLabels.soon], "actions sent: \(notified.actions)")
        } else {
            try expect(notified.actions.isEmpty, "actions sent to a server without them: \(notified.actions)")
            notes.append("no actions: no buttons")
        }
        if capabilities.contains("sound") {
            try expect(notified.hints.contains("\"sound-name\""), "no sound-name hint: \(notified.hints)")
        } else {
            let log = try session.waitForDaemonLog(containing: "sound of \(id)")
            let played = log.contains("Played the sound of \(id)")
            notes.append("no sound capability: Chime plays it itself (\(played ? "played" : "libcanberra failed here: no audio device"))")
        }
        return notes.joined(separator: "; ")
    }

    func openApp() throws -> String {
        let id = try schedule("'title': <'Matrix open'>, 'desktopEntry': <'org.example.Fake'>, 'defaultAction': <'Open'>")
        let serverID = try require(try shown("Matrix open").id)
        try server.click(notification: serverID)
        let arguments = try require(try app.waitForActivateAction(), "no ActivateAction; chimed: \(session.daemonLog.suffix(2000))")
        let fields = FakeApp.parameterFields(arguments)
        try expect(fields["id"] == .string(id), "ActivateAction for \(String(describing: fields["id"]))")
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'default'")
        // Whoever closes it (dunst after a click, Chime after any press), it was dismissed.
        _ = try monitor.waitForLine(containing: "Closed ('\(id)', uint32 2)")
        try recorder.catchUp(on: session)
        guard !recorder.closedByServer(serverID) else { return "" }
        seen.keys.insert("keeps-popup-after-click")
        return "keeps the popup after a click: Chime closes it"
    }

    func complete() throws -> String {
        guard hasActions else { return "n/a: the server has no actions" }
        let id = try schedule("'title': <'Matrix series'>, 'repeat': <'minute'>, 'category': <'matrix'>")
        let notified = try shown("Matrix series")
        let serverID = try require(notified.id)
        try server.press(label: "Complete", key: "complete", notification: serverID)
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'complete'")
        _ = try monitor.waitForLine(containing: "Closed ('\(id)'")
        let state = try state(of: id)
        try expect(state == "done", "the series is still \(state) after Complete")
        try recorder.catchUp(on: session)
        return closedBy(serverID)
    }

    func remind() throws -> String {
        guard hasActions else { return "n/a: the server has no actions" }
        let id = try schedule("'title': <'Matrix remind'>, 'category': <'matrix'>")
        let serverID = try require(try shown("Matrix remind").id)
        try server.press(label: MatrixTestsLabels.soon, key: "soon", notification: serverID)
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'soon'")
        let again = try shown("Matrix remind", count: 2)
        try cancelAll()
        return again.id == serverID ? "the copy replaced the popup" : ""
    }

    func secondPress() throws -> String {
        guard hasActions else { return "n/a: the server has no actions" }
        // resident: Chime leaves the popup after a press, as the app asked.
        let id = try schedule("'title': <'Matrix kept'>, 'category': <'matrix'>, 'hints': <{'resident': <true>}>")
        let serverID = try require(try shown("Matrix kept").id)
        try server.press(label: MatrixTestsLabels.soon, key: "soon", notification: serverID)
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'soon'")
        try recorder.catchUp(on: session)
        guard recorder.closedReasons(of: serverID).isEmpty else {
            seen.keys.insert("closes-resident-popup")
            try cancelAll()
            return "n/a: the server closed the popup after the press, even a resident one"
        }
        try server.press(label: MatrixTestsLabels.soon, key: "soon", notification: serverID)
        try session.waitForDaemonLog(containing: "Ignored 'soon' on \(id)")
        let copies = try session.run(["chime", "list", "--json"]).stdout.components(separatedBy: "\"origin\": \"\(id)\"").count - 1
        try expect(copies == 1, "\(copies) snoozed copies after two presses")
        try cancelAll()
        return ""
    }

    func expiry() throws -> String {
        let id = try schedule("'title': <'Matrix expiry'>, 'expires': <3000>")
        let serverID = try require(try shown("Matrix expiry").id)
        _ = try monitor.waitForLine(containing: "Closed ('\(id)', uint32 1)")
        let reasons = recorder.closedReasons(of: serverID)
        return recorder.closeRequested(serverID) && reasons.first != 1
            ? "had not closed it when expire_timeout ran out: Chime closed it (server reason \(reasons.first.map(String.init) ?? "none"))"
            : ""
    }

    func restart() throws -> String {
        let id = try schedule("'title': <'Matrix restart'>, 'category': <'matrix'>")
        _ = try shown("Matrix restart")
        try server.crashAndRestart()
        let again = try shown("Matrix restart", count: 2)
        guard hasActions else { return "" }
        try server.press(label: "Complete", key: "complete", notification: try require(again.id))
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'complete'")
        return ""
    }

    /// chimed stopped (`signal`) while a popup with buttons is on screen and started
    /// again by the next call: the server still shows the popup, and a press on it reaches
    /// the new chimed and acts once. dunst and GNOME Shell send a press only to the
    /// connection that posted the popup last, so this holds only if chimed took it over.
    func takeover(after signal: Int32) throws -> String {
        guard hasActions else { return "n/a: the server has no actions" }
        let title = "Matrix takeover \(signal)"
        let id = try schedule("'title': <'\(title)'>, 'repeat': <'minute'>, 'category': <'matrix'>")
        let before = try require(try shown(title).id)
        try session.killDaemon(signal: signal)
        _ = try session.run(["chime", "list"])
        var again = try shown(title, count: 2)
        var note = ""
        if information.first == "gnome-shell" {
            // Its update in place loses the banner's buttons: posted afresh after that (Presenter+Takeover).
            try expect(again.id == before, "probed as server id \(again.id.map(String.init) ?? "none"), not in place of \(before)")
            again = try shown(title, count: 3)
            try expect(recorder.closeRequested(before), "the popup taken over afresh was not closed")
            note = "an update in place loses its buttons: taken over afresh"
        } else {
            try expect(again.id == before, "taken over as server id \(again.id.map(String.init) ?? "none"), not in place of \(before)")
        }
        try server.press(label: "Complete", key: "complete", notification: try require(again.id))
        _ = try monitor.waitForLine(containing: "Completed ('\(id)',)")
        _ = try monitor.waitForLine(containing: "Closed ('\(id)'")
        let state = try state(of: id)
        try expect(state == "done", "the series is still \(state) after Complete")
        let presses = monitor.lines.count { $0.contains("ActionInvoked ('\(id)', 'complete'") }
        try expect(presses == 1, "the press acted \(presses) times")
        return note
    }

    /// A popup closed while no chimed listened (its `NotificationClosed` went nowhere) is
    /// not brought back by the next chimed's takeover: dunst's history says it was closed;
    /// other servers answer the replaces_id of a popup they no longer show with a new id,
    /// and Chime closes that copy at once.
    func closedWhileStopped() throws -> String {
        guard hasActions else { return "n/a: the server has no actions" }
        let title = "Matrix closed while stopped"
        let id = try schedule("'title': <'\(title)'>, 'category': <'matrix'>")
        let before = try require(try shown(title).id)
        try session.killDaemon()
        _ = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                             "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.CloseNotification", String(before)])
        _ = try recorder.waitForClosed(before)
        _ = try session.run(["chime", "list"])
        let outcome = try session.waitForDaemonLog(containingAnyOf: [
            "\(id) was closed while chimed was stopped", "\(id) was no longer on screen", "Took over \(id)",
        ])
        if outcome.hasPrefix("Took over") {
            // The server took the replaces_id of a popup it no longer shows as its own id
            // again and gave no other sign: chime doctor must name that quirk (below).
            seen.keys.insert("shows-closed-popup-again")
            return "n/a: the server shows a popup closed while chimed was stopped again when chimed starts"
        }
        guard outcome.contains("no longer on screen") else { return "" }
        let copy = try require(try shown(title, count: 2).id)
        _ = try recorder.waitForClosed(copy)
        return "shows a copy of a closed popup for a moment: Chime closes it"
    }

    /// `chime doctor` names the popup quirks the steps above saw this server show, and
    /// no other: what it tells a user about their server is what the server does.
    func doctor() throws -> String {
        let report = try session.run(["chime", "doctor", "--json"])
        let json = try require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any], "doctor --json: \(report)")
        let server = try require(json["notificationServer"] as? [String: Any], "no notificationServer in \(report.stdout)")
        let quirks = try require(server["quirks"] as? [[String: Any]], "no quirks in \(report.stdout)")
        let named = Set(quirks.compactMap { $0["key"] as? String })
        let observable: Set = ["keeps-popup-after-click", "keeps-popup-after-button", "closes-resident-popup",
                              "shows-closed-popup-again"]
        let checked = hasActions ? observable : ["keeps-popup-after-click"]
        try expect(named.intersection(checked) == seen.keys.intersection(checked),
                   "doctor names \(named.intersection(checked).sorted()), the server showed \(seen.keys.sorted())")
        let text = try session.run(["chime", "doctor"]).stdout
        for quirk in quirks {
            let what = try require(quirk["what"] as? String)
            try expect(text.contains(what), "chime doctor does not say '\(what)':\n\(text)")
        }
        return ""
    }

    /// Whether the server closed a popup itself after the press or left it to Chime.
    func closedBy(_ serverID: UInt32) -> String {
        guard !recorder.closedByServer(serverID) else { return "closes the popup itself after a button" }
        seen.keys.insert("keeps-popup-after-button")
        return "keeps the popup after a button: Chime closes it"
    }

    /// Leaves nothing behind for the next step: nothing scheduled, nothing on screen.
    func cleanUp() throws {
        try cancelAll()
        for id in Set(recorder.notifications().compactMap(\.id)) where recorder.closedReasons(of: id).isEmpty {
            _ = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                                 "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.CloseNotification", String(id)])
        }
        try recorder.catchUp(on: session)
    }

    func cancelAll() throws {
        _ = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                             "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.CancelAll"])
    }

    func expect(_ condition: Bool, _ failure: @autoclosure () -> String) throws {
        guard condition else { throw TestFailure.failed(failure()) }
    }

    func require<T>(_ value: T?, _ failure: @autoclosure () -> String = "missing value") throws -> T {
        guard let value else { throw TestFailure.failed(failure()) }
        return value
    }
}

/// Quirk keys the steps saw, shared by the steps of one run.
private final class SeenQuirks {
    var keys: Set<String> = []
}

private enum MatrixTestsLabels {
    static let soon = ServerMatrixTests.soonLabel
}
