import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// What was found and done when the store was damaged, for the log, `chime doctor` and
/// the one notification that tells the user.
public struct StoreRecovery: Equatable, Codable, Sendable {
    /// When the damage was found.
    public var date: Date
    /// What SQLite said was wrong.
    public var damage: String
    /// Where the damaged file (and its -wal and -shm, when there were) is kept.
    public var keptAs: String
    /// The reminders (scheduled notifications) the store holds now.
    public var recovered: Int
    /// How many the damaged file seemed to hold; nil when that cannot be known.
    public var expected: Int?
    /// When the backup the store was restored from was made, when nothing could be read.
    public var backup: Date?
    /// How many lost rows the backup gave back (rows the damaged file still listed in its
    /// indexes but could not read).
    public var fromBackup: Int

    /// "Chime recovered 255 of 300 reminders": the notification's title.
    public var title: String {
        if recovered == 0, expected == nil, backup == nil { return "Chime could not recover its reminders" }
        if let expected, recovered >= expected, backup == nil { return "Chime repaired its store; no reminder was lost" }
        let count = expected.map { "\(recovered) of \($0)" } ?? "\(recovered)"
        let noun = (expected ?? recovered) == 1 ? "reminder" : "reminders"
        return backup == nil ? "Chime recovered \(count) \(noun)" : "Chime recovered \(count) \(noun) from its backup"
    }

    /// What happened and where the damaged file is, in two or three sentences.
    public var body: String {
        var sentences: [String]
        if let backup {
            sentences = ["Its store was damaged beyond reading, so it was recovered from the backup of \(Self.dayText(backup)); "
                + "changes made since then are lost."]
        } else if let expected, recovered >= expected {
            sentences = ["Its store was damaged; every reminder was read back."]
        } else if recovered == 0, expected == nil {
            sentences = ["Its store was damaged beyond reading and there was no backup to fall back on; it starts anew."]
        } else {
            sentences = ["Its store was damaged; what could be read was kept."]
        }
        if fromBackup > 0 { sentences.append("\(fromBackup) of them came from the backup.") }
        sentences.append("The damaged file is kept as \(keptAs).")
        return sentences.joined(separator: " ")
    }

    /// One line for the log and for `chime doctor`.
    public var sentence: String {
        let count = expected.map { "\(recovered) of \($0)" } ?? "\(recovered)"
        var text = "The store was found damaged on \(Self.dayText(date)) (\(damage)); \(count) reminders were recovered"
        if let backup { text += " from the backup of \(Self.dayText(backup))" }
        if fromBackup > 0 { text += ", \(fromBackup) of them from the backup" }
        return text + "; the damaged file is kept as \(keptAs)."
    }

    /// "2026-11-22 10:15": local time, as people read it.
    static func dayText(_ date: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyy-MM-dd HH:mm"
        return format.string(from: date)
    }
}

// MARK: - Salvage

extension Store {
    /// The meta keys of the last recovery and of whether the user was told of it.
    static let recoveryKey = "recovery"
    static let recoveryToldKey = "recoveryTold"

