import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Replacing a damaged file by what can be read from it, keeping the damaged one aside.
extension Store {
    /// What reading the damaged file found, before the new store is opened.
    struct Salvage {
        var date: Date
        var damage: String
        var keptAs: String
        /// Scheduled reminders the damaged file seemed to hold, when it can be known.
        var expected: Int?
        /// Reminders the damaged file's indexes still list as scheduled but whose rows
        /// could not be read: id and due time (Unix seconds).
        var lost: [(id: String, nextFire: Double)]
        /// When the backup the whole store came from was made.
        var backup: Date?
    }

    /// Replaces the damaged database at `url` with what can be read from it, or with the
    /// backup when nothing can, or else with an empty one. The damaged file and its -wal
    /// and -shm are kept under a dated name. Fails only when the new file cannot be
    /// written (a full disk): then nothing was changed.
    static func recover(_ url: URL, damage: String, history: URL) throws(StoreError)
        -> (database: Database, salvage: Salvage, historyNotice: String?) {
        let date = Date()
        let keptAs = keptName(for: url, at: date)
        let temporary = URL(fileURLWithPath: url.path + ".recovering")
        removeDatabaseFiles(temporary.path)
        var salvage = Salvage(date: date, damage: damage, keptAs: keptAs, expected: nil, lost: [], backup: nil)
        do {
            let evidence = Evidence(reading: url)
            var readable = false
            if let tables = evidence.tables, let copied = try copyReadableRows(of: url, tables: tables, into: temporary) {
                // A reminders table read in full, even empty, is the truth: the backup
                // would bring back what was cancelled since.
                readable = copied.notificationComplete || copied.notificationRows > 0 || !evidence.idByRowid.isEmpty
                salvage.expected = evidence.scheduledComplete ? evidence.scheduled.count
                    : (copied.notificationComplete ? copied.scheduledRows : nil)
                salvage.lost = evidence.scheduled.compactMap { rowid, nextFire in
                    guard !copied.notificationRowids.contains(rowid), let id = evidence.idByRowid[rowid] else { return nil }
                    return (id, nextFire)
                }
            }
            if !readable {
                // Nothing of the reminders can be read: the backup, else an empty store.
                removeDatabaseFiles(temporary.path)
                let backup = URL(fileURLWithPath: url.path + ".backup")
                if let made = modificationDate(of: backup.path), try restore(backup, to: temporary) {
                    salvage.backup = made
                } else {
                    removeDatabaseFiles(temporary.path)
                    try openDatabase(temporary).close()
                }
            }
        } catch {
            removeDatabaseFiles(temporary.path)
            throw .cannotOpen(url.path, cause(of: error, at: url))
        }
        keepDamaged(url, as: keptAs)
        guard rename(temporary.path, url.path) == 0 else {
            throw .cannotOpen(url.path, "the recovered store cannot take its place: \(cause(ofErrno: errno))")
        }
        // keepDamaged took the old ones away.
        moveWALFiles(of: temporary.path, to: url.path)
        syncFolder(url.deletingLastPathComponent().path)
        do {
            let opened = try openDatabase(url, history: history)
            return (opened.database, salvage, opened.historyNotice)
        } catch {
            throw .cannotOpen(url.path, cause(of: error, at: url))
        }
    }

    /// What the damaged file's schema and indexes say, read without its tables: the
    /// indexes live on pages of their own, so they often survive damage to a table.
    struct Evidence {
        /// The tables in the damaged file; nil when not even its schema can be read.
        var tables: [String]?
        /// Notification rowid → id, from the primary key's index.
        var idByRowid: [Int64: String] = [:]
        /// Notification rowid → due time, from the index of scheduled ones.
        var scheduled: [Int64: Double] = [:]
        /// Whether the whole index of scheduled ones was read.
        var scheduledComplete = false

        init(reading url: URL) {
            // Read-write, as the store is opened: read-only could fail on a missing -shm,
            // and a readable store would then be taken for an unreadable one.
            guard let db = try? Database(path: url.path) else { return }
            defer { db.close() }
            tables = try? String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            guard tables != nil, let indexes = (try? String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
                .map(Set.init) else { return }
            do {
                // A damaged page stops a scan: what lies past it is read from the other end.
                if indexes.contains("sqlite_autoindex_notification_1") {
                    for order in ["", " DESC"] {
                        Store.readUntilDamage(db, sql: """
                            SELECT rowid, id FROM notification INDEXED BY sqlite_autoindex_notification_1 ORDER BY id\(order)
                            """) { row in idByRowid[try row[0]] = try row[1] }
                    }
                }
                if indexes.contains("notification_nextFire") {
                    for order in ["", " DESC"] {
                        let complete = Store.readUntilDamage(db, sql: """
                            SELECT rowid, nextFire FROM notification INDEXED BY notification_nextFire
                            WHERE nextFire IS NOT NULL ORDER BY nextFire\(order)
                            """) { row in scheduled[try row[0]] = try row[1] }
                        scheduledComplete = scheduledComplete || complete
                    }
                }
            }
        }
    }

    /// Reads rows until the end (true) or the first error (false).
    @discardableResult
    static func readUntilDamage(_ db: Database, sql: String, _ each: (Row) throws -> Void) -> Bool {
        do {
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() { try each(row) }
            return true
        } catch {
            return false
        }
    }

    /// `chime.sqlite.damaged-20261122-101500` (local time): the first such name not taken.
    static func keptName(for url: URL, at date: Date) -> String {
        let base = url.path + ".damaged-" + StoreRecovery.compactStamp(date)
        var name = base
        var number = 2
        while access(name, F_OK) == 0 {
            name = base + "-\(number)"
            number += 1
        }
        return name
    }

    /// Keeps the damaged file under `name`, and its -wal and -shm when its WAL holds frames
    /// (``moveWALFiles(of:to:)``); they leave their place either way, so the recovered
    /// file does not take them for its own.
    /// A hard link keeps the damaged file where it is until the recovered one replaces
    /// it, so no moment is without a store; a rename where links are not supported.
    static func keepDamaged(_ url: URL, as name: String) {
        let path = url.path
        moveWALFiles(of: path, to: name)
        guard access(path, F_OK) == 0, link(path, name) != 0 else { return }
        rename(path, name)
    }
}
