import Foundation
import GRDB
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
/// written in the same transaction as the change each event belongs to.
public final class Store {
    /// How many history rows are kept by default: the newest.
    public static let defaultHistoryLimit = 10_000
    /// A bulk cancel of more than this many is one history row, not one per
    /// notification: cancelling a large schedule must not push the rest of the history out.
    public static let itemizedCancelLimit = 100

    /// Where the store lives.
    public let directory: URL
    public var databaseURL: URL { directory.appendingPathComponent("chime.sqlite") }
    /// The damage found in the store and what was recovered, when the store was ever
    /// found damaged (kept until the next damage; see ``recoveryTold``).
    public internal(set) var recovery: StoreRecovery?
    /// Whether the user was told of ``recovery`` (persisted, so they are told once).
    public internal(set) var recoveryTold = true
    /// What opening changed that the log should say (a folder or file mode tightened).
    public internal(set) var notices: [String] = []
    /// When the last backup (``backupURL``) was made; nil when there is none.
    public internal(set) var lastBackup: Date?

    let database: DatabaseQueue
    private let lockDescriptor: Int32
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    /// How many history rows to keep.
    public let historyLimit: Int
    /// History rows added since the last pruning. Pruning waits for a tenth of the limit,
    /// so it is one DELETE per thousand events instead of one per event.
    private var addedSincePruning = 0
    private var pruneInterval: Int { max(1, historyLimit / 10) }

    /// Opens (creating when needed) the store in `directory`, keeping the newest
    /// `historyLimit` history rows.
    ///
    /// A store that cannot be opened *now* (a full disk, a permission, an I/O error, a
    /// lock) throws ``StoreError/cannotOpen(_:_:)`` and is left exactly as it was: the
    /// next start opens it. Only a *damaged* file (SQLite finds it corrupt, or not a
    /// database, or its quick check fails) is replaced, by what can be read from it or
    /// else by the backup; the damaged file is kept beside it (``recovery``).
    public init(directory: URL, historyLimit: Int = Store.defaultHistoryLimit) throws(StoreError) {
        self.directory = directory
        self.historyLimit = max(1, historyLimit)
        try Self.makeDirectory(directory.path)
        let tightened = Self.tightenModes(in: directory.path)
        let lockPath = directory.appendingPathComponent("lock").path
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else { throw .cannotOpen(lockPath, Self.cause(ofErrno: errno)) }
        // A chimed that has just given up the bus name may still be exiting when the
        // bus (or systemd's restart) starts the next one: give it 2 s to let go.
        let deadline = ContinuousClock.now + .seconds(2)
        while flock(lockDescriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK, ContinuousClock.now < deadline else {
                Glibc.close(lockDescriptor)
                throw .inUse(directory.path)
            }
            usleep(1_000)
        }
        let url = directory.appendingPathComponent("chime.sqlite")
        var salvage: Salvage?
        do {
            database = try Self.openDatabase(url)
        } catch {
            guard let damage = Self.damage(in: error) else {
                Glibc.close(lockDescriptor)
                throw .cannotOpen(url.path, Self.cause(of: error, at: url))
            }
            do {
                let recovered = try Self.recover(url, damage: damage)
                database = recovered.database
                salvage = recovered.salvage
            } catch {
                Glibc.close(lockDescriptor)
                throw error
            }
        }
        notices = tightened
        lastBackup = Self.modificationDate(of: backupURL.path)
        if let salvage {
            finishRecovery(salvage)
        } else {
            loadRecovery()
        }
        // A history that grew past the limit (a smaller limit, or rows added since the
        // last pruning) is pruned with the first event written.
        let rows = (try? database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM history") }) ?? nil
        if let rows, rows > self.historyLimit { addedSincePruning = pruneInterval }
    }

    deinit {
        Glibc.close(lockDescriptor)
    }

    /// Closes the database and lets go of the directory, so that the next chimed (the
    /// bus activates one as soon as this one leaves the bus) takes it without waiting.
    public func close() {
        try? database.close()
        flock(lockDescriptor, LOCK_UN)
    }

    /// `mkdir -p` with mode 0700 for what it creates. Plain mkdir(2): FileManager's
    /// first use costs chimed about 2 ms of start-up, a tenth of a first call through
    /// bus activation.
    private static func makeDirectory(_ path: String) throws(StoreError) {
        var parent = ""
        for component in path.split(separator: "/") {
            parent += "/" + component
            guard mkdir(parent, 0o700) != 0 else { continue }
            let error = errno
            var status = stat()
            guard error == EEXIST, stat(parent, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw .cannotCreate(path, String(cString: strerror(error == EEXIST ? ENOTDIR : error)))
            }
        }
    }

    /// Tightens the data folder to 0700 and the files in it to 0600 when they are looser
    /// (made by an older version, a copy, or a hand); returns what it changed, for the log.
    /// Symbolic links and other people's files are left alone.
    static func tightenModes(in path: String) -> [String] {
        var changed: [String] = []
        func tighten(_ path: String, to mode: mode_t, what: String) {
            var status = stat()
            guard lstat(path, &status) == 0, status.st_uid == geteuid(), status.st_mode & 0o077 != 0 else { return }
            let kind = status.st_mode & S_IFMT
            guard kind == (mode == 0o700 ? S_IFDIR : S_IFREG) else { return }
            let old = String(status.st_mode & 0o7777, radix: 8)
            if chmod(path, mode) == 0 {
                changed.append("The \(what) \(path) had mode \(old); it is now \(String(mode, radix: 8)), private to its owner.")
            } else {
                changed.append("The \(what) \(path) has mode \(old) and cannot be made private: \(String(cString: strerror(errno))).")
            }
        }
        tighten(path, to: 0o700, what: "data folder")
        guard let folder = opendir(path) else { return changed }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard name != ".", name != ".." else { continue }
            tighten(path + "/" + name, to: 0o600, what: "file")
        }
        return changed
    }

