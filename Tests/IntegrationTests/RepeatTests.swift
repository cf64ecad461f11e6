import Foundation
import Testing
import TestSupport

/// Repeats as calendars offer them, through the real chime and chimed: the words and
/// options a user types, the RRULE they are stored and shown as, and skipped occurrences.
@Suite(.timeLimit(.minutes(10)))
struct RepeatTests {
    /// The `time` fields of `chime next … --json`, in the session's zone (Berlin).
    func nextTimes(_ session: TestSession, _ arguments: String...) throws -> [String] {
        let result = try session.run(["chime", "next"] + arguments + ["--json"])
        #expect(result.status == 0, "\(result)")
        return result.stdout.components(separatedBy: "\"time\": \"").dropFirst().map { String($0.prefix(19)) }
    }

    /// The RRULE `chime show` prints for `id`.
    func shownRule(_ session: TestSession, _ id: String) throws -> String {
        let shown = try session.run(["chime", "show", id]).stdout.split(separator: "\n")
        return shown.first { $0.hasPrefix("rrule:") }.map { $0.dropFirst(6).trimmingCharacters(in: .whitespaces) } ?? ""
    }

    @Test(arguments: [
        (["--repeat", "daily"], "FREQ=DAILY", "every day"),
        (["--repeat", "weekly", "--on", "mon,wed,fri"], "FREQ=WEEKLY;BYDAY=MO,WE,FR", "every Mon, Wed, Fri"),
        (["--repeat", "week", "--on", "weekdays", "--count", "10"], "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=10", "every weekday, 10 times"),
        (["--repeat", "week", "--on", "weekdays", "--until", "2030-06-30"], "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20300630T235959",
         "every weekday until 30 Jun 2030"),
        (["--repeat", "monthly", "--on", "2nd tue", "--count", "10"], "FREQ=MONTHLY;BYDAY=2TU;COUNT=10", "2nd Tuesday, 10 times"),
        (["--repeat", "monthly", "--on", "last fri", "--until", "2030-12-31"], "FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20301231T235959",
         "last Friday until 31 Dec 2030"),
        (["--repeat", "monthly", "--on", "last day"], "FREQ=MONTHLY;BYMONTHDAY=-1", "last day of the month"),
        (["--repeat", "2 weeks", "--on", "tue"], "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", "every 2 weeks on Tue"),
        (["--repeat", "week", "--every", "2"], "FREQ=WEEKLY;INTERVAL=2", "every 2 weeks"),
        (["--rrule", "RRULE:FREQ=YEARLY;COUNT=3"], "FREQ=YEARLY;COUNT=3", "every year, 3 times"),
    ])
    func repeatOptionsAreStoredAsAnRRULEAndListedInWords(options: [String], rrule: String, words: String) throws {
        let session = try TestSession()
        let added = try session.run(["chime", "add", "Repeat", "--at", "2030-01-07 09:00"] + options)
        #expect(added.status == 0, "\(added)")
        let id = added.stdout.split(separator: " ").first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        #expect(try shownRule(session, id) == rrule)
        // The list says it in words, never as the rule; show says both.
        let row = try session.run(["chime", "list"]).stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(row.hasSuffix("  " + words), "\(row)")
        #expect(!row.contains("FREQ="), "\(row)")
        let shown = try session.run(["chime", "show", id]).stdout.split(separator: "\n")
        #expect(shown.contains { $0.hasPrefix("repeats:") && $0.hasSuffix(" " + words) }, "\(shown)")
    }

