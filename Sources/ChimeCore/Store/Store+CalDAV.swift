import FoundationEssentials

/// How a CalDAV calendar is reached. Its password is never here: it is in the Secret
/// Service, or printed by `passwordCommand`.
public struct CalDAVSettings: Hashable, Sendable {
    /// Seconds between syncs unless the calendar says otherwise (ChimeAPI's CalDAVDefaults says the same).
    public static let defaultInterval = 300

    public var user: String
    /// A command that prints the password (`pass show dav`); nil: the Secret Service holds it.
    public var passwordCommand: String?
    /// A PEM file of the CAs trusted for this server instead of the system's.
    public var ca: String?
    /// Whether a dismissal is written to the server (every device then stops ringing that
    /// alarm), or kept on this machine.
    public var shareDismissals: Bool
    /// Seconds between syncs.
    public var interval: Int

    public init(user: String, passwordCommand: String? = nil, ca: String? = nil, shareDismissals: Bool = true,
                interval: Int = CalDAVSettings.defaultInterval) {
        (self.user, self.passwordCommand, self.ca, self.shareDismissals, self.interval) = (user, passwordCommand, ca, shareDismissals, interval)
    }
}

/// What the last sync of an item read: its ETag and a hash of its text.
public struct CalDAVItemStatus: Hashable, Sendable {
    public var etag: String?
    public var hash: String

    public init(etag: String?, hash: String) {
        (self.etag, self.hash) = (etag, hash)
    }
}

/// Where the sync of a CalDAV calendar stands.
public struct CalDAVSyncState: Sendable {
    /// RFC 6578's token of the last sync; nil before the first, or once the server refused it.
    public var syncToken: String?
    public var lastSync: Date?
    /// Since when the collection answers empty while items were read from it before.
    public var emptySince: Date?
    /// Each item read, by its name in the collection.
    public var items: [String: CalDAVItemStatus] = [:]

    public init(syncToken: String? = nil, lastSync: Date? = nil, emptySince: Date? = nil, items: [String: CalDAVItemStatus] = [:]) {
        (self.syncToken, self.lastSync, self.emptySince, self.items) = (syncToken, lastSync, emptySince, items)
    }
}

/// A press on a reminder of a CalDAV calendar, still to be written into its item.
public struct QueuedPress: Hashable, Sendable {
    /// complete, completeOccurrence, acknowledge or snooze.
    public var kind: String
    public var link: CalendarLink
    /// completeOccurrence: the occurrence's wall-clock start (ISO 8601, no zone).
    public var occurrence: String?
    /// snooze: until when, the snooze alarm's UID, and the occurrence snoozed.
    public var until: Date?
    public var snoozeUID: String?
    public var snoozeOccurrence: Date?
    /// When it was pressed.
    public var at: Date
    /// Its place in the queue, once queued.
    public var seq: Int64 = 0

    public init(kind: String, link: CalendarLink, occurrence: String? = nil, until: Date? = nil, snoozeUID: String? = nil,
                snoozeOccurrence: Date? = nil, at: Date) {
        (self.kind, self.link, self.occurrence, self.until, self.snoozeUID, self.snoozeOccurrence, self.at)
            = (kind, link, occurrence, until, snoozeUID, snoozeOccurrence, at)
    }
}

extension Store {
    /// Where the sync of calendar `name` stands.
    public func caldavState(of name: String) throws(StoreError) -> CalDAVSyncState {
        try read { db in
            var state = CalDAVSyncState()
            if let row = try Row.fetchOne(db, sql: "SELECT syncToken, lastSync, emptySince FROM caldav WHERE name = ?", arguments: [name]) {
                state.syncToken = try row["syncToken"]
                state.lastSync = (try row["lastSync"] as Double?).map(Date.init(timeIntervalSince1970:))
                state.emptySince = (try row["emptySince"] as Double?).map(Date.init(timeIntervalSince1970:))
            }
            for row in try Row.fetchAll(db, sql: "SELECT item, etag, hash FROM caldav_item WHERE calendar = ?", arguments: [name]) {
                guard let item: String = try row["item"] else { continue }
                state.items[item] = CalDAVItemStatus(etag: try row["etag"], hash: try row["hash"] ?? "")
            }
            return state
        }
    }

    /// Records a sync of calendar `name`: its token and time, the items read (`changed`) and
    /// those gone (`removed`).
    public func saveSync(of name: String, token: String?, at instant: Date?, emptySince: Date?,
                         changed: [String: CalDAVItemStatus], removed: [String], in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: "UPDATE caldav SET syncToken = ?, lastSync = coalesce(?, lastSync), emptySince = ? WHERE name = ?")
            .execute(arguments: [token, instant?.timeIntervalSince1970, emptySince?.timeIntervalSince1970, name])
        let upsert = try transaction.db.cachedStatement(sql: "INSERT OR REPLACE INTO caldav_item (calendar, item, etag, hash) VALUES (?, ?, ?, ?)")
        for (item, status) in changed { try upsert.execute(arguments: [name, item, status.etag, status.hash]) }
        let delete = try transaction.db.cachedStatement(sql: "DELETE FROM caldav_item WHERE calendar = ? AND item = ?")
        for item in removed { try delete.execute(arguments: [name, item]) }
    }

    /// Queues `press` for item `item` of calendar `name`; its place in the queue.
    @discardableResult
    public func queue(_ press: QueuedPress, item: String, of name: String, in transaction: Transaction) throws -> Int64 {
        try transaction.db.cachedStatement(sql: """
            INSERT INTO caldav_write (calendar, item, kind, uid, recurrence, alarm, occurrence, until, snoozeUID, snoozeOccurrence, at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [name, item, press.kind, press.link.uid, press.link.recurrence, press.link.alarm, press.occurrence,
                                     press.until?.timeIntervalSince1970, press.snoozeUID, press.snoozeOccurrence?.timeIntervalSince1970,
                                     press.at.timeIntervalSince1970])
        return transaction.db.lastInsertedRowID
    }

    /// The presses still to write into the items of calendar `name`, oldest first, with the item each is for.
    public func queuedPresses(of name: String) throws(StoreError) -> [(item: String, press: QueuedPress)] {
        try read { db in
            let location = try Row.fetchOne(db, sql: "SELECT location FROM calendar WHERE name = ?", arguments: [name])?["location"] as String?
            return try Row.fetchAll(db, sql: "SELECT * FROM caldav_write WHERE calendar = ? ORDER BY seq", arguments: [name]).compactMap { row in
                guard let item: String = try row["item"], let kind: String = try row["kind"] else { return nil }
                var press = QueuedPress(kind: kind, link: CalendarLink(uid: try row["uid"] ?? "", recurrence: try row["recurrence"] ?? "",
                                                                       alarm: try row["alarm"] ?? "",
                                                                       source: (location ?? "") + "/" + item),
                                        occurrence: try row["occurrence"], until: (try row["until"] as Double?).map(Date.init(timeIntervalSince1970:)),
                                        snoozeUID: try row["snoozeUID"],
                                        snoozeOccurrence: (try row["snoozeOccurrence"] as Double?).map(Date.init(timeIntervalSince1970:)),
                                        at: Date(timeIntervalSince1970: try row["at"] ?? 0))
                press.seq = try row["seq"] ?? 0
                return (item, press)
            }
        }
    }

    /// Takes press `seq` out of the queue: written, or given up.
    public func unqueue(_ seq: Int64, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: "DELETE FROM caldav_write WHERE seq = ?").execute(arguments: [seq])
    }
}
