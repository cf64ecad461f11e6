import ChimeCore
import DBus
import DequeModule
import EventLoop
import Foundation
import Logging

/// The one owner of delivery: every notification from the moment it is due until it
/// leaves the screen, and the only place that knows what is on screen.
///
/// Delivery is at-least-once. An occurrence is *waiting* (for a server, for a free slot,
/// or for its next try), *sent* (a `Notify` is in flight), then *shown* (the server
/// returned its id), then gone (closed, or acted on). Only "shown" ends an attempt: an
/// error, a timeout or the server leaving before its answer puts it back to waiting, to be
/// sent again, marked late, with back-off, at most ``maxAttempts`` times. Occurrences of
/// the schedule are in the store from the firing's transaction until they are shown, so a
/// chimed stopped in between sends them again at its next start; a `PresentNow` is
/// stored only once it has to wait.
final class Presenter {
    /// `Notify` calls in flight at once; the rest wait their turn, so a server that
    /// stalls faces no storm and the queue of calls stays bounded. Above the 20 due in
    /// one second that `make bench` fires, so a burst never waits for a slot.
    static let maxInFlight = 32
    /// Failed `Notify` calls after which an occurrence is given up (and the history says
    /// so): with back-off from half a second, the last try is about 15 s after the first.
    static let maxAttempts = 6
    /// Notifications on screen Chime keeps track of; past this the oldest is forgotten
    /// (its buttons then do nothing). Servers show a handful; this bounds the memory.
    static let maxTracked = 256
    /// `PresentNow` notifications that may wait for a server at once.
    static let maxWaitingImmediate = 1_000
    /// Later than this, a notification says how late it is: it was missed (the machine
    /// was off or asleep, chimed was stopped, the server was away), not merely a few
    /// milliseconds late.
    static let lateThreshold: TimeInterval = 2
    /// The longest wait between two tries of one occurrence.
    static let maxBackoffMilliseconds = 60_000

    /// A press on a notification, for whoever handles buttons.
    struct Press {
        let id: String
        let key: String
        let alert: Alert
        let kind: StoredDelivery.Kind
    }

    /// A notification that left the screen.
    struct Closing {
        let id: String
        /// The reason as `Closed` reports it: 1 when it expired (by the server, or by
        /// Chime enforcing `expires`), 2 dismissed (by the user, a press included), 3
        /// closed by a call.
        let reason: UInt32
        let alert: Alert
        let kind: StoredDelivery.Kind
        /// What ended it, for the history.
        let detail: String
    }

    private enum State {
        case waiting
        case sent
        case shown(serverID: UInt32)
    }

    /// Why Chime itself closed a notification: the server's reason says only "a call".
    private enum Closer {
        case expiry
        case press(String)
    }

    private final class Delivery {
        var stored: StoredDelivery
        var state: State = .waiting
        /// A row for it is in the store (or staged for the next commit).
        var durable: Bool
        /// Cancelled while a `Notify` for it was in flight: forget it whatever the answer.
        var withdrawn = false
        /// A press on it was handled: a second one (servers that keep the popup) is not.
        var pressed = false
        var closer: Closer?
        var expiry: Source?

        init(_ stored: StoredDelivery, durable: Bool) {
            self.stored = stored
            self.durable = durable
        }

        var isWaiting: Bool {
            if case .waiting = state { return true }
            return false
        }

        var isShown: Bool {
            if case .shown = state { return true }
            return false
        }
    }

    private let client: NotificationClient
    private let store: Store
    private let commits: CommitQueue
    private let loop: EventLoop
    private let logger: Logger
    private let now: () -> Date

    private var deliveries: [Int64: Delivery] = [:]
    /// The newest delivery of each Chime id.
    private var latest: [String: Int64] = [:]
    /// Waiting deliveries in the order they are to be sent.
    private var queue: Deque<Int64> = []
    private var inFlight = 0
    private var nextSeq: Int64 = 1
    /// Server id → delivery, for what the current server shows.
    private var onScreen: [UInt32: Int64] = [:]
    /// Shown deliveries, oldest first, to forget the oldest past ``maxTracked``.
    private var shownOrder: Deque<UInt32> = []
    private var retryTimer: Source?
    /// When each waiting delivery that failed may be tried again (monotonic nanoseconds).
    private var backoff: [Int64: UInt64] = [:]
    /// `PresentNow` notifications not on screen yet.
    private var waitingImmediate = 0

