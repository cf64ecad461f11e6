import ChimeCore
import Foundation
import Testing

/// One occurrence of a wall-clock series: the rule's zone, first time, unit and count, the
/// index asked for, and the instant it must be (written with its own offset).
struct SeriesCase: Sendable, CustomTestStringConvertible {
    var zone: String
    var start: String
    var unit: RepeatUnit
    var count: Int
    var n: Int
    var expected: String

    init(_ zone: String, _ start: String, every count: Int = 1, _ unit: RepeatUnit, n: Int, _ expected: String) {
        self.zone = zone
        self.start = start
        self.unit = unit
        self.count = count
        self.n = n
        self.expected = expected
    }

    var testDescription: String { "\(zone) \(start) every \(count) \(unit) #\(n)" }
}

struct FireRuleTests {
    // MARK: - Series across gaps and overlaps

    static let minuteSeries: [SeriesCase] = [
        // Berlin springs forward at 02:00: the skipped minutes all fire as the clock jumps.
        SeriesCase("Europe/Berlin", "2026-03-29T01:58", .minute, n: 1, "2026-03-29T01:59:00+01:00"),
        SeriesCase("Europe/Berlin", "2026-03-29T01:58", .minute, n: 2, "2026-03-29T03:00:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-03-29T01:58", .minute, n: 31, "2026-03-29T03:00:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-03-29T01:58", .minute, n: 62, "2026-03-29T03:00:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-03-29T01:58", .minute, n: 63, "2026-03-29T03:01:00+02:00"),
        // Berlin falls back at 03:00: the repeated hour is counted once, on its first pass.
        SeriesCase("Europe/Berlin", "2026-10-25T02:58", .minute, n: 1, "2026-10-25T02:59:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-10-25T02:58", .minute, n: 2, "2026-10-25T03:00:00+01:00"),
        SeriesCase("Australia/Lord_Howe", "2026-10-04T01:50", every: 10, .minute, n: 1, "2026-10-04T02:30:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-10-04T01:50", every: 10, .minute, n: 3, "2026-10-04T02:30:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-10-04T01:50", every: 10, .minute, n: 4, "2026-10-04T02:30:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-10-04T01:50", every: 10, .minute, n: 5, "2026-10-04T02:40:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-04-05T01:20", every: 10, .minute, n: 1, "2026-04-05T01:30:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-04-05T01:20", every: 10, .minute, n: 4, "2026-04-05T02:00:00+10:30"),
        SeriesCase("Pacific/Apia", "2011-12-29T23:30", every: 30, .minute, n: 1, "2011-12-31T00:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T23:30", every: 30, .minute, n: 48, "2011-12-31T00:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T23:30", every: 30, .minute, n: 49, "2011-12-31T00:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T23:30", every: 30, .minute, n: 50, "2011-12-31T00:30:00+14:00"),
        SeriesCase("America/Santiago", "2026-09-05T23:45", every: 15, .minute, n: 1, "2026-09-06T01:00:00-03:00"),
        SeriesCase("America/Santiago", "2026-09-05T23:45", every: 15, .minute, n: 5, "2026-09-06T01:00:00-03:00"),
        SeriesCase("America/Santiago", "2026-09-05T23:45", every: 15, .minute, n: 6, "2026-09-06T01:15:00-03:00"),
        SeriesCase("America/Santiago", "2026-04-04T22:45", every: 15, .minute, n: 4, "2026-04-04T23:45:00-03:00"),
        SeriesCase("America/Santiago", "2026-04-04T22:45", every: 15, .minute, n: 5, "2026-04-05T00:00:00-04:00"),
        SeriesCase("Asia/Kolkata", "2026-03-29T01:58", every: 45, .minute, n: 2, "2026-03-29T03:28:00+05:30"),
        SeriesCase("America/New_York", "2026-03-08T01:45", every: 20, .minute, n: 1, "2026-03-08T03:00:00-04:00"),
        SeriesCase("America/New_York", "2026-03-08T01:45", every: 20, .minute, n: 4, "2026-03-08T03:05:00-04:00"),
    ]

