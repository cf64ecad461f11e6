import ChimeAPI
import ChimeCore
import DBus
import Foundation
import Testing
@testable import ChimeDaemon

/// A calendar item imported again is the same reminder: matched by UID, RECURRENCE-ID and
/// alarm (or, for one chime export wrote, by the id in its UID), updated in place under its
/// id; one completed in Chime stays completed. Through the method table, in-process.
struct CalendarIdentityTests {
    static func calendar(_ events: [String]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Tests//EN"] + events + ["END:VCALENDAR"])
            .map { $0 + "\r\n" }.joined()
    }

    /// A VEVENT `uid` at `start` (UTC), with an alarm per trigger given.
    static func event(_ uid: String?, _ summary: String, start: String, alarms: [String] = []) -> String {
        let alarmLines = alarms.map { "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:\(summary)\r\nTRIGGER:\($0)\r\nEND:VALARM" }
        return (["BEGIN:VEVENT"] + (uid.map { ["UID:\($0)"] } ?? []) + ["SUMMARY:\(summary)", "DTSTART:\(start)"] + alarmLines
            + ["END:VEVENT"]).joined(separator: "\r\n")
    }

    /// ImportICalendarPart's answer: the ids, and which of them were updated.
    static func importPart(_ harness: DaemonHarness, _ text: String) throws -> (ids: [String], updated: [String], skipped: [String]) {
        let reply = try harness.values("ImportICalendarPart", [.string(text), .array(element: "u", [])])
        let lists = reply.map { ($0.arrayElements ?? []).compactMap(\.stringValue) }
        try #require(lists.count == 5)
        // Each id described as Get does, so that chime import echoes it without asking.
        let described = (reply[4].arrayElements ?? []).compactMap { DaemonHarness.entries($0)["id"]?.stringValue }
        #expect(described == lists[0])
        #expect(lists[1].isEmpty, "refused: \(lists[1])")
        return (lists[0], lists[3], lists[2])
    }

    static func scheduledTitles(_ harness: DaemonHarness) throws -> [String] {
        try harness.store.scheduled().map(\.alert.title).sorted()
    }

    @Test func theSameFileImportedAgainUpdatesEachAlarmInPlace() throws {
        let harness = try DaemonHarness()
        let text = Self.calendar([
            Self.event("dentist@example.org", "Dentist", start: "20270301T090000Z", alarms: ["-PT1H", "-P1D"]),
            Self.event("club@example.org", "Book club", start: "20270302T180000Z"),
        ])
        let first = try Self.importPart(harness, text)
        #expect(first.ids.count == 3 && first.updated.isEmpty)

        let again = try Self.importPart(harness, text)
        #expect(again.ids == first.ids, "the same reminders, in the same order")
        #expect(again.updated == first.ids)
        #expect(try Self.scheduledTitles(harness) == ["Book club", "Dentist", "Dentist"])
        // The due times stay one per reminder: none left behind by the update.
        #expect(Set(harness.parts.schedule.heapDueTimes.keys) == Set(first.ids))
        // Nothing changed, so nothing was written: no history of an edit.
        harness.commits.commit()
        #expect(try harness.store.history(of: first.ids[0], limit: 10)?.contains { $0.event == .edited } == false)
    }

    @Test func aMovedItemKeepsItsIdAndANewOneIsAdded() throws {
        let harness = try DaemonHarness()
        let first = try Self.importPart(harness, Self.calendar([Self.event("club@example.org", "Book club", start: "20270302T180000Z")]))
        let moved = try Self.importPart(harness, Self.calendar([
            Self.event("club@example.org", "Book club, moved", start: "20270309T180000Z"),
            Self.event("gym@example.org", "Gym", start: "20270303T070000Z"),
        ]))
        #expect(moved.ids.first == first.ids.first && moved.updated == first.ids && moved.ids.count == 2)
        let club = try #require(try harness.store.notification(id: first.ids[0]))
        #expect(club.alert.title == "Book club, moved")
        #expect(club.nextFire == Date(timeIntervalSince1970: 1_804_615_200), "2027-03-09 18:00 UTC")
        #expect(harness.parts.schedule.heapDueTimes[first.ids[0]] == club.nextFire)
        #expect(try harness.store.history(of: first.ids[0], limit: 10)?.first?.event == .edited)
    }

