import FoundationEssentials

/// A notification in the schedule: what it shows, when it fires, and what has happened.
public struct ScheduledNotification: Equatable, Sendable {
    /// Whether it will fire again.
    public enum State: String, Sendable, Codable {
        /// It has an occurrence to come.
        case scheduled
        /// A one-shot that fired (or was dropped), or a series that ended; kept for history.
        case done
    }

    /// Its Chime id, unique in the store.
    public var id: String
    /// What it shows.
    public var alert: Alert
    /// When it fires.
    public var rule: FireRule
    /// How late it may still be shown; nil shows it however late.
    public var lateLimit: TimeInterval?
    /// When it was scheduled.
    public var created: Date
    /// The index of the next occurrence to fire (0 = the first).
    public var nextIndex: Int
    /// When that occurrence is due; nil once done.
    public var nextFire: Date?
    /// When it last fired; nil before the first time.
    public var lastFired: Date?
    /// How many times it fired (dropped occurrences do not count).
    public var fireCount: Int
    /// Whether it will fire again.
    public var state: State
    /// The notification this one is a snoozed copy of (the root of its lineage).
    public var origin: String?
    /// When Complete was pressed on it or its lineage.
    public var completed: Date?
    /// For a place trigger: whether the user was last known inside or outside it; nil
    /// before anything is known. Kept so that a restart does not fire again.
    public var presence: Presence?
    /// For one made from a calendar: the item and alarm it stands for, so that the item
    /// read again changes it rather than adding another.
    public var link: CalendarLink?

    /// A notification not fired yet: scheduled when it has a next fire time, else done.
    public init(id: String, alert: Alert, rule: FireRule, lateLimit: TimeInterval?, created: Date, nextIndex: Int, nextFire: Date?) {
        self.id = id
        self.alert = alert
        self.rule = rule
        self.lateLimit = lateLimit
        self.created = created
        self.nextIndex = nextIndex
        self.nextFire = nextFire
        self.lastFired = nil
        self.origin = nil
        self.completed = nil
        self.presence = nil
        self.link = nil
        self.fireCount = 0
        // A place has no due time: it waits for its crossing.
        self.state = nextFire == nil && rule.trigger.place == nil ? .done : .scheduled
    }
}

/// Where a notification made from a calendar item came from (RFC 5545 3.8.4.7 UID, 3.8.4.4
/// RECURRENCE-ID): the item, which occurrence of it, which of its alarms, and the source
/// read. An item read again is the same item wherever it is read from: the UID says so.
public struct CalendarLink: Hashable, Sendable {
    /// The item's UID.
    public var uid: String
    /// Its RECURRENCE-ID as written (an override of one occurrence); empty for the item itself.
    public var recurrence: String
    /// Which alarm: the VALARM's own UID where it has one, else `#` and its place among the
    /// item's alarms from 1; empty for an item without alarms, which fires at its start.
    public var alarm: String
    /// The file or folder it was read from; empty for standard input.
    public var source: String

    public init(uid: String, recurrence: String = "", alarm: String = "", source: String = "") {
        (self.uid, self.recurrence, self.alarm, self.source) = (uid, recurrence, alarm, source)
    }

    /// The same item, occurrence and alarm, wherever it was read from.
    public func isSameAlarm(as other: CalendarLink) -> Bool {
        (uid, recurrence, alarm) == (other.uid, other.recurrence, other.alarm)
    }
}
