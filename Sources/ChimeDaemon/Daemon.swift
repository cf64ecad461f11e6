import DBus
import EventLoop
import Glibc
import Logging

/// The version the daemon reports (`Version` property, `--version`).
public let chimeVersion = "0.1.0"

/// The wiring of `chimed`: one loop, one bus connection, the exported API and the
/// notification client, all owned here and driven from the one thread.
public final class Daemon {
    private let loop = EventLoop()
    private let connection: Connection
    private let logger: Logger
    private let server: NotificationServer
    private let service: SchedulerService
    private var registration: Registration?
    private var signalWatcher: SignalWatcher?

    /// Connects to the session bus; nothing is claimed or exported yet.
    public init(logger: Logger) throws(DBusError) {
        self.logger = logger
        connection = try Connection.session()
        server = NotificationServer(connection: connection, logger: logger)
        service = SchedulerService(connection: connection, server: server, logger: logger)
    }

    /// Runs until SIGTERM, SIGINT or the end of the session; returns the exit status.
    public func run() -> Int32 {
        do {
            connection.attach(to: loop)
            connection.onDisconnect = { [unowned self] in
                self.logger.notice("The session bus closed; exiting.")
                self.loop.stop()
            }
            signalWatcher = try SignalWatcher(loop: loop, signals: [SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
                if signal == SIGHUP {
                    self.logger.info("SIGHUP: nothing to reload yet.")
                } else {
                    self.logger.info("Signal \(signal): exiting.")
                    self.loop.stop()
                }
            }
            // Export before claiming the name, so the first call after activation finds the object.
            registration = try connection.export([service.interface], at: SchedulerService.path)
            try server.start()
            switch try connection.requestName(SchedulerService.busName) {
            case .owned:
                logger.info("chimed \(chimeVersion) owns \(SchedulerService.busName).")
            case .taken:
                // Autostart, the user unit and activation may race; the first one wins.
                logger.notice("Another chimed already owns \(SchedulerService.busName); exiting.")
                return 0
            }
            try loop.run()
        } catch {
            logger.critical("\(error)")
            return 1
        }
        connection.close()
        return 0
    }
}
