import Foundation

/// When a notification first fires: an instant, or a wall-clock time read in a zone.
///
/// These are UILocalNotification's `fireDate` with `timeZone = nil` (an instant), with
/// `timeZone = defaultTimeZone` (floating), and with a named `timeZone` (zoned).
public enum Trigger: Hashable, Sendable {
    /// An instant, unaffected by any zone: a countdown ("in 20 minutes").
    case absolute(Date)
    /// A wall-clock time in whatever zone the system is in when it fires: an alarm clock.
    case floating(LocalDateTime)
    /// A wall-clock time in a named IANA zone, wherever the machine is.
    case zoned(LocalDateTime, zone: String)
}
