import ChimeCore
import Foundation
import Testing

/// Months without the first occurrence's day: an RRULE leaves them out, uncounted (RFC 5545
/// 3.3.10), `repeat` takes their last day (iOS), RFC 7529's SKIP says either or the next
/// month's first day. The dates are python-dateutil's for the RRULEs.
struct MonthEndsTests {
    /// Each occurrence at 09:00 UTC on these days.
    static let omitted: [(start: String, rrule: String, days: [String])] = [
        ("2027-01-29", "FREQ=MONTHLY", ["2027-01-29", "2027-03-29", "2027-04-29", "2027-05-29", "2027-06-29", "2027-07-29"]),
        ("2027-01-30", "FREQ=MONTHLY", ["2027-01-30", "2027-03-30", "2027-04-30", "2027-05-30", "2027-06-30", "2027-07-30"]),
        ("2027-01-31", "FREQ=MONTHLY", ["2027-01-31", "2027-03-31", "2027-05-31", "2027-07-31", "2027-08-31", "2027-10-31"]),
        ("2027-12-29", "FREQ=MONTHLY;INTERVAL=2", ["2027-12-29", "2028-02-29", "2028-04-29", "2028-06-29", "2028-08-29", "2028-10-29"]),
        ("2027-01-30", "FREQ=MONTHLY;INTERVAL=2", ["2027-01-30", "2027-03-30", "2027-05-30", "2027-07-30", "2027-09-30", "2027-11-30"]),
        ("2027-01-31", "FREQ=MONTHLY;INTERVAL=2", ["2027-01-31", "2027-03-31", "2027-05-31", "2027-07-31", "2028-01-31", "2028-03-31"]),
        ("2027-08-31", "FREQ=MONTHLY;INTERVAL=2", ["2027-08-31", "2027-10-31", "2027-12-31", "2028-08-31", "2028-10-31", "2028-12-31"]),
        ("2027-01-29", "FREQ=MONTHLY;INTERVAL=5", ["2027-01-29", "2027-06-29", "2027-11-29", "2028-04-29", "2028-09-29", "2029-07-29"]),
        ("2027-01-31", "FREQ=MONTHLY;INTERVAL=5", ["2027-01-31", "2029-07-31", "2029-12-31", "2030-05-31", "2030-10-31", "2031-03-31"]),
        ("2027-03-31", "FREQ=MONTHLY;INTERVAL=5", ["2027-03-31", "2027-08-31", "2028-01-31", "2030-07-31", "2030-12-31", "2031-05-31"]),
        ("2028-02-29", "FREQ=YEARLY", ["2028-02-29", "2032-02-29", "2036-02-29", "2040-02-29", "2044-02-29", "2048-02-29"]),
        ("2028-02-29", "FREQ=YEARLY;INTERVAL=3", ["2028-02-29", "2040-02-29", "2052-02-29", "2064-02-29", "2076-02-29", "2088-02-29"]),
    ]

    @Test(arguments: omitted.indices)
    func anRRULELeavesOutTheMonthsWithoutItsDay(index: Int) throws {
        let (start, rrule, days) = Self.omitted[index]
        let rule = try zoned("UTC", start + "T09:00", rrule)
        let found = rule.upcoming(from: .distantPast, count: 6, systemZone: .utc)
        #expect(found == days.map { instant($0 + "T09:00:00Z") }, "\(start) \(rrule)")
        // The search from any instant lands on the same occurrences as the walk.
        for (index, date) in found.enumerated() {
            #expect(rule.firstOccurrence(onOrAfter: date.addingTimeInterval(-86_400), systemZone: .utc)?.index == index)
        }
    }

    /// 29 January every 5 months: 29 February 2029 does not exist, so the sixth is June 2029.
    @Test func aStepOntoACommonFebruaryIsLeftOut() throws {
        let rule = try zoned("UTC", "2027-01-29T09:00", "FREQ=MONTHLY;INTERVAL=5")
        #expect(rule.occurrence(5, systemZone: .utc) == instant("2029-07-29T09:00:00Z"))
    }

