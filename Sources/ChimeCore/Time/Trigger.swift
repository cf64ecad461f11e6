import FoundationEssentials

/// When a notification first fires: an instant, a wall-clock time read in a zone, or
/// on reaching or leaving a place.
///
/// These are UILocalNotification's `fireDate` with `timeZone = nil` (an instant), with
/// `timeZone = defaultTimeZone` (floating), and with a named `timeZone` (zoned), and its
/// `region`: a date or a place, never both.
public enum Trigger: Hashable, Sendable {
    /// An instant, unaffected by any zone: a countdown ("in 20 minutes").
    case absolute(Date)
    /// A wall-clock time in whatever zone the system is in when it fires: an alarm clock.
    case floating(LocalDateTime)
    /// A wall-clock time in a named IANA zone, wherever the machine is.
    case zoned(LocalDateTime, zone: String)
    /// A crossing of a place's edge; it has no due time and never repeats by the calendar.
    case place(Place)

    /// Whether it is an instant, which repeats on UTC.
    public var isAbsolute: Bool {
        if case .absolute = self { return true }
        return false
    }

    /// The instant it names, its wall-clock time read in its zone (the system's for a
    /// floating one); nil for a place, or a zone this system does not know.
    public func instant(systemZone: Zone) -> Date? {
        switch self {
        case .absolute(let date): date
        case .floating(let local): local.date(in: systemZone)
        case .zoned(let local, let zone): Zone(identifier: zone).map { local.date(in: $0) }
        case .place: nil
        }
    }

    /// The trigger `seconds` later on its own clock: an instant by that many seconds, a
    /// wall-clock time by that much of the wall clock (09:50 and 900 s is 10:05, whatever
    /// the zone does in between); a place stays.
    public func moved(by seconds: Int) -> Trigger {
        guard seconds != 0 else { return self }
        switch self {
        case .absolute(let date): return .absolute(date.addingTimeInterval(TimeInterval(seconds)))
        case .floating(let local): return .floating(LocalDateTime(secondsAsUTC: local.secondsAsUTC + seconds))
        case .zoned(let local, let zone): return .zoned(LocalDateTime(secondsAsUTC: local.secondsAsUTC + seconds), zone: zone)
        case .place: return self
        }
    }

    /// The place, for a place trigger.
    public var place: Place? {
        if case .place(let place) = self { return place }
        return nil
    }
}
