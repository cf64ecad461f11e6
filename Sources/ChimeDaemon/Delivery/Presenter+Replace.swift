import ChimeAPI
import ChimeCore
import DBus

/// `PresentNow`, and its `replaces` key (`chime notify -r`, notify-send's `--replace-id`):
/// a notification that takes the place of one on screen, as a progress bar updates.
extension Presenter {
    /// What `replaces` names, as ``present(_:id:replacing:)`` takes it.
    struct Replacement {
        /// The Chime id of the one it replaces, when Chime follows it.
        var id: String?
        /// A server id Chime does not follow (another program's, or one gone): passed
        /// on as it is, as notify-send passes any number.
        var serverID: UInt32?
        /// The new notification keeps the replaced one's id, so `-r ID` works again and
        /// again with the id `-p` printed once.
        var keepsID = false
    }

    /// Shows `alert` now (`PresentNow`): stored only if it has to wait.
    func present(_ alert: Alert, id: String, replacing replacement: Replacement = Replacement()) throws(DBusError) {
        if !canSendNow, waitingImmediate >= Self.maxWaitingImmediate {
            throw DBusError(name: ChimeError.busy, message: "Not shown: \(Self.maxWaitingImmediate) notifications already wait for a "
                + "notification server; try again once one runs.")
        }
        // A replaced one that still waits is superseded: only the newest is worth showing.
        for older in deliveries.values where older.id == replacement.id && older.isWaiting && older.stored.kind == .immediate {
            discard(older)
        }
        let delivery = Delivery(StoredDelivery(seq: takeSeq(), id: id, kind: .immediate, alert: alert, replacing: replacement.id,
                                               due: time.now), durable: false)
        delivery.replacesServerID = replacement.serverID
        add(delivery)
        enqueue(delivery)
        if delivery.isWaiting { makeDurable(delivery) }
    }

    /// What `text` names: a Chime id or a server id (a number). InvalidArgs when it is neither.
    func replacement(named text: String) throws(DBusError) -> Replacement {
        if let number = UInt32(text) {
            guard let seq = onScreen[number], let shown = deliveries[seq] else { return Replacement(serverID: number) }
            return Replacement(id: shown.id, keepsID: shown.stored.kind == .immediate)
        }
        if let seq = latest[text], let older = deliveries[seq] {
            return Replacement(id: text, keepsID: older.stored.kind == .immediate)
        }
        guard NotificationID.isWellFormed(text) else {
            throw .invalidArgs("replaces: '\(text)' is neither a Chime id (as PresentNow returns) nor a server id (a whole number).")
        }
        // Gone from the screen: a new notification, as a server makes for an id it no longer shows.
        return Replacement(keepsID: true)
    }

    /// Whether `delivery` must wait for the one it replaces: that one's `Notify` is in
    /// flight, and until it is answered its server id is unknown.
    func waitsForReplaced(_ delivery: Delivery) -> Bool {
        guard let target = delivery.stored.replacing, delivery.stored.kind == .immediate else { return false }
        return deliveries.values.contains { $0 !== delivery && $0.id == target && !$0.isWaiting && !$0.isShown }
    }
}
