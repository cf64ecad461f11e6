import ChimeAPI
import ChimeCore
import FoundationEssentials
import HeapModule
import Logging

/// The schedule, with one owner: each change writes the store and moves the due-time
/// heap and the place watch in the same call, so that no caller can do one half and
/// forget the other (a reminder that never fires, or one that fires after its cancel).
///
/// Two kinds of change, two orders:
/// - A change someone asks for (Schedule, Update, Skip, Cancel, a press's Complete or
///   snooze, an import) is staged in the group commit and reaches the
///   heap and the watch only once its transaction is on disk. One the store refuses (a
///   full disk) leaves all three as they were, and its caller hears why.
/// - What has already happened (a firing, a crossing, a change of the system's zone)
///   moves the heap and the watch at once and is written with the next commit: the
///   moment cannot be refused, and a write that fails shows it once more after a
///   restart, which beats never again.
///
/// The timer (``FireTimer``) reads the heap through ``earliest()``, ``firstDue(by:count:skipping:)``
/// and ``takeDue(by:)``, and hears of each change through ``onChange``. The store's
/// methods that change the schedule are called from here and nowhere else in chimed.
final class Schedule {
    /// What the timer hears after a change.
    enum Change {
        /// A due time came before every other in the heap: the alarm is armed too late.
        case earliest
        /// Notifications left the schedule or were written anew: rows read of them are stale.
        case removed
        /// Every due time may have moved (all cancelled, floating ones moved).
        case everything
    }

    private struct Due: Comparable {
        let date: Date
        let id: String
        static func < (a: Due, b: Due) -> Bool { (a.date, a.id) < (b.date, b.id) }
    }

    private let store: Store
    private let commits: CommitQueue
    private let logger: Logger
    /// Candidate due times; an entry is current only while `dueTimes` agrees with it.
    private var heap = Heap<Due>()
    private var dueTimes: [String: Date] = [:]
    /// The watch of the notifications that fire at a place rather than at a time: they
    /// have no due time, so no entry in the heap.
    private let places: PlaceTriggers?

    /// Draws the id a notification takes when its own is taken.
    var freshID: () -> String = NotificationID.random
    /// The timer's handler of each change (one: the fire timer that arms the alarm).
    var onChange: (Change) -> Void = { _ in }

    /// Entries in the heap, current and stale, for the tests.
    var heapEntryCount: Int { heap.count }
    /// The due time of each notification the heap holds a current entry for, for the tests.
    var heapDueTimes: [String: Date] {
        var current: [String: Date] = [:]
        for entry in heap.unordered where dueTimes[entry.id] == entry.date { current[entry.id] = entry.date }
        return current
    }

    init(store: Store, commits: CommitQueue, places: PlaceTriggers? = nil, logger: Logger) {
        (self.store, self.commits, self.places, self.logger) = (store, commits, places, logger)
        // The watch reports what the user did at a place; what that changes is written here.
        places?.onPresence = { [unowned self] notification in self.recordPresence(of: notification) }
        places?.onCrossing = { [unowned self] fired, once, event in self.recordCrossing(fired, once: once, event: event) }
    }

    // MARK: - Loading

    /// Reads the due times of the store; when the system's zone changed since the last
    /// run, floating notifications move to it.
    func load() throws {
        let entries = try store.dueTimes()
        // Filled as a local and stored once: each write to a property of this class in the
        // loop was a dynamic exclusivity check, a tenth of a million's start-up.
        var due: [String: Date] = [:]
        due.reserveCapacity(entries.count)
        for entry in entries { due[entry.id] = entry.nextFire }
        dueTimes = due
        // Built in one pass (linear), not inserted one by one (n log n): a million at start-up.
        heap = Heap(entries.map { Due(date: $0.nextFire, id: $0.id) })
        // Floating due times were computed in the zone of their time; redo them if it changed.
        if try store.meta("zone") != Zone.current.identifier {
            try moveFloating()
        }
    }

    /// Reads the scheduled place notifications into the watch, which starts following
    /// what they need.
    func loadPlaces() throws(StoreError) {
        guard let places else { return }
        places.start(watching: try store.scheduledPlaces())
    }

    // MARK: - Reading

    /// How many notifications wait for a time, and the earliest of those times (for Status).
    var upcoming: (count: Int, next: Date?) {
        (dueTimes.count, dueTimes.values.min())
    }

    /// Whether `id` waits for a time.
    func isScheduled(_ id: String) -> Bool { dueTimes[id] != nil }

