import ChimeCore
import DBus
import EventLoop
import FoundationEssentials
import Logging

/// What the daemon does for its store besides reading and writing it: says what opening
/// found (modes tightened, damage recovered, the user told once) and keeps a daily backup
/// to fall back on.
///
/// The backup is made when the loop is awake anyway, never by a wake-up of its own: an
/// idle daemon stays asleep. chimed makes the upkeep once the calls that started it are
/// answered (on the loop's first idle turn), so its first pass may back up at once;
/// everything queued for the bus (a Notify of a firing, say) is flushed before it starts;
/// and it waits while a firing is due within two seconds. It blocks the loop for its
/// length, once a day: measured here, about 40 ms for 300 reminders (mostly fsync) and
/// 0.25 to 0.45 s for 100,000 (a 39 MB store: the copy, then SQLite's quick check of it).
final class StoreUpkeep {
    /// How old the backup may grow before the next one.
    static let backupInterval: TimeInterval = 24 * 3600
    /// After a failed backup (a full disk), when to try again.
    static let retryInterval: TimeInterval = 3600

    private let store: Store
    private let connection: Connection
    private let logger: Logger
    /// When the fire timer fires next.
    private let nextFire: () -> Date?
    private var hook: Source?
    private var nextBackup: Date

    init(store: Store, presenter: Presenter, commits: CommitQueue, connection: Connection, loop: EventLoop, logger: Logger,
         nextFire: @escaping () -> Date?) {
        self.store = store
        self.nextFire = nextFire
        self.connection = connection
        self.logger = logger
        nextBackup = store.lastBackup.map { $0.addingTimeInterval(Self.backupInterval) } ?? .distantPast
        for notice in store.notices { logger.notice("\(notice)") }
        tellRecovery(presenter: presenter, commits: commits)
        hook = loop.prepare { [unowned self] in
            self.compactIfDue()
            self.backUpIfDue()
        }
    }

    /// Logs a recovery the user has not been told of and posts its notification, once:
    /// the store remembers that it was told.
    private func tellRecovery(presenter: Presenter, commits: CommitQueue) {
        guard let recovery = store.recovery, !store.recoveryTold else { return }
        logger.error("\(recovery.sentence)")
        var alert = Alert(title: recovery.title)
        alert.body = recovery.body
        alert.urgency = .critical
        presenter.announce(alert)
        commits.stage({ [store] db in try store.markRecoveryTold(in: db) }, done: { [logger] result in
            if case .failure(let error) = result {
                logger.error("Cannot record that the recovery was reported; it may be reported again: \(error)")
            }
        })
    }

    private func backUpIfDue() {
        let now = Date()
        guard now >= nextBackup else { return }
        if let next = nextFire(), next > now, next.timeIntervalSince(now) < 2 { return }
        connection.flush()
        do {
            let took = try store.backUp()
            nextBackup = Date().addingTimeInterval(Self.backupInterval)
            logger.info("Backed up the store to \(store.backupURL.path) in \(millisecondsText(took, decimals: 0)) ms.")
        } catch {
            nextBackup = Date().addingTimeInterval(Self.retryInterval)
            logger.warning("Cannot back up the store (the last backup stays): \(error)")
        }
    }
}

extension StoreUpkeep {
    /// After a cancel of (nearly) everything: the caller is answered first, then the
    /// cancelled reminders leave the file. Once: a failure (a full disk: VACUUM needs room
    /// for a copy of what is kept) is said and not retried before the next such cancel.
    private func compactIfDue() {
        guard store.compactionDue else { return }
        connection.flush()
        do {
            let took = try store.compact()
            logger.info("Compacted the store after a cancel of nearly everything in \(millisecondsText(took, decimals: 0)) ms.")
        } catch {
            logger.warning("Cannot compact the store; the cancelled reminders' pages stay in it, free, until reused: \(error)")
        }
    }
}
