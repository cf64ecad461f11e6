import ChimeAPI
import ChimeCore
import DBus
import Foundation
import Testing
@testable import ChimeDaemon

/// Every repeat Chime can schedule, exported and imported again, is the same repeat: the
/// method table's ExportICalendar then ImportICalendar, in-process (``DaemonHarness``).
/// The forms are generated from the parts of a repeat (unit and count, days, an end, a
/// skipped occurrence, each kind of time), not picked by hand.
struct ICalendarRoundTripTests {
    /// The keys that describe the schedule: what must survive the round trip.
    static let scheduleKeys = ["title", "body", "when", "calendar", "repeat", "every", "rrule", "skipped", "nextFire", "state",
                               "location", "leadTime"]

    /// Each kind of time `when` can be: on a zone's clock, floating, an instant.
    static let times = ["2027-02-01T10:00:00[Europe/Berlin]", "2027-02-01T10:00:00", "2027-02-01T09:00:00+00:00"]

    /// The repeats, as the Schedule keys that ask for them.
    static var repeats: [[(String, Value)]] {
        var forms: [[(String, Value)]] = []
        for (unit, everies) in [("minute", [30]), ("hour", [1, 6]), ("day", [1, 3]), ("week", [1, 2]), ("month", [1, 3]),
                                ("year", [1])] {
            for every in everies { forms.append([("repeat", .string(unit)), ("every", .uint32(UInt32(every)))]) }
        }
        for on in ["mon,wed,fri", "weekdays", "weekends"] {
            forms.append([("repeat", .string("week")), ("on", .string(on))])
            forms.append([("repeat", .string("week")), ("every", .uint32(2)), ("on", .string(on))])
        }
        for on in ["2nd tue", "last fri", "last-day", "1st mon"] { forms.append([("repeat", .string("month")), ("on", .string(on))]) }
        // Each with an end: a count, a last date.
        forms += forms.flatMap { form in
            [form + [("count", .uint32(6))], form + [("until", .string("2027-12-31"))]]
        }
        for rule in ["FREQ=WEEKLY;BYDAY=TU,TH", "FREQ=MONTHLY;BYDAY=-1TU", "FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=DAILY;INTERVAL=2"] {
            for end in ["", ";COUNT=6", ";UNTIL=20271231T225959Z"] { forms.append([("rrule", .string(rule + end))]) }
        }
        // Rules only the general engine takes (RuleExpansion): every kind of BY part.
        for rule in ["FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=YEARLY;BYMONTH=3,9;BYDAY=2SU", "FREQ=DAILY;BYHOUR=9,17",
                     "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", "FREQ=MONTHLY;BYMONTHDAY=1,15", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,TU;WKST=SU",
                     "FREQ=YEARLY;BYYEARDAY=100,-1"] {
            for end in ["", ";COUNT=6"] { forms.append([("rrule", .string(rule + end))]) }
        }
        return forms
    }