    @Test func nextHonoursDaysAndTheEnd() throws {
        let session = try TestSession()
        #expect(try nextTimes(session, "2030-01-07 09:00", "--repeat", "weekly", "--on", "mon,wed", "--until", "2030-01-16") == [
            "2030-01-07T09:00:00", "2030-01-09T09:00:00", "2030-01-14T09:00:00", "2030-01-16T09:00:00",
        ])
        #expect(try nextTimes(session, "2030-01-01 18:00", "--repeat", "monthly", "--on", "last fri", "--count", "3") == [
            "2030-01-25T18:00:00", "2030-02-22T18:00:00", "2030-03-29T18:00:00",
        ])
        #expect(try nextTimes(session, "2030-01-15 08:00", "--repeat", "month", "--on", "last-day", "-n", "3") == [
            "2030-01-31T08:00:00", "2030-02-28T08:00:00", "2030-03-31T08:00:00",
        ])
    }

    /// Eight digits are shaped as an id too; when no notification has them, they are a time.
    @Test func digitsThatAreNoIdAreReadAsATime() throws {
        let session = try TestSession()
        let next = try session.run(["chime", "next", "20301231"])
        #expect(!next.stderr.contains("No notification has the id"), "\(next)")
    }

    @Test(arguments: [
        ("'on': <'thursdays'>", "on: 'thursdays' is not a day to repeat on"),
        ("'on': <'mon'>, 'repeat': <'month'>", "on: weekdays need a weekly repeat."),
        ("'count': <0>", "count: must be between 1 and 1000000, not 0."),
        ("'count': <'three'>", "count: 'three' is not a whole number."),
        ("'until': <'someday'>", "until: 'someday' is not a date or time"),
        ("'until': <'2029-01-01'>", "until: ends before the first occurrence"),
        ("'rrule': <'FREQ=SECONDLY'>", "rrule: needs FREQ"),
        ("'rrule': <'FREQ=DAILY;BYSETPOS=1'>", "rrule: BYSETPOS is not supported"),
    ])
    func badRepeatValuesAreInvalidArgsNamingTheKey(fields: String, sentence: String) throws {
        let session = try TestSession()
        let repeatUnit = fields.contains("'repeat'") || fields.contains("'rrule'") ? "" : ", 'repeat': <'week'>"
        let sent = try session.callScheduler("Schedule", "{'title': <'T'>, 'when': <'2030-01-07 09:00'>\(repeatUnit), \(fields)}")
        #expect(sent.status != 0)
        #expect(sent.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: \(sentence)"), "\(sent)")
    }

    @Test func aBadDayOnTheCommandLineIsOneSentence() throws {
        let session = try TestSession()
        let added = try session.run(["chime", "add", "T", "--at", "2030-01-07 09:00", "--repeat", "week", "--on", "someday"])
        #expect(added.status == 64, "\(added)")
        #expect(added.stderr.contains("on: 'someday' is not a day to repeat on") && added.stderr.split(separator: "\n").count == 1,
                "\(added)")
    }

    /// A skip leaves one occurrence out, keeps the series and its count, survives a restart
    /// of chimed, and `chime next ID` shows what is left.
    @Test func skipLeavesOneOccurrenceOutAndTheSeriesGoesOn() throws {
        let session = try TestSession()
        let id = try session.add("Gym", "--at", "2030-01-07 18:00", "--repeat", "weekly", "--on", "mon,thu", "--count", "5")
        #expect(try nextTimes(session, id) == [
            "2030-01-07T18:00:00", "2030-01-10T18:00:00", "2030-01-14T18:00:00", "2030-01-17T18:00:00", "2030-01-21T18:00:00",
        ])
        let first = try session.run(["chime", "skip", id])
        #expect(first.status == 0 && first.stdout.contains("7 Jan 2030"), "\(first)")
        let byNumber = try session.run(["chime", "skip", id, "2"])
        #expect(byNumber.status == 0 && byNumber.stdout.contains("14 Jan 2030"), "\(byNumber)")
        let byDate = try session.run(["chime", "skip", id, "2030-01-21"])
        #expect(byDate.status == 0 && byDate.stdout.contains("21 Jan 2030"), "\(byDate)")
        // Skipped ones still count towards the five.
        #expect(try nextTimes(session, id) == ["2030-01-10T18:00:00", "2030-01-17T18:00:00"])
        let shown = try session.run(["chime", "show", id]).stdout
        #expect(shown.contains("rrule:") && shown.contains("COUNT=5"), "\(shown)")
        #expect(shown.split(separator: "\n").contains { $0.hasPrefix("skipped:") && $0.contains("Mon 7 Jan 2030 18:00") && $0.contains("Mon 21 Jan 2030 18:00") },
                "\(shown)")

        try session.killDaemon()
        #expect(try nextTimes(session, id) == ["2030-01-10T18:00:00", "2030-01-17T18:00:00"])
        let none = try session.run(["chime", "skip", id, "2030-01-08"])
        #expect(none.status == 64 && none.stderr.contains("occurrence: '2030-01-08' is none of the next occurrences"), "\(none)")
    }

    @Test func skippingTheLastLeavesNothingToCome() throws {
        let session = try TestSession()
        let id = try session.add("Once more", "--at", "2030-01-07 18:00", "--repeat", "daily", "--count", "1")
        #expect(try session.run(["chime", "skip", id]).status == 0)
        let next = try session.run(["chime", "next", id])
        #expect(next.status == 1 && next.stderr.contains("never: nothing of '\(id)' is to come."), "\(next)")
        let oneShot = try session.add("One-shot", "--at", "2030-01-07 18:00")
        let refused = try session.run(["chime", "skip", oneShot])
        #expect(refused.status == 64 && refused.stderr.contains("does not repeat"), "\(refused)")
    }

    /// The skipped occurrence is not shown; the one after it is, at its time.
    @Test func aSkippedOccurrenceDoesNotFire() throws {
        let session = try TestSession()
        let start = Date().addingTimeInterval(20)
        let id = try session.add("Stretch", "--at", "in 20s", "--repeat", "minute", "--count", "2")
        let skipped = try session.run(["chime", "skip", id])
        #expect(skipped.status == 0, "\(skipped)")
        let calls = try session.waitForNotifyCalls(1, timeout: 180)
        // The first Notify call can only be the second occurrence, a minute after the first.
        #expect(Date() >= start.addingTimeInterval(59), "fired at \(Date()), the skipped one was due at \(start)")
        #expect(calls.count == 1 && calls[0].contains("'Stretch'"), "\(calls)")
    }
}