    static let hourSeries: [SeriesCase] = [
        SeriesCase("America/New_York", "2026-03-08T00:30", .hour, n: 1, "2026-03-08T01:30:00-05:00"),
        SeriesCase("America/New_York", "2026-03-08T00:30", .hour, n: 2, "2026-03-08T03:00:00-04:00"),
        SeriesCase("America/New_York", "2026-03-08T00:30", .hour, n: 3, "2026-03-08T03:30:00-04:00"),
        SeriesCase("America/New_York", "2026-11-01T00:30", .hour, n: 1, "2026-11-01T01:30:00-04:00"),
        SeriesCase("America/New_York", "2026-11-01T00:30", .hour, n: 2, "2026-11-01T02:30:00-05:00"),
        SeriesCase("Europe/Berlin", "2026-03-29T00:00", every: 2, .hour, n: 1, "2026-03-29T03:00:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-03-29T00:00", every: 2, .hour, n: 2, "2026-03-29T04:00:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-10-25T01:00", every: 2, .hour, n: 1, "2026-10-25T03:00:00+01:00"),
        SeriesCase("Australia/Lord_Howe", "2026-04-05T00:45", .hour, n: 1, "2026-04-05T01:45:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-04-05T00:45", .hour, n: 2, "2026-04-05T02:45:00+10:30"),
        SeriesCase("Australia/Lord_Howe", "2026-10-04T01:15", .hour, n: 1, "2026-10-04T02:30:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-10-04T01:15", .hour, n: 2, "2026-10-04T03:15:00+11:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T22:00", every: 6, .hour, n: 1, "2011-12-31T00:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T22:00", every: 6, .hour, n: 5, "2011-12-31T04:00:00+14:00"),
        SeriesCase("Asia/Kolkata", "2026-03-29T00:30", every: 2, .hour, n: 3, "2026-03-29T06:30:00+05:30"),
        SeriesCase("America/Santiago", "2026-09-05T22:30", .hour, n: 2, "2026-09-06T01:00:00-03:00"),
        SeriesCase("America/Santiago", "2026-09-05T22:30", .hour, n: 3, "2026-09-06T01:30:00-03:00"),
        SeriesCase("America/Santiago", "2026-04-04T22:30", .hour, n: 1, "2026-04-04T23:30:00-03:00"),
        SeriesCase("America/Santiago", "2026-04-04T22:30", .hour, n: 2, "2026-04-05T00:30:00-04:00"),
    ]

    static let daySeries: [SeriesCase] = [
        SeriesCase("Europe/Berlin", "2026-03-27T02:30", .day, n: 1, "2026-03-28T02:30:00+01:00"),
        SeriesCase("Europe/Berlin", "2026-03-27T02:30", .day, n: 2, "2026-03-29T03:30:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-03-27T02:30", .day, n: 3, "2026-03-30T02:30:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-10-24T02:30", .day, n: 1, "2026-10-25T02:30:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-10-24T02:30", .day, n: 2, "2026-10-26T02:30:00+01:00"),
        SeriesCase("America/New_York", "2026-03-07T02:30", .day, n: 1, "2026-03-08T03:30:00-04:00"),
        SeriesCase("America/New_York", "2026-10-31T01:30", .day, n: 1, "2026-11-01T01:30:00-04:00"),
        SeriesCase("Australia/Lord_Howe", "2026-10-03T02:15", .day, n: 1, "2026-10-04T02:45:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-10-03T02:15", .day, n: 2, "2026-10-05T02:15:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-04-04T01:45", .day, n: 1, "2026-04-05T01:45:00+11:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T09:00", .day, n: 0, "2011-12-29T09:00:00-10:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T09:00", .day, n: 1, "2011-12-31T09:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T09:00", .day, n: 2, "2011-12-31T09:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-12-29T09:00", .day, n: 3, "2012-01-01T09:00:00+14:00"),
        SeriesCase("Asia/Kolkata", "2026-03-28T09:00", .day, n: 1, "2026-03-29T09:00:00+05:30"),
        SeriesCase("America/Santiago", "2026-09-05T00:30", .day, n: 1, "2026-09-06T01:30:00-03:00"),
        SeriesCase("America/Santiago", "2026-09-05T00:30", .day, n: 2, "2026-09-07T00:30:00-03:00"),
        SeriesCase("America/Santiago", "2026-04-03T23:30", .day, n: 1, "2026-04-04T23:30:00-03:00"),
        SeriesCase("America/Santiago", "2026-04-03T23:30", .day, n: 2, "2026-04-05T23:30:00-04:00"),
        SeriesCase("Europe/Berlin", "2026-03-01T09:00", every: 3, .day, n: 10, "2026-03-31T09:00:00+02:00"),
    ]

    static let weekSeries: [SeriesCase] = [
        SeriesCase("America/New_York", "2026-03-01T02:30", .week, n: 1, "2026-03-08T03:30:00-04:00"),
        SeriesCase("America/New_York", "2026-03-01T02:30", .week, n: 2, "2026-03-15T02:30:00-04:00"),
        SeriesCase("America/New_York", "2026-10-25T01:30", .week, n: 1, "2026-11-01T01:30:00-04:00"),
        SeriesCase("America/New_York", "2026-10-25T01:30", .week, n: 2, "2026-11-08T01:30:00-05:00"),
        SeriesCase("Europe/Berlin", "2026-03-15T09:00", every: 2, .week, n: 1, "2026-03-29T09:00:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-10-18T02:30", .week, n: 1, "2026-10-25T02:30:00+02:00"),
        SeriesCase("Australia/Lord_Howe", "2026-09-27T02:15", .week, n: 1, "2026-10-04T02:45:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-03-29T01:45", .week, n: 1, "2026-04-05T01:45:00+11:00"),
        SeriesCase("Pacific/Apia", "2011-12-23T09:00", .week, n: 1, "2011-12-31T09:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-12-23T09:00", .week, n: 2, "2012-01-06T09:00:00+14:00"),
        SeriesCase("Asia/Kolkata", "2026-03-22T02:30", .week, n: 1, "2026-03-29T02:30:00+05:30"),
        SeriesCase("America/Santiago", "2026-08-30T00:15", .week, n: 1, "2026-09-06T01:15:00-03:00"),
        SeriesCase("America/Santiago", "2026-03-28T23:15", .week, n: 1, "2026-04-04T23:15:00-03:00"),
    ]

