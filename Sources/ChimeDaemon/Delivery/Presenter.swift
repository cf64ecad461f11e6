import ChimeAPI
import ChimeCore
import DBus
import DequeModule
import FoundationEssentials
import Localization
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

    let server: NotificationPoster
    let store: Store
    let commits: CommitQueue
    let time: Timekeeper
    let logger: Logger

    var deliveries: [Int64: Delivery] = [:]
    /// The newest delivery of each Chime id.
    private(set) var latest: [String: Int64] = [:]
    /// Waiting deliveries in the order they are to be sent.
    var queue: Deque<Int64> = []
    /// Deliveries being decided (the app in front asked) or with a `Notify` in flight.
    private(set) var inFlight = 0
    private var pumping = false
    var nextSeq: Int64 = 1
    var onScreen = OnScreen(limit: Presenter.maxTracked)
    var retryTimer: AnyObject?
    /// When each waiting delivery that failed may be tried again (monotonic nanoseconds).
    var backoff: [Int64: UInt64] = [:]
    /// `PresentNow` notifications not on screen yet.
    var waitingImmediate = 0
    /// What the last chimed left on screen, until the first server is ready.
    var takeovers: [ShownDelivery] = []

    /// The user's config and chimed's words: categories, per-app switches, labels.
    let settings: Settings
    /// Plays sounds the server cannot (libcanberra); nil plays none.
    let sounds: SoundPlayer?
    /// Asks the app a notification speaks for whether it is in front; nil asks nobody.
    let frontApp: FrontAppAsking?
    /// A delivery's badge is to be set: the decision for it allowed one.
    var onBadge: (Alert) -> Void = { _ in }
    /// A button (or the notification itself) was pressed, for the first time on that popup.
    var onPress: (Press) -> Void = { _ in }
    /// A notification Chime showed left the screen.
    var onClosed: (Closing) -> Void = { _ in }

    init(server: NotificationPoster, store: Store, commits: CommitQueue, time: Timekeeper, settings: Settings,
         sounds: SoundPlayer? = nil, frontApp: FrontAppAsking? = nil, logger: Logger) {
        self.server = server
        self.store = store
        self.commits = commits
        self.time = time
        self.settings = settings
        self.sounds = sounds
        self.frontApp = frontApp
        self.logger = logger
        server.onEvent = { [unowned self] event in self.handle(event) }
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
        deliver(id: "notice-" + NotificationID.random(), kind: .notice, alert: alert, due: time.now)
    }


    /// Forgets waiting occurrences of cancelled notifications (their rows went with the
    /// cancel's transaction); what is on screen stays.
    func withdraw(ids: [String]) {
        // The deliveries in flight are a handful, and a CancelAll may name a million: the
        // small set is the one hashed.
        guard !deliveries.isEmpty else { return }
        let cancelled = Set(deliveries.values.map(\.stored.id)).intersection(ids)
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

    func takeSeq() -> Int64 {
        defer { nextSeq += 1 }
        return nextSeq
    }

    func add(_ delivery: Delivery) {
        deliveries[delivery.stored.seq] = delivery
        latest[delivery.stored.id] = delivery.stored.seq
        if delivery.stored.kind == .immediate { waitingImmediate += 1 }
    }

    /// Forgets a delivery from memory (its row, if any, is the caller's business).
    func remove(_ delivery: Delivery) {
        let seq = delivery.stored.seq
        deliveries[seq] = nil
        backoff[seq] = nil
        if latest[delivery.stored.id] == seq { latest[delivery.stored.id] = nil }
        if delivery.stored.kind == .immediate, !delivery.isShown { waitingImmediate -= 1 }
        delivery.expiry = nil
        forgetScreenRow(of: delivery)
    }

    // MARK: - What the service asks

    /// The alert of notification `id` if it is on screen or on its way there.
    func alert(for id: String) -> Alert? {
        latest[id].flatMap { deliveries[$0] }?.stored.alert
    }

    /// The alert of `id` on screen or on its way there, taken for a snooze: its popups
    /// count as pressed, so a button press or a second snooze arriving before the copy
    /// is stored does not make another. nil when none is there to take, or a press has.
    func claim(id: String) -> Alert? {
        guard let alert = alert(for: id) else { return nil }
        let popups = deliveries.values.filter { $0.id == id }
        guard !popups.contains(where: \.pressed) else { return nil }
        for delivery in popups { markPressed(delivery) }
        return alert
    }

    /// Gives back what ``claim(id:)`` took, after a snooze that could not be stored: the
    /// popup stays, and its buttons work again.
    func release(id: String) {
        for delivery in deliveries.values where delivery.id == id { delivery.pressed = false }
    }

    /// Notifications due and waiting (for a server, a free slot or their next try), oldest
    /// first; not those whose `Notify` is in flight.
    var waiting: [StoredDelivery] {
        deliveries.values.filter(\.isWaiting).map(\.stored).sorted { $0.seq < $1.seq }
    }

    /// How many are due and waiting.
    var waitingCount: Int { deliveries.values.count { $0.isWaiting } }

    // MARK: - Sending

    var canSendNow: Bool { server.isReady && inFlight < Self.maxInFlight }

    func enqueue(_ delivery: Delivery) {
        queue.append(delivery.stored.seq)
        pump()
    }

    /// Sends what waits, in order, while there is a server and a free slot.
    func pump() {
        // A delivery decided at once frees its slot inside the loop below, which goes on.
        guard !pumping else { return }
        pumping = true
        defer { pumping = false }
        let clock = time.monotonic
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
            if waitsForReplaced(delivery) {
                postponed.append(seq)
                continue
            }
            send(delivery)
        }
        // Kept in order at the front: they go first once their time comes.
        queue.insert(contentsOf: postponed, at: 0)
        armRetry()
    }

    /// A delivery holds one of the ``maxInFlight`` slots from here until ``releaseSlot(_:)``.
    private func send(_ delivery: Delivery) {
        delivery.state = .sent
        inFlight += 1
        // Taken over, it was decided and shown before: only its popup is posted again.
        guard delivery.takeover == nil else { return post(delivery, .alert) }
        let seq = delivery.stored.seq
        // What of it Chime still does: the app's settings and the app in front say (Presenter+Decision).
        decide(delivery) { [unowned self] decision in self.decided(seq, decision) }
    }

    /// Sends `Notify` for a delivery whose popup was allowed, with what else was.
    func post(_ delivery: Delivery, _ presentation: PresentationOptions) {
        var alert = presentation.shaping(shownOnServer(delivery.stored.alert))
        // Taken over, the text is the one on screen: as late as it was when first shown.
        let shownAt = delivery.takeover == nil ? time.now : delivery.shownAt ?? time.now
        let lateBy = shownAt.timeIntervalSince(delivery.stored.due)
        if let line = EventLine.text(delivery.stored.alert, due: delivery.stored.due, shown: shownAt) {
            alert.body = alert.body.isEmpty ? line : line + "\n" + alert.body
        }
        if lateBy > Self.lateThreshold, delivery.stored.kind != .notice {
            let note = localized("Due %1$s ago.", LateText.spoken(lateBy))
            alert.body = alert.body.isEmpty ? note : alert.body + "\n" + note
            alert.hints.append(.custom(name: "x-chime-late-seconds", .int32(Int32(clamping: Int(lateBy)))))
        }
        // A snoozed copy takes the place of its origin if that is still on screen.
        if case .afresh(let old) = delivery.takeover { server.close(serverID: old) }
        let replaced = delivery.takeover.flatMap { takeover -> UInt32? in
            switch takeover {
            case .inPlace(let old), .probe(let old): old
            case .afresh: nil
            }
        }
            ?? delivery.stored.replacing.flatMap { id in onScreen.serverID { deliveries[$0]?.id == id } }
            ?? delivery.replacesServerID ?? 0
        let request = NotifyArguments(alert: alert, capabilities: server.capabilities, replacesID: replaced)
        // A server without the sound capability ignores the hints; play it here, and
        // only here, so it never sounds twice.
        if !request.serverPlaysSound { sounds?.play(alert.sound, for: delivery.stored.id) }
        delivery.keptUntilDismissed = request.serverKeepsIt
        delivery.keysByIdentifier = request.keysByIdentifier
        let seq = delivery.stored.seq
        server.notify(request) { [unowned self] result in self.answered(seq, result) }
    }

    private func answered(_ seq: Int64, _ result: Result<UInt32, NotificationClient.Failure>) {
        releaseSlot {
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
    }

    /// Gives back the slot a delivery held since ``send(_:)`` (its Notify was answered, or
    /// it ended without one), runs `finish`, then lets the next delivery take it: the one
    /// place a slot is given back, so the count of those in flight cannot drift.
    func releaseSlot(_ finish: () -> Void = {}) {
        inFlight -= 1
        finish()
        pump()
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
            // Cancelled while in flight: it is on screen, but nothing of it is kept. Snoozed, it goes.
            if case .snooze = delivery.closer { server.close(serverID: serverID) }
            remove(delivery)
            return
        }
        var gone = false
        if let takeover = delivery.takeover {
            delivery.takeover = nil
            switch tookOver(delivery, takeover, as: serverID) {
            case .shown: break
            case .gone: gone = true
            case .again: return
            }
        }
        delivery.shownAt = delivery.shownAt ?? time.now
        // What it replaced (replaces_id) is gone from the screen; past the limit, the
        // oldest is no longer followed.
        for seq in onScreen.insert(delivery.seq, as: serverID) {
            guard let gone = deliveries[seq] else { continue }
            remove(gone)
            if gone.serverID != serverID {
                logger.notice("More than \(Self.maxTracked) notifications are on screen; no longer following \(gone.id) (its buttons do nothing now).")
            }
        }
        guard !gone else { return server.close(serverID: serverID) }
        keepScreenRow(of: delivery, serverID: serverID)
        if let expires = delivery.stored.alert.expires, expires > 0 {
            // GNOME Shell ignores expire_timeout: Chime closes expiring notifications itself,
            // counted from when it was first shown.
            let shownFor = Int(time.now.timeIntervalSince(delivery.shownAt ?? time.now) * 1000)
            delivery.expiry = time.after(milliseconds: max(0, Int(expires) - shownFor)) { [unowned self, unowned delivery] in
                delivery.expiry = nil
                guard let current = delivery.serverID else { return }
                delivery.closer = .expiry
                self.server.close(serverID: current)
            }
        }
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
        backoff[delivery.stored.seq] = time.monotonic + UInt64(delay) * 1_000_000
        logger.warning("Notify for \(id) failed (\(reason)); trying again in \(LateText.describe(Double(delay) / 1000)) or when a server appears.")
        record(delivery, .retried, "Attempt \(attempts) failed: \(reason). Sending it again.")
        // It has to wait now: it goes in the store, with its count of attempts.
        makeDurable(delivery)
        queue.append(delivery.stored.seq)
    }

    /// One loop timeout at the earliest back-off of what waits; none when nothing does.
    private func armRetry() {
        guard server.isReady, let earliest = backoff.values.min() else {
            retryTimer = nil
            return
        }
        let now = time.monotonic
        let milliseconds = earliest > now ? Int((earliest - now + 999_999) / 1_000_000) : 0
        retryTimer = time.after(milliseconds: milliseconds) { [unowned self] in
            self.retryTimer = nil
            self.pump()
        }
    }
}
