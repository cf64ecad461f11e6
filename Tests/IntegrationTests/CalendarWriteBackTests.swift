import Foundation
import Testing
import TestSupport

/// What is pressed on a reminder from a followed folder goes back into its item, as other
/// clients read it: Complete on a task, an acknowledgement, a snooze (RFC 9074), written
/// as a patch of the file's own text.
@Suite(.timeLimit(.minutes(10)))
struct CalendarWriteBackTests {
    static func utc(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// A followed folder `name` holding `file` with `text`.
    func follow(_ session: TestSession, _ name: String, _ file: String, _ text: String) throws -> URL {
        let folder = session.directory.appendingPathComponent("calendars/\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
        let add = try session.run(["chime", "calendar", "add", "--vdir", folder.path])
        guard add.status == 0 else { throw TestFailure.failed("\(add)") }
        return folder.appendingPathComponent(file)
    }

    /// Waits until `file` holds `fragment`.
    func waitForFile(_ file: URL, containing fragment: String, timeout: TimeInterval = 60) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            if text.contains(fragment) { return text }
            guard Date() < deadline else { throw TestFailure.timeout("'\(fragment)' in \(file.path):\n\(text)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func onlyID(_ session: TestSession) throws -> String {
        let list = try session.listedJSON()
        guard list.count == 1, let id = list[0]["id"] as? String else { throw TestFailure.failed("one reminder, not \(list)") }
        return id
    }

    @Test func completeOnATaskWritesItCompletedAndKeepsTheRestOfTheFile() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let task = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils.org//todoman//EN", "BEGIN:VTODO", "UID:rent@example.org",
                    "DTSTAMP:20261101T100000Z", "SUMMARY:Pay the rent", "DESCRIPTION:A description long enough to be folded by th",
                    " e writer that made it.", "X-OTHER-CLIENT;X-P=\"a:b\":kept", "DUE:" + Self.utc(Date().addingTimeInterval(2)),
                    "STATUS:NEEDS-ACTION", "END:VTODO", "END:VCALENDAR", ""].joined(separator: "\r\n")
        let file = try follow(session, "tasks", "rent.ics", task)
        let id = try onlyID(session)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'complete', 'Complete', 'remind', 'Remind in 30 minutes'"), "\(call)")

        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        _ = try monitor.waitForLine(containing: "Completed ('\(id)',)")
        let text = try waitForFile(file, containing: "STATUS:COMPLETED")
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.contains("PERCENT-COMPLETE:100") && lines.contains("SEQUENCE:1") && !lines.contains("STATUS:NEEDS-ACTION"), "\(text)")
        #expect(lines.contains { $0.hasPrefix("COMPLETED:") && $0.hasSuffix("Z") }, "\(text)")
        #expect(text.contains("folded by th\r\n e writer") && text.contains("X-OTHER-CLIENT;X-P=\"a:b\":kept\r\n"), "\(text)")
        // Read again, the completed task rings nothing and stays completed in Chime.
        try session.waitForLog("Calendar tasks: read 1 files", times: 2)
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        #expect(try session.run(["chime", "show", id]).stdout.contains("completed:"))
        #expect(try session.notifyCalls().count == 1)
    }

