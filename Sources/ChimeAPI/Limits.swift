/// The numbers the contract promises: the most chimed takes in one request (past them
/// a request gets InvalidArgs naming the limit), and the sizes of its answers.
public enum Limits {
    /// Bytes of one message.
    public static let messageBytes = 256 * 1024
    /// Values in one message.
    public static let values = 4096
    /// Levels of nested containers.
    public static let depth = 8
    /// Bytes of one string.
    public static let stringBytes = 16 * 1024
    /// Bytes of a title.
    public static let titleBytes = 1024
    /// Buttons of one notification besides `default`.
    public static let actions = 10
    /// Hints of one notification.
    public static let hints = 32
    /// userInfo entries of one notification.
    public static let userInfo = 64

    /// History events chimed keeps, and so the most one call can ask for.
    public static let historyKept = 10_000
    /// History events a limit of 0 asks for.
    public static let historyDefault = 50
    /// Cancelled notifications one cancel records one by one; more are one event.
    public static let itemizedCancel = 100
    /// `PresentNow` notifications that may wait for a notification server; past them, Busy.
    public static let waitingToPresent = 1_000
    /// How many fire times one NextFireTimes call may ask for.
    public static let nextFireCount: ClosedRange<UInt32> = 1...1000
    /// Bytes of one file of a calendar folder: a larger one is named in chime calendar list, not read.
    public static let calendarFileBytes = 1 << 20
    /// Bytes of one answer of a CalDAV server (a listing, a chunk of items): more is refused
    /// as it arrives, and the sync tried again later.
    public static let caldavResponseBytes = 64 << 20
    /// Calendars chimed follows at once.
    public static let calendars = 64
    /// Reminders one calendar item may make: its alarms, for its start and each RDATE.
    public static let remindersPerItem = 500
}
