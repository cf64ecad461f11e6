import ChimeAPI
import ChimeCore
import FoundationEssentials

/// The schedule keys of `Update`: they change a rule that exists instead of making one.
extension ScheduleFields {
    /// What `repeat` may say in an Update to end a repeat, so the notification fires once more.
    static let endingRepeat: Set<String> = ["never", "none", "once"]

    /// The keys that say how a notification repeats.
    private static let repeatKeys: [NotificationKey] = [.repeat, .every, .on, .until, .count, .rrule]

    /// The rule `existing` becomes with these fields, read at `now` in `systemZone`; `given`
    /// are the keys the caller sent. A key not given keeps what `existing` says: a new
    /// `when` keeps the repeat, a new `repeat` or `rrule` restates it from the first
    /// occurrence, and `every`, `on`, `until` or `count` alone change only that part of it.
    func rule(changing existing: FireRule, given: Set<String>, now: Date, systemZone: Zone) throws(FieldError) -> FireRule {
        var fields = self
        if let text = repeatUnit, Self.endingRepeat.contains(text.lowercased()) {
            if every != nil { throw FieldError("every", "cannot be combined with repeat '\(text)', which ends the repeat.") }
            fields.repeatUnit = nil
        }
        fields.calendar = calendar ?? existing.calendar
        let changesRepeat = Self.repeatKeys.contains { given.contains($0.rawValue) }
        let refinesRepeat = changesRepeat && repeatUnit == nil && repeatDetails.rrule == nil
        if refinesRepeat {
            // Read against the existing repeat below, not as a new one without a unit.
            fields.every = nil
            fields.repeatDetails = RepeatFields()
        }
        var trigger = existing.fireTrigger
        if when != nil || !place.given.isEmpty {
            let rule = try fields.rule(now: now, systemZone: systemZone)
            if rule.trigger.place != nil || (changesRepeat && !refinesRepeat) { return rule }
            trigger = rule.fireTrigger
        } else {
            // Which clock a time is read on belongs to the time: it is given with one.
            for key in [NotificationKey.zone, .floating] where given.contains(key.rawValue) {
                throw FieldError(key.rawValue, "needs when: give the time again with the clock it is read on.")
            }
        }
        let recurrence: Recurrence?
        if refinesRepeat {
            recurrence = try refined(existing.recurrence, trigger: trigger, now: now, systemZone: systemZone)
        } else if changesRepeat {
            recurrence = try fields.recurrence(for: trigger, now: now, systemZone: systemZone)
        } else {
            recurrence = existing.recurrence
        }
        let rule = try FireRule(trigger: trigger, recurrence: recurrence, calendar: fields.calendar ?? existing.calendar)
            .leading(by: leadSeconds)
        try rule.checkCalendarIsCounted()
        if let recurrence, rule.occurrence(0, systemZone: systemZone) == nil {
            throw FieldError(given.contains(NotificationKey.count.rawValue) ? "count" : "until",
                             "ends before the first occurrence, \(recurrence.rrule()).")
        }
        return rule
    }

    /// `existing` with the parts of it these fields give (`every`, `on`, `until`, `count`).
    private func refined(_ existing: Recurrence?, trigger: Trigger, now: Date, systemZone: Zone) throws(FieldError) -> Recurrence {
        let details = repeatDetails
        guard let existing else {
            if let every { throw FieldError("every", "needs repeat: every \(every) of which unit?") }
            let name = details.on != nil ? "on" : details.until != nil ? "until" : "count"
            throw FieldError(name, "needs repeat: it fires once; say how it repeats, e.g. repeat weekly.")
        }
        var changed = try Recurrence(unit: existing.unit, count: every ?? existing.count)
        changed.skip = existing.skip
        let days = try details.on.map { text throws(FieldError) in try RepeatDay.parse(text) } ?? existing.days
        let until = try details.until.map { text throws(FieldError) in try Self.until(text, trigger, now, systemZone) } ?? existing.until
        try changed.restrict(days: days, limit: details.count ?? existing.limit, until: until)
        return changed
    }
}
