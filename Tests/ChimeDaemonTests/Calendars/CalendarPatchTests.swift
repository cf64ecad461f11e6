import ChimeAPI
import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// What a press writes into an item's text: the few properties Chime owns, every other
/// byte as it was.
struct CalendarPatchTests {
    static let instant = Date(timeIntervalSince1970: 1_795_940_000)  // 2026-11-29T08:13:20Z
    static let stamp = "20261129T081320Z"

    /// A task as todoman writes it, with a folded line, an X- property and a component
    /// Chime does not read, in CRLF.
    static let task = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pimutils.org//todoman//EN", "BEGIN:VTODO", "UID:t1@example.org",
        "DTSTAMP:20261101T100000Z", "SUMMARY:Pay the rent", "DESCRIPTION:A description long enough to be folded by the w",
        " riter that made it, which Chime leaves folded.", "X-UNKNOWN;X-PARAM=\"a:b\":kept as it is", "DUE:20301201T100000Z",
        "STATUS:NEEDS-ACTION", "SEQUENCE:2", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "DESCRIPTION:Rent",
        "END:VALARM", "BEGIN:X-OTHER", "X-A:1", "END:X-OTHER", "END:VTODO", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    /// The text with `removing` lines left out and `adding` lines put where `after` is.
    static func lines(_ text: String) -> [String] { text.components(separatedBy: "\r\n") }

    @Test func completingATaskSetsItsStatusAndStampsAndKeepsEveryOtherLine() throws {
        var patch = CalendarPatch(Self.task)
        try patch.complete(uid: "t1@example.org", recurrence: "", alarm: "#1", at: Self.instant)
        let after = Self.lines(patch.text)
        #expect(after.contains("STATUS:COMPLETED") && !after.contains("STATUS:NEEDS-ACTION"))
        #expect(after.contains("COMPLETED:" + Self.stamp) && after.contains("PERCENT-COMPLETE:100"))
        #expect(after.contains("SEQUENCE:3") && after.contains("DTSTAMP:" + Self.stamp) && after.contains("LAST-MODIFIED:" + Self.stamp))
        // Everything else, folds and order included, is as it was.
        let owned = ["STATUS", "COMPLETED", "PERCENT-COMPLETE", "SEQUENCE", "DTSTAMP", "LAST-MODIFIED"]
        func others(_ lines: [String]) -> [String] { lines.filter { line in !owned.contains { line.hasPrefix($0 + ":") } } }
        #expect(others(after) == others(Self.lines(Self.task)))
        #expect(patch.text.hasSuffix("END:VCALENDAR\r\n"))
    }

    @Test func completeOnAnEventAcknowledgesItsAlarm() throws {
        let event = Self.task.replacingOccurrences(of: "VTODO", with: "VEVENT").replacingOccurrences(of: "DUE:", with: "DTSTART:")
        var patch = CalendarPatch(event)
        try patch.complete(uid: "t1@example.org", recurrence: "", alarm: "#1", at: Self.instant)
        let after = Self.lines(patch.text)
        #expect(!after.contains("STATUS:COMPLETED") && after.contains("STATUS:NEEDS-ACTION"))
        let alarm = try #require(after.firstIndex(of: "BEGIN:VALARM"))
        #expect(after[alarm...].prefix { $0 != "END:VALARM" }.contains("ACKNOWLEDGED:" + Self.stamp))
        #expect(after.contains("X-MOZ-LASTACK:" + Self.stamp) && after.contains("SEQUENCE:2"))
    }

    /// RFC 9074 7: the alarm acknowledged and given a UID, a sibling alarm at the new time
    /// related to it; Thunderbird's properties on the item.
    @Test func aSnoozeAddsASiblingAlarmRelatedToTheOneSnoozed() throws {
        var patch = CalendarPatch(Self.task)
        let until = Self.instant.addingTimeInterval(1_800)
        let uid = try patch.snooze(uid: "t1@example.org", recurrence: "", alarm: "#1", occurrence: nil, until: until,
                                   snoozeUID: "s1@chime", at: Self.instant)
        #expect(uid == "s1@chime-alarm")
        let after = Self.lines(patch.text)
        let first = try #require(after.firstIndex(of: "BEGIN:VALARM"))
        let second = try #require(after[(first + 1)...].firstIndex(of: "BEGIN:VALARM"))
        let original = Array(after[first..<second])
        #expect(original.last == "END:VALARM", "the sibling follows the alarm, not inside it: \(original)")
        #expect(original.contains("UID:s1@chime-alarm") && original.contains("ACKNOWLEDGED:" + Self.stamp), "\(original)")
        let snooze = Array(after[second...].prefix { $0 != "END:VALARM" })
        #expect(snooze.contains("UID:s1@chime") && snooze.contains("TRIGGER;VALUE=DATE-TIME:20261129T084320Z"), "\(snooze)")
        #expect(snooze.contains("RELATED-TO;RELTYPE=SNOOZE:s1@chime-alarm") && snooze.contains("DESCRIPTION:Rent"), "\(snooze)")
        #expect(after.contains("X-MOZ-SNOOZE-TIME:20261129T084320Z") && after.contains("X-MOZ-LASTACK:" + Self.stamp))
        // The sibling is inside the task, before the component Chime does not read.
        #expect(after.firstIndex(of: "BEGIN:X-OTHER").map { $0 > second } == true)
    }