    static let monthSeries: [SeriesCase] = [
        SeriesCase("Europe/Berlin", "2026-01-29T02:30", .month, n: 1, "2026-02-28T02:30:00+01:00"),
        SeriesCase("Europe/Berlin", "2026-01-29T02:30", .month, n: 2, "2026-03-29T03:30:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-01-29T02:30", .month, n: 3, "2026-04-29T02:30:00+02:00"),
        SeriesCase("Europe/Berlin", "2026-09-25T02:30", .month, n: 1, "2026-10-25T02:30:00+02:00"),
        SeriesCase("America/New_York", "2026-02-08T02:30", .month, n: 1, "2026-03-08T03:30:00-04:00"),
        SeriesCase("America/New_York", "2026-10-01T01:30", .month, n: 1, "2026-11-01T01:30:00-04:00"),
        SeriesCase("Australia/Lord_Howe", "2026-09-04T02:15", .month, n: 1, "2026-10-04T02:45:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2026-03-05T01:45", .month, n: 1, "2026-04-05T01:45:00+11:00"),
        SeriesCase("Pacific/Apia", "2011-11-30T12:00", .month, n: 1, "2011-12-31T12:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2011-11-30T12:00", .month, n: 2, "2012-01-30T12:00:00+14:00"),
        SeriesCase("Asia/Kolkata", "2026-01-31T10:00", every: 3, .month, n: 1, "2026-04-30T10:00:00+05:30"),
        SeriesCase("America/Santiago", "2026-08-06T00:30", .month, n: 1, "2026-09-06T01:30:00-03:00"),
        SeriesCase("America/Santiago", "2026-03-04T23:30", .month, n: 1, "2026-04-04T23:30:00-03:00"),
    ]

    static let yearSeries: [SeriesCase] = [
        SeriesCase("America/Santiago", "2025-09-06T00:30", .year, n: 0, "2025-09-06T00:30:00-04:00"),
        SeriesCase("America/Santiago", "2025-09-06T00:30", .year, n: 1, "2026-09-06T01:30:00-03:00"),
        SeriesCase("America/New_York", "2025-11-01T01:30", .year, n: 1, "2026-11-01T01:30:00-04:00"),
        SeriesCase("America/New_York", "2025-03-08T02:30", .year, n: 1, "2026-03-08T03:30:00-04:00"),
        SeriesCase("Pacific/Apia", "2010-12-30T09:00", .year, n: 0, "2010-12-30T09:00:00-10:00"),
        SeriesCase("Pacific/Apia", "2010-12-30T09:00", .year, n: 1, "2011-12-31T09:00:00+14:00"),
        SeriesCase("Pacific/Apia", "2010-12-30T09:00", .year, n: 2, "2012-12-30T09:00:00+14:00"),
        SeriesCase("Australia/Lord_Howe", "2025-10-05T02:15", .year, n: 0, "2025-10-05T02:45:00+11:00"),
        SeriesCase("Australia/Lord_Howe", "2025-10-05T02:15", .year, n: 1, "2026-10-05T02:15:00+11:00"),
        SeriesCase("Europe/Berlin", "2025-03-29T02:30", .year, n: 1, "2026-03-29T03:30:00+02:00"),
        SeriesCase("Europe/Berlin", "2028-02-29T09:00", .year, n: 1, "2029-02-28T09:00:00+01:00"),
        SeriesCase("Europe/Berlin", "2028-02-29T09:00", .year, n: 4, "2032-02-29T09:00:00+01:00"),
        SeriesCase("Asia/Kolkata", "2024-02-29T09:00", every: 2, .year, n: 1, "2026-02-28T09:00:00+05:30"),
    ]

    @Test(arguments: minuteSeries + hourSeries + daySeries + weekSeries + monthSeries + yearSeries)
    func zonedSeriesKeepTheirWallClock(series: SeriesCase) throws {
        let local = try #require(LocalDateTime(iso: series.start))
        let rule = try FireRule(
            trigger: .zoned(local, zone: series.zone), recurrence: Recurrence(unit: series.unit, count: series.count))
        // The system zone must not matter to a zoned rule.
        for systemZone in [Zone.utc, try #require(Zone(identifier: "Asia/Tokyo"))] {
            #expect(rule.occurrence(series.n, systemZone: systemZone) == instant(series.expected))
        }
    }

