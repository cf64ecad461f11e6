import FoundationEssentials

/// Changing a scheduled notification in place (`Update`).
extension Store {
    /// Writes `notification` over the scheduled row of the same id (or, with `anyState`,
    /// over a done one too) and records an `edited` event with `detail`; false when no such
    /// row has that id (it fired for the last time, or was cancelled, since the caller read it).
    ///
    /// The row is deleted and inserted again rather than updated column by column, so
    /// every column ``insert(_:in:)`` writes (and its userInfo rows) stays in one place.
    /// Deliveries and history refer to the id, not the row, and are kept.
    public func replace(_ notification: ScheduledNotification, detail: String, at instant: Date, anyState: Bool = false,
                        in transaction: Transaction) throws -> Bool {
        try transaction.db.execute(sql: "DELETE FROM notification WHERE id = ? AND (? OR state = 'scheduled')",
                                   arguments: [notification.id, anyState ? 1 : 0])
        guard transaction.db.changesCount > 0 else { return false }
        try deleteUserInfo(of: notification.id, in: transaction)
        guard try insert(notification, in: transaction) else { return false }
        try record(HistoryEntry(time: instant, id: notification.id, event: .edited, title: notification.alert.title, detail: detail),
                   in: transaction)
        return true
    }

    /// Whether the newest event of `id` says it was cancelled: it is gone from the schedule,
    /// and only its history knows it.
    public func wasCancelled(_ id: String) throws(StoreError) -> Bool {
        try attachHistory()
        return try read { db in
            try String.fetchOne(db, sql: "SELECT event FROM history WHERE notificationId = ? ORDER BY seq DESC LIMIT 1",
                                arguments: [id]) == HistoryEntry.Event.cancelled.rawValue
        }
    }
}
