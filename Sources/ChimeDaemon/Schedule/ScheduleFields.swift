import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials

/// The keys of `Schedule` that say when, beyond what an alert shows.
///
/// `when` takes any form `WhenParser` reads; `repeat` a calendar unit in any form
/// `Recurrence(parsing:)` reads (`day`, `daily`, `2 weeks`), `every` a count of them;
/// `zone` pins wall-clock times to an IANA zone and `floating` (the default for
/// wall-clock times) makes them follow the system's; `lateLimit` is seconds or a
/// duration such as `10m`; `late` lets `when` be in the past (``FirstFire``).
struct ScheduleFields {
    static let keys = NotificationKey.keys(of: .schedule).map(\.rawValue)

    var when: String?
    var repeatUnit: String?
    var every: Int?
    var zone: String?
    var floating = false
    var calendar: String?
    /// `on`, `until`, `count` and `rrule`: what a repeat adds to its unit (ScheduleFields+Repeat).
    var repeatDetails = RepeatFields()
    var lateLimit: TimeInterval?
    /// Whether the caller means a `when` in the past.
    var late = false
    /// `region`, `network`, `regionTriggersOnce`: a place instead of `when`.
    var place = PlaceFields()
    /// The alert's `leadTime`: a repeat by days or longer counts from the item's start,
    /// this long after `when` (``FireRule/leading(by:)``).
    var lead: Double?

    /// `lead` in whole seconds.
    var leadSeconds: Int { lead.flatMap { Int(exactly: $0.rounded()) } ?? 0 }

    /// Takes a typed value; false for keys that are not schedule fields.
    mutating func set(_ key: String, typed value: Value) throws(FieldError) -> Bool {
        switch NotificationKey(rawValue: key) {
        case .count?:
            if let text = value.stringValue { return try set(key, text: text) }
            guard let number = value.integerValue else { throw FieldError(key, "must be a whole number, not type '\(value.signature)'.") }
            repeatDetails.count = Int(clamping: number)
            return true
        case .every?, .lateLimit?:
            if let number = value.integerValue {
                return try set(key, number: Double(number))
            } else if case .double(let number) = value {
                return try set(key, number: number)
            } else if key == NotificationKey.lateLimit.rawValue, let text = value.stringValue {
                return try set(key, text: text)
            }
            throw FieldError(key, "must be a number, not type '\(value.signature)'.")
        case .floating?, .late?:
            guard let flag = value.boolValue else { throw FieldError(key, "must be a boolean, not type '\(value.signature)'.") }
            if key == NotificationKey.late.rawValue { late = flag } else { floating = flag }
            return true
        case let field? where field.part == .schedule:
            guard let text = value.stringValue else { throw FieldError(key, "must be a string, not type '\(value.signature)'.") }
            return try set(key, text: text)
        default:
            return false
        }
    }

    /// Takes a value written as text; false for keys that are not schedule fields.
    mutating func set(_ key: String, text: String) throws(FieldError) -> Bool {
        switch NotificationKey(rawValue: key) {
        case .on?, .until?, .count?, .rrule?: try repeatDetails.set(key, text: text)
        case .when?: when = text
        case .repeat?: repeatUnit = text
        case .zone?: zone = text
        case .calendar?: calendar = text
        case .floating?, .late?:
            let flag: Bool
            switch text.lowercased() {
            case "true", "1", "yes": flag = true
            case "false", "0", "no": flag = false
            default: throw FieldError(key, "'\(text)' is not true or false.")
            }
            if key == NotificationKey.late.rawValue { late = flag } else { floating = flag }
        case .every?:
            guard let count = Int(text) else { throw FieldError(key, "'\(text)' is not a whole number.") }
            every = count
        case .lateLimit?:
            if let seconds = Double(text) { return try set(key, number: seconds) }
            lateLimit = try WhenParser.duration(text, field: key)
        default:
            return false
        }
        return true
    }