    @Test(arguments: minuteSeries + hourSeries + daySeries + weekSeries + monthSeries + yearSeries)
    func floatingSeriesFollowTheSystemZone(series: SeriesCase) throws {
        let local = try #require(LocalDateTime(iso: series.start))
        let rule = try FireRule(trigger: .floating(local), recurrence: Recurrence(unit: series.unit, count: series.count))
        let systemZone = try #require(Zone(identifier: series.zone))
        #expect(rule.occurrence(series.n, systemZone: systemZone) == instant(series.expected))
    }

    /// Occurrences may share an instant, but never go backwards, and the searches agree
    /// with a plain walk through the series.
    @Test(arguments: minuteSeries + hourSeries + daySeries + weekSeries + monthSeries + yearSeries)
    func searchesAgreeWithAWalk(series: SeriesCase) throws {
        let local = try #require(LocalDateTime(iso: series.start))
        let rule = try FireRule(
            trigger: .zoned(local, zone: series.zone), recurrence: Recurrence(unit: series.unit, count: series.count))
        let dates = (0..<80).compactMap { rule.occurrence($0, systemZone: .utc) }
        #expect(dates.count == 80)
        #expect(zip(dates, dates.dropFirst()).allSatisfy { $0 <= $1 })
        guard let first = dates.first, let last = dates.last else { return }
        // Probe at, just before and just after every occurrence, and between.
        var probes: [Date] = []
        for date in dates.dropLast() {
            probes += [date, date.addingTimeInterval(-1), date.addingTimeInterval(1), date.addingTimeInterval(0.5)]
        }
        probes.append(first.addingTimeInterval(-86_400 * 400))
        for probe in probes {
            let onOrAfter = try #require(dates.firstIndex { $0 >= probe })
            let found = rule.firstOccurrence(onOrAfter: probe, systemZone: .utc)
            #expect(found?.index == onOrAfter, "on or after \(probe)")
            #expect(found?.date == dates[onOrAfter])
            let after = dates.firstIndex { $0 > probe }
            #expect(rule.nextOccurrence(after: probe, systemZone: .utc) == after.map { dates[$0] }, "after \(probe)")
        }
        #expect(rule.nextOccurrence(after: last, systemZone: .utc).map { $0 > last } == true)
    }