    /// Schedules `form` at `when` (skipping its second occurrence when `skipping`), exports it,
    /// cancels it, imports the export: the description before and after.
    func roundTrip(_ harness: DaemonHarness, when: String, _ form: [(String, Value)], skipping: Bool)
        throws -> (before: [String: Value], after: [String: Value], calendar: String) {
        // Every other one is about an event that starts a quarter of an hour later, somewhere.
        let event: [(String, Value)] = form.count % 2 == 0 ? [("leadTime", .double(900)), ("location", .string("Library"))] : []
        let request = Value.variantDictionary([("title", .string("Book club")), ("body", .string("Bring the book")),
                                               ("when", .string(when))] + form + event)
        let id = try #require(try harness.values("Schedule", [request]).first?.stringValue)
        // A repeat with a second occurrence still to come loses it.
        let coming = try harness.values("Occurrences", [.string(id), .uint32(2)]).first?.arrayElements ?? []
        if skipping, coming.count == 2 { _ = try harness.values("Skip", [.string(id), .string("2")]) }
        let before = DaemonHarness.entries(try #require(try harness.values("Get", [.string(id)]).first))
        let exported = try harness.values("ExportICalendar", [.stringArray([id])])
        let calendar = try #require(exported.first?.stringValue)
        #expect(exported.last?.arrayElements?.isEmpty == true)
        _ = try harness.values("Cancel", [.string(id)])
        let imported = try harness.values("ImportICalendar", [.string(calendar)])
        let sentences = imported.last?.arrayElements?.compactMap(\.stringValue) ?? []
        let ids = imported.first?.arrayElements?.compactMap(\.stringValue) ?? []
        try #require(ids.count == 1, "\(sentences)\n\(calendar)")
        let after = DaemonHarness.entries(try #require(try harness.values("Get", [.string(ids[0])]).first))
        return (before, after, calendar)
    }

    /// Month ends: repeats from a day some months lack, as `repeat` takes them (the last
    /// day, which RFC 7529's SKIP=BACKWARD says) and as RRULEs do (left out, RFC 5545; or the
    /// next month's first day, SKIP=FORWARD).
    static let monthEndTimes = ["2027-01-31T10:00:00[Europe/Berlin]", "2028-02-29T10:00:00", "2027-08-30T09:00:00+00:00"]

    static var monthEndRepeats: [[(String, Value)]] {
        var forms: [[(String, Value)]] = []
        for unit in ["month", "year"] {
            for every: UInt32 in [1, 5] { forms.append([("repeat", .string(unit)), ("every", .uint32(every))]) }
        }
        for rule in ["FREQ=MONTHLY", "FREQ=MONTHLY;INTERVAL=5", "FREQ=YEARLY", "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD",
                     "FREQ=YEARLY;RSCALE=GREGORIAN;SKIP=BACKWARD", "FREQ=MONTHLY;INTERVAL=2;RSCALE=GREGORIAN;SKIP=BACKWARD"] {
            for end in ["", ";COUNT=6"] { forms.append([("rrule", .string(rule + end))]) }
        }
        return forms
    }

    @Test(arguments: times)
    func everyRepeatChimeSchedulesComesBackTheSameFromItsExport(when: String) throws {
        try expectSameAfterRoundTrips(when: when, Self.repeats)
    }

    @Test(arguments: monthEndTimes)
    func monthEndsComeBackTheSameFromTheirExport(when: String) throws {
        try expectSameAfterRoundTrips(when: when, Self.monthEndRepeats)
    }

    /// A daily 03:10 New York event with a 15-minute alarm rings 15 minutes before each
    /// occurrence (RFC 5545 3.8.6.3): 01:55 EST on 14 March 2027, when the clocks spring
    /// from 02:00 to 03:00, not 03:55 EDT. Its EXDATE leaves out the 13th; exported and
    /// imported again, it is the same.
    @Test func anAlarmOnARepeatingEventRingsAheadOfEachOccurrenceAcrossAChange() throws {
        let harness = try DaemonHarness()
        let text = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Tests//EN", "BEGIN:VEVENT", "UID:night@example.org",
                    "SUMMARY:Night shift", "DTSTART;TZID=America/New_York:20270310T031000", "RRULE:FREQ=DAILY",
                    "EXDATE;TZID=America/New_York:20270313T031000", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Night shift",
                    "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
        // 07:55 UTC (02:55 EST) each day, but the 13th; 06:55 UTC on the 14th (01:55 EST) and on (02:55 EDT).
        let expected: [Int64] = [1_804_665_300, 1_804_751_700, 1_804_838_100, 1_805_007_300, 1_805_093_700]
        var id = try #require(try harness.values("ImportICalendar", [.string(text)]).first?.arrayElements?.first?.stringValue)
        for round in ["imported", "exported and imported again"] {
            let times = try harness.values("Occurrences", [.string(id), .uint32(5)]).first?.arrayElements?.compactMap(\.integerValue)
            #expect(times == expected, "\(round)")
            let got = DaemonHarness.entries(try #require(try harness.values("Get", [.string(id)]).first))
            #expect(got["when"] == .string("2027-03-10T02:55:00[America/New_York]") && got["leadTime"] == .double(900), "\(round)")
            let exported = try #require(try harness.values("ExportICalendar", [.stringArray([id])]).first?.stringValue)
            for line in ["DTSTART;TZID=America/New_York:20270310T031000", "EXDATE;TZID=America/New_York:20270313T031000",
                         "TRIGGER:-PT15M"] {
                #expect(exported.contains(line + "\r\n"), "\(round): \(line) in \(exported)")
            }
            _ = try harness.values("Cancel", [.string(id)])
            id = try #require(try harness.values("ImportICalendar", [.string(exported)]).first?.arrayElements?.first?.stringValue)
        }
    }

    private func expectSameAfterRoundTrips(when: String, _ forms: [[(String, Value)]]) throws {
        let harness = try DaemonHarness()
        for (index, form) in forms.enumerated() {
            let (before, after, calendar) = try roundTrip(harness, when: when, form, skipping: index % 3 == 0)
            for key in Self.scheduleKeys where before[key] != after[key] {
                let was = before[key].map { "\($0)" } ?? "absent", now = after[key].map { "\($0)" } ?? "absent"
                Issue.record("\(form.map { "\($0.0)=\($0.1)" }) at \(when): \(key) was \(was), is \(now)\n\(calendar)")
            }
        }
    }
}
