import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The durable schedule: one SQLite database in `$XDG_DATA_HOME/chime/`.
///
/// Every change is one transaction, committed before the caller is answered. The
/// directory is 0700 and the files 0600 (the daemon's umask is 077). One daemon per
/// directory: an exclusive `flock` on `lock` is held for the store's lifetime.
///
/// It also keeps a bounded history of what happened to notifications (`chime log`),
/// written in the same transaction as the change each event belongs to, in a file of its
/// own in the state folder (``historyURL``).
public final class Store {
    /// How many history rows are kept by default: the newest.
    public static let defaultHistoryLimit = 10_000
    /// A bulk cancel of more than this many is one history row, not one per
    /// notification: cancelling a large schedule must not push the rest of the history out.
    public static let itemizedCancelLimit = 100

    /// When the history file is attached to the store's connection.
    public enum HistoryAttachment: Sendable {
        /// As the store opens: a history that cannot be opened stops the opening.
        case withTheStore
        /// At ``attachHistory()`` or the first change or history read, whichever comes
        /// first, unless a migration needs it as the store opens. chimed attaches it after
        /// it has answered the calls that started it: its attach and check are a third
        /// of SQLite's part of that start, and no first answer but a change needs it.
        case whenFirstNeeded
    }

    /// Where the store lives.
    public let directory: URL
    /// The SQLite file.
    public var databaseURL: URL { Self.databaseURL(in: directory) }

    static func databaseURL(in directory: URL) -> URL { directory.appending(path: "chime.sqlite", directoryHint: .notDirectory) }
    /// Where the history lives: `$XDG_STATE_HOME/chime` for chimed (history is state, not
    /// data, in the XDG Base Directory spec's terms).
    public let stateDirectory: URL
    /// The damage found in the store and what was recovered, when the store was ever
    /// found damaged (kept until the next damage; see ``recoveryTold``).
    public internal(set) var recovery: StoreRecovery?
    /// Whether the user was told of ``recovery`` (persisted, so they are told once).
    public internal(set) var recoveryTold = true
    /// What opening changed that the log should say (a folder or file mode tightened).
    public internal(set) var notices: [String] = []
    /// When the last backup (``backupURL``) was made; nil when there is none.
    public internal(set) var lastBackup: Date?
    /// Whether pages were dropped whole, their old rows still in them, since the last
    /// ``compact()``: a cancel of (nearly) everything sets it.
    public internal(set) var compactionDue = false

    let database: Database
    private let lockDescriptor: Int32
    // Made at first use: making them took a tenth of the store's opening, before
    // chimed's first answer, which reads no alert.
    lazy var encoder = JSONEncoder()
    lazy var decoder = JSONDecoder()
    /// How many history rows to keep.
    public let historyLimit: Int
    /// History rows added since the last pruning. Pruning waits for a tenth of the limit,
    /// so it is one DELETE per thousand events instead of one per event.
    var addedSincePruning = 0
    var pruneInterval: Int { max(1, historyLimit / 10) }
    /// Whether the history file is attached as `state` (``attachHistory()``).
    public internal(set) var historyAttached: Bool

