import ChimeCore
import Foundation
import Testing

/// Where a rule starts when it is scheduled: a repeat at its first occurrence from now, a
/// one-shot in the past refused, a time within the grace taken as now, and the past itself
/// when the caller asks for it.
struct FirstFireTests {
    /// Sunday 2026-11-22, 10:00 in Berlin.
    static let now = instant("2026-11-22T10:00:00+01:00")

    func berlin() throws -> Zone { try #require(Zone(identifier: "Europe/Berlin")) }

    func decide(_ rule: FireRule, now: Date = now, late: Bool = false) throws -> FirstFire.Decision {
        FirstFire.decide(rule: rule, now: now, late: late, systemZone: try berlin())
    }

    @Test(arguments: [
        // (seconds from now to the one-shot's time, decision with `now` standing for the instant)
        (3_600.0, FirstFire.Decision.start(index: 0, date: now.addingTimeInterval(3_600))),
        (0, .start(index: 0, date: now)),
        // Typed in the minute it names, or late by a slow bus: now, not late.
        (-30, .start(index: 0, date: now)),
        (-60, .start(index: 0, date: now)),
        (-61, .past(due: now.addingTimeInterval(-61))),
        (-86_400 * 2_523, .past(due: now.addingTimeInterval(-86_400 * 2_523))),
    ] as [(TimeInterval, FirstFire.Decision)])
    func aOneShotInThePastIsRefusedPastTheGrace(offset: TimeInterval, decision: FirstFire.Decision) throws {
        #expect(try decide(FireRule(trigger: .absolute(Self.now.addingTimeInterval(offset)))) == decision)
    }

    @Test func aOneShotInThePastStartsThereWhenAskedFor() throws {
        let due = instant("2020-01-01T10:00:00+01:00")
        let rule = try FireRule(trigger: .floating(LocalDateTime(year: 2020, month: 1, day: 1, hour: 10)))
        #expect(try decide(rule, late: true) == .start(index: 0, date: due))
    }

    @Test func aWeeklyRepeatBegunFourWeeksAgoStartsAtItsNextOccurrence() throws {
        // Sundays at 9:00 from 25 October: today's was an hour ago, so next Sunday's is next.
        let rule = try FireRule(trigger: .floating(LocalDateTime(year: 2026, month: 10, day: 25, hour: 9)), recurrence: Recurrence(unit: .week))
        #expect(try decide(rule) == .start(index: 5, date: instant("2026-11-29T09:00:00+01:00")))
        #expect(try decide(rule, late: true) == .start(index: 0, date: instant("2026-10-25T09:00:00+01:00")))
    }

    @Test func aBirthdayFrom1960StartsAtItsNextAnniversary() throws {
        let rule = try FireRule(trigger: .floating(LocalDateTime(year: 1960, month: 4, day: 12)), recurrence: Recurrence(unit: .year))
        #expect(try decide(rule) == .start(index: 67, date: instant("2027-04-12T00:00:00+02:00")))
    }

    @Test func anOccurrenceWithinTheGraceIsNow() throws {
        let rule = try FireRule(trigger: .floating(LocalDateTime(year: 2026, month: 11, day: 22, hour: 9, minute: 59, second: 30)),
                                recurrence: Recurrence(unit: .day))
        #expect(try decide(rule) == .start(index: 0, date: Self.now))
        #expect(try decide(rule, now: Self.now.addingTimeInterval(31)) == .start(index: 1, date: instant("2026-11-23T09:59:30+01:00")))
    }

    @Test func aRepeatWithNothingLeftIsOverAndSaysWhatEndedIt() throws {
        var counted = try Recurrence(unit: .day)
        try counted.restrict(days: [], limit: 3, until: nil)
        let byCount = try FireRule(trigger: .floating(LocalDateTime(year: 2026, month: 11, day: 1, hour: 9)), recurrence: counted)
        #expect(try decide(byCount) == .over(last: instant("2026-11-03T09:00:00+01:00"), endedBy: .count))

        var ended = try Recurrence(unit: .week)
        try ended.restrict(days: [], limit: nil, until: LocalDateTime(year: 2026, month: 10, day: 20, hour: 23, minute: 59, second: 59))
        let byUntil = try FireRule(trigger: .floating(LocalDateTime(year: 2026, month: 10, day: 1, hour: 9)), recurrence: ended)
        #expect(try decide(byUntil) == .over(last: instant("2026-10-15T09:00:00+02:00"), endedBy: .until))
        // Asked for, the past is kept: it fires once, late.
        #expect(try decide(byUntil, late: true) == .start(index: 0, date: instant("2026-10-01T09:00:00+02:00")))
    }

    /// Across the clocks' changes the start is the next occurrence on the rule's own wall
    /// clock, by the rules FireRuleTests pin.
    @Test func theNextOccurrenceKeepsItsWallClockAcrossDaylightSaving() throws {
        // 09:00 New York, daily from 20 October; clocks fell back on 1 November.
        let zoned = try FireRule(trigger: .zoned(LocalDateTime(year: 2026, month: 10, day: 20, hour: 9), zone: "America/New_York"),
                                 recurrence: Recurrence(unit: .day))
        #expect(try decide(zoned, now: instant("2026-11-02T12:00:00Z")) == .start(index: 13, date: instant("2026-11-02T09:00:00-05:00")))
        // 02:30 Berlin, daily from 20 March: on 29 March it does not exist and fires at 03:30.
        let floating = try FireRule(trigger: .floating(LocalDateTime(year: 2026, month: 3, day: 20, hour: 2, minute: 30)),
                                    recurrence: Recurrence(unit: .day))
        #expect(try decide(floating, now: instant("2026-03-29T00:30:00+01:00"))
            == .start(index: 9, date: instant("2026-03-29T03:30:00+02:00")))
    }

    @Test func theLastOccurrenceIsFoundFromEitherEnd() throws {
        var limited = try Recurrence(unit: .hour)
        try limited.restrict(days: [], limit: 1_000, until: nil)
        let rule = try FireRule(trigger: .absolute(Self.now), recurrence: limited)
        #expect(rule.lastOccurrence(systemZone: .utc) == Self.now.addingTimeInterval(999 * 3_600))
        #expect(try FireRule(trigger: .absolute(Self.now)).lastOccurrence(systemZone: .utc) == Self.now)
    }
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
