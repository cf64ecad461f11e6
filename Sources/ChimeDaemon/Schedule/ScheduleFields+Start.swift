import ChimeAPI
import ChimeCore
import FoundationEssentials

/// Where a rule read from these fields starts (``FirstFire``), or the sentence that refuses it.
extension ScheduleFields {
    /// The occurrence `rule`, scheduled at `now`, fires first; nil for a place, which waits
    /// for its crossing. `given` are the keys an Update sent, so a refusal names one of them.
    func start(of rule: FireRule, now: Date, systemZone: Zone, given: Set<String>? = nil) throws(FieldError) -> (index: Int, date: Date)? {
        switch FirstFire.decide(rule: rule, now: now, late: late, systemZone: systemZone) {
        case .start(let index, let date):
            return (index, date)
        case .none:
            guard rule.trigger.place == nil else { return nil }
            throw FieldError("when", "has no occurrence this side of the year 9999.")
        case .past(let due):
            throw FieldError("when", PastWhen.reason(when: (when ?? "").trimmingSpaces, ago: LateText.describe(now.timeIntervalSince(due))))
        case .over(let last, let end):
            let ending = end == .count ? NotificationKey.count : .until
            let sent = given ?? Set([ending.rawValue] + (repeatDetails.rrule == nil ? [] : ["rrule"]))
            let key = [NotificationKey.rrule, ending].first { sent.contains($0.rawValue) } ?? .when
            let local = LocalDateTime(last, in: Self.wallClock(of: rule.trigger, systemZone)).description
            let shown = local.prefix(10) + " " + local.dropFirst(11).prefix(5)
            throw FieldError(key.rawValue, "the repeat's last occurrence, \(shown), is \(LateText.describe(now.timeIntervalSince(last))) "
                + "ago: nothing is left to fire.")
        }
    }

    /// The zone a person reads the rule's times in: its own for a zoned one, else the system's.
    private static func wallClock(of trigger: Trigger, _ systemZone: Zone) -> Zone {
        if case .zoned(_, let zone) = trigger { return Zone(identifier: zone) ?? systemZone }
        return systemZone
    }
}
