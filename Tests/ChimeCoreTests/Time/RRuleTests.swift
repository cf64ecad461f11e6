import ChimeCore
import Foundation
import Testing

/// A zoned rule's first occurrences: its zone, first wall-clock time, RRULE, and the
/// instants it must give (each written with its own offset).
struct RRuleCase: Sendable, CustomTestStringConvertible {
    var zone: String
    var start: String
    var rrule: String
    var expected: [String]

    init(_ zone: String, _ start: String, _ rrule: String, _ expected: [String]) {
        self.zone = zone
        self.start = start
        self.rrule = rrule
        self.expected = expected
    }

    var testDescription: String { "\(zone) \(start) \(rrule)" }
}

struct RRuleTests {
    // MARK: - Expansion with a fixed clock

    static let cases: [RRuleCase] = [
        // Starting on a Wednesday: Monday of that week is before the start, so not counted.
        RRuleCase("Europe/Berlin", "2026-11-25T09:00", "FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=4", [
            "2026-11-25T09:00:00+01:00", "2026-11-27T09:00:00+01:00", "2026-11-30T09:00:00+01:00", "2026-12-02T09:00:00+01:00",
        ]),
        // Weekdays across Berlin's spring-forward Sunday: the hour stays 08:00.
        RRuleCase("Europe/Berlin", "2026-03-26T08:00", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", [
            "2026-03-26T08:00:00+01:00", "2026-03-27T08:00:00+01:00", "2026-03-30T08:00:00+02:00", "2026-03-31T08:00:00+02:00",
        ]),
        // Every other week, weeks starting on Monday (WKST=MO).
        RRuleCase("UTC", "2026-11-29T10:00", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,SU", [
            "2026-11-29T10:00:00Z", "2026-12-07T10:00:00Z", "2026-12-13T10:00:00Z", "2026-12-21T10:00:00Z",
        ]),
        RRuleCase("America/New_York", "2026-01-01T18:00", "FREQ=MONTHLY;BYDAY=2TU", [
            "2026-01-13T18:00:00-05:00", "2026-02-10T18:00:00-05:00", "2026-03-10T18:00:00-04:00", "2026-04-14T18:00:00-04:00",
        ]),
        RRuleCase("America/New_York", "2026-01-31T12:00", "FREQ=MONTHLY;BYDAY=-1FR", [
            "2026-02-27T12:00:00-05:00", "2026-03-27T12:00:00-04:00", "2026-04-24T12:00:00-04:00",
        ]),
        RRuleCase("Europe/Berlin", "2028-01-15T20:00", "FREQ=MONTHLY;BYMONTHDAY=-1", [
            "2028-01-31T20:00:00+01:00", "2028-02-29T20:00:00+01:00", "2028-03-31T20:00:00+02:00", "2028-04-30T20:00:00+02:00",
        ]),
        // The first and third Monday; two days a month, in order within each month.
        RRuleCase("UTC", "2026-12-10T07:00", "FREQ=MONTHLY;BYDAY=1MO,3MO;COUNT=3", [
            "2026-12-21T07:00:00Z", "2027-01-04T07:00:00Z", "2027-01-18T07:00:00Z",
        ]),
        // UNTIL on the rule's clock, inclusive: a date alone takes all of that day.
        RRuleCase("Europe/Berlin", "2026-12-28T09:00", "FREQ=DAILY;UNTIL=20261230", [
            "2026-12-28T09:00:00+01:00", "2026-12-29T09:00:00+01:00", "2026-12-30T09:00:00+01:00",
        ]),
        RRuleCase("Europe/Berlin", "2026-12-28T09:00", "FREQ=DAILY;COUNT=2", ["2026-12-28T09:00:00+01:00", "2026-12-29T09:00:00+01:00"]),
        // A skipped 02:30 on the spring-forward day lands as far after the jump (RFC 5545).
        RRuleCase("Europe/Berlin", "2026-03-23T02:30", "FREQ=WEEKLY;BYDAY=SU;COUNT=2", [
            "2026-03-29T03:30:00+02:00", "2026-04-05T02:30:00+02:00",
        ]),
    ]

    @Test(arguments: cases)
    func expandsWithAFixedClock(rule: RRuleCase) throws {
        let fireRule = try zoned(rule.zone, rule.start, rule.rrule)
        let zone = try #require(Zone(identifier: rule.zone))
        let found = fireRule.upcoming(from: .distantPast, count: rule.expected.count + 1, systemZone: zone)
        let expected = rule.expected.map(instant)
        if rule.rrule.contains("COUNT") || rule.rrule.contains("UNTIL") {
            #expect(found == expected)
        } else {
            #expect(Array(found.prefix(expected.count)) == expected && found.count == expected.count + 1)
        }
        // The search from a later instant finds the same occurrences as the walk from the start.
        if found.count > 1 {
            #expect(fireRule.nextOccurrence(after: found[0], systemZone: zone) == found[1])
        }
    }

    // MARK: - Skipped occurrences

    @Test func aSkippedOccurrenceIsLeftOutAndStillCounts() throws {
        var rule = try zoned("UTC", "2026-11-30T09:00", "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3")
        rule.skipped = [try #require(LocalDateTime(iso: "2026-12-02T09:00"))]
        let found = rule.upcoming(from: .distantPast, count: 5, systemZone: .utc)
        #expect(found == ["2026-11-30T09:00:00Z", "2026-12-07T09:00:00Z"].map(instant))
        #expect(rule.nextOccurrence(after: instant("2026-11-30T09:00:00Z"), systemZone: .utc) == instant("2026-12-07T09:00:00Z"))
        #expect(rule.firstOccurrence(onOrAfter: instant("2026-12-01T00:00:00Z"), systemZone: .utc)?.index == 2)
        #expect(rule.skippedInstants(systemZone: .utc) == [instant("2026-12-02T09:00:00Z")])
    }

    /// An exception is a date, as EXDATE is: one that is no occurrence of the rule leaves it whole.
    @Test func aSkippedTimeThatIsNoOccurrenceChangesNothing() throws {
        var rule = try zoned("UTC", "2026-11-30T09:00", "FREQ=DAILY;COUNT=3")
        rule.skipped = [try #require(LocalDateTime(iso: "2026-12-01T10:00"))]
        #expect(rule.upcoming(from: .distantPast, count: 5, systemZone: .utc).count == 3)
    }

    // MARK: - Text

    @Test(arguments: [
        "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=10", "FREQ=MONTHLY;BYDAY=2TU",
        "FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20271231T235959", "FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=DAILY", "FREQ=HOURLY;INTERVAL=3",
    ])
    func rulesReadBackAsWritten(text: String) throws {
        #expect(try Recurrence.parse(rrule: text).0.rrule() == text)
        #expect(try Recurrence.parse(rrule: "RRULE:" + text.lowercased()).0.rrule() == text)
    }

    @Test(arguments: [
        ("on", "thursdays and fridays"), ("on", "5th mon"), ("on", "mon,last fri"), ("on", "last-day,1st mon"),
        ("on", "4th fri,last fri"),
    ])
    func badDaysNameTheOption(field: String, text: String) throws {
        let error = #expect(throws: FieldError.self) {
            var recurrence = try Recurrence(unit: .month)
            try recurrence.restrict(days: try RepeatDay.parse(text), limit: nil, until: nil)
        }
        #expect(error?.field == field)
    }

    @Test(arguments: ["FREQ=SECONDLY", "INTERVAL=2", "FREQ=WEEKLY;BYSETPOS=1", "FREQ=MONTHLY;BYMONTHDAY=0",
                      "FREQ=DAILY;COUNT=0", "FREQ=DAILY;UNTIL=2026", "FREQ=DAILY;BYDAY=1MO", "FREQ=WEEKLY;BYEASTER=0",
                      "FREQ=WEEKLY;WKST=XX", "FREQ=DAILY;COUNT=3;UNTIL=20301231T000000Z"])
    func badRulesNameTheKey(text: String) {
        let error = #expect(throws: FieldError.self) { try Recurrence.parse(rrule: text) }
        #expect(error?.field == "rrule")
    }

    /// WKST changes only a repeat every N weeks on given days: elsewhere (Google writes
    /// WKST=SU on every rule) it is read and the rule is the same without it.
    @Test(arguments: ["FREQ=WEEKLY;WKST=SU", "FREQ=WEEKLY;INTERVAL=2;WKST=SU", "FREQ=WEEKLY;BYDAY=MO,TH;WKST=SA",
                      "FREQ=MONTHLY;BYDAY=2TU;WKST=SU", "FREQ=DAILY;WKST=MO"])
    func aWeekStartThatChangesNothingIsTaken(text: String) throws {
        let plain = text.replacingOccurrences(of: #";WKST=[A-Z]{2}"#, with: "", options: .regularExpression)
        #expect(try Recurrence.parse(rrule: text).0 == Recurrence.parse(rrule: plain).0)
    }

    @Test func aFrequencyChimeDoesNotRepeatByIsNamedNotCalledMissing() {
        #expect(throws: FieldError("rrule", "'FREQ=SECONDLY' is not a frequency Chime repeats by; use FREQ=MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY.")) {
            try Recurrence.parse(rrule: "FREQ=SECONDLY")
        }
        #expect(throws: FieldError("rrule", "needs FREQ: MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY.")) {
            try Recurrence.parse(rrule: "INTERVAL=2")
        }
    }

    @Test func weekdayNamesAndShorthands() throws {
        #expect(try RepeatDay.parse("weekdays") == (0...4).map(RepeatDay.weekday))
        #expect(try RepeatDay.parse("Monday, WED,fri") == [.weekday(0), .weekday(2), .weekday(4)])
        #expect(try RepeatDay.parse("2nd tue") == [.nthWeekday(2, weekday: 1)])
        #expect(try RepeatDay.parse("last friday") == [.nthWeekday(-1, weekday: 4)])
        #expect(try RepeatDay.parse("last-day") == [.lastDay])
    }

    @Test func daysNeedTheGregorianCalendar() throws {
        let (recurrence, _) = try Recurrence.parse(rrule: "FREQ=WEEKLY;BYDAY=MO")
        let start = try #require(LocalDateTime(iso: "2026-11-30T09:00"))
        let error = #expect(throws: FieldError.self) {
            try FireRule(trigger: .floating(start), recurrence: recurrence, calendar: "hebrew")
        }
        #expect(error?.field == "on")
    }
}

/// A rule on the wall clock of `zone` from `start`, repeating as `rrule` says.
func zoned(_ zone: String, _ start: String, _ rrule: String) throws -> FireRule {
    let local = try #require(LocalDateTime(iso: start))
    return try FireRule(trigger: .zoned(local, zone: zone), recurrence: try Recurrence.parse(rrule: rrule).0)
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
