import ChimeAPI
import ChimeDaemon
import Glibc
import Logging

let usage = """
    Usage: chimed [--version] [--help]

    The Chime daemon: owns \(ChimeBus.name) on the session bus, keeps the schedule
    and delivers notifications through org.freedesktop.Notifications. It is normally
    started by D-Bus activation, the systemd user unit or the session's autostart.

    Environment: CHIME_LOG_LEVEL (trace, debug, info, notice, warning, error; default info).
    Logs go to standard error: under systemd, where JOURNAL_STREAM names it, each line
    starts with its journal priority (<3> error ... <7> debug); elsewhere with the time.
    """

switch CommandLine.arguments.dropFirst().first {
case "--version":
    print("chimed \(chimeVersion)")
    exit(0)
case "--help", "-h":
    print(usage)
    exit(0)
case let other?:
    StandardError.write("chimed: unknown argument '\(other)'; see chimed --help.\n")
    exit(64)
case nil:
    break
}

let started = ContinuousClock.now
DaemonLog.bootstrap()
let logger = Logger(label: "chimed")

// Without a bus there is nothing to serve: 69 (EX_UNAVAILABLE), which the unit restarts
// on, unlike a usage error.
let daemon: Daemon
do {
    daemon = try Daemon(logger: logger, started: started)
} catch {
    logger.critical("\(error)")
    exit(Daemon.busUnavailableStatus)
}
exit(daemon.run())