    /// Whether a place notification waits for its source (GeoClue or NetworkManager).
    func isWaiting(_ notification: ScheduledNotification) -> Bool { places?.isWaiting(notification) ?? false }

    /// `locationSource` and `networkSource` for Status.
    var placeSources: (location: String, network: String) { places?.sourceStates ?? ("unused", "unused") }

    /// The ids of the place notifications watched, for the tests.
    var watchedPlaceIDs: [String] { places?.watchedIDs ?? [] }

    // MARK: - For the timer

    /// The earliest current due time; stale entries above it are dropped on the way, so
    /// the timer is never armed for a cancelled notification.
    func earliest() -> Date? {
        while let top = heap.min, dueTimes[top.id] != top.date { heap.removeMin() }
        return heap.min?.date
    }

    /// Up to `count` current ids due by `date`, the first to fire, but for those `skipping`
    /// names; in no order. The heap's storage is scanned in place: a pass over 100,000
    /// entries costs well under a millisecond.
    func firstDue(by date: Date, count: Int, skipping: (String) -> Bool) -> [String] {
        guard count > 0 else { return [] }
        var first = Heap<Due>()
        for entry in heap.unordered where entry.date <= date && dueTimes[entry.id] == entry.date && !skipping(entry.id) {
            first.insert(entry)
            if first.count > count { first.removeMax() }
        }
        return first.unordered.map(\.id)
    }

    /// Takes the current due times up to `instant` off the heap, earliest first. They stay
    /// due until ``recordFirings(_:at:events:)`` says what came of them.
    func takeDue(by instant: Date) -> [(id: String, date: Date)] {
        var due: [(id: String, date: Date)] = []
        while let top = heap.min, top.date <= instant {
            heap.removeMin()
            guard dueTimes[top.id] == top.date else { continue }
            due.append((top.id, top.date))
        }
        return due
    }

    // MARK: - Changes asked for

    /// Adds `notification`, under a fresh id when its own is taken; `done` hears it as stored.
    func add(_ notification: ScheduledNotification, done: @escaping (Result<ScheduledNotification, StoreError>) -> Void) {
        add([notification]) { result in done(result.map { $0[0] }) }
    }

    /// Adds `notifications`, all or none, in one transaction; `done` hears them as stored.
    func add(_ notifications: [ScheduledNotification], done: @escaping (Result<[ScheduledNotification], StoreError>) -> Void) {
        var stored = notifications
        commits.stage({ [unowned self] db in
            for index in stored.indices { try self.insert(&stored[index], in: db) }
        }, done: { [unowned self] result in
            if case .success = result { for notification in stored { self.track(notification) } }
            done(result.map { stored })
        })
    }

    /// Adds `copy`, a snoozed copy of `id`, to `id`'s lineage, with the history event
    /// `event` makes from the copy's id in the same transaction; `done` hears it as stored.
    /// `relinked`, when given, is the key `id`'s calendar alarm has now (``Store/relink(id:alarm:in:)``).
    func addSnoozed(_ copy: ScheduledNotification, of id: String, relinked: String? = nil,
                    event: @escaping (_ copyID: String) -> HistoryEntry,
                    done: @escaping (Result<ScheduledNotification, StoreError>) -> Void) {
        var stored = copy
        commits.stage({ [unowned self] db in
            if let relinked { try self.store.relink(id: id, alarm: relinked, in: db) }
            stored.origin = try self.store.lineageRoot(of: id, in: db)
            try self.insert(&stored, in: db)
            try self.store.record(event(stored.id), in: db)
        }, done: { [unowned self] result in
            if case .success = result { self.track(stored) }
            done(result.map { stored })
        })
    }

    /// Writes `notification` over the scheduled one of its id, with an `edited` event
    /// saying `detail`; `done` hears false when none is scheduled under that id any more.
    func update(_ notification: ScheduledNotification, detail: String, at instant: Date,
                done: @escaping (Result<Bool, StoreError>) -> Void) {
        var replaced = false
        commits.stage({ [unowned self] db in
            replaced = try self.store.replace(notification, detail: detail, at: instant, in: db)
        }, done: { [unowned self] result in
            if case .success = result, replaced {
                self.untrack(ids: [notification.id])
                self.track(notification)
            }
            done(result.map { replaced })
        })
    }

