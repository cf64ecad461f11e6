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
        self.fireCount = 0
        // A place has no due time: it waits for its crossing.
        self.state = nextFire == nil && rule.trigger.place == nil ? .done : .scheduled
    }
}
