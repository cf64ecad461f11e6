import ChimeAPI
import ChimeCore
import DBus
import EventLoop
import FoundationEssentials
import Glibc
import Localization
import Logging

/// The wiring of `chimed`: one loop, one bus connection, the store, the fire timer and
/// the exported API, all owned here and driven from the one thread.
public final class Daemon {
    private let loop = EventLoop()
    private let connection: Connection
    private let logger: Logger
    private let client: NotificationClient
    /// The user's config, read at start and on SIGHUP; every part reads it from here.
    private let settings: Settings
    /// Every part, once the store is open (``assemble(_:)``).
    private var parts: DaemonParts?
    private var registration: Registration?
    private var signalWatcher: SignalWatcher?
    private var upkeep: StoreUpkeep?
    private var zoneWatcher: FileWatcher?
    private var watchdog: Watchdog?
    private var systemBus: Connection?
    private var busLost = false
    /// The exit status of a start that failed after the first answer (the history).
    private var failed: Int32?
    private var trace: StartupTrace

    /// The exit status when the session bus is missing or goes away: 69
    /// (EX_UNAVAILABLE), on which the user unit restarts chimed, unlike a usage error.
    public static let busUnavailableStatus: Int32 = 69

    /// Connects to the session bus; nothing is claimed or opened yet. `started` is when
    /// `main` began, for the start-up line in the log.
    public init(logger: Logger, started: ContinuousClock.Instant = .now) throws(DBusError) {
        self.logger = logger
        trace = StartupTrace(since: started)
        trace.mark("runtime")
        connection = try Connection.session()
        connection.readLimits = RequestLimits.bus
        client = NotificationClient(connection: connection, loop: loop, logger: logger)
        settings = Settings(logger: logger)
        trace.mark("bus")
    }

    /// Reads the user's config (at start and on SIGHUP): each error on a line of its own,
    /// each costing only its group; a file that cannot be read leaves the last good
    /// config in force.
    private func loadConfig() {
        settings.take(Config.load(from: URL(filePath: settings.config.path, directoryHint: .notDirectory)))
        let config = settings.config
        for error in config.errors { logger.error("\(error)") }
        let count = { (count: Int, one: String, many: String) in "\(count) \(count == 1 ? one : many)" }
        let summary = "\(count(config.categories.count, "category", "categories")), "
            + "\(count(config.apps.count, "app setting", "app settings")), \(count(config.errors.count, "error", "errors"))"
        logger.info("Config \(config.path): \(summary).")
    }

    /// Follows the session's lock on the system bus, connected from the loop: chimed works
    /// on, and answers, while a wedged system bus keeps it waiting, and without one.
    private func connectSystemBus(for lock: SessionLock) {
        Connection.system(on: loop, timeoutMilliseconds: 25_000, readLimits: RequestLimits.bus) { [unowned self] result in
            switch result {
            case .success(let bus):
                bus.onDisconnect = { [unowned self] in
                    self.logger.warning("The system bus closed; whether the session is locked cannot be told any more.")
                    lock.busLost()
                    self.systemBus = nil
                }
                self.systemBus = bus
                lock.start(on: bus)
            case .failure(let error):
                self.logger.info("No system bus (\(error)); whether the session is locked cannot be told.")
                lock.start(on: nil)
            }
        }
    }

    /// What keeps chimed well over the day: the store's backups and compaction (and the
    /// notice of a recovery), systemd's watchdog.
    private func startServices(store: Store, presenter: Presenter, schedule: Schedule, commits: CommitQueue) {
        upkeep = StoreUpkeep(store: store, presenter: presenter, commits: commits, connection: connection, loop: loop,
                             logger: logger) {
            schedule.upcoming.next
        }
        watchdog = Watchdog(environment: Watchdog.environment, loop: loop, logger: logger) { [unowned self] in
            self.connection.isConnected
        }
        watchdog?.start()
    }