    /// Adds `new`, writes each of `updated` over the notification of its id, scheduled or
    /// done, with an `edited` event saying `detail`, and cancels `removed` (their items left
    /// their calendar): all or none, in one transaction (a calendar read again). `done`
    /// hears them as stored, the new ones under their ids, and the ids removed.
    func merge(new: [ScheduledNotification], updated: [ScheduledNotification], removed: [String] = [], detail: String,
               at instant: Date, also: ((Store.Transaction) throws -> Void)? = nil,
               done: @escaping (Result<(new: [ScheduledNotification], updated: [ScheduledNotification], removed: [String]),
                                       StoreError>) -> Void) {
        var stored = new
        var written: [ScheduledNotification] = []
        var deleted: [String] = []
        commits.stage({ [unowned self] db in
            try also?(db)
            if !removed.isEmpty {
                deleted = try self.store.cancel(ids: removed, at: instant, detail: "Removed from its calendar.", in: db)
            }
            for notification in updated {
                if try self.store.replace(notification, detail: detail, at: instant, anyState: true, in: db) { written.append(notification) }
            }
            for index in stored.indices { try self.insert(&stored[index], in: db) }
        }, done: { [unowned self] result in
            if case .success = result {
                self.untrack(ids: written.map(\.id) + deleted)
                for notification in written + stored { self.track(notification) }
            }
            done(result.map { (stored, written, deleted) })
        })
    }

    /// Writes the occurrences `notification` skips and its next one.
    func skip(_ notification: ScheduledNotification, done: @escaping (Result<Void, StoreError>) -> Void) {
        commits.stage({ [store] db in
            try store.skip(id: notification.id, skipped: notification.rule.skipped, nextIndex: notification.nextIndex,
                           nextFire: notification.nextFire, in: db)
        }, done: { [unowned self] result in
            if case .success = result {
                self.untrack(ids: [notification.id])
                self.track(notification)
            }
            done(result)
        })
    }

    /// Cancels `ids` (scheduled or done), each with a `cancelled` event saying `detail`;
    /// `done` hears those that were there.
    /// `also` is written in the same transaction (the calendar they came from, removed).
    func cancel(ids: [String], at instant: Date, detail: String, also: ((Store.Transaction) throws -> Void)? = nil,
                done: @escaping (Result<[String], StoreError>) -> Void) {
        cancel(done: done) { [store] db in
            try also?(db)
            return try store.cancel(ids: ids, at: instant, detail: detail, in: db)
        }
    }

    /// Cancels the scheduled notifications whose userInfo has `key` equal to `value`.
    func cancel(matchingKey key: String, value: String, at instant: Date, detail: String,
                done: @escaping (Result<[String], StoreError>) -> Void) {
        cancel(done: done) { [store] db in
            try store.cancel(ids: try store.ids(matchingKey: key, value: value, in: db), at: instant, detail: detail, in: db)
        }
    }

    /// Cancels every scheduled notification. Changes staged in the same batch are done in
    /// the order staged, so one scheduled after it stays.
    func cancelAll(at instant: Date, detail: String, done: @escaping (Result<[String], StoreError>) -> Void) {
        cancel(everything: true, done: done) { [store] db in try store.cancelScheduled(at: instant, detail: detail, in: db) }
    }

    /// Deletes what `select` deletes; `everything` when that is every scheduled notification.
    private func cancel(everything: Bool = false, done: @escaping (Result<[String], StoreError>) -> Void,
                        select: @escaping (Store.Transaction) throws -> [String]) {
        var deleted: [String] = []
        commits.stage({ db in deleted = try select(db) }, done: { [unowned self] result in
            if case .success = result {
                if everything { self.untrackAll() } else { self.untrack(ids: deleted) }
            }
            done(result.map { deleted })
        })
    }

    /// Ends `id`'s lineage (it, its origin and every snoozed copy) with a `completed` event
    /// titled `title`; `done` hears the ids that were still to fire.
    func complete(_ id: String, title: String, at instant: Date, done: @escaping (Result<[String], StoreError>) -> Void) {
        var ended: [String] = []
        commits.stage({ [store] db in
            ended = try store.complete(id: id, at: instant, in: db)
            let detail = ended.isEmpty ? "Nothing was left to fire." : "No further occurrences of \(ended.joined(separator: ", "))."
            try store.record(HistoryEntry(time: instant, id: id, event: .completed, title: title, detail: detail), in: db)
        }, done: { [unowned self] result in
            if case .success = result { self.untrack(ids: ended) }
            done(result.map { ended })
        })
    }

    // MARK: - What happened

