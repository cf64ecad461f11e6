import ChimeAPI
import ChimeCore
import FoundationEssentials

/// What a repeat adds to its unit: the days it falls on, its count and its end, or all of
/// it as one RFC 5545 RRULE.
struct RepeatFields {
    var on: String?
    var until: String?
    var count: Int?
    var rrule: String?

    mutating func set(_ key: String, text: String) throws(FieldError) {
        switch NotificationKey(rawValue: key) {
        case .on?: on = text
        case .until?: until = text
        case .rrule?: rrule = text
        case .count?:
            guard let number = Int(text.trimmingSpaces) else {
                throw FieldError(key, "'\(text)' is not a whole number.")
            }
            count = number
        default: break
        }
    }
}

extension ScheduleFields {
    /// How the rule repeats: from `rrule`, or from `repeat` and `every` with `on`, `until` and
    /// `count`; nil for a one-shot.
    func recurrence(for trigger: Trigger, now: Date, systemZone: Zone) throws(FieldError) -> Recurrence? {
        let details = repeatDetails
        if let rrule = details.rrule {
            let given = [("repeat", repeatUnit != nil), ("every", every != nil), ("on", details.on != nil),
                         ("until", details.until != nil), ("count", details.count != nil)]
            if let (name, _) = given.first(where: \.1) {
                throw FieldError(name, "cannot be combined with rrule, which says how it repeats by itself.")
            }
            var (recurrence, utc) = try Recurrence.parse(rrule: rrule)
            if utc, let until = recurrence.until {
                recurrence.until = LocalDateTime(until.date(in: .utc), in: Self.clock(of: trigger, systemZone))
            }
            return recurrence
        }
        guard let repeatUnit else {
            if let every { throw FieldError("every", "needs repeat: every \(every) of which unit?") }
            for (name, given) in [("on", details.on != nil), ("until", details.until != nil), ("count", details.count != nil)] where given {
                throw FieldError(name, "needs repeat: say how it repeats, e.g. repeat weekly.")
            }
            return nil
        }
        let interval = try Recurrence(parsing: repeatUnit, field: "repeat")
        if every != nil, interval.count != 1 {
            throw FieldError("every", "cannot be combined with repeat '\(repeatUnit)', which has a count of its own.")
        }
        var recurrence = try Recurrence(unit: interval.unit, count: every ?? interval.count)
        let days = try details.on.map { text throws(FieldError) in try RepeatDay.parse(text) } ?? []
        let until = try details.until.map { text throws(FieldError) in try Self.until(text, trigger, now, systemZone) }
        try recurrence.restrict(days: days, limit: details.count, until: until)
        return recurrence
    }

    /// The zone whose wall clock the rule counts on when it is made.
    private static func clock(of trigger: Trigger, _ systemZone: Zone) -> Zone {
        switch trigger {
        case .floating: systemZone
        case .zoned(_, let zone): Zone(identifier: zone) ?? systemZone
        default: .utc
        }
    }

    /// `until` on the rule's clock: a date alone (2026-12-31) takes all of that day, as an
    /// RRULE UNTIL that is a DATE does; anything else is read as `when` is.
    static func until(_ text: String, _ trigger: Trigger, _ now: Date, _ systemZone: Zone) throws(FieldError) -> LocalDateTime {
        let clock = clock(of: trigger, systemZone)
        if let day = LocalDateTime(iso: text.trimmingSpaces + "T23:59:59") {
            // An instant repeats on UTC, but the day a person names is one of their own zone.
            if case .absolute = trigger { return LocalDateTime(day.date(in: systemZone), in: clock) }
            return day
        }
        let end: Trigger
        do { end = try WhenParser(now: now, systemZone: systemZone).trigger(text, zone: nil) } catch {
            throw FieldError("until", "'\(text)' is not a date or time: \(error.reason)")
        }
        guard let instant = end.instant(systemZone: systemZone) else { throw FieldError("until", "'\(text)' is not a date or time.") }
        return LocalDateTime(instant, in: clock)
    }
}
