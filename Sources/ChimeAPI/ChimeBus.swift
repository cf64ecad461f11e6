import DBus

// Chime's D-Bus contract, written once. The daemon's interface table, the CLI's client,
// chime doctor's version check and the contract file in dbus/ (``ContractFile``) all
// come from this module; it has no Foundation, since chime's start-up does not pay for it.

/// The version of chime and chimed: `--version`, the `Version` property and `Status`.
public let chimeVersion = "0.3.0"

/// Where chimed serves its API on the session bus.
public enum ChimeBus {
    /// The well-known name chimed owns, and the one the bus starts it by.
    public static let name = try! BusName("io.github.chime.Chime")
    /// The object that serves ``Scheduler1``.
    public static let path = try! ObjectPath("/io/github/chime/Chime")
}

/// The error names ``Scheduler1`` answers with, each with when it does.
public enum ChimeError {
    /// Bad input: the sentence names the key or the limit at fault.
    public static let invalidArgs = DBusError.invalidArgsName
    /// No notification has the id given.
    public static let notFound = "io.github.chime.Error.NotFound"
    /// The disk holding the store is full: the change was not made.
    public static let diskFull = "io.github.chime.Error.DiskFull"
    /// Too many notifications already wait for a notification server to show one more now.
    public static let busy = "io.github.chime.Error.Busy"
    /// The notification exists, or existed, but is no longer scheduled: it is done or was cancelled.
    public static let notScheduled = "io.github.chime.Error.NotScheduled"
    /// The notification is not on screen, so there is nothing to snooze.
    public static let notShown = "io.github.chime.Error.NotShown"
    /// Anything else: the store could not be read, say.
    public static let failed = "org.freedesktop.DBus.Error.Failed"

    /// The error for an id that is not there.
    public static func notFound(_ id: String) -> DBusError {
        DBusError(name: notFound, message: "No notification has the id '\(id)'.")
    }
}