    /// Named sets of buttons: the built-in ones and the user's config.
    var categories = Category.builtIn
    /// Plays sounds the server cannot: set when libcanberra is there.
    var sounds: SoundPlayer?
    /// A button (or the notification itself) was pressed, for the first time on that popup.
    var onPress: (Press) -> Void = { _ in }
    /// A notification Chime showed left the screen.
    var onClosed: (Closing) -> Void = { _ in }

    init(client: NotificationClient, store: Store, commits: CommitQueue, loop: EventLoop, logger: Logger,
         now: @escaping () -> Date = Date.init) {
        self.client = client
        self.store = store
        self.commits = commits
        self.loop = loop
        self.logger = logger
        self.now = now
        client.onEvent = { [unowned self] event in self.handle(event) }
    }

    /// Takes back what a stopped chimed left undelivered; it goes out once a server is there.
    func start() throws(StoreError) {
        let (stored, unreadable) = try store.deliveries()
        if unreadable > 0 { logger.error("\(unreadable) stored deliveries cannot be read (written by a newer chimed?); skipped.") }
        guard !stored.isEmpty else { return }
        nextSeq = (stored.map(\.seq).max() ?? 0) + 1
        let instant = now()
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

    // MARK: - What comes due

    /// Delivers an occurrence of the schedule (or a summary of missed ones). It is
    /// stored in the next commit, the one that records its firing, after `Notify` was
    /// sent: the fsync is not on the way to the screen, and a crash in between shows it
    /// again at the next start.
    func deliver(id: String, kind: StoredDelivery.Kind, alert: Alert, replacing: String? = nil, due: Date) {
        // An earlier occurrence of the same notification still waiting is superseded:
        // a repeat that cannot be shown fires once for all it missed, as after a sleep.
        if kind == .scheduled, let older = latest[id].flatMap({ deliveries[$0] }), older.isWaiting {
            discard(older)
        }
        let delivery = Delivery(StoredDelivery(seq: takeSeq(), id: id, kind: kind, alert: alert, replacing: replacing, due: due),
                                durable: true)
        add(delivery)
        let saved = delivery.stored
        stage("store the delivery of \(id)") { store, db in try store.save(saved, in: db) }
        enqueue(delivery)
    }

    /// Shows Chime's own word (news of the store, say), as durably as a reminder.
    func announce(_ alert: Alert) {
        deliver(id: "notice-" + NotificationID.random(), kind: .notice, alert: alert, due: now())
    }

    /// Shows `alert` now (`PresentNow`): stored only if it has to wait.
    func present(_ alert: Alert, id: String) throws(DBusError) {
        if !canSendNow, waitingImmediate >= Self.maxWaitingImmediate {
            throw DBusError(name: Self.busyName, message: "Not shown: \(Self.maxWaitingImmediate) notifications already wait for a "
                + "notification server; try again once one runs.")
        }
        let delivery = Delivery(StoredDelivery(seq: takeSeq(), id: id, kind: .immediate, alert: alert, due: now()), durable: false)
        add(delivery)
        enqueue(delivery)
        if delivery.isWaiting { makeDurable(delivery) }
    }

    /// The error `PresentNow` answers with when too many wait already.
    static let busyName = "io.github.chime.Error.Busy"

    /// Forgets waiting occurrences of cancelled notifications (their rows went with the
    /// cancel's transaction); what is on screen stays.
    func withdraw(ids: [String]) {
        let cancelled = Set(ids)
        for delivery in deliveries.values where cancelled.contains(delivery.stored.id) {
            switch delivery.state {
            case .waiting:
                delivery.durable = false
                discard(delivery)
            case .sent:
                delivery.withdrawn = true
                delivery.durable = false
            case .shown:
                break
            }
        }
    }

    private func takeSeq() -> Int64 {
        defer { nextSeq += 1 }
        return nextSeq
    }

    private func add(_ delivery: Delivery) {
        deliveries[delivery.stored.seq] = delivery
        latest[delivery.stored.id] = delivery.stored.seq
        if delivery.stored.kind == .immediate { waitingImmediate += 1 }
    }

    /// Forgets a delivery from memory (its row, if any, is the caller's business).
    private func remove(_ delivery: Delivery) {
        let seq = delivery.stored.seq
        deliveries[seq] = nil
        backoff[seq] = nil
        if latest[delivery.stored.id] == seq { latest[delivery.stored.id] = nil }
        if delivery.stored.kind == .immediate, !delivery.isShown { waitingImmediate -= 1 }
        delivery.expiry = nil
    }

    // MARK: - What the service asks

    /// The alert of notification `id` if it is on screen or on its way there.
    func alert(for id: String) -> Alert? {
        latest[id].flatMap { deliveries[$0] }?.stored.alert
    }

    /// Notifications due and waiting (for a server, a free slot or their next try), oldest
    /// first; not those whose `Notify` is in flight.
    var waiting: [StoredDelivery] {
        deliveries.values.filter(\.isWaiting).map(\.stored).sorted { $0.seq < $1.seq }
    }

    /// How many are due and waiting.
    var waitingCount: Int { deliveries.values.count { $0.isWaiting } }

    /// The alert with its category's buttons; an unknown category still shows, without them.
    func expand(_ alert: Alert) -> Alert {
        guard let name = alert.category else { return alert }
        guard let category = categories[name] else {
            logger.debug("Category '\(name)' has no actions here; passed to the server as a hint only.")
            return alert
        }
        return alert.withActions(of: category)
    }

    /// After a press handled by other means (`InvokeAction`), the popup of `id` goes,
    /// as after a press on it, unless it is resident.
    func dismiss(id: String, after key: String) {
        for delivery in deliveries.values where delivery.stored.id == id {
            guard case .shown(let serverID) = delivery.state else { continue }
            delivery.pressed = true
            closeAfterPress(delivery, serverID: serverID, key: key)
        }
    }

    // MARK: - Sending

    private var canSendNow: Bool { client.isReady && inFlight < Self.maxInFlight }

    private func enqueue(_ delivery: Delivery) {
        queue.append(delivery.stored.seq)
        pump()
    }

    /// Sends what waits, in order, while there is a server and a free slot.
    private func pump() {
        let clock = EventLoop.monotonicNow()
        var postponed: [Int64] = []
        while canSendNow, let seq = queue.popFirst() {
            guard let delivery = deliveries[seq], delivery.isWaiting else { continue }
            if let retryAt = backoff[seq] {
                guard retryAt <= clock else {
                    postponed.append(seq)
                    continue
                }
                backoff[seq] = nil
            }
            send(delivery)
        }
        // Kept in order at the front: they go first once their time comes.
        queue.insert(contentsOf: postponed, at: 0)
        armRetry()
    }

    private func send(_ delivery: Delivery) {
        var alert = expand(delivery.stored.alert)
        let lateBy = now().timeIntervalSince(delivery.stored.due)
        if lateBy > Self.lateThreshold, delivery.stored.kind != .notice {
            let note = "Due \(LateText.describe(lateBy)) ago."
            alert.body = alert.body.isEmpty ? note : alert.body + "\n" + note
            alert.hints.append(.custom(name: "x-chime-late-seconds", .int32(Int32(clamping: Int(lateBy)))))
        }
        // A snoozed copy takes the place of its origin if that is still on screen.
        let replaced = delivery.stored.replacing.flatMap(serverID(showing:)) ?? 0
        let request = NotifyRequest(alert: alert, capabilities: client.capabilities, replacesID: replaced)
        // A server without the sound capability ignores the hints; play it here, and
        // only here, so it never sounds twice.
        if !request.serverPlaysSound { sounds?.play(alert.sound, for: delivery.stored.id) }
        delivery.state = .sent
        inFlight += 1
        let seq = delivery.stored.seq
        client.notify(request) { [unowned self] result in self.answered(seq, result) }
    }

    private func serverID(showing id: String) -> UInt32? {
        onScreen.first { deliveries[$0.value]?.stored.id == id }?.key
    }

    private func answered(_ seq: Int64, _ result: Result<UInt32, NotificationClient.Failure>) {
        inFlight -= 1
        defer { pump() }
        guard let delivery = deliveries[seq] else { return }
        switch result {
        case .success(let serverID):
            shown(delivery, serverID: serverID)
        case .failure(.noServer):
            delivery.state = .waiting
            queue.append(seq)
        case .failure(.failed(let error)):
            failed(delivery, error)
        }
    }

    private func shown(_ delivery: Delivery, serverID: UInt32) {
        let id = delivery.stored.id
        logger.debug("Notification \(id) is server id \(serverID).")
        if delivery.stored.kind == .immediate { waitingImmediate -= 1 }
        delivery.state = .shown(serverID: serverID)
        if delivery.durable {
            delivery.durable = false
            let seq = delivery.stored.seq
            stage("forget the delivery of \(id)") { store, db in try store.deleteDelivery(seq: seq, in: db) }
        }
        if delivery.withdrawn {
            // Cancelled while in flight: it is on screen, but nothing of it is kept.
            remove(delivery)
            return
        }
        // A notification that replaced another (replaces_id) took its server id: the
        // one replaced is gone from the screen.
        if let replaced = onScreen[serverID].flatMap({ deliveries[$0] }) { remove(replaced) }
        onScreen[serverID] = delivery.stored.seq
        shownOrder.append(serverID)
        if let expires = delivery.stored.alert.expires, expires > 0 {
            // GNOME Shell ignores expire_timeout: Chime closes expiring notifications itself.
            delivery.expiry = loop.timeout(afterMilliseconds: Int(expires)) { [unowned self, unowned delivery] in
                delivery.expiry = nil
                guard case .shown(let current) = delivery.state else { return }
                delivery.closer = .expiry
                self.client.close(serverID: current)
            }
        }
        forgetOldest()
    }

    /// Keeps at most ``maxTracked`` notifications on screen in memory.
    private func forgetOldest() {
        while onScreen.count > Self.maxTracked, let oldest = shownOrder.popFirst() {
            guard let seq = onScreen.removeValue(forKey: oldest), let delivery = deliveries[seq] else { continue }
            remove(delivery)
            logger.notice("More than \(Self.maxTracked) notifications are on screen; no longer following \(delivery.stored.id) (its buttons do nothing now).")
        }
        // Closed ones leave stale ids behind; drop them now and then so the order stays small.
        if shownOrder.count > 2 * Self.maxTracked { shownOrder = Deque(shownOrder.filter { onScreen[$0] != nil }) }
    }

    private func failed(_ delivery: Delivery, _ error: DBusError) {
        let id = delivery.stored.id
        delivery.state = .waiting
        if delivery.withdrawn {
            remove(delivery)
            return
        }
        delivery.stored.attempts += 1
        let attempts = delivery.stored.attempts
        let reason = error.message.isEmpty ? error.name : error.message.withoutFullStop
        guard attempts < Self.maxAttempts else {
            logger.error("Gave up on \(id) after \(attempts) failed attempts; the last: \(reason).")
            record(delivery, .gaveUp, "Not shown after \(attempts) attempts; the last failed: \(reason).")
            discard(delivery)
            return
        }
        let delay = min(500 << (attempts - 1), Self.maxBackoffMilliseconds)
        backoff[delivery.stored.seq] = EventLoop.monotonicNow() + UInt64(delay) * 1_000_000
        logger.warning("Notify for \(id) failed (\(reason)); trying again in \(LateText.describe(Double(delay) / 1000)) or when a server appears.")
        record(delivery, .retried, "Attempt \(attempts) failed: \(reason). Sending it again.")
        // It has to wait now: it goes in the store, with its count of attempts.
        makeDurable(delivery)
        queue.append(delivery.stored.seq)
    }

    /// Writes (or rewrites) a waiting delivery's row.
    private func makeDurable(_ delivery: Delivery) {
        delivery.durable = true
        let saved = delivery.stored
        stage("store the delivery of \(saved.id)") { store, db in try store.save(saved, in: db) }
    }

    /// Removes a delivery that will not be shown, with its row.
    private func discard(_ delivery: Delivery) {
        remove(delivery)
        guard delivery.durable else { return }
        let seq = delivery.stored.seq
        stage("forget the delivery of \(delivery.stored.id)") { store, db in try store.deleteDelivery(seq: seq, in: db) }
    }

    /// One loop timeout at the earliest back-off of what waits; none when nothing does.
    private func armRetry() {
        guard client.isReady, let earliest = backoff.values.min() else {
            retryTimer = nil
            return
        }
        let now = EventLoop.monotonicNow()
        let milliseconds = earliest > now ? Int((earliest - now + 999_999) / 1_000_000) : 0
        retryTimer = loop.timeout(afterMilliseconds: milliseconds) { [unowned self] in
            self.retryTimer = nil
            self.pump()
        }
    }

    // MARK: - The server

    private func handle(_ event: NotificationClient.Event) {
        switch event {
        case .ownerChanged:
            serverChanged()
        case .ready:
            // A new server: what was backing off from the old one goes now.
            backoff.removeAll()
            pump()
        case .actionInvoked(let serverID, let key):
            pressed(serverID: serverID, key: key)
        case .closed(let serverID, let reason):
            closed(serverID: serverID, reason: reason)
        }
    }

    /// The old server's ids mean nothing to the new one. What it showed with buttons is
    /// posted again, ahead of anything waiting; answers still due from it fail by themselves.
    private func serverChanged() {
        let orphans = onScreen.sorted { $0.key < $1.key }.compactMap { deliveries[$0.value] }
        onScreen.removeAll()
        shownOrder.removeAll()
        var reposted: [Int64] = []
        for delivery in orphans {
            delivery.expiry = nil
            guard !delivery.pressed, !expand(delivery.stored.alert).allActions.isEmpty else {
                remove(delivery)
                continue
            }
            delivery.state = .waiting
            if delivery.stored.kind == .immediate { waitingImmediate += 1 }
            reposted.append(delivery.stored.seq)
        }
        if !reposted.isEmpty { logger.info("Posting \(reposted.count) notifications with buttons again on the next server.") }
        queue.insert(contentsOf: reposted, at: 0)
        retryTimer = nil
    }

    private func pressed(serverID: UInt32, key: String) {
        guard let seq = onScreen[serverID], let delivery = deliveries[seq] else { return }
        guard !delivery.pressed else {
            // mako and lxqt-notificationd keep the popup after a button: a second press
            // on it must not act again.
            logger.notice("Ignored '\(key)' on \(delivery.stored.id): a button of that popup was already pressed.")
            return
        }
        delivery.pressed = true
        onPress(Press(id: delivery.stored.id, key: key, alert: delivery.stored.alert, kind: delivery.stored.kind))
        closeAfterPress(delivery, serverID: serverID, key: key)
    }

    private func closeAfterPress(_ delivery: Delivery, serverID: UInt32, key: String) {
        guard !delivery.stored.alert.hints.contains(.resident(true)) else { return }
        delivery.closer = .press(key)
        client.close(serverID: serverID)
    }

    private func closed(serverID: UInt32, reason: UInt32) {
        guard let seq = onScreen.removeValue(forKey: serverID), let delivery = deliveries[seq] else { return }
        remove(delivery)
        let alert = delivery.stored.alert
        let closing: Closing
        switch delivery.closer {
        case .expiry:
            // Chime's CloseNotification comes back as reason 3; it expired all the same.
            closing = Closing(id: delivery.stored.id, reason: 1, alert: alert, kind: delivery.stored.kind,
                              detail: "Its expiry time passed.")
        case .press(let key):
            // The user's press took it away, whichever of Chime or the server (dunst
            // closes a clicked popup itself) closed it first: dismissed, reason 2.
            let label = expand(alert).allActions.first { $0.key == key }?.label ?? key
            closing = Closing(id: delivery.stored.id, reason: 2, alert: alert, kind: delivery.stored.kind,
                              detail: "Closed after '\(label)' was pressed.")
        case nil:
            let detail = switch reason {
            case 1: "The server's time for it ran out."
            case 2: "Dismissed."
            case 3: "Closed by a program."
            default: "Closed."
            }
            closing = Closing(id: delivery.stored.id, reason: reason, alert: alert, kind: delivery.stored.kind, detail: detail)
        }
        onClosed(closing)
    }

    // MARK: - Store

    private func record(_ delivery: Delivery, _ event: HistoryEntry.Event, _ detail: String) {
        let entry = HistoryEntry(time: now(), id: delivery.stored.id, event: event, title: delivery.stored.alert.title, detail: detail)
        stage("record \(event.rawValue) of \(delivery.stored.id)") { store, db in try store.record(entry, in: db) }
    }

    private func stage(_ what: String, _ change: @escaping (Store, Store.Transaction) throws -> Void) {
        commits.stage({ [store] db in try change(store, db) }, done: { [logger] result in
            if case .failure(let error) = result { logger.error("Cannot \(what): \(error)") }
        })
    }
}

extension String {
    /// The sentence without its final full stop, to quote it inside another.
    var withoutFullStop: String {
        hasSuffix(".") ? String(dropLast()) : self
    }
}