    @Test func oneCompletedInChimeStaysCompletedWhenItsFileIsReadAgain() throws {
        let harness = try DaemonHarness()
        let text = Self.calendar([Self.event("tax@example.org", "Tax return", start: "20270301T090000Z")])
        let id = try #require(try Self.importPart(harness, text).ids.first)
        // Completed as its Complete button does (an imported item has no category to give it one).
        harness.parts.schedule.complete(id, title: "Tax return", at: harness.time.now) { _ in }
        harness.commits.commit()

        let again = try Self.importPart(harness, text)
        #expect(again.ids.isEmpty)
        #expect(again.skipped.count == 1 && again.skipped[0].contains("completed in Chime"), "\(again.skipped)")
        #expect(try harness.store.scheduled().isEmpty)
    }

    @Test func chimesOwnReminderExportedAndImportedIsTheSameReminder() throws {
        let harness = try DaemonHarness()
        let id = try #require(try harness.values("Schedule", [MethodTableTests.tea()]).first?.stringValue)
        let text = try #require(try harness.values("ExportICalendar", [.stringArray([id])]).first?.stringValue)
        let again = try Self.importPart(harness, text)
        #expect(again.ids == [id] && again.updated == [id])
        #expect(try harness.store.scheduled().map(\.id) == [id])
    }

    /// The next `count` occurrences of `id`, as Unix times.
    static func occurrences(_ harness: DaemonHarness, _ id: String, _ count: UInt32 = 4) throws -> [Int64] {
        try harness.values("Occurrences", [.string(id), .uint32(count)]).first?.arrayElements?.compactMap(\.integerValue) ?? []
    }

    /// 1 to 5 March 2027, 10:00 UTC.
    static let march = [1_803_895_200, 1_803_981_600, 1_804_068_000, 1_804_154_400, 1_804_240_800] as [Int64]

    static let standup = event("standup@example.org", "Standup", start: "20270301T100000Z").replacingOccurrences(
        of: "END:VEVENT", with: "RRULE:FREQ=DAILY\r\nEND:VEVENT")

    /// RFC 5545 3.8.4.4: the third occurrence moved to 15:00 is its override's to ring; the
    /// series skips it. Read again, nothing doubles.
    @Test func anOverrideReplacesItsOccurrenceOfTheSeries() throws {
        let harness = try DaemonHarness()
        let moved = ["BEGIN:VEVENT", "UID:standup@example.org", "RECURRENCE-ID:20270303T100000Z", "SUMMARY:Standup, later",
                     "DTSTART:20270303T150000Z", "END:VEVENT"].joined(separator: "\r\n")
        let text = Self.calendar([Self.standup, moved])
        let first = try Self.importPart(harness, text)
        #expect(first.ids.count == 2)
        #expect(try Self.occurrences(harness, first.ids[0]) == [Self.march[0], Self.march[1], Self.march[3], Self.march[4]])
        #expect(try harness.store.notification(id: first.ids[1])?.nextFire == Date(timeIntervalSince1970: Double(Self.march[2] + 5 * 3600)))

        let again = try Self.importPart(harness, text)
        #expect(again.ids == first.ids && again.updated == first.ids)
        #expect(try Self.occurrences(harness, first.ids[0]) == [Self.march[0], Self.march[1], Self.march[3], Self.march[4]])
        #expect(try harness.store.scheduled().count == 2)
    }

    /// A cancelled occurrence is gone from the series and rings nothing of its own, read with
    /// its series or on its own later.
    @Test(arguments: [true, false])
    func aCancelledOccurrenceIsSkippedByItsSeries(together: Bool) throws {
        let harness = try DaemonHarness()
        let cancelled = ["BEGIN:VEVENT", "UID:standup@example.org", "RECURRENCE-ID:20270302T100000Z", "SUMMARY:Standup",
                         "DTSTART:20270302T100000Z", "STATUS:CANCELLED", "END:VEVENT"].joined(separator: "\r\n")
        var ids = try Self.importPart(harness, Self.calendar(together ? [Self.standup, cancelled] : [Self.standup])).ids
        if !together {
            let alone = try Self.importPart(harness, Self.calendar([cancelled]))
            #expect(alone.ids.isEmpty && alone.skipped.isEmpty, "a cancelled occurrence is no news: \(alone)")
        }
        #expect(ids.count == 1)
        ids = try harness.store.scheduled().map(\.id)
        #expect(try Self.occurrences(harness, ids[0]) == [Self.march[0], Self.march[2], Self.march[3], Self.march[4]])
    }