    /// COUNT counts the occurrences that exist: four from 31 May are May, July, August, October.
    @Test(arguments: [
        ("2027-05-31T09:00", "FREQ=MONTHLY;COUNT=4", ["2027-05-31", "2027-07-31", "2027-08-31", "2027-10-31"]),
        ("2096-02-29T09:00", "FREQ=YEARLY;COUNT=3", ["2096-02-29", "2104-02-29", "2108-02-29"]),
        ("2027-01-30T09:00", "FREQ=MONTHLY;UNTIL=20270531T090000", ["2027-01-30", "2027-03-30", "2027-04-30", "2027-05-30"]),
    ])
    func aCountCountsOnlyTheOccurrencesThatExist(start: String, rrule: String, days: [String]) throws {
        let rule = try zoned("UTC", start, rrule)
        #expect(rule.upcoming(from: .distantPast, count: 10, systemZone: .utc) == days.map { instant($0 + "T09:00:00Z") })
    }

    /// RFC 7529: BACKWARD takes the month's last day, FORWARD the next month's first.
    @Test(arguments: [
        ("2027-01-31T09:00", "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD", ["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"]),
        ("2027-01-31T09:00", "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD", ["2027-01-31", "2027-03-01", "2027-03-31", "2027-05-01"]),
        ("2027-03-30T09:00", "FREQ=MONTHLY;INTERVAL=11;RSCALE=GREGORIAN;SKIP=FORWARD", ["2027-03-30", "2028-03-01", "2029-01-30", "2029-12-30"]),
        ("2028-01-29T09:00", "FREQ=MONTHLY;INTERVAL=13;RSCALE=GREGORIAN;SKIP=FORWARD", ["2028-01-29", "2029-03-01", "2030-03-29", "2031-04-29"]),
        ("2028-02-29T09:00", "FREQ=YEARLY;RSCALE=gregorian;SKIP=forward", ["2028-02-29", "2029-03-01", "2030-03-01", "2031-03-01"]),
        ("2028-02-29T09:00", "FREQ=YEARLY;RSCALE=GREGORIAN;SKIP=BACKWARD", ["2028-02-29", "2029-02-28", "2030-02-28", "2031-02-28"]),
        ("2027-01-31T09:00", "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=OMIT", ["2027-01-31", "2027-03-31", "2027-05-31", "2027-07-31"]),
        ("2027-01-31T09:00", "FREQ=MONTHLY;RSCALE=GREGORIAN", ["2027-01-31", "2027-03-31", "2027-05-31", "2027-07-31"]),
    ])
    func skipSaysWhereAMissingDayGoes(start: String, rrule: String, days: [String]) throws {
        let rule = try zoned("UTC", start, rrule)
        #expect(rule.upcoming(from: .distantPast, count: 4, systemZone: .utc) == days.map { instant($0 + "T09:00:00Z") })
    }

