import Foundation
import Testing
import TestSupport

/// Buttons with handlers: the built-in reminder category's Complete and Remind.
@Suite(.timeLimit(.minutes(10)))
struct ActionTests {
    @Test func reminderShowsCompleteAndRemindButtons() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "notify", "-c", "reminder", "Pay rent"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete', 'remind', 'Remind in 30 minutes']>"), "\(call)")
        // The category still reaches the server as the standard hint.
        #expect(call.contains("'category': <'reminder'>"))
    }

    @Test func remindSchedulesACopyAndLeavesTheSeriesAlone() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Stretch", "Stand up", "--in", "1s", "--repeat", "hour", "--category", "reminder",
                         "--user-info", "task=7")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
        _ = try session.waitForNotifyCalls(1)
        let before = try #require(try session.listedJSON().first { $0["id"] as? String == id })

        let pressed = Date()
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'remind'>]")
        let signal = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'remind'")
        #expect(signal.contains("{'task': <'7'>}"))

        // chimed stages the copy while handling the press and commits it before it reads
        // the next call, so a list made after the signal sees it.
        let snoozed = try #require(try session.listedJSON().first { $0["origin"] as? String == id })
        #expect(snoozed["title"] as? String == "Stretch")
        #expect(snoozed["body"] as? String == "Stand up")
        #expect((snoozed["userInfo"] as? [String: Any])?["task"] as? String == "7")
        #expect(snoozed["repeat"] == nil)
        let due = try #require(snoozed["nextFire"] as? Int)
        #expect(abs(Double(due) - pressed.addingTimeInterval(30 * 60).timeIntervalSince1970) < 5)
        // The hourly series keeps its own next time.
        let after = try #require(try session.listedJSON().first { $0["id"] as? String == id })
        #expect(after["nextFire"] as? Int == before["nextFire"] as? Int)
    }

    @Test func completeEndsTheSeriesAndItsSnoozedCopies() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Pills", "--in", "1s", "--repeat", "day", "--category", "reminder")
        _ = try session.waitForNotifyCalls(1)
        #expect(try session.run(["chime", "act", id, "remind"]).status == 0)
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'remind'")

        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        let completed = try monitor.waitForLine(containing: "Completed")
        #expect(completed.contains("('\(id)',)"))
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        let shown = try session.run(["chime", "show", id]).stdout
        #expect(shown.contains("completed:"), "\(shown)")
    }

    @Test func actRefusesUnknownIdsAndKeys() throws {
        let session = try TestSession()
        let id = try session.add("Plain", "--in", "1h")
        let missing = try session.run(["chime", "act", "nosuchid", "complete"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "chime: No notification has the id 'nosuchid'.\n")
        let wrong = try session.run(["chime", "act", id, "complete"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr == "chime: 'complete' is not an action of \(id); it has none.\n")
    }
}

/// App icon badges, announced to docks.
@Suite(.timeLimit(.minutes(10)))
struct BadgeTests {
    @Test func badgeIsSetReadAndAnnounced() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        #expect(try session.run(["chime", "badge", "--app", "org.example.Todo", "3"]).status == 0)
        let update = try monitor.waitForLine(containing: "LauncherEntry.Update")
        #expect(update.contains("('application://org.example.Todo.desktop', {'count': <int64 3>, 'count-visible': <true>})"), "\(update)")
        #expect(try session.run(["chime", "badge", "--app", "org.example.Todo"]).stdout == "3\n")
    }

    @Test func firingSetsTheBadgeAndCompleteLowersIt() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Buy milk", "--in", "1s", "--badge", "2", "--desktop-entry", "org.example.Todo", "--category", "reminder")
        let set = try monitor.waitForLine(containing: "LauncherEntry.Update")
        #expect(set.contains("{'count': <int64 2>, 'count-visible': <true>}"), "\(set)")

        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        _ = try monitor.waitForLine(containing: "Completed")
        #expect(try session.run(["chime", "badge", "--app", "org.example.Todo"]).stdout == "1\n")
        let updates = monitor.lines.filter { $0.contains("LauncherEntry.Update") }
        #expect(updates.last?.contains("{'count': <int64 1>, 'count-visible': <true>}") == true, "\(updates)")
    }

    @Test func zeroHidesTheBadgeAndBadEntriesAreRefused() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        #expect(try session.run(["chime", "badge", "--app", "org.example.Todo", "0"]).status == 0)
        let update = try monitor.waitForLine(containing: "LauncherEntry.Update")
        #expect(update.contains("'count-visible': <false>"))
        let bad = try session.run(["chime", "badge", "--app", "../etc/passwd", "1"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("is not a desktop entry id"))
    }
}