    /// The backup chimed falls back on when nothing of the store can be read.
    public var backupURL: URL { directory.appendingPathComponent("chime.sqlite.backup") }

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
    static func recover(_ url: URL, damage: String) throws(StoreError) -> (database: DatabaseQueue, salvage: Salvage) {
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
        syncFolder(url.deletingLastPathComponent().path)
        do {
            return (try openDatabase(url), salvage)
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
            guard let queue = try? DatabaseQueue(path: url.path) else { return }
            defer { try? queue.close() }
            try? queue.inDatabase { db in
                tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                let indexes = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
                // A damaged page stops a scan: what lies past it is read from the other end.
                if indexes.contains("sqlite_autoindex_notification_1") {
                    for order in ["", " DESC"] {
                        Store.readUntilDamage(db, sql: """
                            SELECT rowid, id FROM notification INDEXED BY sqlite_autoindex_notification_1 ORDER BY id\(order)
                            """) { row in idByRowid[row[0]] = row[1] }
                    }
                }
                if indexes.contains("notification_nextFire") {
                    for order in ["", " DESC"] {
                        let complete = Store.readUntilDamage(db, sql: """
                            SELECT rowid, nextFire FROM notification INDEXED BY notification_nextFire
                            WHERE nextFire IS NOT NULL ORDER BY nextFire\(order)
                            """) { row in scheduled[row[0]] = row[1] }
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

    /// What copying found.
    struct Copied {
        var notificationRows = 0
        var notificationRowids: Set<Int64> = []
        var scheduledRows = 0
        /// Whether the notification table was read without damage.
        var notificationComplete = true
    }

    /// Copies every readable row of the damaged file's tables into a new store at
    /// `temporary`, table by table and row by row: a damaged page costs the rows on it,
    /// never the rest. userInfo is left out: it is rebuilt from the notifications.
    /// Reading and writing are two connections: a read that meets damage leaves the
    /// writing one untouched. Nil when the damaged file cannot be read after all; errors
    /// writing (a full disk) are thrown.
    static func copyReadableRows(of url: URL, tables: [String], into temporary: URL) throws -> Copied? {
        let source: DatabaseQueue
        do { source = try DatabaseQueue(path: url.path) } catch { return nil }
        defer { try? source.close() }
        let destination = try openDatabase(temporary)
        defer { try? destination.close() }
        let ours = Set(try destination.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") })
        var copied = Copied()
        for table in tables where ours.contains(table) && table != "userInfo" && table != "grdb_migrations" {
            let quoted = table.quotedDatabaseIdentifier
            guard let shape = try? source.inDatabase({ db in
                let theirs = Set(try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted))").map { $0["name"] as String })
                let key = try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted))").filter { ($0["pk"] as Int) > 0 }
                    .sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { ($0["name"] as String).quotedDatabaseIdentifier }
                let hasRowid = (try? db.makeStatement(sql: "SELECT rowid FROM \(quoted) LIMIT 0")) != nil
                return (theirs: theirs, key: key, hasRowid: hasRowid)
            }) else { continue }
            let columns = try destination.read { db in
                try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted))").map { $0["name"] as String }
            }.filter(shape.theirs.contains)
            guard !columns.isEmpty else { continue }
            let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            let marks = columns.map { _ in "?" }.joined(separator: ", ")
            var complete = true
            if shape.hasRowid {
                var start: Int64? = Int64.min
                while let from = start {
                    // Outside a transaction, and kept however the call ends: the end of a
                    // read transaction can report the damage its reads already met.
                    var chunk: (rows: [Row], next: Int64?, complete: Bool) = ([], nil, false)
                    source.inDatabase { db in chunk = readChunk(db, table: quoted, columns: list, from: from) }
                    complete = complete && chunk.complete
                    start = chunk.next
                    try destination.write { db in
                        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(quoted) (rowid, \(list)) VALUES (?, \(marks))")
                        for row in chunk.rows { try insert.execute(arguments: StatementArguments(Array(row.databaseValues))) }
                    }
                    if table == "notification" {
                        for row in chunk.rows {
                            copied.notificationRows += 1
                            copied.notificationRowids.insert(row[0])
                            if (row["state"] as String?) == "scheduled" { copied.scheduledRows += 1 }
                        }
                    }
                }
            } else {
                // Without rowid: in the key's order from both ends, as a damaged page
                // stops a scan and what lies past it can still be read backwards.
                var rows: [Row] = []
                complete = false
                for order in ["ASC", "DESC"] where !complete {
                    let ordering = shape.key.isEmpty ? "" : " ORDER BY " + shape.key.map { "\($0) \(order)" }.joined(separator: ", ")
                    source.inDatabase { db in
                        complete = readUntilDamage(db, sql: "SELECT \(list) FROM \(quoted)\(ordering)") { rows.append($0.copy()) }
                    }
                }
                try destination.write { db in
                    let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO \(quoted) (\(list)) VALUES (\(marks))")
                    for row in rows { try insert.execute(arguments: StatementArguments(Array(row.databaseValues))) }
                }
            }
            if table == "notification" { copied.notificationComplete = complete }
        }
        return copied
    }

    /// Up to `limit` readable rows from rowid `start` on, and where to go on from (nil at
    /// the end). A scan stops at a damaged page; the walk then looks for the first rowid
    /// past it that can be read and goes on from there.
    static func readChunk(_ db: Database, table: String, columns: String, from start: Int64,
                          limit: Int = 1000) -> (rows: [Row], next: Int64?, complete: Bool) {
        var rows: [Row] = []
        var start = start
        var complete = true
        while rows.count < limit {
            let wanted = limit - rows.count
            var got = 0
            do {
                let cursor = try Row.fetchCursor(db, sql: "SELECT rowid, \(columns) FROM \(table) WHERE rowid >= ? ORDER BY rowid LIMIT ?",
                                                 arguments: [start, wanted])
                while let row = try cursor.next() {
                    rows.append(row.copy())
                    got += 1
                    let rowid: Int64 = row[0]
                    guard rowid < Int64.max else { return (rows, nil, complete) }
                    start = rowid + 1
                }
                if got < wanted { return (rows, nil, complete) }
            } catch {
                complete = false
                guard let next = firstReadableRowid(db, table: table, after: start) else { return (rows, nil, false) }
                start = next
            }
        }
        return (rows, start, complete)
    }

    /// The smallest rowid after `failed` from which the table can be read again; nil when
    /// none can. A seek to a rowid reads the leaf page that would hold it, so "can be read
    /// from x" fails for every x up to the end of a damaged page and holds past it. Step
    /// by one first (a page holds at most a few hundred rows), then in growing strides.
    static func firstReadableRowid(_ db: Database, table: String, after failed: Int64) -> Int64? {
        func readable(from rowid: Int64) -> Bool {
            do {
                _ = try Row.fetchOne(db, sql: "SELECT rowid FROM \(table) WHERE rowid >= ? ORDER BY rowid LIMIT 1", arguments: [rowid])
                return true
            } catch {
                return false
            }
        }
        var low = failed
        var high: Int64
        var stride: Int64 = 1
        var steps = 0
        while true {
            let (candidate, overflow) = low.addingReportingOverflow(stride)
            if overflow { return nil }
            if readable(from: candidate) {
                high = candidate
                break
            }
            low = candidate
            steps += 1
            if steps > 10_000 { stride = stride > Int64.max / 2 ? Int64.max : stride * 2 }
        }
        // Strides may overshoot the first readable rowid: narrow it down.
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if readable(from: middle) { high = middle } else { low = middle }
        }
        return high
    }

