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
        try #require(lists.count == 4)
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

    @Test func itemsWithoutAUIDAreNewEachTime() throws {
        let harness = try DaemonHarness()
        let text = Self.calendar([Self.event(nil, "Anonymous", start: "20270301T090000Z")])
        _ = try Self.importPart(harness, text)
        let again = try Self.importPart(harness, text)
        #expect(again.updated.isEmpty)
        #expect(try Self.scheduledTitles(harness) == ["Anonymous", "Anonymous"])
    }
}
