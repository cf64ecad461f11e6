import FoundationEssentials
internal import CSQLite

/// The schedule: adding, firing, completing and cancelling notifications, and reading them.
///
/// chimed keeps a heap of due times beside these rows, so it makes the changes in one
/// place only (its `Schedule`), which moves the heap with each; a second caller would
/// leave the heap behind.
extension Store {
    // MARK: - Changes (inside write)

    /// Adds `notification`; false when its id is taken.
    ///
    /// Its statements are compiled once per connection (``Database/cachedStatement(sql:)``).
    public func insert(_ notification: ScheduledNotification, in transaction: Transaction) throws -> Bool {
        let trigger = TriggerColumns(notification.rule.fireTrigger)
        let lead = notification.rule.lead
        try transaction.db.cachedStatement(sql: """
            INSERT OR IGNORE INTO notification (id, created, triggerKind, triggerInstant, triggerLocal, triggerZone, repeatUnit,
                repeatCount, calendar, lateLimit, alert, nextIndex, nextFire, lastFired, fireCount, state, origin, place,
                placePresence, rrule, skipped, linkUID, linkRecurrence, linkAlarm, linkSource, monthEnds, lead)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                notification.id, notification.created.timeIntervalSince1970, trigger.kind, trigger.instant, trigger.local,
                trigger.zone, notification.rule.recurrence?.unit.rawValue, notification.rule.recurrence?.count,
                notification.rule.calendar, notification.lateLimit, try encoder.encode(notification.alert),
                notification.nextIndex, notification.nextFire?.timeIntervalSince1970,
                notification.lastFired?.timeIntervalSince1970, notification.fireCount, notification.state.rawValue,
                notification.origin, try trigger.place.map { try encoder.encode($0) }, notification.presence?.rawValue,
                notification.rule.recurrence?.rrule(utc: false, monthEnds: false), Self.skippedText(notification.rule.skipped),
                notification.link?.uid, notification.link?.recurrence, notification.link?.alarm, notification.link?.source,
                notification.rule.recurrence?.skip.rawValue, lead == 0 ? nil : lead,
            ])
        // The primary key refuses a taken id; the caller draws another.
        guard transaction.db.changesCount > 0 else { return false }
        let userInfo = try transaction.db.cachedStatement(sql: "INSERT INTO userInfo (notificationId, key, value) VALUES (?, ?, ?)")
        for (key, value) in notification.alert.userInfo {
            try userInfo.execute(arguments: [notification.id, key, value.text])
        }
        return true
    }

    /// Records a firing (or a drop): the next occurrence, or done.
    public func recordFiring(id: String, at instant: Date?, nextIndex: Int, nextFire: Date?, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: """
            UPDATE notification SET lastFired = coalesce(?, lastFired), fireCount = fireCount + ?, nextIndex = ?,
                nextFire = ?, state = ? WHERE id = ?
            """).execute(arguments: [instant?.timeIntervalSince1970, instant == nil ? 0 : 1, nextIndex,
                             nextFire?.timeIntervalSince1970, (nextFire == nil ? ScheduledNotification.State.done : .scheduled).rawValue, id])
    }

    /// Moves the next occurrence (a time-zone change moved a floating one).
    public func reschedule(id: String, nextIndex: Int, nextFire: Date?, in transaction: Transaction) throws {
        try transaction.db.execute(sql: "UPDATE notification SET nextIndex = ?, nextFire = ? WHERE id = ?",
                                   arguments: [nextIndex, nextFire?.timeIntervalSince1970, id])
    }

    /// Records the occurrences of `id` skipped without ending it, and the next one left.
    public func skip(id: String, skipped: Set<LocalDateTime>, nextIndex: Int, nextFire: Date?, in transaction: Transaction) throws {
        try transaction.db.execute(
            sql: "UPDATE notification SET skipped = ?, nextIndex = ?, nextFire = ?, state = ? WHERE id = ?",
            arguments: [Self.skippedText(skipped), nextIndex, nextFire?.timeIntervalSince1970,
                        (nextFire == nil ? ScheduledNotification.State.done : .scheduled).rawValue, id])
    }

    /// The notification `id` was snoozed from (itself when it is no copy, or unknown).
    public func lineageRoot(of id: String, in transaction: Transaction) throws -> String {
        try String.fetchOne(transaction.db, sql: "SELECT coalesce(origin, id) FROM notification WHERE id = ?", arguments: [id]) ?? id
    }

    /// Ends `id`'s lineage (it, the notification it was snoozed from, and every snoozed
    /// copy of that one): no further occurrences. Returns the ids that were still scheduled.
    public func complete(id: String, at instant: Date, in transaction: Transaction) throws -> [String] {
        let root = try lineageRoot(of: id, in: transaction)
        let lineage = try String.fetchAll(transaction.db, sql: """
            SELECT id FROM notification WHERE (id = ? OR origin = ?) AND state = 'scheduled'
            """, arguments: [root, root])
        try transaction.db.execute(sql: """
            UPDATE notification SET state = 'done', nextFire = NULL, completed = ? WHERE id = ? OR origin = ?
            """, arguments: [instant.timeIntervalSince1970, root, root])
        return lineage
    }

    /// Deletes the given ids and records them as cancelled; returns those that existed.
    public func cancel(ids: [String], at instant: Date, detail: String, in transaction: Transaction) throws -> [String] {
        let itemized = ids.count <= Self.itemizedCancelLimit
        if itemized {
            // Recorded first: the title is in the row about to go. Unknown ids add nothing.
            let record = try transaction.db.cachedStatement(sql: """
                INSERT INTO history (time, notificationId, lineage, event, title, detail)
                SELECT ?, id, coalesce(origin, id), 'cancelled', \(Self.storedTitle), ? FROM notification WHERE id = ?
                """)
            for id in ids { try record.execute(arguments: [instant.timeIntervalSince1970, detail, id]) }
        }
        var deleted: [String] = []
        let delete = try transaction.db.cachedStatement(sql: "DELETE FROM notification WHERE id = ?")
        // An occurrence that came due and still waits for a server goes with it.
        let withdraw = try transaction.db.cachedStatement(sql: "DELETE FROM delivery WHERE notificationId = ?")
        for id in ids {
            try delete.execute(arguments: [id])
            guard transaction.db.changesCount > 0 else { continue }
            deleted.append(id)
            try withdraw.execute(arguments: [id])
            try deleteUserInfo(of: id, in: transaction)
        }
        try recordedCancels(deleted.count, itemized: itemized, at: instant, detail: detail, in: transaction)
        return deleted
    }

    /// The ids of scheduled notifications whose userInfo has `key` equal to `value` (as text).
    public func ids(matchingKey key: String, value: String, in transaction: Transaction) throws -> [String] {
        try String.fetchAll(transaction.db, sql: """
            SELECT u.notificationId FROM userInfo u JOIN notification n ON n.id = u.notificationId
            WHERE u.key = ? AND u.value = ? AND n.state = 'scheduled'
            """, arguments: [key, value])
    }

    /// Deletes every scheduled notification and records them as cancelled; returns their ids.
    public func cancelScheduled(at instant: Date, detail: String, in transaction: Transaction) throws -> [String] {
        let db = transaction.db
        let ids = try String.fetchAll(db, sql: "SELECT id FROM notification WHERE state = 'scheduled'")
        let itemized = ids.count <= Self.itemizedCancelLimit
        if itemized {
            try db.execute(sql: """
                INSERT INTO history (time, notificationId, lineage, event, title, detail)
                SELECT ?, id, coalesce(origin, id), 'cancelled', \(Self.storedTitle), ? FROM notification
                WHERE state = 'scheduled' ORDER BY nextFire, id
                """, arguments: [instant.timeIntervalSince1970, detail])
        }
        // Correlated, not `IN (SELECT id …)`: that builds an index of every scheduled id
        // first, 4 of the 22 s a CancelAll of a million took, for a table nearly always empty.
        try db.execute(sql: """
            DELETE FROM delivery WHERE (SELECT state FROM notification WHERE id = delivery.notificationId) = 'scheduled'
            """)
        let kept = (try Int.fetchOne(db, sql: "SELECT count(*) FROM notification") ?? 0) - ids.count
        if kept < ids.count {
            try emptyScheduleTables(keeping: kept, in: db)
        } else {
            try db.execute(sql: """
                DELETE FROM userInfo WHERE (SELECT state FROM notification WHERE id = userInfo.notificationId) = 'scheduled';
                DELETE FROM notification WHERE state = 'scheduled';
                """)
        }
        try recordedCancels(ids.count, itemized: itemized, at: instant, detail: detail, in: transaction)
        return ids
    }

    /// Empties notification and userInfo but for the `kept` rows that are not scheduled,
    /// for a cancel of mostly everything. A DELETE without WHERE on a table in no foreign
    /// key is SQLite's truncate optimisation, pages dropped whole; row by row, with four
    /// indexes to keep, a million took 10 s. They are dropped without zeros written over
    /// them (Debian's SQLite writes a zeroed copy of every freed page, 256 MB for a
    /// million): ``compact()`` takes them out of the file next (``compactionDue``).
    private func emptyScheduleTables(keeping kept: Int, in db: Database) throws {
        // Set aside only when there is something to keep: the copy reads every row.
        if kept > 0 {
            try db.execute(sql: """
                CREATE TEMP TABLE keptNotification AS SELECT * FROM main.notification WHERE state <> 'scheduled';
                CREATE TEMP TABLE keptUserInfo AS
                    SELECT * FROM main.userInfo WHERE notificationId IN (SELECT id FROM temp.keptNotification);
                """)
        }
        // A pragma is not undone by a rollback: put back whatever happens.
        let secureDelete = try Int.fetchOne(db, sql: "PRAGMA main.secure_delete") ?? 0
        try db.execute(sql: "PRAGMA main.secure_delete = FAST")
        defer { try? db.execute(sql: "PRAGMA main.secure_delete = \(secureDelete)") }
        try db.execute(sql: "DELETE FROM main.userInfo; DELETE FROM main.notification")
        if kept > 0 {
            try db.execute(sql: """
                INSERT INTO main.notification SELECT * FROM temp.keptNotification;
                INSERT INTO main.userInfo SELECT * FROM temp.keptUserInfo;
                DROP TABLE temp.keptNotification;
                DROP TABLE temp.keptUserInfo;
                """)
        }
        compactionDue = true
    }

    /// Deletes `id`'s userInfo rows, with its row: no foreign key cascades them (the v8
    /// migration says why).
    func deleteUserInfo(of id: String, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: "DELETE FROM userInfo WHERE notificationId = ?").execute(arguments: [id])
    }

    /// The title inside a row's alert, read by SQLite so a cancel decodes no alerts.
    /// The CAST keeps newer SQLite from taking the blob for its binary JSON.
    private static let storedTitle = "coalesce(json_extract(CAST(alert AS TEXT), '$.title'), '')"

    /// Counts itemized cancel rows, or writes the one row that sums up a bulk cancel.
    private func recordedCancels(_ count: Int, itemized: Bool, at instant: Date, detail: String, in transaction: Transaction) throws {
        if itemized {
            try pruneHistoryIfDue(adding: count, in: transaction)
        } else if count > 0 {
            try record(HistoryEntry(time: instant, id: "", event: .cancelled, title: "\(count) notifications", detail: detail), in: transaction)
        }
    }

    // MARK: - Reading

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

    /// The notifications, scheduled or done, made from the calendar items with these UIDs.
    public func linked(uids: Set<String>) throws(StoreError) -> [ScheduledNotification] {
        try read { db in
            let select = try db.cachedStatement(sql: "SELECT * FROM notification WHERE linkUID = ?")
            return try uids.sorted().flatMap { uid in try Row.fetchAll(select, arguments: [uid]).map(decode) }
        }
    }

    /// Every scheduled notification, soonest first.
    public func scheduled() throws(StoreError) -> [ScheduledNotification] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM notification WHERE state = 'scheduled' ORDER BY nextFire IS NULL, nextFire, id").map(decode)
        }
    }

    /// The query of ``dueTimes()``, answered from the index alone (schema v9).
    public static let dueTimesSQL = "SELECT id, nextFire FROM notification WHERE nextFire IS NOT NULL"

    /// What the heap needs at start-up, without decoding alerts: each id and its due time.
    ///
    /// Read through SQLite's own column calls, without a ``Row`` each: at a million rows,
    /// decoding rows was most of chimed's start-up. The index of due times holds both
    /// (``dueTimesSQL``).
    public func dueTimes() throws(StoreError) -> [(id: String, nextFire: Date)] {
        try read { db in
            let statement = try db.makeStatement(sql: Self.dueTimesSQL)
            var result: [(id: String, nextFire: Date)] = []
            let handle = statement.handle
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else { throw db.error(code, sql: Self.dueTimesSQL) }
                guard let text = sqlite3_column_text(handle, 0) else { continue }
                let id = String(cString: text)
                result.append((id, Date(timeIntervalSince1970: sqlite3_column_double(handle, 1))))
            }
            sqlite3_reset(handle)
            return result
        }
    }

    /// The ids of notifications due at a wall-clock time that follows the system's zone,
    /// off the index of due times: they move when the zone changes, which is rare, so
    /// chimed keeps no set of them (a million at start-up cost a second hash of each id).
    public func floatingIDs() throws(StoreError) -> [String] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT id FROM notification WHERE nextFire IS NOT NULL AND triggerKind = 'floating'")
        }
    }
}
