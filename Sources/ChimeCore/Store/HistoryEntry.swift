import FoundationEssentials

/// One thing that happened to a notification, as `chime log` shows it.
///
/// Scheduling is not an event here: the schedule itself says what is to come, and a row
/// per schedule would cost the busiest path a write it does not need.
public struct HistoryEntry: Equatable, Sendable {
    /// What happened.
    public enum Event: String, Sendable, CaseIterable {
        /// Shown on time.
        case fired
        /// Shown after a missed time (the machine was off or asleep, or chimed stopped).
        case late
        /// Missed by more than its late limit, so not shown.
        case dropped
        /// A button (or the notification itself) was pressed; `action` holds its key.
        case pressed
        /// Complete ended it and its repeat series.
        case completed
        /// A one-shot copy was scheduled to fire again; `copy` holds its id.
        case snoozed
        /// Removed from the schedule before it was done.
        case cancelled
        /// Left the screen because its time was up.
        case expired
        /// Left the screen otherwise (dismissed, or closed by a program).
        case closed
        /// A `Notify` for it failed (an error, no answer in time, the server left), or
        /// chimed stopped before the server took it: it is sent again.
        case retried
        /// It could not be delivered after the last retry; `detail` says why.
        case gaveUp = "gave up"
        /// The app it speaks for was in front and took it (`WillPresent`): not shown.
        case handled
        /// Not shown: the user's config turns off its app's alerts (`Alerts=false`).
        case withheld
        /// Changed in place by `Update`; `detail` names the keys that changed.
        case edited
    }

    /// When it happened.
    public var time: Date
    /// The notification's id; empty for a row that sums up a bulk cancel.
    public var id: String
    /// What happened.
    public var event: Event
    /// The title it had then.
    public var title: String
    /// A sentence for people: how late, which limit, what was ended.
    public var detail: String
    /// The key of the pressed action (`pressed` only).
    public var action: String?
    /// The id of the snoozed copy (`snoozed` only).
    public var copy: String?

    /// An event as it is recorded, or as it was read back.
    public init(time: Date, id: String, event: Event, title: String, detail: String = "", action: String? = nil,
                copy: String? = nil) {
        self.time = time
        self.id = id
        self.event = event
        self.title = title
        self.detail = detail
        self.action = action
        self.copy = copy
    }
}