    @Test func aSkippedFirstTimeMovesByTheGapUnlessTheRepeatIsShorterThanADay() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let skipped = LocalDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)
        for recurrence in [nil, try Recurrence(unit: .day), try Recurrence(unit: .month)] {
            let rule = try FireRule(trigger: .floating(skipped), recurrence: recurrence)
            #expect(rule.occurrence(0, systemZone: berlin) == instant("2026-03-29T03:30:00+02:00"))
        }
        for recurrence in [try Recurrence(unit: .hour), try Recurrence(unit: .minute, count: 20)] {
            let rule = try FireRule(trigger: .floating(skipped), recurrence: recurrence)
            #expect(rule.occurrence(0, systemZone: berlin) == instant("2026-03-29T03:00:00+02:00"))
        }
    }

    // MARK: - Month ends and leap days

    @Test(arguments: [
        ("2027-01-31T10:00:00Z", 1, 1, "2027-02-28T10:00:00Z"), ("2027-01-31T10:00:00Z", 1, 2, "2027-03-31T10:00:00Z"),
        ("2027-01-31T10:00:00Z", 1, 3, "2027-04-30T10:00:00Z"), ("2027-01-31T10:00:00Z", 1, 4, "2027-05-31T10:00:00Z"),
        ("2027-01-31T10:00:00Z", 1, 5, "2027-06-30T10:00:00Z"), ("2027-01-31T10:00:00Z", 1, 8, "2027-09-30T10:00:00Z"),
        ("2027-01-31T10:00:00Z", 1, 11, "2027-12-31T10:00:00Z"), ("2027-01-31T10:00:00Z", 1, 13, "2028-02-29T10:00:00Z"),
        ("2027-01-31T10:00:00Z", 2, 1, "2027-03-31T10:00:00Z"), ("2027-01-31T10:00:00Z", 2, 2, "2027-05-31T10:00:00Z"),
        ("2027-03-31T10:00:00Z", 1, 1, "2027-04-30T10:00:00Z"), ("2027-03-31T10:00:00Z", 1, 2, "2027-05-31T10:00:00Z"),
        ("2027-03-31T10:00:00Z", 12, 1, "2028-03-31T10:00:00Z"), ("2027-08-30T10:00:00Z", 6, 1, "2028-02-29T10:00:00Z"),
    ])
    func monthEndsStayMonthEnds(start: String, count: Int, n: Int, expected: String) throws {
        let rule = try FireRule(trigger: .absolute(instant(start)), recurrence: Recurrence(unit: .month, count: count))
        #expect(rule.occurrence(n, systemZone: .utc) == instant(expected))
    }

    @Test(arguments: [
        (1, "2029-02-28T09:00:00+01:00"), (2, "2030-02-28T09:00:00+01:00"), (3, "2031-02-28T09:00:00+01:00"),
        (4, "2032-02-29T09:00:00+01:00"), (72, "2100-02-28T09:00:00+01:00"), (372, "2400-02-29T09:00:00+01:00"),
    ])
    func leapDaysComeBackInLeapYears(n: Int, expected: String) throws {
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2028, month: 2, day: 29, hour: 9)), recurrence: Recurrence(unit: .year))
        #expect(rule.occurrence(n, systemZone: try #require(Zone(identifier: "Europe/Berlin"))) == instant(expected))
    }

    // MARK: - Alarms ahead of their item

    /// A daily item in New York and an alarm `lead` seconds ahead of it, first due at
    /// `first` (its wall-clock time): the alarm's fire times, each `lead` before its item
    /// (whole days of it on the calendar), whatever the clocks do in between.
    @Test(arguments: [
        // 15 minutes before 03:10: on 14 March 2027 that is 01:55 EST, not the 02:55 that day lacks.
        (900, "2027-03-12T02:55", ["2027-03-12T02:55:00-05:00", "2027-03-13T02:55:00-05:00", "2027-03-14T01:55:00-05:00",
                                   "2027-03-15T02:55:00-04:00"]),
        // 15 minutes before 02:10: on 7 November 2027 that is 01:55 EST, the second 01:55 of the day.
        (900, "2027-11-05T01:55", ["2027-11-05T01:55:00-04:00", "2027-11-06T01:55:00-04:00", "2027-11-07T01:55:00-05:00",
                                   "2027-11-08T01:55:00-05:00"]),
        // An hour before 02:10: 01:10 EST on 7 November, an hour after the 01:10 EDT the wall clock shows first.
        (3_600, "2027-11-06T01:10", ["2027-11-06T01:10:00-04:00", "2027-11-07T01:10:00-05:00", "2027-11-08T01:10:00-05:00"]),
        // A day before 03:10 is 03:10 the day before, on either side of a change (RFC 5545 3.3.6: days are nominal).
        (86_400, "2027-03-12T03:10", ["2027-03-12T03:10:00-05:00", "2027-03-13T03:10:00-05:00", "2027-03-14T03:10:00-04:00",
                                      "2027-03-15T03:10:00-04:00"]),
        (86_400, "2027-11-05T09:00", ["2027-11-05T09:00:00-04:00", "2027-11-06T09:00:00-04:00", "2027-11-07T09:00:00-05:00"]),
        // A day and 15 minutes before 03:10 on 15 March: 15 minutes before 03:10 EDT on the 14th, 01:55 EST.
        (87_300, "2027-03-12T02:55", ["2027-03-12T02:55:00-05:00", "2027-03-13T02:55:00-05:00", "2027-03-14T01:55:00-05:00",
                                      "2027-03-15T02:55:00-04:00"]),
        // 15 minutes after a 01:50 item (a negative lead): on 14 March 03:05 EDT, 15 minutes after 01:50 EST.
        (-900, "2027-03-13T02:05", ["2027-03-13T02:05:00-05:00", "2027-03-14T03:05:00-04:00", "2027-03-15T02:05:00-04:00"]),
    ])
    func anAlarmAheadOfARepeatingItemIsCountedFromEachOccurrence(lead: Int, first: String, expected: [String]) throws {
        let newYork = try #require(Zone(identifier: "America/New_York"))
        let when = try #require(LocalDateTime(iso: first))
        let rule = try FireRule(trigger: .zoned(when, zone: "America/New_York"), recurrence: Recurrence(unit: .day)).leading(by: lead)
        #expect(rule.lead == lead && rule.fireTrigger == .zoned(when, zone: "America/New_York"))
        let found = rule.upcoming(from: .distantPast, count: expected.count, systemZone: newYork)
        #expect(found == expected.map(instant))
        // The search from any instant finds the same fire times, and each item's start its occurrence.
        for (index, date) in found.enumerated() {
            #expect(rule.firstOccurrence(onOrAfter: date, systemZone: newYork)?.date == date)
            let start = try #require(rule.wallClock(ofOccurrence: index, systemZone: newYork))
            #expect(rule.occurrence(startingAt: start.date(in: newYork), systemZone: newYork)?.index == index)
        }
    }

    /// What a lead leaves alone: a one-shot fires at its time, minute and hour repeats step
    /// from their fire time; a lead of 0 takes the lead back off.
    @Test func aLeadChangesOnlyRepeatsByDaysOrLonger() throws {
        let when = LocalDateTime(year: 2027, month: 3, day: 14, hour: 1, minute: 55)
        for recurrence in [nil, try Recurrence(unit: .hour), try Recurrence(unit: .minute, count: 15)] {
            let rule = try FireRule(trigger: .zoned(when, zone: "America/New_York"), recurrence: recurrence)
            #expect(rule.leading(by: 900) == rule)
        }
        var weekly = try FireRule(trigger: .floating(when), recurrence: Recurrence(unit: .week)).leading(by: 900)
        weekly.skipped = [LocalDateTime(year: 2027, month: 3, day: 21, hour: 2, minute: 10)]
        let moved = weekly.leading(by: 3_600)
        #expect(moved.fireTrigger == weekly.fireTrigger)
        #expect(moved.trigger == .floating(LocalDateTime(year: 2027, month: 3, day: 14, hour: 2, minute: 55)))
        #expect(moved.skipped == [LocalDateTime(year: 2027, month: 3, day: 21, hour: 2, minute: 55)], "the same occurrence skipped")
        #expect(moved.leading(by: 0).trigger == .floating(when) && moved.leading(by: 0).lead == 0)
        #expect(weekly.skippedInstants(systemZone: .utc) == [instant("2027-03-21T01:55:00Z")], "when it would have fired")
    }

    // MARK: - Frames

    @Test(arguments: [RepeatUnit.minute, .hour, .day, .week])
    func absoluteRepeatsAreFixedLengths(unit: RepeatUnit) throws {
        // Across Berlin's spring-forward night: a countdown ignores the wall clock.
        let start = instant("2026-03-28T12:00:00Z").addingTimeInterval(0.25)
        let rule = try FireRule(trigger: .absolute(start), recurrence: Recurrence(unit: unit, count: 3))
        let length: TimeInterval = ["minute": 60, "hour": 3_600, "day": 86_400, "week": 604_800][unit.rawValue] ?? 0
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        for n in [1, 2, 10, 1_000] {
            #expect(rule.occurrence(n, systemZone: berlin) == start.addingTimeInterval(TimeInterval(n * 3) * length))
        }
    }

    @Test func absoluteMonthsAndYearsCountInUTC() throws {
        let rule = try FireRule(trigger: .absolute(instant("2026-03-28T23:30:00Z")), recurrence: Recurrence(unit: .month))
        let tokyo = try #require(Zone(identifier: "Asia/Tokyo"))
        // In Tokyo the first is already the 29th; the arithmetic is on UTC's calendar anyway.
        #expect(rule.occurrence(1, systemZone: tokyo) == instant("2026-04-28T23:30:00Z"))
        let yearly = try FireRule(trigger: .absolute(instant("2028-02-29T23:30:00Z")), recurrence: Recurrence(unit: .year))
        #expect(yearly.occurrence(1, systemZone: tokyo) == instant("2029-02-28T23:30:00Z"))
    }

    @Test func aMoveToAnotherZoneMovesOnlyFloatingRules() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let tokyo = try #require(Zone(identifier: "Asia/Tokyo"))
        let nineAM = LocalDateTime(year: 2026, month: 6, day: 1, hour: 9)
        let daily = try Recurrence(unit: .day)

        let floating = try FireRule(trigger: .floating(nineAM), recurrence: daily)
        #expect(floating.occurrence(5, systemZone: berlin) == instant("2026-06-06T09:00:00+02:00"))
        #expect(floating.occurrence(5, systemZone: tokyo) == instant("2026-06-06T09:00:00+09:00"))
        // Landed in Tokyo at 10:00 on the 6th: the next alarm is 09:00 Tokyo time on the 7th.
        #expect(floating.nextOccurrence(after: instant("2026-06-06T10:00:00+09:00"), systemZone: tokyo)
            == instant("2026-06-07T09:00:00+09:00"))

        let zoned = try FireRule(trigger: .zoned(nineAM, zone: "America/New_York"), recurrence: daily)
        #expect(zoned.occurrence(5, systemZone: berlin) == instant("2026-06-06T09:00:00-04:00"))
        #expect(zoned.occurrence(5, systemZone: tokyo) == instant("2026-06-06T09:00:00-04:00"))

        let absolute = try FireRule(trigger: .absolute(instant("2026-06-01T07:00:00Z")), recurrence: daily)
        #expect(absolute.occurrence(5, systemZone: berlin) == instant("2026-06-06T07:00:00Z"))
        #expect(absolute.occurrence(5, systemZone: tokyo) == instant("2026-06-06T07:00:00Z"))
    }

    @Test func zonedRulesKeepTheirHourAcrossDaylightSaving() throws {
        let rule = try FireRule(
            trigger: .zoned(LocalDateTime(year: 2026, month: 3, day: 1, hour: 9), zone: "America/New_York"),
            recurrence: Recurrence(unit: .week))
        #expect(rule.occurrence(1, systemZone: .utc) == instant("2026-03-08T09:00:00-04:00"))
        #expect(rule.occurrence(35, systemZone: .utc) == instant("2026-11-01T09:00:00-05:00"))
    }

    @Test func hebrewYearsFollowTheHebrewCalendar() throws {
        // 1 Tishrei (Rosh Hashanah): 5786 fell on 2025-09-23, 5787 falls on 2026-09-12.
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2025, month: 9, day: 23, hour: 10)), recurrence: Recurrence(unit: .year),
            calendar: "hebrew")
        #expect(rule.occurrence(1, systemZone: .utc) == instant("2026-09-12T10:00:00Z"))
    }

    @Test(arguments: FireRule.calendars.map(\.name))
    func everyCalendarAdvancesByMonthsAndYears(name: String) throws {
        for unit in [RepeatUnit.month, .year] {
            let rule = try FireRule(
                trigger: .absolute(instant("2026-06-15T12:00:00Z")), recurrence: Recurrence(unit: unit), calendar: name)
            let dates = (0..<14).compactMap { rule.occurrence($0, systemZone: .utc) }
            #expect(dates.count == 14)
            #expect(zip(dates, dates.dropFirst()).allSatisfy { $0 < $1 }, "\(name) \(unit)")
            let next = rule.nextOccurrence(after: instant("2027-01-01T00:00:00Z"), systemZone: .utc)
            #expect(next.map { $0 > instant("2027-01-01T00:00:00Z") } == true)
        }
    }

    // MARK: - Searching long series

    @Test func findsTheNextMinuteOfASeriesStartedYearsAgo() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2023, month: 1, day: 1)), recurrence: Recurrence(unit: .minute))
        // Indices count wall-clock minutes from the first one.
        func index(ofLocal text: String) -> Int {
            Int(instant(text).timeIntervalSince(instant("2023-01-01T00:00:00Z")) / 60)
        }
        let after = rule.firstOccurrence(onOrAfter: instant("2026-03-29T03:00:30+02:00"), systemZone: berlin)
        #expect(after?.date == instant("2026-03-29T03:01:00+02:00"))
        #expect(after?.index == index(ofLocal: "2026-03-29T03:01:00Z"))
        // At the jump, the first of the skipped minutes (02:00) is the one found.
        let atJump = rule.firstOccurrence(onOrAfter: instant("2026-03-29T03:00:00+02:00"), systemZone: berlin)
        #expect(atJump?.date == instant("2026-03-29T03:00:00+02:00"))
        #expect(atJump?.index == index(ofLocal: "2026-03-29T02:00:00Z"))
        #expect(rule.nextOccurrence(after: instant("2026-03-29T01:59:30+01:00"), systemZone: berlin)
            == instant("2026-03-29T03:00:00+02:00"))
        // In the second pass of a repeated hour, the series waits for the hour's end.
        #expect(rule.nextOccurrence(after: instant("2026-10-25T02:10:00+01:00"), systemZone: berlin)
            == instant("2026-10-25T03:00:00+01:00"))
    }

    @Test func findsTheNextOccurrenceOfOldSeriesOfEveryUnit() throws {
        let now = instant("2026-11-22T10:00:30+01:00")
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        // 2026-11-22 is day 9 456 after 2001-01-01, a Monday; 10:00 is minute 13 617 240.
        let cases: [(RepeatUnit, Int, String)] = [
            (.minute, 7, "2026-11-22T10:07:00+01:00"), (.hour, 5, "2026-11-22T11:00:00+01:00"),
            (.day, 3, "2026-11-25T00:00:00+01:00"), (.week, 2, "2026-11-30T00:00:00+01:00"),
            (.month, 5, "2027-04-01T00:00:00+02:00"), (.year, 2, "2027-01-01T00:00:00+01:00"),
        ]
        for (unit, count, expected) in cases {
            let rule = try FireRule(
                trigger: .floating(LocalDateTime(year: 2001, month: 1, day: 1)), recurrence: Recurrence(unit: unit, count: count))
            #expect(rule.nextOccurrence(after: now, systemZone: berlin) == instant(expected), "\(unit)")
        }
    }

    // MARK: - One-shots, the past, upcoming

    @Test func aOneShotHasOneOccurrence() throws {
        let date = instant("2026-12-24T17:00:00Z")
        let rule = try FireRule(trigger: .absolute(date))
        #expect(rule.occurrence(0, systemZone: .utc) == date)
        #expect(rule.occurrence(1, systemZone: .utc) == nil)
        #expect(rule.occurrence(-1, systemZone: .utc) == nil)
        #expect(rule.nextOccurrence(after: date.addingTimeInterval(-1), systemZone: .utc) == date)
        #expect(rule.nextOccurrence(after: date, systemZone: .utc) == nil)
        #expect(rule.firstOccurrence(onOrAfter: date, systemZone: .utc)?.index == 0)
        #expect(rule.firstOccurrence(onOrAfter: date.addingTimeInterval(0.001), systemZone: .utc) == nil)
    }

    @Test func aTimeInThePastIsAccepted() throws {
        let rule = try FireRule(trigger: .floating(LocalDateTime(year: 1999, month: 12, day: 31, hour: 23, minute: 59)))
        #expect(rule.occurrence(0, systemZone: .utc) == instant("1999-12-31T23:59:00Z"))
    }

    @Test func upcomingListsDistinctTimesInOrder() throws {
        let apia = try #require(Zone(identifier: "Pacific/Apia"))
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2011, month: 12, day: 28, hour: 9)), recurrence: Recurrence(unit: .day))
        // The 30th never happened: its alarm and the 31st's are one.
        #expect(rule.upcoming(from: instant("2011-12-28T09:00:00-10:00"), count: 4, systemZone: apia) == [
            instant("2011-12-28T09:00:00-10:00"), instant("2011-12-29T09:00:00-10:00"),
            instant("2011-12-31T09:00:00+14:00"), instant("2012-01-01T09:00:00+14:00"),
        ])
        #expect(rule.upcoming(from: .distantPast, count: 0, systemZone: apia).isEmpty)

        let oneShot = try FireRule(trigger: .absolute(instant("2026-12-24T17:00:00Z")))
        #expect(oneShot.upcoming(from: instant("2026-01-01T00:00:00Z"), count: 5, systemZone: .utc) == [instant("2026-12-24T17:00:00Z")])
        #expect(oneShot.upcoming(from: instant("2027-01-01T00:00:00Z"), count: 5, systemZone: .utc).isEmpty)
    }

    @Test func seriesEndAtTheYear9999() throws {
        let rule = try FireRule(
            trigger: .absolute(instant("9999-06-01T00:00:00Z")), recurrence: Recurrence(unit: .month, count: 1))
        #expect(rule.occurrence(6, systemZone: .utc) == instant("9999-12-01T00:00:00Z"))
        #expect(rule.occurrence(7, systemZone: .utc) == nil)
        #expect(rule.nextOccurrence(after: instant("9999-12-01T00:00:00Z"), systemZone: .utc) == nil)
        #expect(rule.occurrence(Int.max, systemZone: .utc) == nil)
        let minutes = try FireRule(trigger: .absolute(instant("2026-01-01T00:00:00Z")), recurrence: Recurrence(unit: .minute, count: 1_000_000))
        #expect(minutes.occurrence(Int.max / 2, systemZone: .utc) == nil)
    }

    // MARK: - Validation

    @Test func unknownNamesAreRefusedByField() throws {
        let nine = LocalDateTime(year: 2026, month: 12, day: 24, hour: 9)
        #expect(throws: FieldError("zone", "'Mars/Base' is not a known time zone.")) {
            try FireRule(trigger: .zoned(nine, zone: "Mars/Base"))
        }
        let error = #expect(throws: FieldError.self) { try FireRule(trigger: .floating(nine), calendar: "mayan") }
        #expect(error?.field == "calendar")
        #expect(error?.reason.hasPrefix("'mayan' is not a known calendar; use one of gregorian, iso8601,") == true)
        #expect(error?.reason.hasSuffix(".") == true)
        #expect(throws: FieldError("when", "'2026-02-30T09:00:00' is not a valid date and time: February 2026 has 28 days.")) {
            try FireRule(trigger: .floating(LocalDateTime(year: 2026, month: 2, day: 30, hour: 9)))
        }
    }

    @Test(arguments: [
        ("gregorian", "gregorian"), ("Gregorian", "gregorian"), ("ISO8601", "iso8601"), ("islamic-civil", "islamicCivil"),
        ("islamicCivil", "islamicCivil"), ("ethiopic", "ethiopicAmeteMihret"), ("roc", "republicOfChina"), ("HEBREW", "hebrew"),
        ("islamic_umalqura", "islamicUmmAlQura"), ("persian", "persian"), ("japanese", "japanese"), ("buddhist", "buddhist"),
    ])
    func calendarNamesAreKeptInTheirSwiftSpelling(name: String, kept: String) throws {
        let rule = try FireRule(trigger: .absolute(instant("2026-01-01T00:00:00Z")), calendar: name)
        #expect(rule.calendar == kept)
    }

    @Test func aRuleWhoseZoneWasChangedToNonsenseHasNoOccurrences() throws {
        var rule = try FireRule(trigger: .zoned(LocalDateTime(year: 2026, month: 1, day: 1), zone: "Europe/Berlin"))
        rule.trigger = .zoned(LocalDateTime(year: 2026, month: 1, day: 1), zone: "Nowhere/Else")
        #expect(rule.occurrence(0, systemZone: .utc) == nil)
        #expect(rule.upcoming(from: .distantPast, count: 3, systemZone: .utc).isEmpty)
    }
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
