import Foundation
import Testing
import TestSupport

/// `chime log`: the history chimed keeps, through the real daemon and notification server.
@Suite(.timeLimit(.minutes(10)))
struct LogTests {
    /// `chime log --json` with `arguments`, parsed.
    func events(_ session: TestSession, _ arguments: String...) throws -> [[String: Any]] {
        let result = try session.run(["chime", "log", "--json"] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("chime log failed: \(result)") }
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    }

    /// Each event as "event id action", for comparing sequences.
    func summary(_ events: [[String: Any]]) -> [String] {
        events.map { event in
            ["event", "id", "action"].compactMap { event[$0] as? String }.joined(separator: " ")
        }
    }

    @Test func firedPressedCompletedClosedAndCancelledShowNewestFirstAndSurviveARestart() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let started = Int(Date().timeIntervalSince1970)
        let id = try session.add("Tea", "Steeped", "--in", "1s", "--category", "reminder")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
        _ = try session.waitForNotifyCalls(1)

        // The user presses Remind on the server (Chime then closes the popup), then
        // Complete through chime act.
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'remind'>]")
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'remind'")
        _ = try monitor.waitForLine(containing: "Closed ('\(id)', uint32 2)")
        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        _ = try monitor.waitForLine(containing: "Completed ('\(id)'")
        let other = try session.add("Later", "--in", "1h")
        #expect(try session.run(["chime", "cancel", other]).status == 0)

        let log = try events(session)
        #expect(summary(log) == [
            "cancelled \(other)", "completed \(id)", "pressed \(id) complete", "closed \(id)", "snoozed \(id)",
            "pressed \(id) remind", "fired \(id)",
        ], "\(log)")
        for event in log {
            #expect(event["title"] as? String == (event["id"] as? String == other ? "Later" : "Tea"))
            let timestamp = try #require(event["timestamp"] as? Int)
            #expect(timestamp >= started && timestamp <= Int(Date().timeIntervalSince1970))
            let time = try #require(event["time"] as? String)
            #expect(time.hasSuffix("+01:00") || time.hasSuffix("+02:00"), "Berlin's offset: \(time)")
        }
        let snoozed = try #require(log.first { $0["event"] as? String == "snoozed" })
        let copy = try #require(snoozed["copy"] as? String)
        #expect(snoozed["detail"] as? String == "Again in 30 min.")
        #expect(log.first { $0["event"] as? String == "pressed" }?["detail"] as? String == "Complete")
        #expect(log.first { $0["event"] as? String == "closed" }?["detail"] as? String == "Closed after 'Remind in 30 minutes' was pressed.")

        // The table says the same, newest first.
        let table = try session.run(["chime", "log"])
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 8, "\(table)")
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["TIME", "EVENT", "ID", "ACTION", "TITLE"])
        #expect(lines[1].contains("cancelled") && lines[1].contains(other) && lines[1].hasSuffix("Later"), "\(table)")
        #expect(lines[3].contains("pressed") && lines[3].contains("complete") && lines[3].hasSuffix("Tea (Complete)"), "\(table)")
        #expect(lines[5].contains("as \(copy)"), "\(table)")

        // --limit keeps the newest; --id follows one notification and its snoozed copy.
        #expect(summary(try events(session, "--limit", "2")) == ["cancelled \(other)", "completed \(id)"])
        #expect(summary(try events(session, "--id", other)) == ["cancelled \(other)"])
        #expect(summary(try events(session, "--id", copy)) == Array(summary(log).dropFirst()))

        // The history is in the store: a new chimed has it all.
        try session.killDaemon()
        #expect(summary(try events(session)) == summary(log))
    }

    @Test func missedWhileStoppedIsLoggedLate() throws {
        let session = try TestSession()
        let id = try session.add("Missed", "--in", "1s")
        let due = Date().addingTimeInterval(1)
        try session.killDaemon(signal: SIGTERM)
        // Time has to pass for a notification to be missed: there is no event to await.
        Thread.sleep(until: due.addingTimeInterval(4))

        let log = try events(session)
        #expect(summary(log) == ["late \(id)"], "\(log)")
        let detail = try #require(log.first?["detail"] as? String)
        #expect(detail.hasPrefix("Due ") && detail.hasSuffix(" s ago."), "\(detail)")
    }

    /// A past time allowed fires once, late: the popup, its hint and `chime log` state the
    /// same delay, in years, never in thousands of days.
    @Test func aPastTimeAllowedIsLateByWhatThePopupAndTheLogBothSay() throws {
        let session = try TestSession()
        let due = try session.instant(wallClock: "2020-01-01 10:00")
        let added = try session.run(["chime", "add", "Typo", "--at", "2020-01-01 10:00", "--allow-past"])
        #expect(added.status == 0 && added.stdout.contains("  "), "an id and a time, not a bare id: \(added)")
        let id = String(added.stdout.prefix { $0 != " " })
        let said = "Due \(session.yearsSince(due)) years ago."
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'\(said)'>"), "\(call)")
        let hint = try #require(call.firstMatch(of: /'x-chime-late-seconds': <(?:int32 )?(\d+)>/), "\(call)")
        let seconds = try #require(Double(hint.1))
        #expect(abs(seconds - Date().timeIntervalSince(due)) < 120, "\(call)")

        let log = try events(session)
        #expect(summary(log) == ["late \(id)"], "\(log)")
        #expect(log.first?["detail"] as? String == said, "\(log)")
        #expect(try session.notifyCalls().count == 1)
    }

    /// A title too long for the terminal is cut, as in chime list; into a pipe it is whole.
    @Test func aLongTitleIsCutToTheTerminalsWidth() throws {
        let session = try TestSession()
        let title = "Renew the passport before the summer holidays, and the photos for it first"
        #expect(try session.run(["chime", "cancel", try session.add(title, "--in", "1h")]).status == 0)
        let narrow = try Spawned([binDirectory.appendingPathComponent("chime").path, "log"],
                                 environment: session.environment.merging(["COLUMNS": "80"]) { $1 }).finish()
        let lines = narrow.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.count <= 80 } && lines[1].hasSuffix("…"), "\(narrow)")
        #expect(try session.run(["chime", "log"]).stdout.contains(title))
    }

    @Test func anEmptyHistorySaysSo() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "log"]).stdout == "Nothing has happened yet.\n")
        #expect(try session.run(["chime", "log", "--json"]).stdout == "[]\n")
        let quiet = try session.add("Quiet", "--in", "1h")
        #expect(try session.run(["chime", "log", "--id", quiet]).stdout == "Nothing has happened to \(quiet) yet.\n")
    }

    @Test(arguments: [["--limit", "0"], ["--limit", "10001"], ["--limit", "-3"], ["--limit", "many"], ["--limit"]])
    func badLimitsAreUsageErrors(arguments: [String]) throws {
        let session = try TestSession(capabilities: nil)
        let result = try session.run(["chime", "log"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(result.stderr.contains("limit"), "\(result)")
    }

    @Test func unknownIdsAndLimitsOverTheBusAreRefused() throws {
        let session = try TestSession(capabilities: nil)
        let missing = try session.run(["chime", "log", "--id", "nosuchid"])
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr == "chime: No notification has the id 'nosuchid'.\n")
        let tooMany = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                       "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.History", "20000"])
        #expect(tooMany.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: limit must be at most 10000, not 20000"),
                "\(tooMany)")
        let json = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                    "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.HistoryJSON", "0"])
        #expect(json.stdout == "('[]',)\n", "\(json)")
    }
}