    /// An all-day item rings when the user's day starts (`[Calendars] AllDayTime=`), its
    /// alarms counted from then; midnight, as RFC 5545 counts, without it.
    @Test(arguments: [(nil as String?, ["2027-02-28T00:00:00", "2027-03-01T00:00:00"]),
                      ("[Calendars]\nAllDayTime=09:00\n", ["2027-02-28T09:00:00", "2027-03-01T09:00:00"])])
    func anAllDayItemRingsWhenTheUsersDayStarts(config: String?, whens: [String]) throws {
        let harness = try DaemonHarness(config: config)
        let birthday = ["BEGIN:VEVENT", "UID:b@example.org", "SUMMARY:Birthday", "DTSTART;VALUE=DATE:20270301",
                        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:-P1D", "END:VALARM", "END:VEVENT"]
        let holiday = ["BEGIN:VEVENT", "UID:h@example.org", "SUMMARY:Holiday", "DTSTART;VALUE=DATE:20270301", "END:VEVENT"]
        let ids = try Self.importPart(harness, Self.calendar([birthday.joined(separator: "\r\n"), holiday.joined(separator: "\r\n")])).ids
        let found = try ids.map { id in DaemonHarness.entries(try #require(try harness.values("Get", [.string(id)]).first))["when"]?.stringValue }
        #expect(found == whens)
    }

    /// Alarms with UIDs of their own (RFC 9074's UID, Evolution's, Apple's) are matched by
    /// them, whatever their order in the file; without, by their place.
    @Test func alarmsAreMatchedByTheirOwnUIDs() throws {
        let harness = try DaemonHarness()
        func file(_ alarms: [(uid: String, trigger: String)]) -> String {
            let lines = ["BEGIN:VEVENT", "UID:evo@example.org", "SUMMARY:Dentist", "DTSTART:20270301T090000Z"]
                + alarms.flatMap { ["BEGIN:VALARM", "X-EVOLUTION-ALARM-UID:\($0.uid)", "ACTION:DISPLAY", "DESCRIPTION:x",
                                    "TRIGGER:\($0.trigger)", "END:VALARM"] } + ["END:VEVENT"]
            return Self.calendar([lines.joined(separator: "\r\n")])
        }
        let first = try Self.importPart(harness, file([("hour", "-PT1H"), ("day", "-P1D")])).ids
        let again = try Self.importPart(harness, file([("day", "-P1D"), ("hour", "-PT2H")]))
        #expect(again.ids == [first[1], first[0]] && again.updated.count == 2)
        #expect(try harness.store.notification(id: first[0])?.nextFire == Date(timeIntervalSince1970: 1_803_891_600 - 7_200))
    }

    /// A date no calendar has is refused by name, never moved to one that exists.
    @Test func anImpossibleDateIsRefusedNotMoved() throws {
        let harness = try DaemonHarness()
        let reply = try harness.values("ImportICalendarPart", [.string(Self.calendar([Self.event("i@example.org", "Impossible",
                                                                                                  start: "20300231T100000Z")])),
                                                                .array(element: "u", [])])
        let refused = reply.count > 1 ? (reply[1].arrayElements ?? []).compactMap(\.stringValue) : []
        #expect(refused.count == 1 && refused[0].contains("2030-02-31") && refused[0].contains("February"), "\(refused)")
        #expect(try harness.store.scheduled().isEmpty)
    }

    @Test func itemsWithoutAUIDAreNewEachTime() throws {
        let harness = try DaemonHarness()
        let text = Self.calendar([Self.event(nil, "Anonymous", start: "20270301T090000Z")])
        _ = try Self.importPart(harness, text)
        let again = try Self.importPart(harness, text)
        #expect(again.updated.isEmpty)
        #expect(try Self.scheduledTitles(harness) == ["Anonymous", "Anonymous"])
    }
}
