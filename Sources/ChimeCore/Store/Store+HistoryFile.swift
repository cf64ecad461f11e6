import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where the history lives: `history.sqlite` in the state folder, attached to the store's
/// connection as `state`, so an event is still written in the transaction of its change.
///
/// Two files make a transaction atomic in each but not across both should the machine
/// lose power in the middle of a commit (SQLite, WAL mode): at worst an event is missing
/// or stands without its change. The history is kept with `synchronous = NORMAL` for
/// the same reason it is state: losing its last events to a power cut is acceptable, an
/// fsync more per change is not.
extension Store {
    /// The history's SQLite file.
    public var historyURL: URL { Self.historyURL(in: stateDirectory) }

    static func historyURL(in stateDirectory: URL) -> URL { stateDirectory.appending(path: "history.sqlite", directoryHint: .notDirectory) }

    /// Attaches the history when it is not yet (``HistoryAttachment/whenFirstNeeded``),
    /// as the store's opening would have: a damaged one is set aside and the sentence
    /// added to ``notices``; one that cannot be opened now throws
    /// ``StoreError/cannotOpen(_:_:)`` naming it, and is tried again at the next call.
    public func attachHistory() throws(StoreError) {
        guard !historyAttached else { return }
        var notice: String?
        do {
            try Self.attachHistory(historyURL, to: database, notice: &notice)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .cannotOpen(historyURL.path, Self.cause(of: error, at: historyURL))
        }
        historyAttached = true
        if let notice { notices.append(notice) }
        historyWasAttached()
    }

    /// A history that grew past the limit (a smaller limit, or rows added since the last
    /// pruning) is pruned with the first event written. Its seq is dense (see
    /// historySchema), so the span of seq counts its rows in two look-ups where count(*)
    /// reads every row; were it ever not dense, the span is more, and pruning (which keeps
    /// the newest by seq) merely comes sooner.
    func historyWasAttached() {
        let rows = (try? Int.fetchOne(database, sql: "SELECT max(seq) - min(seq) + 1 FROM history")) ?? nil
        if let rows, rows > historyLimit { addedSincePruning = pruneInterval }
    }

    /// Attaches the history file to the store's connection as `state`, after checking it
    /// there: one open of the file per start, not one to check it and one to use it.
    /// A damaged one is set aside (`history.sqlite.damaged-DATE`) and a new one started,
    /// since the schedule must not wait on a record of the past; `notice` gets the sentence
    /// for the log then. One that cannot be opened now (a permission, a full disk) stops
    /// the start, as the store does, with an error that names it, so that it is never
    /// taken for damage to the store.
    static func attachHistory(_ url: URL, to db: Database, notice: inout String?) throws {
        do {
            try attachCheckedHistory(url, to: db)
        } catch {
            guard let damage = damage(in: error) else { throw StoreError.cannotOpen(url.path, cause(of: error, at: url)) }
            try? db.execute(sql: "DETACH DATABASE state")
            let keptAs = keptName(for: url, at: Date())
            keepDamaged(url, as: keptAs)
            // keepDamaged links the file itself under the kept name (a recovery renames its
            // new store over it): the new history starts from nothing.
            removeDatabaseFiles(url.path)
            do { try attachCheckedHistory(url, to: db) } catch { throw StoreError.cannotOpen(url.path, cause(of: error, at: url)) }
            notice = "The history \(url.path) was damaged (\(damage)); it is kept as \(keptAs) and a new one was started."
        }
    }

    private static func attachCheckedHistory(_ url: URL, to db: Database) throws {
        // Created 0600 before SQLite opens it, whatever the umask; its -wal and -shm follow.
        let path = url.path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { Glibc.close(descriptor) }
        try db.execute(sql: "ATTACH DATABASE ? AS state", arguments: [path])
        _ = try String.fetchOne(db, sql: "PRAGMA state.journal_mode = WAL")
        try db.keepWALFiles(of: "state")
        try db.execute(sql: "PRAGMA state.synchronous = NORMAL")
        let problems = try String.fetchAll(db, sql: "PRAGMA state.quick_check")
        if problems != ["ok"] { throw Damage(details: problems.prefix(3).joined(separator: "; ")) }
        try db.execute(sql: historySchema("state"))
    }

    /// The history table in `schema`. seq without AUTOINCREMENT: a new row gets max + 1, and
    /// pruning removes only the oldest, so seq stays dense and `max - limit` is the pruning
    /// bound. lineage: the notification a snoozed copy came from (its own id when none), so
    /// `chime log --id` finds a notification and all its copies in one look-up.
    static func historySchema(_ schema: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(schema).history (
            seq INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            notificationId TEXT NOT NULL,
            lineage TEXT NOT NULL,
            event TEXT NOT NULL,
            actionKey TEXT,
            copyId TEXT,
            title TEXT NOT NULL,
            detail TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS \(schema).history_lineage ON history(lineage);
        """
    }
}
