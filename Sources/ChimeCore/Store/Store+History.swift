import FoundationEssentials

/// The bounded history of what happened to notifications (`chime log`).
extension Store {
    // MARK: - Changes (inside write)

    /// Adds one event. The lineage is looked up here, so callers need not know it.
    public func record(_ entry: HistoryEntry, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: """
            INSERT INTO history (time, notificationId, lineage, event, actionKey, copyId, title, detail)
            VALUES (?, ?, coalesce((SELECT coalesce(origin, id) FROM notification WHERE id = ?), ?), ?, ?, ?, ?, ?)
            """).execute(arguments: [
                entry.time.timeIntervalSince1970, entry.id, entry.id, entry.id, entry.event.rawValue, entry.action, entry.copy,
                entry.title, entry.detail,
            ])
        try pruneHistoryIfDue(adding: 1, in: transaction)
    }

    /// Prunes to the newest `historyLimit` rows once enough were added since last time.
    func pruneHistoryIfDue(adding count: Int, in transaction: Transaction) throws {
        addedSincePruning += count
        guard addedSincePruning >= pruneInterval else { return }
        try transaction.db.execute(sql: "DELETE FROM history WHERE seq <= (SELECT max(seq) FROM history) - ?", arguments: [historyLimit])
        addedSincePruning = 0
    }

    // MARK: - Reading

    /// The newest `limit` history events, newest first.
    public func history(limit: Int) throws(StoreError) -> [HistoryEntry] {
        try attachHistory()
        return try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM history ORDER BY seq DESC LIMIT ?", arguments: [limit]).compactMap(decodeHistory)
        }
    }

    /// The newest `limit` events of `id`'s lineage (it, the notification it was snoozed
    /// from, and every snoozed copy), newest first; nil when the id is unknown.
    public func history(of id: String, limit: Int) throws(StoreError) -> [HistoryEntry]? {
        try attachHistory()
        return try read { db in
            // A cancelled notification is gone from its table; its history still knows it.
            guard let lineage = try String.fetchOne(db, sql: """
                SELECT coalesce((SELECT coalesce(origin, id) FROM notification WHERE id = ?1),
                                (SELECT lineage FROM history WHERE notificationId = ?1 ORDER BY seq DESC LIMIT 1))
                """, arguments: [id]) else { return nil }
            return try Row.fetchAll(db, sql: "SELECT * FROM history WHERE lineage = ? ORDER BY seq DESC LIMIT ?",
                                    arguments: [lineage, limit]).compactMap(decodeHistory)
        }
    }

    /// A history row; nil for an event this version does not know (written by a newer one).
    private func decodeHistory(_ row: Row) -> HistoryEntry? {
        guard let event = (try? row["event"] as String).flatMap(HistoryEntry.Event.init(rawValue:)) else { return nil }
        return try? HistoryEntry(time: Date(timeIntervalSince1970: row["time"]), id: row["notificationId"], event: event,
                                 title: row["title"], detail: row["detail"], action: row["actionKey"], copy: row["copyId"])
    }
}