    /// Opens and migrates the database at `url`; throws ``Damage`` when its quick check fails.
    static func openDatabase(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        // Another program (sqlite3, a backup tool) may hold a lock for a moment.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // WAL with FULL sync: a commit is on disk when it returns, and costs one fsync.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            // A damaged file fails here rather than at the first reminder: damage in
            // the middle of a table is found only by reading every page. Measured here:
            // 0.6 ms for 300 reminders, 60 to 100 ms for 100,000 (a 39 MB store).
            let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
            if problems != ["ok"] { throw Damage(details: problems.prefix(3).joined(separator: "; ")) }
        }
        try migrator.migrate(queue)
        return queue
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE notification (
                    id TEXT PRIMARY KEY NOT NULL,
                    created REAL NOT NULL,
                    triggerKind TEXT NOT NULL,
                    triggerInstant REAL,
                    triggerLocal TEXT,
                    triggerZone TEXT,
                    repeatUnit TEXT,
                    repeatCount INTEGER,
                    calendar TEXT NOT NULL,
                    lateLimit REAL,
                    alert BLOB NOT NULL,
                    nextIndex INTEGER NOT NULL,
                    nextFire REAL,
                    lastFired REAL,
                    fireCount INTEGER NOT NULL DEFAULT 0,
                    state TEXT NOT NULL
                );
                CREATE INDEX notification_nextFire ON notification(nextFire) WHERE nextFire IS NOT NULL;
                CREATE TABLE userInfo (
                    notificationId TEXT NOT NULL REFERENCES notification(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (notificationId, key)
                ) WITHOUT ROWID;
                CREATE INDEX userInfo_keyValue ON userInfo(key, value);
                CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2: lineage and completion") { db in
            // origin: the notification a snoozed copy came from; completed: when Complete was pressed.
            try db.execute(sql: """
                ALTER TABLE notification ADD COLUMN origin TEXT;
                ALTER TABLE notification ADD COLUMN completed REAL;
                CREATE INDEX notification_origin ON notification(origin) WHERE origin IS NOT NULL;
                """)
        }
        migrator.registerMigration("v3: history") { db in
            // seq without AUTOINCREMENT: a new row gets max + 1, and pruning removes only
            // the oldest, so seq stays dense and `max - limit` is the pruning bound.
            // lineage: the notification a snoozed copy came from (its own id when none),
            // so `chime log --id` finds a notification and all its copies in one look-up.
            try db.execute(sql: """
                CREATE TABLE history (
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
                CREATE INDEX history_lineage ON history(lineage);
                """)
        }
        migrator.registerMigration("v4: deliveries") { db in
            // Occurrences that came due and are not on screen yet: re-sent at the next
            // start if chimed stops first. A row carries its own alert, since summaries
            // and notifications shown now have no row in `notification`.
            try db.execute(sql: """
                CREATE TABLE delivery (
                    seq INTEGER PRIMARY KEY,
                    notificationId TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    alert BLOB NOT NULL,
                    replacing TEXT,
                    due REAL NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX delivery_notificationId ON delivery(notificationId);
                """)
        }
        return migrator
    }

    // MARK: - Transactions

    /// Runs `body` in one transaction; it is on disk when this returns.
    public func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try database.write(body) } catch { throw writeError(error) }
    }

    /// A failed write as the caller should hear it: a full disk by name.
    func writeError(_ error: any Error) -> StoreError {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL
            || (error.resultCode == .SQLITE_IOERR && Self.diskIsFull(directory.path)) {
            return .diskFull(directory.path)
        }
        return .failed("\(error)")
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try database.read(body) } catch { throw .failed("\(error)") }
    }

    // MARK: - Changes (inside write)

    /// Adds `notification`; false when its id is taken.
    ///
    /// Statements are compiled once per connection (GRDB's statement cache): compiling
    /// them anew was a fifth of the cost of a schedule.
    public func insert(_ notification: ScheduledNotification, in db: Database) throws -> Bool {
        let trigger = TriggerColumns(notification.rule.trigger)
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO notification (id, created, triggerKind, triggerInstant, triggerLocal, triggerZone, repeatUnit,
                repeatCount, calendar, lateLimit, alert, nextIndex, nextFire, lastFired, fireCount, state, origin)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                notification.id, notification.created.timeIntervalSince1970, trigger.kind, trigger.instant, trigger.local,
                trigger.zone, notification.rule.recurrence?.unit.rawValue, notification.rule.recurrence?.count,
                notification.rule.calendar, notification.lateLimit, try encoder.encode(notification.alert),
                notification.nextIndex, notification.nextFire?.timeIntervalSince1970,
                notification.lastFired?.timeIntervalSince1970, notification.fireCount, notification.state.rawValue,
                notification.origin,
            ])
        // The primary key refuses a taken id; the caller draws another.
        guard db.changesCount > 0 else { return false }
        let userInfo = try db.cachedStatement(sql: "INSERT INTO userInfo (notificationId, key, value) VALUES (?, ?, ?)")
        for (key, value) in notification.alert.userInfo {
            try userInfo.execute(arguments: [notification.id, key, value.text])
        }
        return true
    }

    /// Records a firing (or a drop): the next occurrence, or done.
    public func recordFiring(id: String, at instant: Date?, nextIndex: Int, nextFire: Date?, in db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE notification SET lastFired = coalesce(?, lastFired), fireCount = fireCount + ?, nextIndex = ?,
                nextFire = ?, state = ? WHERE id = ?
            """).execute(arguments: [instant?.timeIntervalSince1970, instant == nil ? 0 : 1, nextIndex,
                             nextFire?.timeIntervalSince1970, (nextFire == nil ? ScheduledNotification.State.done : .scheduled).rawValue, id])
    }

    /// Moves the next occurrence (a time-zone change moved a floating one).
    public func reschedule(id: String, nextIndex: Int, nextFire: Date?, in db: Database) throws {
        try db.execute(sql: "UPDATE notification SET nextIndex = ?, nextFire = ? WHERE id = ?",
                       arguments: [nextIndex, nextFire?.timeIntervalSince1970, id])
    }

    /// The notification `id` was snoozed from (itself when it is no copy, or unknown).
    public func lineageRoot(of id: String, in db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT coalesce(origin, id) FROM notification WHERE id = ?", arguments: [id]) ?? id
    }

    /// Ends `id`'s lineage (it, the notification it was snoozed from, and every snoozed
    /// copy of that one): no further occurrences. Returns the ids that were still scheduled.
    public func complete(id: String, at instant: Date, in db: Database) throws -> [String] {
        let root = try lineageRoot(of: id, in: db)
        let lineage = try String.fetchAll(db, sql: """
            SELECT id FROM notification WHERE (id = ? OR origin = ?) AND state = 'scheduled'
            """, arguments: [root, root])
        try db.execute(sql: """
            UPDATE notification SET state = 'done', nextFire = NULL, completed = ? WHERE id = ? OR origin = ?
            """, arguments: [instant.timeIntervalSince1970, root, root])
        return lineage
    }

    /// Deletes the given ids and records them as cancelled; returns those that existed.
    public func cancel(ids: [String], at instant: Date, detail: String, in db: Database) throws -> [String] {
        let itemized = ids.count <= Self.itemizedCancelLimit
        if itemized {
            // Recorded first: the title is in the row about to go. Unknown ids add nothing.
            let record = try db.cachedStatement(sql: """
                INSERT INTO history (time, notificationId, lineage, event, title, detail)
                SELECT ?, id, coalesce(origin, id), 'cancelled', \(Self.storedTitle), ? FROM notification WHERE id = ?
                """)
            for id in ids { try record.execute(arguments: [instant.timeIntervalSince1970, detail, id]) }
        }
        var deleted: [String] = []
        let delete = try db.cachedStatement(sql: "DELETE FROM notification WHERE id = ?")
        // An occurrence that came due and still waits for a server goes with it.
        let withdraw = try db.cachedStatement(sql: "DELETE FROM delivery WHERE notificationId = ?")
        for id in ids {
            try delete.execute(arguments: [id])
            guard db.changesCount > 0 else { continue }
            deleted.append(id)
            try withdraw.execute(arguments: [id])
        }
        try recordedCancels(deleted.count, itemized: itemized, at: instant, detail: detail, in: db)
        return deleted
    }

    /// The ids of scheduled notifications whose userInfo has `key` equal to `value` (as text).
    public func ids(matchingKey key: String, value: String, in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT u.notificationId FROM userInfo u JOIN notification n ON n.id = u.notificationId
            WHERE u.key = ? AND u.value = ? AND n.state = 'scheduled'
            """, arguments: [key, value])
    }

    /// Deletes every scheduled notification in one statement and records them as
    /// cancelled; returns their ids.
    public func cancelScheduled(at instant: Date, detail: String, in db: Database) throws -> [String] {
        let ids = try String.fetchAll(db, sql: "SELECT id FROM notification WHERE state = 'scheduled'")
        let itemized = ids.count <= Self.itemizedCancelLimit
        if itemized {
            try db.execute(sql: """
                INSERT INTO history (time, notificationId, lineage, event, title, detail)
                SELECT ?, id, coalesce(origin, id), 'cancelled', \(Self.storedTitle), ? FROM notification
                WHERE state = 'scheduled' ORDER BY nextFire, id
                """, arguments: [instant.timeIntervalSince1970, detail])
        }
        try db.execute(sql: """
            DELETE FROM delivery WHERE notificationId IN (SELECT id FROM notification WHERE state = 'scheduled')
            """)
        try db.execute(sql: "DELETE FROM notification WHERE state = 'scheduled'")
        try recordedCancels(ids.count, itemized: itemized, at: instant, detail: detail, in: db)
        return ids
    }

    /// The title inside a row's alert, read by SQLite so a cancel decodes no alerts.
    /// The CAST keeps newer SQLite from taking the blob for its binary JSON.
    private static let storedTitle = "coalesce(json_extract(CAST(alert AS TEXT), '$.title'), '')"

    /// Counts itemized cancel rows, or writes the one row that sums up a bulk cancel.
    private func recordedCancels(_ count: Int, itemized: Bool, at instant: Date, detail: String, in db: Database) throws {
        if itemized {
            try pruneHistoryIfDue(adding: count, in: db)
        } else if count > 0 {
            try record(HistoryEntry(time: instant, id: "", event: .cancelled, title: "\(count) notifications", detail: detail), in: db)
        }
    }

    // MARK: - History (inside write)

    /// Adds one event. The lineage is looked up here, so callers need not know it.
    public func record(_ entry: HistoryEntry, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO history (time, notificationId, lineage, event, actionKey, copyId, title, detail)
            VALUES (?, ?, coalesce((SELECT coalesce(origin, id) FROM notification WHERE id = ?), ?), ?, ?, ?, ?, ?)
            """).execute(arguments: [
                entry.time.timeIntervalSince1970, entry.id, entry.id, entry.id, entry.event.rawValue, entry.action, entry.copy,
                entry.title, entry.detail,
            ])
        try pruneHistoryIfDue(adding: 1, in: db)
    }

    /// Prunes to the newest `historyLimit` rows once enough were added since last time.
    private func pruneHistoryIfDue(adding count: Int, in db: Database) throws {
        addedSincePruning += count
        guard addedSincePruning >= pruneInterval else { return }
        try db.execute(sql: "DELETE FROM history WHERE seq <= (SELECT max(seq) FROM history) - ?", arguments: [historyLimit])
        addedSincePruning = 0
    }

    public func setMeta(_ key: String, _ value: String, in db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
    }

    // MARK: - Reading

    public func meta(_ key: String) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    /// One notification, scheduled or done.
    public func notification(id: String) throws(StoreError) -> ScheduledNotification? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM notification WHERE id = ?", arguments: [id]).map(decode) }
    }

    /// Several notifications by id, in no particular order.
    public func notifications(ids: [String]) throws(StoreError) -> [ScheduledNotification] {
        try read { db in
            let select = try db.cachedStatement(sql: "SELECT * FROM notification WHERE id = ?")
            return try ids.compactMap { id in try Row.fetchOne(select, arguments: [id]).map(decode) }
        }
    }

    /// Every scheduled notification, soonest first.
    public func scheduled() throws(StoreError) -> [ScheduledNotification] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM notification WHERE state = 'scheduled' ORDER BY nextFire, id").map(decode)
        }
    }

    /// The newest `limit` history events, newest first.
    public func history(limit: Int) throws(StoreError) -> [HistoryEntry] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM history ORDER BY seq DESC LIMIT ?", arguments: [limit]).compactMap(decodeHistory)
        }
    }

    /// The newest `limit` events of `id`'s lineage (it, the notification it was snoozed
    /// from, and every snoozed copy), newest first; nil when the id is unknown.
    public func history(of id: String, limit: Int) throws(StoreError) -> [HistoryEntry]? {
        try read { db in
            // A cancelled notification is gone from its table; its history still knows it.
            guard let lineage = try String.fetchOne(db, sql: """
                SELECT coalesce((SELECT coalesce(origin, id) FROM notification WHERE id = ?1),
                                (SELECT lineage FROM history WHERE notificationId = ?1 ORDER BY seq DESC LIMIT 1))
                """, arguments: [id]) else { return nil }
            return try Row.fetchAll(db, sql: "SELECT * FROM history WHERE lineage = ? ORDER BY seq DESC LIMIT ?",
                                    arguments: [lineage, limit]).compactMap(decodeHistory)
        }
    }

    /// What the heap needs at start-up, without decoding alerts: id, due time, and
    /// whether the due time depends on the system zone.
    public func dueTimes() throws(StoreError) -> [(id: String, nextFire: Date, floating: Bool)] {
        try read { db in
            var result: [(id: String, nextFire: Date, floating: Bool)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT id, nextFire, triggerKind FROM notification WHERE nextFire IS NOT NULL")
            while let row = try rows.next() {
                result.append((row[0], Date(timeIntervalSince1970: row[1]), (row[2] as String) == "floating"))
            }
            return result
        }
    }

    /// A history row; nil for an event this version does not know (written by a newer one).
    private func decodeHistory(_ row: Row) -> HistoryEntry? {
        guard let event = HistoryEntry.Event(rawValue: row["event"]) else { return nil }
        return HistoryEntry(time: Date(timeIntervalSince1970: row["time"]), id: row["notificationId"], event: event,
                            title: row["title"], detail: row["detail"], action: row["actionKey"], copy: row["copyId"])
    }

    func decode(_ row: Row) throws -> ScheduledNotification {
        let trigger = try TriggerColumns(kind: row["triggerKind"], instant: row["triggerInstant"], local: row["triggerLocal"],
                                         zone: row["triggerZone"]).trigger
        let unit: String? = row["repeatUnit"]
        let recurrence = try unit.map { text throws -> Recurrence in
            guard let unit = RepeatUnit(rawValue: text) else { throw StoreError.failed("Unknown repeat unit '\(text)' in the store.") }
            return try Recurrence(unit: unit, count: row["repeatCount"] ?? 1)
        }
        let rule = try FireRule(trigger: trigger, recurrence: recurrence, calendar: row["calendar"])
        let alertData: Data = row["alert"]
        var notification = ScheduledNotification(
            id: row["id"], alert: try decoder.decode(Alert.self, from: alertData), rule: rule, lateLimit: row["lateLimit"],
            created: Date(timeIntervalSince1970: row["created"]), nextIndex: row["nextIndex"],
            nextFire: (row["nextFire"] as Double?).map { Date(timeIntervalSince1970: $0) }
        )
        notification.lastFired = (row["lastFired"] as Double?).map { Date(timeIntervalSince1970: $0) }
        notification.origin = row["origin"]
        notification.completed = (row["completed"] as Double?).map { Date(timeIntervalSince1970: $0) }
        notification.fireCount = row["fireCount"]
        notification.state = ScheduledNotification.State(rawValue: row["state"]) ?? .done
        return notification
    }
}

/// A trigger spread over the table's columns, so due times stay queryable.
private struct TriggerColumns {
    var kind: String
    var instant: Double?
    var local: String?
    var zone: String?

    init(_ trigger: Trigger) {
        switch trigger {
        case .absolute(let date): self.init(kind: "absolute", instant: date.timeIntervalSince1970)
        case .floating(let local): self.init(kind: "floating", local: local.description)
        case .zoned(let local, let zone): self.init(kind: "zoned", local: local.description, zone: zone)
        }
    }

    init(kind: String, instant: Double? = nil, local: String? = nil, zone: String? = nil) {
        self.kind = kind
        self.instant = instant
        self.local = local
        self.zone = zone
    }

    var trigger: Trigger {
        get throws {
            switch kind {
            case "absolute":
                if let instant { return .absolute(Date(timeIntervalSince1970: instant)) }
            case "floating":
                if let local, let dateTime = LocalDateTime(iso: local) { return .floating(dateTime) }
            case "zoned":
                if let local, let dateTime = LocalDateTime(iso: local), let zone { return .zoned(dateTime, zone: zone) }
            default:
                break
            }
            throw StoreError.failed("A stored trigger of kind '\(kind)' is incomplete.")
        }
    }
}

/// Why the store could not do what was asked.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case cannotCreate(String, String)
    case inUse(String)
    /// The file (first) cannot be opened now, for a reason (second: a clause) that may
    /// pass: nothing was moved or changed.
    case cannotOpen(String, String)
    /// A write found the disk holding the store (the folder) full; nothing was changed.
    case diskFull(String)
    case failed(String)

    /// The D-Bus error name a refused change is answered with.
    public static let diskFullErrorName = "io.github.chime.Error.DiskFull"

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "Cannot create the data directory \(path): \(reason)"
        case .inUse(let path): "Another chimed is already using \(path); only one may run per data directory."
        case .cannotOpen(let path, let reason):
            "Cannot open the store \(path): \(reason). Nothing was moved or deleted; the next start opens it."
        case .diskFull(let path): "The disk holding \(path) is full."
        case .failed(let reason): "The store failed: \(reason)"
        }
    }

    /// The reason as a clause, to follow "Not scheduled:" and the like.
    public var clause: String {
        switch self {
        case .diskFull(let path): "the disk holding \(path) is full."
        case .failed(let reason): "the store failed: \(reason)"
        default: description
        }
    }

    /// The D-Bus error name for a change refused with this error.
    public var errorName: String {
        switch self {
        case .diskFull: Self.diskFullErrorName
        default: "org.freedesktop.DBus.Error.Failed"
        }
    }

    /// Whether the cause may pass by itself (space freed, a mode restored): the daemon
    /// exits with a status its unit restarts on, and nothing is moved aside.
    public var mayPass: Bool {
        switch self {
        case .cannotOpen, .diskFull, .cannotCreate: true
        case .inUse, .failed: false
        }
    }
}

// MARK: - Opening: cannot now, or damaged

/// The quick check found damage that SQLite's own errors did not.
struct Damage: Error {
    var details: String
}

extension Store {
    /// What is damaged, when `error` says the file is damaged: SQLite finds it corrupt or
    /// not a database, or the quick check failed. Anything else may pass (nil).
    static func damage(in error: any Error) -> String? {
        if let damage = error as? Damage { return damage.details }
        guard let error = error as? DatabaseError,
              error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB else { return nil }
        return error.message ?? "\(error.resultCode)"
    }

    /// Why `url` cannot be opened now, as a clause. SQLite's own message ("unable to open
    /// database file", "disk I/O error") does not say why: the file system does.
    static func cause(of error: any Error, at url: URL) -> String {
        let folder = url.deletingLastPathComponent().path
        let code = (error as? DatabaseError)?.resultCode
        if code == .SQLITE_FULL { return cause(ofErrno: ENOSPC) }
        if code == .SQLITE_BUSY || code == .SQLITE_LOCKED {
            return "another program holds a lock on it (SQLite: \((error as? DatabaseError)?.message ?? "busy"))"
        }
        // SQLite needs the file read-write and the folder writable, for its -wal and -shm files.
        var descriptor = open(url.path, O_RDWR | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT { descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if descriptor < 0 { return cause(ofErrno: errno) }
        Glibc.close(descriptor)
        if access(folder, W_OK | X_OK) != 0 { return cause(ofErrno: errno) }
        if diskIsFull(folder) { return cause(ofErrno: ENOSPC) }
        if let error = error as? DatabaseError {
            return "SQLite says \(error.message ?? "\(error.resultCode)") (\(error.extendedResultCode))"
        }
        return "\(error)"
    }

    /// The clause for a system error number.
    static func cause(ofErrno code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: "the disk is full"
        case EACCES, EPERM: "permission denied (the file and its folder must be readable and writable by this user)"
        case EROFS: "the file system is read-only"
        case EIO: "the disk reports an input/output error"
        default: String(cString: strerror(code)).lowercased()
        }
    }

    /// Whether the file system holding `path` has no room left for SQLite to write a page
    /// and its shared-memory index (32 KiB).
    static func diskIsFull(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 64 * 1024
    }

    /// The file's modification time; nil when it does not exist.
    static func modificationDate(of path: String) -> Date? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
    }
}
