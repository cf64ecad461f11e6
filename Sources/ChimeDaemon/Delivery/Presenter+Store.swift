import ChimeCore
import FoundationEssentials

/// What the presenter keeps in the store: occurrences not yet on screen, and their history.
extension Presenter {
    /// Takes back what a stopped chimed left undelivered; it goes out once a server is there.
    func start() throws(StoreError) {
        let (stored, unreadable) = try store.deliveries()
        if unreadable > 0 { logger.error("\(unreadable) stored deliveries cannot be read (written by a newer chimed?); skipped.") }
        let (shown, unreadableShown) = try store.shownDeliveries()
        if unreadableShown > 0 { logger.error("\(unreadableShown) notifications left on screen cannot be read (written by a newer chimed?); skipped.") }
        takeovers = shown
        nextSeq = (stored.map(\.seq) + shown.map(\.delivery.seq)).max().map { $0 + 1 } ?? 1
        guard !stored.isEmpty else { return }
        let instant = time.now
        var events: [HistoryEntry] = []
        for item in stored {
            add(Delivery(item, durable: true))
            queue.append(item.seq)
            if item.kind == .scheduled {
                events.append(HistoryEntry(time: instant, id: item.id, event: .retried, title: item.alert.title,
                                           detail: "chimed stopped before the server took it; sending it again."))
            }
        }
        logger.notice("\(stored.count) notifications were due but not shown when chimed last stopped; sending them again.")
        stage("record re-sending") { store, db in for event in events { try store.record(event, in: db) } }
    }

    /// Writes (or rewrites) a waiting delivery's row.
    func makeDurable(_ delivery: Delivery) {
        delivery.durable = true
        let saved = delivery.stored
        stage("store the delivery of \(saved.id)") { store, db in try store.save(saved, in: db) }
    }

    /// Removes a delivery that will not be shown, with its row.
    func discard(_ delivery: Delivery) {
        remove(delivery)
        guard delivery.durable else { return }
        let seq = delivery.stored.seq
        stage("forget the delivery of \(delivery.stored.id)") { store, db in try store.deleteDelivery(seq: seq, in: db) }
    }

    func record(_ delivery: Delivery, _ event: HistoryEntry.Event, _ detail: String) {
        let entry = HistoryEntry(time: time.now, id: delivery.stored.id, event: event, title: delivery.stored.alert.title, detail: detail)
        stage("record \(event.rawValue) of \(delivery.stored.id)") { store, db in try store.record(entry, in: db) }
    }

    func stage(_ what: String, _ change: @escaping (Store, Store.Transaction) throws -> Void) {
        commits.stage({ [store] db in try change(store, db) }, done: { [logger] result in
            if case .failure(let error) = result { logger.error("Cannot \(what): \(error)") }
        })
    }
}