    /// `repeat` is iOS's repeatInterval: the 31st monthly clamps (FireRuleTests pins its dates).
    @Test func aRepeatTakesTheLastDayAndSaysSoOnlyWhereItMatters() throws {
        let monthly = try Recurrence(unit: .month)
        #expect(monthly.skip == .backward)
        #expect(monthly.rrule() == "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD")
        let berlin = "Europe/Berlin"
        func rule(_ start: String, _ recurrence: Recurrence, calendar: String = "gregorian") throws -> FireRule {
            try FireRule(trigger: .zoned(try #require(LocalDateTime(iso: start)), zone: berlin), recurrence: recurrence, calendar: calendar)
        }
        #expect(try rule("2027-01-31T09:00", monthly).rrule == "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD")
        #expect(try rule("2027-01-28T09:00", monthly).rrule == "FREQ=MONTHLY")
        #expect(try rule("2027-01-31T09:00", monthly, calendar: "hebrew").rrule == "FREQ=MONTHLY")
        let yearly = try Recurrence(unit: .year)
        #expect(try rule("2028-02-29T09:00", yearly).rrule == "FREQ=YEARLY;RSCALE=GREGORIAN;SKIP=BACKWARD")
        #expect(try rule("2027-03-31T09:00", yearly).rrule == "FREQ=YEARLY")
        var lastDay = try Recurrence(unit: .month)
        try lastDay.restrict(days: [.lastDay], limit: nil, until: nil)
        #expect(try rule("2027-01-31T09:00", lastDay).rrule == "FREQ=MONTHLY;BYMONTHDAY=-1")
        let rfc = try Recurrence.parse(rrule: "FREQ=MONTHLY").0
        #expect(rfc.skip == .omit)
        #expect(try rule("2027-01-31T09:00", rfc).rrule == "FREQ=MONTHLY")
        let forward = try Recurrence.parse(rrule: "FREQ=MONTHLY;SKIP=FORWARD;RSCALE=GREGORIAN").0
        #expect(try rule("2027-01-30T09:00", forward).rrule == "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD")
    }

    @Test(arguments: [
        "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD", "FREQ=YEARLY;INTERVAL=2;COUNT=5;RSCALE=GREGORIAN;SKIP=FORWARD",
        "FREQ=MONTHLY;UNTIL=20301231T235959;RSCALE=GREGORIAN;SKIP=BACKWARD",
    ])
    func monthEndsReadBackAsWritten(text: String) throws {
        #expect(try Recurrence.parse(rrule: text).0.rrule() == text)
        #expect(try Recurrence.parse(rrule: text.lowercased()).0.rrule() == text)
    }

    /// A rule counted in another calendar is never read as Gregorian; SKIP alone is not RFC 7529.
    @Test(arguments: [
        ("FREQ=YEARLY;RSCALE=CHINESE", "RSCALE=CHINESE: only GREGORIAN is supported; give the rule in the Gregorian calendar or "
            + "leave RSCALE out and give calendar chinese (chime: --calendar chinese)."),
        ("FREQ=MONTHLY;RSCALE=ETHIOPIC-AMETE-ALEM", "RSCALE=ETHIOPIC-AMETE-ALEM: only GREGORIAN is supported; give the rule in the "
            + "Gregorian calendar."),
        ("FREQ=MONTHLY;SKIP=FORWARD", "SKIP=FORWARD needs RSCALE (RFC 7529 3.1); write RSCALE=GREGORIAN;SKIP=FORWARD."),
        ("FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=SIDEWAYS", "SKIP=SIDEWAYS is not OMIT, BACKWARD or FORWARD (RFC 7529 3.1)."),
    ])
    func otherCalendarsAndALoneSkipAreRefusedInASentence(text: String, sentence: String) {
        #expect(throws: FieldError("rrule", sentence)) { try Recurrence.parse(rrule: text) }
    }

    /// Month ends change only the Gregorian family: another calendar counts as it did.
    @Test func otherCalendarsKeepTheirMonthEnds() throws {
        let start = LocalDateTime(year: 2027, month: 1, day: 30, hour: 9)
        for calendar in ["hebrew", "persian"] {
            let repeated = try FireRule(trigger: .floating(start), recurrence: Recurrence(unit: .month), calendar: calendar)
            let rfc = try FireRule(trigger: .floating(start), recurrence: Recurrence.parse(rrule: "FREQ=MONTHLY").0, calendar: calendar)
            #expect(repeated.upcoming(from: .distantPast, count: 24, systemZone: .utc)
                == rfc.upcoming(from: .distantPast, count: 24, systemZone: .utc), "\(calendar)")
        }
    }

    /// The n-th occurrence is counted, not walked to: far occurrences agree with a walk over
    /// every month, and so does the search from an instant centuries on.
    @Test(arguments: [(1, 29, 1), (1, 30, 1), (1, 31, 1), (1, 29, 7), (1, 31, 5), (3, 31, 13), (5, 30, 25), (8, 31, 2),
                      (2, 29, 12), (2, 29, 36)])
    func farOccurrencesAgreeWithAWalk(month first: Int, day: Int, months: Int) throws {
        let start = LocalDateTime(year: 1604, month: first, day: day, hour: 9)
        let text = months % 12 == 0 ? "FREQ=YEARLY;INTERVAL=\(months / 12)" : "FREQ=MONTHLY;INTERVAL=\(months)"
        let rule = try FireRule(trigger: .absolute(start.date(in: .utc)), recurrence: Recurrence.parse(rrule: text).0)
        var walked: [Date] = []
        var month = 1604 * 12 + first - 1
        while walked.count < 3_000, month / 12 <= 9999 {
            let (year, number) = (month / 12, month % 12 + 1)
            if LocalDateTime.daysIn(month: number, year: year) >= day {
                walked.append(LocalDateTime(year: year, month: number, day: day, hour: 9).date(in: .utc))
            }
            month += months
        }
        #expect(rule.occurrence(walked.count, systemZone: .utc) == nil || walked.count == 3_000)
        for n in stride(from: 0, to: walked.count, by: 7) {
            #expect(rule.occurrence(n, systemZone: .utc) == walked[n], "occurrence \(n)")
        }
        for n in stride(from: 1, to: walked.count, by: 97) {
            let found = rule.firstOccurrence(onOrAfter: walked[n - 1].addingTimeInterval(1), systemZone: .utc)
            #expect(found?.index == n && found?.date == walked[n], "after occurrence \(n - 1)")
        }
    }
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
