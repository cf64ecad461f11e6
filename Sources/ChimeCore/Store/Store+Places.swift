import FoundationEssentials

/// Notifications that fire at a place: read at start, and where the user is, kept.
extension Store {
    /// Every scheduled place notification, oldest first.
    public func scheduledPlaces() throws(StoreError) -> [ScheduledNotification] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM notification WHERE triggerKind = 'place' AND state = 'scheduled' ORDER BY created, id
                """).map(decode)
        }
    }

    /// Records where the user is for place notification `id` (nil: unknown again).
    public func recordPresence(id: String, _ presence: Presence?, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: "UPDATE notification SET placePresence = ? WHERE id = ?")
            .execute(arguments: [presence?.rawValue, id])
    }

    /// Records a crossing that fired place notification `id`: done when it triggers once.
    public func recordCrossing(id: String, at instant: Date, presence: Presence, done: Bool, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: """
            UPDATE notification SET lastFired = ?, fireCount = fireCount + 1, placePresence = ?, state = ? WHERE id = ?
            """).execute(arguments: [instant.timeIntervalSince1970, presence.rawValue,
                                     (done ? ScheduledNotification.State.done : .scheduled).rawValue, id])
    }
}
