import ChimeCore
import CLinux
import EventLoop
import Glibc
import Logging

/// Tells systemd that the loop still turns, so that a wedged chimed is restarted: the
/// unit's `WatchdogSec=` makes the user manager set `WATCHDOG_USEC` (and `WATCHDOG_PID`,
/// and `NOTIFY_SOCKET`), and expects `WATCHDOG=1` more often than that.
///
/// The ping runs from a loop timeout, so a loop stuck in a handler stops pinging, and
/// only while `healthy` holds (the bus connection is up): a chimed that lost its bus
/// without noticing is restarted too. Nothing runs unless systemd asked for it: an idle
/// chimed outside such a unit still never wakes up. Written without libsystemd: sd_notify
/// is one datagram on a Unix socket.
final class Watchdog {
    /// What the environment asks for: where to send, and how often.
    struct Settings: Equatable {
        /// `NOTIFY_SOCKET`: a path, or an abstract name starting with `@`.
        let socket: String
        /// Half of `WATCHDOG_USEC`, as sd_watchdog_enabled(3) advises, in milliseconds.
        let intervalMilliseconds: Int
    }

    /// The settings in `environment` for the process `pid`, or nil when systemd asked for
    /// no watchdog (or asked another process: `WATCHDOG_PID` names the main process).
    static func settings(environment: [String: String], pid: pid_t) -> Settings? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0,
              let socket = environment["NOTIFY_SOCKET"], socket.hasPrefix("/") || socket.hasPrefix("@"), socket.count > 1
        else { return nil }
        if let owner = environment["WATCHDOG_PID"], pid_t(owner) != pid { return nil }
        return Settings(socket: socket, intervalMilliseconds: max(1, Int(min(microseconds, UInt64(Int32.max) * 1000) / 2000)))
    }

    /// The variables systemd uses to talk to the main process: removed from chimed's own
    /// environment once read, so commands and apps it starts do not inherit them.
    static let environmentNames = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    /// Those variables as the process has them now.
    static var environment: [String: String] {
        var found: [String: String] = [:]
        for name in environmentNames { found[name] = environmentValue(name) }
        return found
    }

    private let loop: EventLoop
    private let logger: Logger
    private let settings: Settings
    private let healthy: () -> Bool
    private var next: Source?
    private var reportedFailure = false

    /// A watchdog when the environment asks for one; the variables are then unset.
    init?(environment: [String: String], loop: EventLoop, logger: Logger, healthy: @escaping () -> Bool) {
        guard let settings = Self.settings(environment: environment, pid: getpid()) else { return nil }
        for name in Self.environmentNames { unsetenv(name) }
        self.settings = settings
        self.loop = loop
        self.logger = logger
        self.healthy = healthy
    }

    /// Pings now and then every interval, from the loop.
    func start() {
        logger.info("systemd's watchdog is on: pinging every \(settings.intervalMilliseconds) ms.")
        ping()
    }

    private func ping() {
        if healthy() {
            let result = clinux_notify_socket_send(settings.socket, "WATCHDOG=1")
            if result != 0 && !reportedFailure {
                reportedFailure = true
                logger.warning("Cannot reach systemd at \(settings.socket): \(String(cString: strerror(-result))); it may restart chimed.")
            }
        } else {
            logger.error("The bus connection is gone; no watchdog ping, so that systemd restarts chimed.")
        }
        next = loop.timeout(afterMilliseconds: settings.intervalMilliseconds) { [unowned self] in self.ping() }
    }
}