    /// Complete on a repeating task completes the occurrence that rang, as a RECURRENCE-ID
    /// override in the file; the series rings on, in Chime and in the calendar.
    @Test func completeOnARepeatingTaskCompletesTheOccurrenceAndTheSeriesGoesOn() throws {
        let session = try TestSession()
        let due = Date().addingTimeInterval(2)
        let task = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VTODO", "UID:plants@example.org", "DTSTAMP:20261101T100000Z",
                    "SUMMARY:Water the plants", "DUE:" + Self.utc(due), "RRULE:FREQ=DAILY", "END:VTODO", "END:VCALENDAR", ""]
            .joined(separator: "\r\n")
        let file = try follow(session, "home", "plants.ics", task)
        let id = try onlyID(session)
        _ = try session.waitForNotifyCalls(1)
        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        let text = try waitForFile(file, containing: "RECURRENCE-ID:" + Self.utc(due))
        #expect(text.hasPrefix(task.replacingOccurrences(of: "END:VCALENDAR\r\n", with: "")), "the series is as it was:\n\(text)")
        #expect(text.contains("STATUS:COMPLETED\r\n") && text.contains("DUE:" + Self.utc(due) + "\r\nSUMMARY:Water the plants"), "\(text)")
        try session.waitForLog("Calendar home: read 1 files", times: 2)
        let series = try session.shownJSON(id)
        #expect(series["state"] as? String == "scheduled" && series["completed"] == nil, "\(series)")
        let next = try #require(series["nextFire"] as? Int)
        #expect(abs(Double(next) - due.addingTimeInterval(86_400).timeIntervalSince1970) < 2, "\(series)")
    }

    /// A file that cannot be written (here a link, which a rename would part from its
    /// target) is named in chime calendar list; what was pressed is kept in Chime all the same.
    @Test func aPressThatCannotBeWrittenIsNamedAndKeptInChime() throws {
        let session = try TestSession()
        let task = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VTODO", "UID:linked@example.org", "DTSTAMP:20261101T100000Z",
                    "SUMMARY:Renew the passport", "DUE:" + Self.utc(Date().addingTimeInterval(2)), "END:VTODO", "END:VCALENDAR", ""]
            .joined(separator: "\r\n")
        let folder = session.directory.appendingPathComponent("calendars/papers")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try task.write(to: folder.appendingPathComponent(".stored"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("passport.ics").path, withDestinationPath: ".stored")
        #expect(try session.run(["chime", "calendar", "add", "--vdir", folder.path]).status == 0)
        let id = try onlyID(session)
        _ = try session.waitForNotifyCalls(1)
        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        let calendars: [[String: Any]] = try session.json(["chime", "calendar", "list", "--json"])
        let problems = calendars.first?["problems"] as? [String] ?? []
        #expect(problems == ["passport.ics: what was pressed was not written: it is not a regular file."], "\(calendars)")
        #expect(try session.run(["chime", "show", id]).stdout.contains("completed:"))
        #expect(try String(contentsOf: folder.appendingPathComponent(".stored"), encoding: .utf8) == task, "the file is as it was")
    }

    /// An item edited a moment after its alarm rang does not ring again, nor after a restart.
    @Test func anItemReadAgainRightAfterItRangDoesNotRingAgain() throws {
        let session = try TestSession()
        func task(_ summary: String, due: Date) -> String {
            ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VTODO", "UID:bins@example.org", "DTSTAMP:20261101T100000Z",
             "SUMMARY:\(summary)", "DUE:" + Self.utc(due), "END:VTODO", "END:VCALENDAR", ""].joined(separator: "\r\n")
        }
        let due = Date().addingTimeInterval(2)
        let file = try follow(session, "chores", "bins.ics", task("Put the bins out", due: due))
        let id = try onlyID(session)
        _ = try session.waitForNotifyCalls(1)
        try task("Put the bins out, both", due: due).write(to: file, atomically: true, encoding: .utf8)
        // Its one alarm is past: there is nothing to schedule, and what rang stays as it was.
        try session.waitForLog("Calendar chores: read 1 files: 0 new, 0 updated, 0 removed", times: 1)
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        #expect(try session.shownJSON(id)["state"] as? String == "done")
        try session.stopDaemon()
        #expect(try session.pingDaemon())
        try session.waitForLog("Calendar chores: watching", times: 2)
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        // The new chimed takes over the popup on screen (replaces_id 1); it shows no new one.
        let shown = try session.notifyCalls().filter { $0.hasPrefix("[<'Chime'>, <uint32 0>") }
        #expect(shown.count == 1, "\(shown)")
    }

    /// Remind in 30 minutes: one snooze on the item (its alarm acknowledged, a sibling alarm
    /// at the new time), read back as the very copy Chime made, before and after a restart.
    @Test func remindWritesOneSnoozeThatIsReadBackAsTheSameReminder() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let start = Date().addingTimeInterval(15 * 60 + 2)
        let event = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN", "BEGIN:VEVENT",
                     "UID:call@example.org", "DTSTAMP:20261101T100000Z", "SUMMARY:Call the garage", "DTSTART:" + Self.utc(start),
                     "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Call", "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT",
                     "END:VCALENDAR", ""].joined(separator: "\r\n")
        let file = try follow(session, "home", "call.ics", event)
        let id = try onlyID(session)
        _ = try session.waitForNotifyCalls(1)

        #expect(try session.run(["chime", "act", id, "remind"]).status == 0)
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'remind'")
        let text = try waitForFile(file, containing: "RELATED-TO;RELTYPE=SNOOZE:")
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.filter { $0 == "BEGIN:VALARM" }.count == 2, "\(text)")
        #expect(lines.contains { $0.hasPrefix("ACKNOWLEDGED:") } && lines.contains { $0.hasPrefix("X-MOZ-SNOOZE-TIME:") }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("TRIGGER;VALUE=DATE-TIME:") }, "\(text)")

        try session.waitForLog("Calendar home: read 1 files", times: 2)
        let copy = try onlyID(session)
        let snoozed = try session.shownJSON(copy)
        #expect(copy != id && snoozed["origin"] as? String == id, "\(snoozed)")
        let due = try #require(snoozed["nextFire"] as? Int)
        #expect(abs(Double(due) - Date().addingTimeInterval(30 * 60).timeIntervalSince1970) < 60, "\(snoozed)")

        // After a restart the folder is read whole again: still the one snooze, nothing rings.
        try session.stopDaemon()
        #expect(try session.pingDaemon())
        try session.waitForLog("Calendar home: watching", times: 2)
        let listed = try session.listedJSON()
        #expect(listed.count == 1 && listed.first?["id"] as? String == copy, "\(listed)\n\(session.daemonLog)")
        #expect(try session.notifyCalls().count == 1)
    }

    /// A popup dismissed is an alarm seen: acknowledged in the item; one closed by a press is not.
    @Test func aDismissalAcknowledgesTheAlarm() throws {
        let session = try TestSession()
        let start = Date().addingTimeInterval(5 * 60 + 2)
        let event = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:standup@example.org", "DTSTAMP:20261101T100000Z",
                     "SUMMARY:Standup", "DTSTART:" + Self.utc(start), "BEGIN:VALARM", "UID:alarm-1", "ACTION:DISPLAY",
                     "DESCRIPTION:Standup", "TRIGGER:-PT5M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\n")
        let file = try follow(session, "work", "standup.ics", event)
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 1>, <uint32 2>]")
        let text = try waitForFile(file, containing: "ACKNOWLEDGED:")
        let alarm = text.components(separatedBy: "BEGIN:VALARM\n").last ?? ""
        #expect(alarm.hasPrefix("UID:alarm-1\n") && alarm.contains("\nACKNOWLEDGED:"), "\(text)")
        #expect(text.contains("\nX-MOZ-LASTACK:") && !text.contains("\r"), "\(text)")
        try session.waitForLog("Calendar work: read 1 files", times: 2)
        #expect(try session.notifyCalls().count == 1)
    }
}