    /// Opens (creating when needed) the store in `directory`, keeping the newest
    /// `historyLimit` history rows in `stateDirectory` (by default `directory`), attached
    /// as `history` says. When another process holds the store, `whileLocked` is asked
    /// once whether to wait for it (2 s at most) or give up at once with
    /// ``StoreError/inUse(_:)``.
    ///
    /// A store that cannot be opened *now* (a full disk, a permission, an I/O error, a
    /// lock) throws ``StoreError/cannotOpen(_:_:)`` and is left exactly as it was: the
    /// next start opens it. Only a *damaged* file (SQLite finds it corrupt, or not a
    /// database, or its quick check fails) is replaced, by what can be read from it or
    /// else by the backup; the damaged file is kept beside it (``recovery``).
    public init(directory: URL, stateDirectory: URL? = nil, historyLimit: Int = Store.defaultHistoryLimit,
                history attachment: HistoryAttachment = .withTheStore, whileLocked: () -> Bool = { true }) throws(StoreError) {
        self.directory = directory
        let stateDirectory = stateDirectory ?? directory
        self.stateDirectory = stateDirectory
        self.historyLimit = max(1, historyLimit)
        // Each URL.path decodes the URL anew: read once.
        let directoryPath = directory.path, statePath = stateDirectory.path
        try Self.makeDirectory(directoryPath)
        var tightened = Self.tightenModes(in: directoryPath)
        if statePath != directoryPath {
            try Self.makeDirectory(statePath)
            tightened += Self.tightenModes(in: statePath)
        }
        let lockPath = directoryPath + "/lock"
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else { throw .cannotOpen(lockPath, Self.cause(ofErrno: errno)) }
        // A chimed that has just given up the bus name may still be exiting when the
        // bus (or systemd's restart) starts the next one: give it 2 s to let go.
        let deadline = ContinuousClock.now + .seconds(2)
        var wait = true, asked = false
        while flock(lockDescriptor, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK
            if busy && !asked { (asked, wait) = (true, whileLocked()) }
            guard busy, wait, ContinuousClock.now < deadline else {
                Glibc.close(lockDescriptor)
                throw .inUse(directoryPath)
            }
            usleep(1_000)
        }
        let url = Self.databaseURL(in: directory)
        let history = Self.historyURL(in: stateDirectory)
        var salvage: Salvage?
        do {
            let opened = try Self.openDatabase(url, history: history, deferring: attachment == .whenFirstNeeded)
            database = opened.database
            historyAttached = opened.historyAttached
            if let setAside = opened.historyNotice { tightened.append(setAside) }
        } catch {
            if let error = error as? StoreError {
                Glibc.close(lockDescriptor)
                throw error
            }
            guard let damage = Self.damage(in: error) else {
                Glibc.close(lockDescriptor)
                throw .cannotOpen(url.path, Self.cause(of: error, at: url))
            }
            do {
                let recovered = try Self.recover(url, damage: damage, history: history)
                database = recovered.database
                historyAttached = true
                salvage = recovered.salvage
                if let setAside = recovered.historyNotice { tightened.append(setAside) }
            } catch {
                Glibc.close(lockDescriptor)
                throw error
            }
        }
        notices = tightened
        lastBackup = Self.modificationDate(of: directoryPath + "/" + Self.backupName)
        if let salvage {
            finishRecovery(salvage)
        } else {
            loadRecovery()
        }
        if historyAttached { historyWasAttached() }
    }

    deinit {
        Glibc.close(lockDescriptor)
    }

    /// Rebuilds the store's file from what it holds (SQLite's VACUUM), so that pages freed
    /// by a cancel of everything, and the reminders still written in them, leave the file;
    /// then empties the WAL, which held the rebuilt pages. Returns how long it took: it
    /// copies what is kept, so it is short after a cancel of nearly everything. Tried
    /// once per such cancel: ``compactionDue`` is cleared whether it succeeds or not.
    @discardableResult
    public func compact() throws(StoreError) -> Duration {
        let started = ContinuousClock.now
        compactionDue = false
        do {
            try database.execute(sql: "VACUUM main")
            try database.execute(sql: "PRAGMA main.wal_checkpoint(TRUNCATE)")
        } catch {
            throw writeError(error)
        }
        return ContinuousClock.now - started
    }

    /// Closes the database and lets go of the directory, so that the next chimed (the
    /// bus activates one as soon as this one leaves the bus) takes it without waiting.
    public func close() {
        database.close()
        flock(lockDescriptor, LOCK_UN)
    }

    // MARK: - Transactions

    /// Runs `body` in one transaction; it is on disk when this returns. Any change may
    /// write history, so the history is attached first (outside the transaction, where
    /// SQLite allows it).
    public func write<T>(_ body: (Transaction) throws -> T) throws(StoreError) -> T {
        try attachHistory()
        do { return try database.inTransaction { try body(Transaction(db: database)) } } catch { throw writeError(error) }
    }

    /// A failed write as the caller should hear it: a full disk by name.
    func writeError(_ error: any Error) -> StoreError {
        if let error = error as? SQLiteError, error.code == SQLiteError.full
            || (error.code == SQLiteError.ioError && Self.diskIsFull(directory.path)) {
            return .diskFull(directory.path)
        }
        return .failed("\(error)")
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try body(database) } catch { throw .failed("\(error)") }
    }

    // MARK: - Meta

    /// Sets a value of the store's own: the zone it last saw, a badge count, a recovery.
    public func setMeta(_ key: String, _ value: String, in transaction: Transaction) throws {
        try transaction.db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
    }

    /// A value set with ``setMeta(_:_:in:)``; nil when it was never set.
    public func meta(_ key: String) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }
}
