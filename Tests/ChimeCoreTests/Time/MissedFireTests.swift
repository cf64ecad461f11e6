import ChimeCore
import Foundation
import Testing

struct MissedFireTests {
    static let due = instant("2026-11-22T09:00:00Z")

    @Test(arguments: [
        // (seconds after due, late limit, decision)
        (-10.0, nil, MissedFire.Decision.wait(until: due)),
        (0, nil, .fire(lateBy: 0, next: nil)),
        (0.25, 0, .fire(lateBy: 0.25, next: nil)),
        (7_200, nil, .fire(lateBy: 7_200, next: nil)),
        (3_600, 3_600, .fire(lateBy: 3_600, next: nil)),
        (7_200, 3_600, .drop(lateBy: 7_200, next: nil)),
        // Within the on-time tolerance nothing is dropped, so a limit of zero means "on time only".
        (30, 0, .fire(lateBy: 30, next: nil)),
        (61, 0, .drop(lateBy: 61, next: nil)),
        (86_400 * 30, 86_400, .drop(lateBy: 86_400 * 30, next: nil)),
    ] as [(TimeInterval, TimeInterval?, MissedFire.Decision)])
    func aOneShotFiresOnceOrIsDropped(after: TimeInterval, lateLimit: TimeInterval?, decision: MissedFire.Decision) throws {
        let rule = try FireRule(trigger: .absolute(Self.due))
        let now = Self.due.addingTimeInterval(after)
        #expect(MissedFire.decide(rule: rule, due: Self.due, now: now, lateLimit: lateLimit, systemZone: .utc) == decision)
    }

    @Test func aDailyReminderMissedForAWeekFiresOnceAndKeepsItsHour() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2026, month: 11, day: 15, hour: 9)), recurrence: Recurrence(unit: .day))
        let due = instant("2026-11-15T09:00:00+01:00")
        // Back at 10:30 on the 22nd: late by 90 minutes (today's), next tomorrow at 9.
        #expect(MissedFire.decide(rule: rule, due: due, now: instant("2026-11-22T10:30:00+01:00"), lateLimit: nil, systemZone: berlin)
            == .fire(lateBy: 5_400, next: instant("2026-11-23T09:00:00+01:00")))
        // Back at 08:00: the latest missed is yesterday's, 23 hours ago; today's is still to come.
        #expect(MissedFire.decide(rule: rule, due: due, now: instant("2026-11-22T08:00:00+01:00"), lateLimit: 3_600, systemZone: berlin)
            == .drop(lateBy: 82_800, next: instant("2026-11-22T09:00:00+01:00")))
        // Exactly on one of its times: on time, and on to the next.
        #expect(MissedFire.decide(rule: rule, due: due, now: instant("2026-11-22T09:00:00+01:00"), lateLimit: 0, systemZone: berlin)
            == .fire(lateBy: 0, next: instant("2026-11-23T09:00:00+01:00")))
        #expect(MissedFire.decide(rule: rule, due: due, now: instant("2026-11-15T08:59:00+01:00"), lateLimit: 0, systemZone: berlin)
            == .wait(until: due))
    }

    @Test func anHourlyCountdownMissedForYearsKeepsItsMinute() throws {
        let start = instant("2023-06-01T12:15:00Z")
        let rule = try FireRule(trigger: .absolute(start), recurrence: Recurrence(unit: .hour))
        #expect(MissedFire.decide(rule: rule, due: start, now: instant("2026-11-22T10:00:00Z"), lateLimit: nil, systemZone: .utc)
            == .fire(lateBy: 2_700, next: instant("2026-11-22T10:15:00Z")))
        #expect(MissedFire.decide(rule: rule, due: start, now: instant("2026-11-22T10:00:00Z"), lateLimit: 600, systemZone: .utc)
            == .drop(lateBy: 2_700, next: instant("2026-11-22T10:15:00Z")))
    }

    @Test func aMonthlyReminderOnThe31stCatchesUpToItsLatestMonth() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2026, month: 1, day: 31, hour: 9)), recurrence: Recurrence(unit: .month))
        #expect(MissedFire.decide(
            rule: rule, due: instant("2026-01-31T09:00:00+01:00"), now: instant("2026-05-01T12:00:00+02:00"), lateLimit: nil,
            systemZone: berlin) == .fire(lateBy: 97_200, next: instant("2026-05-31T09:00:00+02:00")))
    }

    @Test func aFloatingReminderAfterAFlightCountsOnTheNewClock() throws {
        let tokyo = try #require(Zone(identifier: "Asia/Tokyo"))
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2026, month: 11, day: 1, hour: 9)), recurrence: Recurrence(unit: .day))
        // Due yesterday at 09:00 Berlin time; the machine woke up in Tokyo at 10:00.
        #expect(MissedFire.decide(
            rule: rule, due: instant("2026-11-21T09:00:00+01:00"), now: instant("2026-11-22T10:00:00+09:00"), lateLimit: nil,
            systemZone: tokyo) == .fire(lateBy: 3_600, next: instant("2026-11-23T09:00:00+09:00")))
    }

    @Test func minutesSkippedBySpringForwardFireOnceAtTheJump() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let rule = try FireRule(
            trigger: .floating(LocalDateTime(year: 2026, month: 3, day: 29, hour: 1, minute: 50)),
            recurrence: Recurrence(unit: .minute, count: 5))
        #expect(MissedFire.decide(
            rule: rule, due: instant("2026-03-29T01:55:00+01:00"), now: instant("2026-03-29T03:00:00+02:00"), lateLimit: 0,
            systemZone: berlin) == .fire(lateBy: 0, next: instant("2026-03-29T03:05:00+02:00")))
    }

    /// A series that ended while it waited is late by its last occurrence, the most recent
    /// missed, not by its first; a skipped last one is none.
    @Test func aSeriesThatEndedWhileItWaitedIsLateByItsLastOccurrence() throws {
        var counted = try Recurrence(unit: .week)
        try counted.restrict(days: [], limit: 3, until: nil)
        var rule = try FireRule(trigger: .absolute(instant("2026-10-01T09:00:00Z")), recurrence: counted)
        let now = instant("2026-11-22T09:00:00Z")
        #expect(MissedFire.decide(rule: rule, due: instant("2026-10-01T09:00:00Z"), now: now, lateLimit: nil, systemZone: .utc)
            == .fire(lateBy: now.timeIntervalSince(instant("2026-10-15T09:00:00Z")), next: nil))
        rule.skipped = [LocalDateTime(year: 2026, month: 10, day: 15, hour: 9)]
        #expect(MissedFire.decide(rule: rule, due: instant("2026-10-01T09:00:00Z"), now: now, lateLimit: nil, systemZone: .utc)
            == .fire(lateBy: now.timeIntervalSince(instant("2026-10-08T09:00:00Z")), next: nil))
    }

    @Test func aNegativeLateLimitIsRefused() {
        #expect(throws: FieldError("late-limit", "must be zero or more seconds, not -5.0.")) { try MissedFire.validate(lateLimit: -5) }
        #expect(throws: Never.self) { try MissedFire.validate(lateLimit: 0) }
    }
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
