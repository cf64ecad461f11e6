import ChimeAPI
import DBus
import Localization

/// One notification's state, time and repeat in words, the same in `chime list` and
/// `chime show`, so the two never tell a different story.
extension HumanText {
    /// The state in words: `scheduled`, `done`, `pending since today 09:00` (due, waiting
    /// for a notification server), `waiting for a location source`.
    static func state(_ fields: [NotificationKey: Value], now: Int64 = currentTime) -> String {
        switch fields[.state]?.stringValue {
        case "pending":
            // chimed sends when it came due; a repeat's nextFire is its next occurrence instead.
            guard let due = fields[.nextFire]?.integerValue, due <= now else { return localized("pending") }
            // TRANSLATORS: due and waiting for a notification server since a time, such as "today 09:00".
            return localized("pending since %1$s", date(due, zone: zone(fields), now: now))
        case "waiting": return localized("waiting for a location source")
        case "scheduled": return localized("scheduled")
        case "done": return localized("done")
        case let other: return other ?? "-"
        }
    }

    /// When or where it fires next, as `chime list` shows it: a time, a place, or the
    /// state when that says more (pending, waiting); "-" when nothing is to come.
    static func next(_ fields: [NotificationKey: Value], now: Int64 = currentTime) -> String {
        let place = PlaceOptions.describe(fields)
        switch fields[.state]?.stringValue {
        case "pending": return state(fields, now: now)
        // The state first, as for pending ones; chime show and chime add say what it waits for.
        // TRANSLATORS: %1$s is a place, such as "on entering 150m around 52.52,13.405", whose location source is missing.
        case "waiting": return place.map { localized("waiting: %1$s", $0) } ?? state(fields, now: now)
        default: break
        }
        if let place { return place }
        return fields[.nextFire]?.integerValue.map { date($0, zone: zone(fields), now: now) } ?? "-"
    }

    /// How it repeats in words: `every weekday until 30 Jun 2030`, or `every time` for a
    /// place that fires at every crossing; "-" for once.
    static func repeats(_ fields: [NotificationKey: Value]) -> String {
        if fields[.region] != nil || fields[.network] != nil {
            return fields[.regionTriggersOnce]?.boolValue == false ? localized("every time") : "-"
        }
        return repetition(fields[.repeat]?.stringValue, every: fields[.every]?.integerValue, rrule: fields[.rrule]?.stringValue)
    }
}