    private mutating func set(_ key: String, number: Double) throws(FieldError) -> Bool {
        if key == NotificationKey.every.rawValue {
            guard let count = Int(exactly: number) else { throw FieldError(key, "must be a whole number, not \(number).") }
            every = count
        } else {
            guard number > 0, number.isFinite else { throw FieldError(key, "must be more than 0 seconds, not \(number).") }
            lateLimit = number
        }
        return true
    }

    /// The fire rule these fields describe, read at `now` in `systemZone`.
    func rule(now: Date, systemZone: Zone) throws(FieldError) -> FireRule {
        if let place = try place.place() { return try placeRule(place) }
        guard let when else { throw FieldError("when", "is required: say when to fire, e.g. 'in 20m' or 'tomorrow 9:00'.") }
        if floating && zone != nil { throw FieldError("zone", "cannot be combined with floating.") }
        let trigger = try WhenParser(now: now, systemZone: systemZone).trigger(when, zone: zone)
        if floating, case .absolute = trigger {
            throw FieldError("floating", "applies to wall-clock times; '\(when)' is an instant.")
        }
        let recurrence = try recurrence(for: trigger, now: now, systemZone: systemZone)
        let rule = try FireRule(trigger: trigger, recurrence: recurrence, calendar: calendar ?? "gregorian").leading(by: leadSeconds)
        try rule.checkCalendarIsCounted()
        if let recurrence, rule.occurrence(0, systemZone: systemZone) == nil {
            throw FieldError(repeatDetails.rrule != nil ? "rrule" : "until", "ends before the first occurrence, \(recurrence.rrule()) from \(when).")
        }
        return rule
    }

    /// A place trigger's rule; the keys that say when are refused beside it, as iOS does.
    private func placeRule(_ place: Place) throws(FieldError) -> FireRule {
        let key = place.isRegion ? NotificationKey.region : .network
        let dated: [(String, Bool)] = [
            ("when", !(when ?? "").isEmpty), ("repeat", repeatUnit != nil), ("every", every != nil), ("rrule", repeatDetails.rrule != nil),
            ("on", repeatDetails.on != nil), ("until", repeatDetails.until != nil), ("count", repeatDetails.count != nil), ("zone", zone != nil),
            ("floating", floating), ("lateLimit", lateLimit != nil), ("late", late),
        ]
        if let (name, _) = dated.first(where: \.1) {
            throw FieldError(name, "and \(key) cannot both be given: a notification fires at a date or at a place, never both.")
        }
        return try FireRule(trigger: .place(place))
    }

    /// The next `count` fire times of the rule that `when` and `options` (the schedule
    /// fields but `when`, as text) describe, read at `now` in `systemZone`: NextFireTimes;
    /// `lead` is the alert's `leadTime`, which an import knows.
    static func upcoming(when: String, options: [(key: String, value: String)], lead: Double? = nil, count: UInt32, now: Date,
                         systemZone: Zone) throws(FieldError) -> [Date] {
        let counts = Limits.nextFireCount
        guard counts.contains(count) else { throw FieldError("count", "must be between \(counts.lowerBound) and \(counts.upperBound).") }
        let rule = try rule(when: when, options: options, lead: lead, now: now, systemZone: systemZone)
        return rule.upcoming(from: now, count: Int(count), systemZone: systemZone)
    }

    /// The rule `when` and text `options` ask for, as Schedule reads them.
    static func rule(when: String, options: [(key: String, value: String)], lead: Double? = nil, now: Date, systemZone: Zone)
        throws(FieldError) -> FireRule {
        var fields = ScheduleFields()
        fields.when = when
        fields.lead = lead
        for (key, text) in options {
            guard key != NotificationKey.when.rawValue, try fields.set(key, text: text) else {
                throw FieldError(key, "is not a schedule field; use \(keys.dropFirst().joined(separator: ", ")).")
            }
        }
        return try fields.rule(now: now, systemZone: systemZone)
    }
}