    /// Copies the backup to `temporary` and checks it; false when the backup is damaged
    /// too. Other errors (a full disk) are thrown: the backup may be good.
    static func restore(_ backup: URL, to temporary: URL) throws -> Bool {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let source = try DatabaseQueue(path: backup.path, configuration: configuration)
            defer { try? source.close() }
            let destination = try DatabaseQueue(path: temporary.path)
            try source.backup(to: destination)
            try destination.close()
            // Its quick check and migrations: a backup of an older version is brought up to date.
            try openDatabase(temporary).close()
            return true
        } catch where damage(in: error) != nil {
            return false
        }
    }

    /// `chime.sqlite.damaged-20261122-101500`: the first such name not taken.
    static func keptName(for url: URL, at date: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyyMMdd-HHmmss"
        let base = url.path + ".damaged-" + format.string(from: date)
        var name = base
        var number = 2
        while access(name, F_OK) == 0 {
            name = base + "-\(number)"
            number += 1
        }
        return name
    }

    /// Keeps the damaged file and its -wal and -shm under `name`; the -wal and -shm
    /// leave their place, so the recovered file does not take them for its own.
    /// A hard link keeps the damaged file where it is until the recovered one replaces
    /// it, so no moment is without a store; a rename where links are not supported.
    static func keepDamaged(_ url: URL, as name: String) {
        for suffix in ["-wal", "-shm", ""] {
            let path = url.path + suffix
            guard access(path, F_OK) == 0 else { continue }
            if link(path, name + suffix) == 0 {
                if !suffix.isEmpty { unlink(path) }
            } else {
                rename(path, name + suffix)
            }
        }
    }

    /// Removes a database file and its companions (a leftover of an interrupted recovery).
    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// Makes renames in `path` durable.
    static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        Glibc.close(descriptor)
    }

    // MARK: - After the recovered store is open

    /// Makes the recovered store whole: drops rows that do not decode (a damaged page can
    /// read as garbage), rebuilds userInfo from the alerts, gives back from the backup the
    /// reminders the damaged file still listed as scheduled but could not read, and
    /// records what happened so the user is told once.
    func finishRecovery(_ salvage: Salvage) {
        var fromBackup = 0
        do {
            try database.write { db in
                var undecodable: [String] = []
                var userInfo: [(String, String, String)] = []
                let rows = try Row.fetchCursor(db, sql: "SELECT * FROM notification")
                while let row = try rows.next() {
                    do {
                        let notification = try decode(row)
                        for (key, value) in notification.alert.userInfo { userInfo.append((notification.id, key, value.text)) }
                    } catch {
                        undecodable.append(row["id"])
                    }
                }
                for id in undecodable { try db.execute(sql: "DELETE FROM notification WHERE id = ?", arguments: [id]) }
                try db.execute(sql: "DELETE FROM userInfo")
                let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO userInfo (notificationId, key, value) VALUES (?, ?, ?)")
                for (id, key, value) in userInfo { try insert.execute(arguments: [id, key, value]) }
            }
            if salvage.backup == nil, !salvage.lost.isEmpty { fromBackup = try restoreLost(salvage.lost) }
        } catch {
            notices.append("The recovered store could not be checked in full: \(error)")
        }
        let recovered = (try? database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM notification WHERE state = 'scheduled'")
        } ?? 0) ?? 0
        let report = StoreRecovery(date: salvage.date, damage: salvage.damage, keptAs: salvage.keptAs, recovered: recovered,
                                   expected: salvage.expected.map { max($0, recovered) }, backup: salvage.backup,
                                   fromBackup: fromBackup)
        recovery = report
        recoveryTold = false
        do {
            let text = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
            try write { db in
                try setMeta(Self.recoveryKey, text, in: db)
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [Self.recoveryToldKey])
            }
        } catch {
            notices.append("The recovery could not be recorded, so it may be reported again: \(error)")
        }
    }

    /// Takes from the backup the reminders the damaged file still listed as scheduled
    /// (alive: a cancel removes a row and its index entries in one transaction, so a
    /// cancelled one is never listed) but could not read. A backup row that is behind
    /// (it fired since) is moved to the due time the damaged file's index gives.
    private func restoreLost(_ lost: [(id: String, nextFire: Double)]) throws -> Int {
        guard access(backupURL.path, R_OK) == 0 else { return 0 }
        var configuration = Configuration()
        configuration.readonly = true
        let backup = try DatabaseQueue(path: backupURL.path, configuration: configuration)
        defer { try? backup.close() }
        let zone = TimeZone.current
        var found: [ScheduledNotification] = []
        backup.inDatabase { db in
            for (id, due) in lost {
                guard let row = try? Row.fetchOne(db, sql: "SELECT * FROM notification WHERE id = ?", arguments: [id]),
                      var notification = try? decode(row) else { continue }
                let nextFire = Date(timeIntervalSince1970: due)
                if notification.nextFire != nextFire,
                   let occurrence = notification.rule.firstOccurrence(onOrAfter: nextFire, systemZone: zone),
                   abs(occurrence.date.timeIntervalSince(nextFire)) < 0.001 {
                    notification.nextIndex = occurrence.index
                }
                notification.nextFire = nextFire
                notification.state = .scheduled
                found.append(notification)
            }
        }
        return try write { db in try found.filter { try insert($0, in: db) }.count }
    }

    /// Reads the last recovery and whether the user was told of it.
    func loadRecovery() {
        guard let text = try? meta(Self.recoveryKey),
              let report = try? JSONDecoder().decode(StoreRecovery.self, from: Data(text.utf8)) else { return }
        recovery = report
        recoveryTold = ((try? meta(Self.recoveryToldKey)) ?? nil) != nil
    }

    /// Records that the user was told of ``recovery``, so no later start tells them again.
    public func markRecoveryTold(in db: Database) throws {
        try setMeta(Self.recoveryToldKey, "yes", in: db)
        recoveryTold = true
    }
}

