import ArgumentParser
import DBus
import Glibc

/// The exit statuses `chime --help` documents, from sysexits(3) where one fits.
enum ExitStatus {
    /// chimed refused the request; for `chime doctor`: something is unhealthy.
    static let failure = ExitCode(1)
    static let usage = ExitCode(64)
    /// No session bus, chimed not reachable, or a running chimed that speaks another
    /// version of the interface (``SchedulerClient/failure(_:calling:_:)`` says which).
    static let unavailable = ExitCode(69)
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
/// may mean another interface version go through ``SchedulerClient/failure(_:calling:_:)``
/// first, which tells them apart from bad input by the daemon's introspection.
func fail(_ error: DBusError) -> ExitCode {
    switch error.name {
    case DBusError.invalidArgsName:
        return fail(error.message, ExitStatus.usage)
    case DBusError.serviceUnknownName, DBusError.noReplyName, "org.freedesktop.DBus.Error.Disconnected",
         "org.freedesktop.DBus.Error.Spawn.ChildExited", "org.freedesktop.DBus.Error.Spawn.ExecFailed",
         "org.freedesktop.DBus.Error.Spawn.ChildSignaled", "org.freedesktop.DBus.Error.NameHasNoOwner":
        return fail("chimed is not reachable: \(error.message)", ExitStatus.unavailable)
    default:
        return fail(error.message, ExitStatus.failure)
    }
}

/// Makes printed lines visible to a reader of a pipe before chime blocks.
func flushStandardOutput() {
    fflush(nil)
}
