import Foundation
import Testing
import TestSupport

/// Changing a scheduled notification in place: `chime edit`, and `Update`/`UpdateSimple`
/// called with gdbus and dbus-send.
@Suite(.timeLimit(.minutes(10)))
struct EditTests {
    func update(_ session: TestSession, _ id: String, _ changes: String) throws -> ProcessResult {
        try session.callScheduler("Update", id, changes)
    }

    @Test func editChangesOnlyWhatIsGivenAndKeepsIdAndHistory() throws {
        let session = try TestSession()
        let id = try session.add("Tea", "Green", "--at", "2030-01-31 08:00", "--repeat", "day", "--user-info", "pot=blue")
        let edited = try session.run(["chime", "edit", id, "--title", "Coffee", "--user-info", "cup=red"])
        #expect(edited.status == 0 && edited.stdout.hasPrefix(id + "  "), "\(edited)")

        let fields = try session.shownJSON(id)
        #expect(fields["id"] as? String == id)
        #expect(fields["title"] as? String == "Coffee")
        #expect(fields["body"] as? String == "Green")
        #expect(fields["repeat"] as? String == "day")
        #expect(fields["when"] as? String == "2030-01-31T08:00:00")
        #expect(fields["userInfo"] as? [String: String] == ["pot": "blue", "cup": "red"], "\(fields)")

        let log = try session.run(["chime", "log", "--id", id, "--json"])
        let events = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log)")
        #expect(events.first?["event"] as? String == "edited", "\(events)")
        #expect(events.first?["detail"] as? String == "Changed title, userInfo.cup.", "\(events)")
    }

    @Test func aNewTimeKeepsTheRepeatAndRepeatNeverEndsIt() throws {
        let session = try TestSession()
        let id = try session.add("Plants", "--at", "2030-01-31 08:00", "--repeat", "week", "--every", "2")
        #expect(try session.run(["chime", "edit", id, "--at", "2031-03-01 09:30"]).status == 0)
        var fields = try session.shownJSON(id)
        #expect(fields["when"] as? String == "2031-03-01T09:30:00")
        #expect(fields["repeat"] as? String == "week" && fields["every"] as? Int == 2, "\(fields)")

        #expect(try session.run(["chime", "edit", id, "--every", "3"]).status == 0)
        #expect(try session.shownJSON(id)["every"] as? Int == 3)

        #expect(try session.run(["chime", "edit", id, "--repeat", "never"]).status == 0)
        fields = try session.shownJSON(id)
        #expect(fields["repeat"] == nil && fields["when"] as? String == "2031-03-01T09:30:00", "\(fields)")
    }

    @Test func daysACountOrAnEndAloneChangeOnlyThatPartOfTheRepeat() throws {
        let session = try TestSession()
        let id = try session.add("Yoga", "--at", "2030-01-07 18:00", "--repeat", "week", "--every", "2")
        #expect(try session.run(["chime", "edit", id, "--on", "mon,thu"]).status == 0)
        #expect(try session.shownJSON(id)["rrule"] as? String == "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH")
        #expect(try session.run(["chime", "edit", id, "--count", "4"]).status == 0)
        let fields = try session.shownJSON(id)
        #expect(fields["rrule"] as? String == "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=4", "\(fields)")
        #expect(fields["when"] as? String == "2030-01-07T18:00:00", "\(fields)")

        let once = try session.add("Once", "--at", "2030-01-07 18:00")
        let refused = try session.run(["chime", "edit", once, "--on", "mon"])
        #expect(refused.status == 64 && refused.stderr.contains("on"), "\(refused)")
        #expect(try session.shownJSON(once)["repeat"] == nil)
    }

    /// A new time in the past is refused as chime add refuses it, and changes nothing;
    /// --allow-past takes it, and it fires at once, late.
    @Test func aNewTimeInThePastIsRefusedUnlessAllowed() throws {
        let session = try TestSession()
        let id = try session.add("Dentist", "--at", "2030-01-31 08:00")
        let due = try session.instant(wallClock: "2020-01-31 08:00")
        let refused = try session.run(["chime", "edit", id, "--at", "2020-01-31 08:00", "--title", "Dentist!"])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr == "chime: --at 2020-01-31 08:00 is \(session.yearsSince(due)) years ago; to show it now use chime notify.\n",
                "\(refused)")
        let fields = try session.shownJSON(id)
        #expect(fields["when"] as? String == "2030-01-31T08:00:00" && fields["title"] as? String == "Dentist", "\(fields)")

        let alone = try session.run(["chime", "edit", id, "--allow-past"])
        #expect(alone.status == 64 && alone.stderr.contains("--allow-past goes with --at"), "\(alone)")

        #expect(try session.run(["chime", "edit", id, "--at", "2020-01-31 08:00", "--allow-past"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Dentist'>") && call.contains(" years ago."), "\(call)")
    }

    /// A repeat given a new start in the past goes on from its next occurrence: nothing fires now.
    @Test func aRepeatMovedToAStartInThePastGoesOnFromItsNextOccurrence() throws {
        let session = try TestSession()
        let id = try session.add("Plants", "--at", "2030-01-31 08:00", "--repeat", "day")
        let start = Date().addingTimeInterval(-10 * 86_400 + 7_200)
        #expect(try session.run(["chime", "edit", id, "--at", session.wallClock(start)]).status == 0)
        let fields = try session.shownJSON(id)
        let next = try #require(fields["nextFire"] as? Int, "\(fields)")
        let expected = try session.instant(wallClock: session.wallClock(start)).addingTimeInterval(10 * 86_400)
        #expect(abs(Double(next) - expected.timeIntervalSince1970) <= 3_600, "the day's next occurrence, two hours ahead: \(fields)")
        let calls = try session.notifyCallsUpToAMarker()
        #expect(calls.count == 1, "only the marker was shown: \(calls)")
    }

    @Test func aNewTimeRearmsTheTimer() throws {
        let session = try TestSession()
        // Moved later: it must not fire at its old time. Moved sooner: it must fire then.
        let later = try session.add("Moved away", "--in", "3s")
        let sooner = try session.add("Moved near", "--in", "2h")
        #expect(try session.run(["chime", "edit", later, "--in", "2h"]).status == 0)
        #expect(try session.run(["chime", "edit", sooner, "--in", "5s"]).status == 0)
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls.count == 1 && calls[0].contains("<'Moved near'>"), "\(calls)")
        // The one moved away is still scheduled, at its new time.
        #expect(try session.shownJSON(later)["state"] as? String == "scheduled")
    }

    @Test func typedUpdateTakesScheduleKeys() throws {
        let session = try TestSession()
        let id = try session.add("Standup", "--at", "2030-01-31 08:00")
        let result = try update(session, id, "{'body': <'Room 4'>, 'repeat': <'month'>, 'urgency': <byte 2>, 'lateLimit': <600>}")
        #expect(result.status == 0, "\(result)")
        let fields = try session.shownJSON(id)
        #expect(fields["body"] as? String == "Room 4")
        #expect(fields["repeat"] as? String == "month")
        #expect(fields["urgency"] as? Int == 2)
        #expect(fields["lateLimit"] as? Double == 600)
        #expect(fields["title"] as? String == "Standup")
    }

    @Test func dbusSendUpdatesTitleAndTime() throws {
        let session = try TestSession()
        let id = try session.add("Old", "--at", "2030-01-31 08:00")
        let sent = try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime", "/io/github/chime/Chime",
                                    "io.github.chime.Scheduler1.UpdateSimple", "string:" + id,
                                    "dict:string:string:title,New,when,2030-02-01 10:00"])
        #expect(sent.status == 0, "\(sent)")
        let fields = try session.shownJSON(id)
        #expect(fields["title"] as? String == "New" && fields["when"] as? String == "2030-02-01T10:00:00", "\(fields)")
    }

    @Test(arguments: [
        ("{'title': <'Changed'>, 'urgency': <byte 9>}", "urgency: byte 9 is not 0"),
        ("{'title': <'Changed'>, 'repeat': <'fortnightly'>}", "repeat: 'fortnightly' is not a repeat interval"),
        ("{'title': <'Changed'>, 'colour': <'red'>}", "colour: is not a notification field"),
        ("{'title': <'Changed'>, 'zone': <'Europe/Paris'>}", "zone: needs when"),
        ("{'title': <''>}", "title: must not be empty."),
        ("{}", "changes: nothing to change"),
    ])
    func aBadKeyIsNamedAndChangesNothing(changes: String, sentence: String) throws {
        let session = try TestSession()
        let id = try session.add("Kept", "--at", "2030-01-31 08:00", "--repeat", "day")
        let before = try session.shownJSON(id)
        let result = try update(session, id, changes)
        #expect(result.status != 0)
        #expect(result.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(result)")
        #expect(result.stderr.contains(sentence), "\(result)")
        let after = try session.shownJSON(id)
        #expect(after["title"] as? String == "Kept" && after["repeat"] as? String == "day" && after["when"] as? String == before["when"] as? String)
        let log = try session.run(["chime", "log", "--id", id])
        #expect(!log.stdout.contains("edited"), "\(log)")
    }

    @Test func unknownDoneAndCancelledIdsAreRefused() throws {
        let session = try TestSession()
        let unknown = try session.run(["chime", "edit", "nosuchid", "--title", "X"])
        #expect(unknown.status == 1 && unknown.stderr.contains("No notification has the id 'nosuchid'."), "\(unknown)")

        let fired = try session.add("Once", "--in", "1s")
        _ = try session.waitForNotifyCalls(1)
        let done = try session.run(["chime", "edit", fired, "--title", "X"])
        #expect(done.status == 1 && done.stderr.contains("is done"), "\(done)")

        let cancelled = try session.add("Gone", "--in", "2h")
        #expect(try session.run(["chime", "cancel", cancelled]).status == 0)
        let gone = try update(session, cancelled, "{'title': <'X'>}")
        #expect(gone.stderr.contains("io.github.chime.Error.NotScheduled") && gone.stderr.contains("was cancelled"), "\(gone)")
    }

    @Test func editWithNothingToChangeIsAUsageError() throws {
        let session = try TestSession()
        let id = try session.add("T", "--in", "2h")
        let result = try session.run(["chime", "edit", id])
        #expect(result.status == 64 && result.stderr.contains("nothing to change"), "\(result)")
    }
}
