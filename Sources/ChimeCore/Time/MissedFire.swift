import FoundationEssentials

/// What to do about a notification whose time has come, possibly while the machine was off
/// or asleep.
///
/// A one-shot that came due fires once, late by how long ago it was due. A repeat fires
/// once for all the occurrences it missed, late by how long ago the most recent of them
/// was (a daily reminder missed for a week is as late as today's), then goes on with its
/// cadence from the first occurrence after now. Either is dropped instead when it is later
/// than its late limit; a firing within `onTimeTolerance` is on time and never dropped,
/// so a limit of zero means "only on time".
public enum MissedFire {
    /// What to do now, and what comes next.
    public enum Decision: Equatable, Sendable {
        /// Fire once now; `next` is the following occurrence strictly after now (nil: a
        /// one-shot, done).
        case fire(lateBy: TimeInterval, next: Date?)
        /// Too late (beyond the late limit): do not show it, but advance as `fire` would.
        case drop(lateBy: TimeInterval, next: Date?)
        /// Not due yet.
        case wait(until: Date)
    }

    /// How late a firing may be and still count as on time: a timer's wake-up or a busy
    /// moment, not a missed notification.
    public static let onTimeTolerance: TimeInterval = 60

    /// Decides about `due`, the earliest unfired occurrence of `rule`, at `now`.
    public static func decide(
        rule: FireRule, due: Date, now: Date, lateLimit: TimeInterval?, systemZone: Zone
    ) -> Decision {
        guard due <= now else { return .wait(until: due) }
        var latest = due
        var next: Date?
        if rule.recurrence != nil, let (index, date) = rule.firstOccurrence(onOrAfter: now, systemZone: systemZone) {
            if date == now {
                latest = now
                next = rule.nextOccurrence(after: now, systemZone: systemZone)
            } else {
                next = date
                // The first occurrence at or after now has the smallest such index, so the
                // one before it is the most recent missed.
                if index > 0, let previous = rule.occurrence(index - 1, systemZone: systemZone) {
                    latest = max(latest, previous)
                }
            }
        } else if rule.recurrence != nil, let last = rule.lastOccurrence(systemZone: systemZone), last <= now {
            // A series that ended while it waited: its last occurrence is the most recent missed.
            latest = max(latest, last)
        }
        let lateBy = now.timeIntervalSince(latest)
        if let lateLimit, lateBy > lateLimit, lateBy > onTimeTolerance {
            return .drop(lateBy: lateBy, next: next)
        }
        return .fire(lateBy: lateBy, next: next)
    }

    /// Checks a late limit read elsewhere: zero or more seconds.
    public static func validate(lateLimit: TimeInterval) throws(FieldError) {
        guard lateLimit.isFinite, lateLimit >= 0 else {
            throw FieldError("late-limit", "must be zero or more seconds, not \(lateLimit).")
        }
    }
}