// MARK: - Backup

extension Store {
    /// Copies the store to ``backupURL`` (0600) with SQLite's online backup, through a
    /// temporary file, so an interrupted copy never replaces a good backup. Returns how
    /// long it took.
    @discardableResult
    public func backUp() throws(StoreError) -> Duration {
        let started = ContinuousClock.now
        let temporary = backupURL.path + ".tmp"
        Self.removeDatabaseFiles(temporary)
        do {
            // Created 0600 before SQLite opens it, whatever the umask.
            let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw StoreError.cannotOpen(temporary, Self.cause(ofErrno: errno)) }
            Glibc.close(descriptor)
            let destination = try DatabaseQueue(path: temporary)
            try database.backup(to: destination)
            // A copy in rollback-journal mode: reading it (read-only) leaves no -wal or -shm behind.
            _ = try destination.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
            // A page copy carries damage along: a store damaged since it was opened must
            // not replace the last good backup.
            let problems = try destination.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            try destination.close()
            guard problems == ["ok"] else {
                throw StoreError.failed("the store seems damaged (\(problems.prefix(3).joined(separator: "; "))), so the last backup "
                    + "is kept; restart chimed to recover it")
            }
            guard rename(temporary, backupURL.path) == 0 else { throw StoreError.cannotOpen(backupURL.path, Self.cause(ofErrno: errno)) }
            Self.syncFolder(directory.path)
        } catch {
            Self.removeDatabaseFiles(temporary)
            if let error = error as? StoreError { throw error }
            throw writeError(error)
        }
        lastBackup = Date()
        return ContinuousClock.now - started
    }
}
