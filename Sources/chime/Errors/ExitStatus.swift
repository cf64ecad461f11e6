import ArgumentParser
import ChimeAPI
import DBus
import Glibc
import Localization

/// The exit statuses `chime --help` documents, from sysexits(3) where one fits.
enum ExitStatus {
    /// chimed refused the request; for `chime doctor`: something is unhealthy.
    static let failure = ExitCode(1)
    static let usage = ExitCode(64)
    /// No session bus, chimed not reachable, or a running chimed that speaks another
    /// version of the interface (``ChimedClient/failure(_:calling:about:)`` says which).
    static let unavailable = ExitCode(69)
    /// `chime calendar add`, `sync` and `password`: a CalDAV calendar is followed, but its
    /// sync did not end well (the server refused the password, or could not be reached).
    /// sysexits' EX_TEMPFAIL: what was asked is kept, and a later sync may succeed.
    static let notSynced = ExitCode(75)
}

/// Writes one line to standard error (Glibc's `stderr` is shared mutable state to Swift 6).
/// An error may quote what chimed or the bus was given: its control characters are
/// escaped, so it stays one line and cannot drive the terminal.
func writeError(_ line: String) {
    var text = "chime: " + HumanText.escaped(line) + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Prints `message` and ends the command with `status`.
func fail(_ message: String, _ status: ExitCode) -> ExitCode {
    writeError(message)
    return status
}

/// Maps a D-Bus error from the bus or chimed to a message and exit status. Errors that
/// may mean another interface version go through ``ChimedClient/failure(_:calling:about:)``
/// first, which tells them apart from bad input by the daemon's introspection.
///
/// chimed's messages are its API and stay English; the sentences chime says itself, or
/// says in chimed's place when it knows the error (`id`: the one the call named), are
/// in the session's language. A refused value is named by the option the user typed, not
/// by chimed's key (``RefusalText``).
func fail(_ error: DBusError, about id: String? = nil) -> ExitCode {
    switch error.name {
    case DBusError.invalidArgsName:
        return fail(RefusalText.sentence(error.message, typed: TypedWords()) ?? error.message, ExitStatus.usage)
    case ChimeError.notFound where id != nil:
        return fail(localized("No notification has the id '%1$s'.", id ?? ""), ExitStatus.failure)
    case ChimeError.notShown where id != nil && error.message.contains(" is not on screen"):
        // chimed's sentence sends D-Bus callers to Update; a user moves it with chime edit.
        return fail(localized("Notification '%1$s' is not on screen, so there is nothing to snooze; chime edit %1$s --in 10m moves a scheduled one.",
                              id ?? ""), ExitStatus.failure)
    case DBusError.serviceUnknownName, DBusError.noReplyName, "org.freedesktop.DBus.Error.Disconnected",
         "org.freedesktop.DBus.Error.Spawn.ChildExited", "org.freedesktop.DBus.Error.Spawn.ExecFailed",
         "org.freedesktop.DBus.Error.Spawn.ChildSignaled", "org.freedesktop.DBus.Error.NameHasNoOwner":
        // TRANSLATORS: %1$s is the bus's or libdbus's reason, in English.
        return fail(localized("chimed is not reachable: %1$s", error.message), ExitStatus.unavailable)
    default:
        return fail(error.message, ExitStatus.failure)
    }
}

/// Makes printed lines visible to a reader of a pipe before chime blocks.
func flushStandardOutput() {
    fflush(nil)
}
