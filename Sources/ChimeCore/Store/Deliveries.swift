import FoundationEssentials

/// One occurrence that came due and has not reached the screen yet, as the store keeps it.
///
/// Delivery is at-least-once: a row is written with the firing it belongs to and deleted
/// once the server has returned its id for it. Whatever rows a stopped chimed left are
/// sent again at the next start.
public struct StoredDelivery: Equatable, Sendable {
    /// Where an occurrence came from.
    public enum Kind: String, Sendable {
        /// An occurrence of a scheduled notification.
        case scheduled
        /// `PresentNow`: shown at once, stored only while it has to wait.
        case immediate
        /// Chime's own word: the one notification that stands for many missed ones, or
        /// news of the store. It has no id to act on.
        case notice
    }

    /// The delivery's own key, in the order they came due.
    public var seq: Int64
    /// The Chime id the notification has on the bus.
    public var id: String
    /// Where it came from, which says how it is shown and what acting on it does.
    public var kind: Kind
    /// What is shown, as it came due (before the category adds its buttons).
    public var alert: Alert
    /// The Chime id of a notification this one takes the place of on screen.
    public var replacing: String?
    /// When it came due: how late it is shown is counted from here.
    public var due: Date
    /// How many `Notify` calls for it failed so far.
    public var attempts: Int

    /// A delivery as it is about to be stored, or as it was read back.
    public init(seq: Int64, id: String, kind: Kind, alert: Alert, replacing: String? = nil, due: Date, attempts: Int = 0) {
        self.seq = seq
        self.id = id
        self.kind = kind
        self.alert = alert
        self.replacing = replacing
        self.due = due
        self.attempts = attempts
    }
}

extension Store {
    // MARK: - Deliveries (inside write)

    /// Records (or updates) an occurrence waiting for the screen.
    public func save(_ delivery: StoredDelivery, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: """
            INSERT OR REPLACE INTO delivery (seq, notificationId, kind, alert, replacing, due, attempts)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                delivery.seq, delivery.id, delivery.kind.rawValue, try encoder.encode(delivery.alert), delivery.replacing,
                delivery.due.timeIntervalSince1970, delivery.attempts,
            ])
    }

    /// Forgets an occurrence: it is on screen, or given up.
    public func deleteDelivery(seq: Int64, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: "DELETE FROM delivery WHERE seq = ?").execute(arguments: [seq])
    }

    // MARK: - Reading

    /// Every stored delivery, oldest first. A row that cannot be decoded (written by a
    /// newer version, or damaged) is skipped and counted in `unreadable`.
    public func deliveries() throws(StoreError) -> (deliveries: [StoredDelivery], unreadable: Int) {
        try read { db in
            var result: [StoredDelivery] = []
            var unreadable = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM delivery ORDER BY seq")
            while let row = try rows.next() {
                guard let kind = (try? row["kind"] as String).flatMap(StoredDelivery.Kind.init(rawValue:)),
                      let data = try? row["alert"] as Data, let alert = try? decoder.decode(Alert.self, from: data),
                      let delivery = try? StoredDelivery(
                          seq: row["seq"], id: row["notificationId"], kind: kind, alert: alert, replacing: row["replacing"],
                          due: Date(timeIntervalSince1970: row["due"]), attempts: row["attempts"])
                else {
                    unreadable += 1
                    continue
                }
                result.append(delivery)
            }
            return (result, unreadable)
        }
    }
}

/// A notification the server showed, as the store keeps it while it is on screen: what a
/// chimed started again takes over.
public struct ShownDelivery: Equatable, Sendable {
    /// The delivery as it came due.
    public var delivery: StoredDelivery
    /// The server's id for it.
    public var serverID: UInt32
    /// The server process that showed it: the bus's id and the server's unique name.
    public var server: String
    /// When the server took it: how late it was shown is counted to here, so that the
    /// text taken over is the text on screen.
    public var shownAt: Date

    public init(delivery: StoredDelivery, serverID: UInt32, server: String, shownAt: Date) {
        self.delivery = delivery
        self.serverID = serverID
        self.server = server
        self.shownAt = shownAt
    }
}

extension Store {
    // MARK: - On screen (inside write)

    /// Records (or updates) what the server shows.
    public func save(_ shown: ShownDelivery, in transaction: Transaction) throws {
        let delivery = shown.delivery
        try transaction.db.cachedStatement(sql: """
            INSERT OR REPLACE INTO screen (seq, notificationId, kind, alert, due, serverId, server, shownAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                delivery.seq, delivery.id, delivery.kind.rawValue, try encoder.encode(delivery.alert),
                delivery.due.timeIntervalSince1970, Int64(shown.serverID), shown.server, shown.shownAt.timeIntervalSince1970,
            ])
    }

    /// Forgets what left the screen, or was pressed.
    public func deleteShown(seq: Int64, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: "DELETE FROM screen WHERE seq = ?").execute(arguments: [seq])
    }

    /// What the last chimed left on screen, oldest first; rows that cannot be read are
    /// skipped and counted, as ``deliveries()`` does.
    public func shownDeliveries() throws(StoreError) -> (shown: [ShownDelivery], unreadable: Int) {
        try read { db in
            var result: [ShownDelivery] = []
            var unreadable = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM screen ORDER BY seq")
            while let row = try rows.next() {
                guard let kind = (try? row["kind"] as String).flatMap(StoredDelivery.Kind.init(rawValue:)),
                      let data = try? row["alert"] as Data, let alert = try? decoder.decode(Alert.self, from: data),
                      let serverID = (try? row["serverId"] as Int64).flatMap(UInt32.init(exactly:)),
                      let shown = try? ShownDelivery(
                          delivery: StoredDelivery(seq: row["seq"], id: row["notificationId"], kind: kind, alert: alert,
                                                   due: Date(timeIntervalSince1970: row["due"])),
                          serverID: serverID, server: row["server"], shownAt: Date(timeIntervalSince1970: row["shownAt"]))
                else {
                    unreadable += 1
                    continue
                }
                result.append(shown)
            }
            return (result, unreadable)
        }
    }
}
