import ChimeAPI
import ChimeCore
import Foundation

/// The schedule keys of `Update`: they change a rule that exists instead of making one.
extension ScheduleFields {
    /// What `repeat` may say in an Update to end a repeat, so the notification fires once more.
    static let endingRepeat: Set<String> = ["never", "none", "once"]

    /// The rule `existing` becomes with these fields, read at `now` in `systemZone`; `given`
    /// are the keys the caller sent. A key not given keeps what `existing` says: a new
    /// `when` keeps the repeat, a new `repeat` or `every` keeps the first occurrence.
    func rule(changing existing: FireRule, given: Set<String>, now: Date, systemZone: TimeZone) throws(FieldError) -> FireRule {
        var fields = self
        if let text = repeatUnit, Self.endingRepeat.contains(text.lowercased()) {
            if every != nil { throw FieldError("every", "cannot be combined with repeat '\(text)', which ends the repeat.") }
            fields.repeatUnit = nil
        } else if repeatUnit == nil, repeatDetails.rrule == nil, let unit = existing.recurrence?.unit,
                  every != nil || repeatDetails.on != nil || repeatDetails.until != nil || repeatDetails.count != nil {
            // A new count, days or end alone restate the unit the notification already repeats by.
            fields.repeatUnit = unit.rawValue
        }
        fields.calendar = calendar ?? existing.calendar
        let repeatKeys: [NotificationKey] = [.repeat, .every, .on, .until, .count, .rrule]
        let changesRepeat = repeatKeys.contains { given.contains($0.rawValue) }
        if when != nil || !place.given.isEmpty {
            let rule = try fields.rule(now: now, systemZone: systemZone)
            guard !changesRepeat, rule.trigger.place == nil else { return rule }
            return try FireRule(trigger: rule.trigger, recurrence: existing.recurrence, calendar: rule.calendar)
        }
        // Which clock a time is read on belongs to the time: it is given with one.
        for key in [NotificationKey.zone, .floating] where given.contains(key.rawValue) {
            throw FieldError(key.rawValue, "needs when: give the time again with the clock it is read on.")
        }
        let recurrence = changesRepeat ? try fields.recurrence(for: existing.trigger, now: now, systemZone: systemZone) : existing.recurrence
        return try FireRule(trigger: existing.trigger, recurrence: recurrence, calendar: fields.calendar ?? existing.calendar)
    }
}
