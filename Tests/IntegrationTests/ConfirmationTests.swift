import Foundation
import Testing
import TestSupport

/// Every command that changes something says so in one line, with the time as it will
/// fire; the one that changes everything asks first.
@Suite(.timeLimit(.minutes(10)))
struct ConfirmationTests {
    @Test func editSaysWhenItFiresNow() throws {
        let session = try TestSession()
        let id = try session.add("Tea", "--at", "2030-01-31 08:00")
        let edited = try session.run(["chime", "edit", id, "--at", "2030-02-01 09:30"])
        #expect(edited.status == 0 && edited.stdout.hasPrefix("\(id)  Fri 1 Feb 2030 09:30 (in "), "\(edited)")
        #expect(edited.stdout.split(separator: "\n").count == 1, "\(edited)")
        let json: [String: Any] = try session.json(["chime", "edit", id, "--title", "Coffee", "--json"])
        #expect(json["id"] as? String == id && (json["nextFireLocal"] as? String)?.hasPrefix("2030-02-01T09:30:00") == true, "\(json)")
    }

    @Test func cancelByIdNamesWhatWent() throws {
        let session = try TestSession()
        let tea = try session.add("Tea", "--in", "1h")
        let cake = try session.add("Cake", "--in", "2h")
        let one = try session.run(["chime", "cancel", tea])
        #expect(one.status == 0 && one.stdout == "Cancelled \(tea) \"Tea\".\n", "\(one)")
        let other = try session.add("Scones", "--in", "3h")
        let two = try session.run(["chime", "cancel", cake, other])
        #expect(two.stdout == "Cancelled 2: \(cake) \"Cake\", \(other) \"Scones\".\n", "\(two)")
    }

    /// A script has no terminal to be asked on: it says --yes, or nothing goes.
    @Test func cancelAllWithoutATerminalNeedsYes() throws {
        let session = try TestSession()
        try session.addReminders(2)
        let refused = try session.run(["chime", "cancel", "--all"])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr == "chime: chime cancel --all cancels every reminder; give --yes as well to do it without a terminal to ask on.\n",
                "\(refused)")
        #expect(try session.listedTitles().count == 2)
        let done = try session.run(["chime", "cancel", "--all", "--yes"])
        #expect(done.status == 0 && done.stdout == "Cancelled 2.\n", "\(done)")
        #expect(try session.listedTitles().isEmpty)
    }

    /// On a terminal (script(1) gives chime one) it asks, and only a yes cancels.
    @Test(arguments: [("n", false), ("", false), ("y", true)])
    func cancelAllOnATerminalAsks(answer: String, cancels: Bool) throws {
        let session = try TestSession()
        try session.addReminders(3)
        let chime = binDirectory.appendingPathComponent("chime").path
        let asked = try session.run(["script", "-qec", "\(chime) cancel --all", "/dev/null"], stdin: answer + "\n")
        #expect(asked.stdout.contains("Cancel all 3 scheduled notifications? [y/N]"), "\(asked)")
        #expect(asked.status == (cancels ? 0 : 1), "\(asked)")
        #expect(asked.stdout.contains(cancels ? "Cancelled 3." : "Nothing cancelled."), "\(asked)")
        #expect(try session.listedTitles().count == (cancels ? 0 : 3))
    }

    @Test func skipSaysWhatWentAndWhatIsNext() throws {
        let session = try TestSession()
        let id = try session.add("Gym", "--at", "2030-01-07 18:00", "--repeat", "weekly", "--on", "mon,thu")
        let skipped = try session.run(["chime", "skip", id])
        #expect(skipped.status == 0, "\(skipped)")
        #expect(skipped.stdout.hasPrefix("Skipped Mon 7 Jan 2030 18:00; next Thu 10 Jan 2030 18:00 (in "), "\(skipped)")
        let json: [String: Any] = try session.json(["chime", "skip", id, "--json"])
        let skippedLocal = json["skippedLocal"] as? String ?? "", nextLocal = json["nextFireLocal"] as? String ?? ""
        #expect(skippedLocal.hasPrefix("2030-01-10T18:00:00") && nextLocal.hasPrefix("2030-01-14T18:00:00"), "\(json)")
    }

    @Test func snoozeSaysWhenTheCopyFires() throws {
        let session = try TestSession()
        let id = try session.run(["chime", "notify", "-p", "Kettle"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        let snoozed = try session.run(["chime", "snooze", id, "10m"])
        let words = snoozed.stdout.split(separator: " ", omittingEmptySubsequences: true)
        #expect(snoozed.status == 0 && words.first?.count == 8 && snoozed.stdout.hasSuffix("(in 10 minutes)\n"), "\(snoozed)")
    }

    /// Remind puts off what is on screen; before the reminder fires it is refused, and
    /// no copy is made that would ring beside it.
    @Test func remindBeforeItFiresIsRefused() throws {
        let session = try TestSession()
        let id = try session.add("Bins out", "--in", "1h", "--category", "reminder")
        let refused = try session.run(["chime", "act", id, "remind"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr == "chime: \(id) has not fired yet, so remind has nothing to put off; to move it, use chime edit \(id) --at TIME.\n",
                "\(refused)")
        #expect(try session.listedTitles() == ["Bins out"])
        let bus = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                   "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.InvokeAction", id, "remind"])
        #expect(bus.status != 0 && bus.stderr.contains("io.github.chime.Error.NotShown"), "\(bus)")
        let pressed = try session.run(["chime", "act", id, "complete"])
        #expect(pressed.status == 0 && pressed.stdout == "Pressed complete on \(id).\n", "\(pressed)")
    }

    @Test func importJSONIsAnArrayOfWhatWasScheduled() throws {
        let session = try TestSession()
        let ics = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Example//EN\r
            BEGIN:VEVENT\r
            UID:a@example.org\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20300301T090000\r
            SUMMARY:Dentist\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:b@example.org\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20300302T100000\r
            SUMMARY:Barber\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let imported = try session.run(["chime", "import", "--json", "-"], stdin: ics)
        #expect(imported.status == 0, "\(imported)")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [[String: Any]], "\(imported)")
        #expect(objects.map { $0["title"] as? String } == ["Dentist", "Barber"], "\(imported)")
        #expect(objects.map { ($0["nextFireLocal"] as? String)?.prefix(19) } == ["2030-03-01T09:00:00", "2030-03-02T10:00:00"], "\(imported)")
    }
}