    /// Records what fired or was dropped at `instant`, each with its next occurrence (or
    /// none), and the history `events` of the batch. The heap moves now; the rows with the
    /// next commit, in one transaction with the presenter's deliveries: a crash before it
    /// commits shows them once more after the restart.
    func recordFirings(_ firings: [ScheduledNotification], at instant: Date, events: [HistoryEntry]) {
        commits.stage({ [store] db in
            for notification in firings {
                try store.recordFiring(id: notification.id, at: notification.lastFired == instant ? instant : nil,
                                       nextIndex: notification.nextIndex, nextFire: notification.nextFire, in: db)
            }
            for event in events { try store.record(event, in: db) }
        }, done: { [logger] result in
            if case .failure(let error) = result { logger.error("Cannot record firings (they fire again after a restart): \(error)") }
        })
        for notification in firings {
            dueTimes[notification.id] = notification.nextFire
            if let next = notification.nextFire { heap.insert(Due(date: next, id: notification.id)) }
        }
    }

    /// Moves every floating notification to its wall-clock time in the system's zone now.
    func moveFloating() throws {
        let zone = Zone.current
        var moved: [(id: String, nextIndex: Int, date: Date?)] = []
        // The store must hold what is staged (one just scheduled); what is not scheduled
        // here any more (cancelled, done) stays where it is.
        commits.commit()
        let ids = try store.floatingIDs().filter { dueTimes[$0] != nil }
        for notification in try store.notifications(ids: ids) {
            let date = notification.rule.occurrence(notification.nextIndex, systemZone: zone)
            moved.append((notification.id, notification.nextIndex, date))
            dueTimes[notification.id] = date
            if let date { heap.insert(Due(date: date, id: notification.id)) }
        }
        commits.stage({ [store] db in
            for item in moved { try store.reschedule(id: item.id, nextIndex: item.nextIndex, nextFire: item.date, in: db) }
            try store.setMeta("zone", zone.identifier, in: db)
        }, done: { [logger] result in
            if case .failure(let error) = result { logger.error("Cannot record the floating notifications' new times: \(error)") }
        })
        onChange(.everything)
    }

    /// Keeps where the user now is for a place notification that did not fire.
    private func recordPresence(of notification: ScheduledNotification) {
        let id = notification.id, presence = notification.presence
        places?.keep(notification)
        commits.stage({ [store] db in try store.recordPresence(id: id, presence, in: db) }, done: { [logger] result in
            if case .failure(let error) = result { logger.error("Cannot record where the user is for \(id): \(error)") }
        })
    }

    /// Records a crossing that fired `fired` (`once`: for the last time), with its event.
    private func recordCrossing(_ fired: ScheduledNotification, once: Bool, event: HistoryEntry) {
        guard let presence = fired.presence, let instant = fired.lastFired else { return }
        commits.stage({ [store] db in
            try store.recordCrossing(id: fired.id, at: instant, presence: presence, done: once, in: db)
            try store.record(event, in: db)
        }, done: { [logger] result in
            if case .failure(let error) = result { logger.error("Cannot record the crossing of \(fired.id): \(error)") }
        })
        if once { places?.unwatch(ids: [fired.id]) } else { places?.keep(fired) }
    }

    // MARK: - The heap and the watch

    /// Inserts `notification`, drawing ids until one is free: the one place that does.
    private func insert(_ notification: inout ScheduledNotification, in db: Store.Transaction) throws {
        while try !store.insert(notification, in: db) { notification.id = freshID() }
    }

    /// The earliest time any of `ids` fires next.
    func earliestFire(among ids: [String]) -> Date? {
        ids.compactMap { dueTimes[$0] }.min()
    }

    /// Puts a stored notification in the heap, or in the place watch.
    private func track(_ notification: ScheduledNotification) {
        if places?.watch(notification) == true { return }
        guard let date = notification.nextFire else { return }
        dueTimes[notification.id] = date
        heap.insert(Due(date: date, id: notification.id))
        if date <= (heap.min?.date ?? date) { onChange(.earliest) }
    }

    /// Forgets notifications gone from the store (their heap entries go stale and are skipped).
    private func untrack(ids: [String]) {
        places?.unwatch(ids: ids)
        for id in ids { dueTimes[id] = nil }
        // Once most entries are stale, the heap is built again from what is left, in one
        // pass: skipping a million stale ones one removal at a time, as a CancelAll of a
        // million left them, took seconds at the next arming.
        if heap.count > 2 * dueTimes.count + FireTimer.readAhead {
            heap = Heap(dueTimes.map { Due(date: $0.value, id: $0.key) })
        }
        onChange(.removed)
    }

    /// Forgets every notification: all scheduled were cancelled. A CancelAll of a million
    /// spent a second removing them one id at a time.
    private func untrackAll() {
        places?.unwatchAll()
        dueTimes.removeAll()
        heap = Heap()
        onChange(.everything)
    }
}
