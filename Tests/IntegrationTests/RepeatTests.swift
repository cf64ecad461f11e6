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
    /// A rule with BYSETPOS, which Chime's days cannot say: taken by `add` and `next`, stored
    /// as it was given, listed as itself, its occurrences those of RFC 5545.
    @Test func theLastWorkDayOfTheMonthIsTakenAndListed() throws {
        let session = try TestSession()
        let rule = "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"
        let expected = ["2030-01-31T16:00:00", "2030-02-28T16:00:00", "2030-03-29T16:00:00", "2030-04-30T16:00:00"]
        #expect(try nextTimes(session, "2030-01-01 16:00", "--rrule", rule, "-n", "4") == expected)
        let added = try session.run(["chime", "add", "Timesheet", "--at", "2030-01-01 16:00", "--rrule", rule])
        #expect(added.status == 0, "\(added)")
        let id = added.stdout.split(separator: " ").first.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        #expect(try shownRule(session, id) == rule)
        #expect(try nextTimes(session, id, "-n", "4") == expected)
        let row = try session.run(["chime", "list"]).stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(row.hasSuffix("  " + rule), "\(row)")
    }

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
        ("'rrule': <'FREQ=SECONDLY'>", "rrule: 'FREQ=SECONDLY' is not a frequency Chime repeats by; use FREQ=MINUTELY,"),
        ("'rrule': <'INTERVAL=2'>", "rrule: needs FREQ: MINUTELY,"),
        ("'rrule': <'FREQ=DAILY;BYSETPOS=1'>", "rrule: BYSETPOS needs another BY part to pick from (RFC 5545 3.3.10)."),
        ("'rrule': <'FREQ=MONTHLY;BYMONTHDAY=0'>", "rrule: BYMONTHDAY=0 is not a day of a month; use 1 to 31 or -31 to -1."),
    ])
    func badRepeatValuesAreInvalidArgsNamingTheKey(fields: String, sentence: String) throws {
        let session = try TestSession()
        let repeatUnit = fields.contains("'repeat'") || fields.contains("'rrule'") ? "" : ", 'repeat': <'week'>"
        let sent = try session.callScheduler("Schedule", "{'title': <'T'>, 'when': <'2030-01-07 09:00'>\(repeatUnit), \(fields)}")
        #expect(sent.status != 0)
        #expect(sent.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: \(sentence)"), "\(sent)")
    }

    /// A repeat begun in the past has missed nothing: it starts at its next occurrence from
    /// now, listed as such, and fires nothing now.
    @Test func aWeeklyRepeatBegunFourWeeksAgoStartsAtItsNextOccurrence() throws {
        let session = try TestSession()
        let first = session.wallClock(Date().addingTimeInterval(-28 * 86_400 + 7_200))
        let added = try session.run(["chime", "add", "Review", "--at", first, "--repeat", "week"])
        #expect(added.status == 0 && added.stdout.contains(" (in "), "\(added)")
        let listed = try session.listedJSON()
        #expect(listed.count == 1 && listed.first?["when"] as? String == first.replacingOccurrences(of: " ", with: "T") + ":00",
                "\(listed)")
        // Four weeks on the wall clock from the first, whatever the clocks did meanwhile.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: session.timeZone))
        let next = try #require(calendar.date(byAdding: .day, value: 28, to: try session.instant(wallClock: first)))
        #expect(listed.first?["nextFire"] as? Int == Int(next.timeIntervalSince1970), "\(listed)")
        let calls = try session.notifyCallsUpToAMarker()
        #expect(calls.count == 1, "only the marker was shown: \(calls)")
    }

    /// A repeat whose every occurrence is past has nothing to fire: refused, naming what
    /// ended it; --allow-past fires it once, late.
    @Test func aRepeatThatEndedInThePastIsRefused() throws {
        let session = try TestSession()
        // Weekly from 38 days ago until 23 days ago: the last was 24 days ago.
        let start = Date().addingTimeInterval(-38 * 86_400)
        let first = session.wallClock(start)
        let until = session.wallClock(start.addingTimeInterval(15 * 86_400)).prefix(10)
        let ended = try session.run(["chime", "add", "Course", "--at", first, "--repeat", "week", "--until", String(until)])
        #expect(ended.status == 64, "\(ended)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: session.timeZone))
        let last = session.wallClock(try #require(calendar.date(byAdding: .day, value: 14, to: try session.instant(wallClock: first))))
        #expect(ended.stderr == "chime: --until '\(until)': the repeat's last occurrence, \(last), is 3 weeks ago: nothing is left to fire.\n", "\(ended)")
        let counted = try session.run(["chime", "add", "Course", "--at", first, "--repeat", "week", "--count", "2"])
        #expect(counted.status == 64 && counted.stderr.hasPrefix("chime: --count '2': the repeat's last occurrence, "), "\(counted)")
        #expect(try session.listedJSON().isEmpty)

        #expect(try session.run(["chime", "add", "Course", "--at", first, "--repeat", "week", "--count", "2", "--allow-past"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Course'>") && call.contains("Due 4 weeks ago."), "the latest missed, 4 weeks ago: \(call)")
    }

    @Test func aBadDayOnTheCommandLineIsOneSentence() throws {
        let session = try TestSession()
        let added = try session.run(["chime", "add", "T", "--at", "2030-01-07 09:00", "--repeat", "week", "--on", "someday"])
        #expect(added.status == 64, "\(added)")
        #expect(added.stderr.hasPrefix("chime: --on 'someday' is not a day to repeat on") && added.stderr.split(separator: "\n").count == 1,
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
        #expect(first.status == 0 && first.stdout.hasPrefix("Skipped Mon 7 Jan 2030 18:00;"), "\(first)")
        let byNumber = try session.run(["chime", "skip", id, "2"])
        #expect(byNumber.status == 0 && byNumber.stdout.hasPrefix("Skipped Mon 14 Jan 2030 18:00;"), "\(byNumber)")
        let byDate = try session.run(["chime", "skip", id, "2030-01-21"])
        #expect(byDate.status == 0 && byDate.stdout.hasPrefix("Skipped Mon 21 Jan 2030 18:00;"), "\(byDate)")
        // Skipped ones still count towards the five.
        #expect(try nextTimes(session, id) == ["2030-01-10T18:00:00", "2030-01-17T18:00:00"])
        let shown = try session.run(["chime", "show", id]).stdout
        #expect(shown.contains("rrule:") && shown.contains("COUNT=5"), "\(shown)")
        #expect(shown.split(separator: "\n").contains { $0.hasPrefix("skipped:") && $0.contains("Mon 7 Jan 2030 18:00") && $0.contains("Mon 21 Jan 2030 18:00") },
                "\(shown)")

        try session.killDaemon()
        #expect(try nextTimes(session, id) == ["2030-01-10T18:00:00", "2030-01-17T18:00:00"])
        let none = try session.run(["chime", "skip", id, "2030-01-08"])
        #expect(none.status == 64 && none.stderr.hasPrefix("chime: '2030-01-08' is none of the next occurrences"), "\(none)")
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