    @Test func anAlarmIsFoundByItsUIDOrAppleOrEvolutionsAndAnOccurrenceByItsRecurrenceID() throws {
        let text = [
            "BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:e", "DTSTART:20301201T100000Z", "RRULE:FREQ=DAILY",
            "BEGIN:VALARM", "X-WR-ALARMUID:apple-1", "TRIGGER:-PT5M", "END:VALARM", "END:VEVENT",
            "BEGIN:VEVENT", "UID:e", "RECURRENCE-ID:20301202T100000Z", "DTSTART:20301202T120000Z",
            "BEGIN:VALARM", "X-EVOLUTION-ALARM-UID:evo-1", "TRIGGER:-PT5M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\n")
        var patch = CalendarPatch(text)
        try patch.acknowledge(uid: "e", recurrence: "20301202T100000Z", alarm: "evo-1", at: Self.instant)
        let after = patch.text.components(separatedBy: "\n")
        let override = try #require(after.firstIndex(of: "RECURRENCE-ID:20301202T100000Z"))
        #expect(after[override...].contains("ACKNOWLEDGED:" + Self.stamp))
        #expect(!after[..<override].contains("ACKNOWLEDGED:" + Self.stamp), "the series is left alone")
        #expect(patch.text.hasSuffix("END:VCALENDAR\n") && !patch.text.contains("\r"))
        #expect(throws: CalendarPatch.Failure.noAlarm("apple-2")) {
            try patch.acknowledge(uid: "e", recurrence: "", alarm: "apple-2", at: Self.instant)
        }
        #expect(throws: CalendarPatch.Failure.noItem(uid: "gone")) { try patch.complete(uid: "gone", recurrence: "", alarm: "", at: Self.instant) }
    }

    @Test func linesAddedAreFoldedAt75OctetsWithoutSplittingACharacter() {
        let line = "RELATED-TO;RELTYPE=SNOOZE:" + String(repeating: "ä", count: 100)
        let folded = CalendarParts.fold(line)
        // 26 octets and 24 ä make the first line (74: a 25th would pass 75), 37 ä each fold.
        #expect(folded.map(\.utf8.count) == [74, 75, 75, 5], "\(folded)")
        #expect(folded.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined() == line)
    }
}

extension CalendarPatchTests {
    static let weekly = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VTODO", "UID:w@example.org", "SUMMARY:Water the plants", "SEQUENCE:4",
        "DUE;TZID=Europe/Berlin:20301202T090000", "RRULE:FREQ=WEEKLY", "BEGIN:VALARM", "TRIGGER:-PT10M", "END:VALARM",
        "END:VTODO", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    /// One occurrence of a repeating task completed: an override after the task, in the
    /// task's own zone; the series itself untouched.
    @Test func completingAnOccurrenceOfARepeatingTaskWritesItsOverride() throws {
        var patch = CalendarPatch(Self.weekly)
        let occurrence = LocalDateTime(year: 2030, month: 12, day: 9, hour: 9, minute: 0, second: 0)
        #expect(try patch.completeOccurrence(uid: "w@example.org", occurrence: occurrence, alarm: "#1", at: Self.instant))
        let after = Self.lines(patch.text)
        let series = Array(after[..<(after.firstIndex(of: "END:VTODO") ?? 0)])
        #expect(series == Array(Self.lines(Self.weekly)[..<series.count]), "the series is as it was")
        let override = Array(after[(series.count + 1)...].prefix { $0 != "END:VCALENDAR" })
        #expect(override == ["BEGIN:VTODO", "UID:w@example.org", "RECURRENCE-ID;TZID=Europe/Berlin:20301209T090000", "DTSTAMP:" + Self.stamp,
                             "DUE;TZID=Europe/Berlin:20301209T090000", "SUMMARY:Water the plants", "SEQUENCE:4", "STATUS:COMPLETED",
                             "COMPLETED:" + Self.stamp, "PERCENT-COMPLETE:100", "LAST-MODIFIED:" + Self.stamp, "END:VTODO"], "\(override)")
        // The same occurrence again completes the override in place: still one.
        var again = CalendarPatch(patch.text)
        #expect(try again.completeOccurrence(uid: "w@example.org", occurrence: occurrence, alarm: "#1", at: Self.instant))
        #expect(again.text.components(separatedBy: "RECURRENCE-ID").count == 2)
    }

    @Test func anEventHasNoOccurrenceToComplete() throws {
        var patch = CalendarPatch(Self.weekly.replacingOccurrences(of: "VTODO", with: "VEVENT").replacingOccurrences(of: "DUE", with: "DTSTART"))
        let occurrence = LocalDateTime(year: 2030, month: 12, day: 9, hour: 9, minute: 0, second: 0)
        #expect(try !patch.completeOccurrence(uid: "w@example.org", occurrence: occurrence, alarm: "#1", at: Self.instant))
    }
}
