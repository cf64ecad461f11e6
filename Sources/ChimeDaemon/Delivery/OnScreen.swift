import DequeModule

/// What the current notification server shows, by its ids: at most `limit` entries,
/// the oldest forgotten first, so memory stays bounded whatever piles up on screen.
struct OnScreen {
    let limit: Int
    private var deliveries: [UInt32: Int64] = [:]
    /// Server ids in the order they were shown; closed ones linger until the next sweep.
    private var order: Deque<UInt32> = []

    init(limit: Int) {
        self.limit = limit
    }

    var count: Int { deliveries.count }

    /// The delivery the server shows as `serverID`.
    subscript(serverID: UInt32) -> Int64? { deliveries[serverID] }

    /// The server id of the first delivery on screen for which `matches` holds.
    func serverID(where matches: (Int64) -> Bool) -> UInt32? {
        deliveries.first { matches($0.value) }?.key
    }

    /// Records that `serverID` shows `seq`. Returns what it no longer follows: the one
    /// `seq` replaced under the same id (replaces_id), and the oldest past the limit.
    mutating func insert(_ seq: Int64, as serverID: UInt32) -> [Int64] {
        var gone: [Int64] = []
        if let replaced = deliveries.updateValue(seq, forKey: serverID) { gone.append(replaced) }
        order.append(serverID)
        while deliveries.count > limit, let oldest = order.popFirst() {
            if let forgotten = deliveries.removeValue(forKey: oldest) { gone.append(forgotten) }
        }
        if order.count > 2 * limit { order = Deque(order.filter { deliveries[$0] != nil }) }
        return gone
    }

    /// Forgets `serverID`; returns the delivery it showed.
    mutating func remove(_ serverID: UInt32) -> Int64? {
        deliveries.removeValue(forKey: serverID)
    }

    /// Forgets everything (the server changed); returns what was shown, by server id.
    mutating func removeAll() -> [Int64] {
        defer {
            deliveries.removeAll()
            order.removeAll()
        }
        return deliveries.sorted { $0.key < $1.key }.map(\.value)
    }
}