    /// Runs until SIGTERM, SIGINT or the end of the session; returns the exit status.
    public func run() -> Int32 {
        // The schedule is private: the data directory 0700, its files 0600. What chimed
        // starts gets the session's own umask back.
        let sessionUmask = umask(0o077)
        do {
            // Before the name is asked for: from the moment the bus names chimed, a client
            // (or systemd) may send SIGTERM, and without the watcher it would kill chimed
            // before anything staged was written.
            signalWatcher = try SignalWatcher(loop: loop, signals: [SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
                if signal == SIGHUP {
                    self.loadConfig()
                    self.parts?.calendars.configChanged()
                } else {
                    self.logger.info("Signal \(signal): exiting.")
                    self.loop.stop()
                }
            }
            // Calls wait in libdbus's queue until the loop runs, so the name can be claimed
            // and the store opened before anything is answered. The request goes first and
            // its answer is read after the store is open: the bus answers (and, under D-Bus
            // activation, hands over the calls that wait for the name) meanwhile.
            let nameRequest = try connection.sendNameRequest(ChimeBus.name)
            connection.attach(to: loop)
            connection.onDisconnect = { [unowned self] in
                // Not 0: the user unit restarts chimed on a failure, and the next one
                // reconnects (the schedule is on disk; the store is let go first, below).
                self.logger.error("The session bus closed; exiting with status \(Self.busUnavailableStatus) for the user unit to start chimed again.")
                self.busLost = true
                self.loop.stop()
            }
            trace.mark("name")
            // Autostart, the user unit and activation may race; the first to own the name
            // wins. A loser that finds the store held gives up at once, not after the
            // 2 s the store waits for a chimed on its way out.
            let lost = { [logger] in
                logger.notice("Another chimed already owns \(ChimeBus.name); exiting.")
                return Int32(0)
            }
            let store: Store
            do {
                store = try Store(directory: UserFolders.data, stateDirectory: UserFolders.state, history: .whenFirstNeeded,
                                  whileLocked: { (try? nameRequest.result()) == .owned })
            } catch {
                if try nameRequest.result() == .taken { return lost() }
                logger.critical("\(error)")
                // 75 (EX_TEMPFAIL) when it may pass (a full disk, a permission): the unit
                // restarts on it, and the store is untouched for the next try.
                return error.mayPass ? 75 : 1
            }
            trace.mark("store")
            if try nameRequest.result() == .taken {
                store.close()
                return lost()
            }
            let commits = CommitQueue(store: store, loop: loop)
            let placement = SessionPlacement(sessionUmask: sessionUmask, connection: connection, logger: logger)
            loadConfig()
            trace.mark("config")
            let parts = Self.assemble(DaemonParts.Inputs(
                connection: connection, server: client, store: store, commits: commits, loop: loop, time: LoopTimekeeper(loop: loop),
                settings: settings, commands: CommandRunner(loop: loop, logger: logger, placement: placement),
                sounds: SoundPlayer(logger: logger), frontApp: FrontApp(connection: connection, logger: logger), logger: logger))
            let (presenter, schedule, fireTimer) = (parts.presenter, parts.schedule, parts.fireTimer)
            self.parts = parts
            registration = try connection.export([parts.methods.interface], at: ChimeBus.path)
            try presenter.start()
            try client.start()
            // Watched before the zone is first read, so that no change falls in between.
            do {
                zoneWatcher = try FileWatcher(loop: loop, path: "/etc/localtime") { _ in fireTimer.systemZoneChanged() }
            } catch {
                logger.warning("Cannot watch /etc/localtime (\(error)); time-zone changes apply after a restart.")
            }
            try fireTimer.start()
            try schedule.loadPlaces()
            trace.mark("schedule")
            logger.info("chimed \(chimeVersion) owns \(ChimeBus.name); store \(store.databaseURL.path).")
            logger.info("\(trace.summary).")
            // What no call waits for comes after the calls that started chimed are answered
            // (D-Bus activation holds the first one until then). Until logind answers, the
            // lock is unknown, as it was before: its answer never came before the loop ran.
            let rest = loop.idle(atLatestAfterMilliseconds: 100) { [unowned self] in
                var rest = StartupTrace(since: .now)
                // Unless a change needed it first. One that cannot be opened ends chimed
                // as it would have at the store's opening, one answer later.
                do throws(StoreError) {
                    try store.attachHistory()
                } catch {
                    self.logger.critical("\(error)")
                    self.failed = error.mayPass ? 75 : 1
                    self.loop.stop()
                    return
                }
                rest.mark("history")
                self.connectSystemBus(for: parts.lock)
                rest.mark("system bus")
                self.startServices(store: store, presenter: presenter, schedule: schedule, commits: commits)
                rest.mark("services")
                parts.calendars.start()
                rest.mark("calendars")
                // Bound now, not at the first label of the first reminder that fires: the
                // search would make that one late.
                let catalogue = Localization.start()
                self.logger.debug("Chime's own words: \(catalogue).")
                rest.mark("words")
                self.logger.info("Then, after the first calls: \(rest.stepsText) ms.")
            }
            try loop.run()
            rest.cancel()
            // What the last turn staged (a firing just before SIGTERM, say) is written
            // before the store goes; before the name goes (connection.close below), so
            // whoever the bus starts next finds the store free.
            commits.commit()
            store.close()
        } catch {
            if !connection.isConnected {
                logger.error("The session bus closed while chimed started (\(error)); exiting with status \(Self.busUnavailableStatus).")
                return Self.busUnavailableStatus
            }
            logger.critical("\(error)")
            return 1
        }
        connection.close()
        return busLost ? Self.busUnavailableStatus : failed ?? 0
    }
}
