import ChimeAPI
import ChimeCore
import EventLoop
import FoundationEssentials
import Localization
import Logging

/// Decides what is due, on time and without polling, and hands it to the ``Presenter``.
///
/// The ``Schedule``'s heap holds every due time; one wall-clock alarm is armed at the
/// earliest. Nothing else wakes the daemon, however many are scheduled. What fires is
/// recorded through the schedule, which moves each to its next due time. The alarm's
/// clock-change event (clock set, resume from suspend) and a change of the system's
/// time zone (``systemZoneChanged()``) make it look again; only the latter moves
/// floating notifications.
final class FireTimer {
    /// More late notifications than this at one wake-up are shown as one summary.
    static let coalescingThreshold = 3
    /// The most notifications read ahead of their due time. Beyond it a batch is read as
    /// it fires: a million due at one instant would otherwise all be decoded and held in
    /// memory from the arming on (seconds of start-up, hundreds of MiB).
    static let readAhead = 64
    /// The longest the timer's fallback sleeps when the kernel refused an arming.
    static let fallbackPollMilliseconds = 60_000

    private let store: Store
    private let schedule: Schedule
    private let presenter: Presenter
    private let commits: CommitQueue
    private let time: Timekeeper
    private let logger: Logger
    private var alarm: Alarm?
    /// A plain timeout standing in for the alarm while the kernel refuses to arm it.
    private var fallback: AnyObject?
    /// The next batch, read from the store while the daemon waits for it, so reading and
    /// decoding rows is not on the way from the due time to the screen.
    private var prepared: [String: ScheduledNotification] = [:]
    /// What is read ahead now, for the tests.
    var readAheadIDs: [String] { prepared.keys.sorted() }

    /// A notification came due and went to the presenter (or was dropped, when `shown` is false).
    var onFired: (ScheduledNotification, _ lateBy: TimeInterval, _ shown: Bool) -> Void = { _, _, _ in }

    init(store: Store, schedule: Schedule, presenter: Presenter, commits: CommitQueue, time: Timekeeper, logger: Logger) {
        self.store = store
        self.schedule = schedule
        self.presenter = presenter
        self.commits = commits
        self.time = time
        self.logger = logger
        schedule.onChange = { [unowned self] change in self.scheduleChanged(change) }
    }

    /// Loads the schedule, catches up on what was missed, and arms the alarm.
    func start() throws {
        alarm = try time.makeAlarm { [unowned self] event in
            if event == .clockChanged { self.logger.info("The clock changed; checking the schedule.") }
            self.fireDue()
        }
        try schedule.load()
        logger.info("\(schedule.upcoming.count) scheduled.")
        fireDue()
    }

    /// What a change of the schedule means here: an earlier due time re-arms the alarm,
    /// and what was read ahead of a notification changed or gone is read again.
    private func scheduleChanged(_ change: Schedule.Change) {
        switch change {
        case .earliest: arm()
        case .removed: prepared = prepared.filter { schedule.isScheduled($0.key) }
        case .everything: prepared.removeAll()
        }
    }

    // MARK: - Timer

    private func arm() {
        guard let next = schedule.earliest() else {
            alarm?.disarm()
            return
        }
        prepare(dueBy: next)
        fallback = nil
        do {
            try alarm?.arm(at: next)
        } catch {
            // An arming error must never stop firing: a plain timeout takes over, and
            // every wake-up tries the alarm again.
            let milliseconds = Int(min(max(0, next.timeIntervalSince(time.now)) * 1000, Double(Self.fallbackPollMilliseconds)))
            logger.error("Cannot arm the timer (\(error)); looking again in \(milliseconds) ms.")
            fallback = time.after(milliseconds: milliseconds) { [unowned self] in
                self.fallback = nil
                self.fireDue()
            }
        }
    }

    /// Reads the first ``readAhead`` notifications due at `date` ahead of time, in the order
    /// they fire, once per arming.
    private func prepare(dueBy date: Date) {
        let wanted = Self.readAhead - prepared.values.count(where: { $0.nextFire.map { $0 <= date } ?? false })
        guard wanted > 0 else { return }
        let ids = schedule.firstDue(by: date, count: wanted) { prepared[$0] != nil }
        guard !ids.isEmpty else { return }
        // The rows must include what is staged (the firing just recorded, a move of
        // floating times): a stale row would fire from its old due time and count.
        commits.commit()
        do {
            for notification in try store.notifications(ids: ids) { prepared[notification.id] = notification }
        } catch {
            logger.warning("Cannot read ahead: \(error)")
        }
    }

    /// Fires everything due now, as one batch, then re-arms.
    private func fireDue() {
        let woke = time.monotonic
        let instant = time.now
        let due = schedule.takeDue(by: instant)
        let earliest = due.first?.date
        var sent: ClosedRange<UInt64>?
        if !due.isEmpty { sent = fire(due.map(\.id), at: instant) }
        arm()
        if let earliest, logger.logLevel <= .debug {
            logger.debug("\(firingTrace(count: due.count, wokeLate: instant.timeIntervalSince(earliest), woke: woke, sent: sent))")
        }
    }

    /// Where the time of one batch went, on chimed's side of the bus: the kernel's wake-up
    /// after the due time, the first and last delivery (with a server ready and a slot
    /// free, its `Notify` is written to the bus before `deliver` returns), then the rest
    /// of the batch (history staged, signals, the next arming). `make bench` reads these.
    private func firingTrace(count: Int, wokeLate: TimeInterval, woke: UInt64, sent: ClosedRange<UInt64>?) -> String {
        func milliseconds(_ nanoseconds: UInt64) -> String { millisecondsText(.nanoseconds(Int64(nanoseconds)), decimals: 2) }
        let done = time.monotonic
        let notify = sent.map { "first delivered \(milliseconds($0.lowerBound - woke)) ms after waking, last \(milliseconds($0.upperBound - woke)) ms; " }
        return "Fired \(count): woke \(millisecondsText(.seconds(wokeLate), decimals: 2)) ms after due; " + (notify ?? "none delivered; ")
            + "done \(milliseconds(done - woke)) ms after waking."
    }

    /// Fires `ids`, due at `instant`; returns when the first and the last of the batch
    /// were delivered (monotonic nanoseconds), nil when none was.
    @discardableResult
    private func fire(_ ids: [String], at instant: Date) -> ClosedRange<UInt64>? {
        var firstSent: UInt64?
        var lastSent: UInt64?
        let zone = Zone.current
        var shown: [(ScheduledNotification, TimeInterval)] = []
        var late: [(ScheduledNotification, due: Date, TimeInterval)] = []
        var dropped: [(ScheduledNotification, TimeInterval)] = []
        // Read, decide and show one at a time, in due order: the first Notify of a batch
        // does not wait for the rest of the batch to be read.
        for id in ids {
            let notification: ScheduledNotification
            do {
                guard let found = try prepared.removeValue(forKey: id) ?? store.notifications(ids: [id]).first else { continue }
                notification = found
            } catch {
                logger.error("Cannot read due notification \(id): \(error)")
                continue
            }
            guard let dueDate = notification.nextFire else { continue }
            let decision = MissedFire.decide(rule: notification.rule, due: dueDate, now: instant,
                                             lateLimit: notification.lateLimit, systemZone: zone)
            var advanced = notification
            let lateBy: TimeInterval
            switch decision {
            case .wait:
                continue
            case .fire(let by, let following):
                lateBy = by
                advanced.nextFire = following
                advanced.lastFired = instant
                advanced.fireCount += 1
            case .drop(let by, let following):
                lateBy = by
                advanced.nextFire = following
                logger.notice("Dropped \(id): \(Int(by)) s late, past its limit.")
            }
            advanced.nextIndex = advanced.nextFire.flatMap { notification.rule.firstOccurrence(onOrAfter: $0, systemZone: zone)?.index }
                ?? notification.nextIndex + 1
            advanced.state = advanced.nextFire == nil ? .done : .scheduled
            if case .drop = decision {
                dropped.append((advanced, lateBy))
            } else if lateBy > Presenter.lateThreshold {
                // Due at the most recent missed occurrence, which lateBy counts from: the
                // popup's late mark then says what the history says.
                late.append((advanced, instant.addingTimeInterval(-lateBy), lateBy))
            } else {
                // A snoozed copy takes the place of its origin if that is still on screen.
                presenter.deliver(id: id, kind: .scheduled, alert: notification.alert, replacing: notification.origin, due: dueDate)
                lastSent = time.monotonic
                firstSent = firstSent ?? lastSent
                shown.append((advanced, lateBy))
            }
        }
        presentLate(late, at: instant)
        let events = history(onTime: shown, late: late.map { ($0.0, $0.2) }, dropped: dropped, at: instant)
        shown += late.map { ($0.0, $0.2) }
        // Recorded after showing: the fsync is not on the way to the screen. The firing,
        // its history and the presenter's deliveries ride in one transaction; a crash
        // before it commits shows them once more after the restart, which beats not at all.
        schedule.recordFirings((shown + dropped).map(\.0), at: instant, events: events)
        for (notification, lateBy) in shown { onFired(notification, lateBy, true) }
        for (notification, lateBy) in dropped { onFired(notification, lateBy, false) }
        guard let firstSent, let lastSent else { return nil }
        return firstSent...lastSent
    }

    /// The history rows of one batch, in due order within each kind.
    private func history(onTime: [(ScheduledNotification, TimeInterval)], late: [(ScheduledNotification, TimeInterval)],
                         dropped: [(ScheduledNotification, TimeInterval)], at instant: Date) -> [HistoryEntry] {
        let summarized = late.count > Self.coalescingThreshold
        return onTime.map { HistoryEntry(time: instant, id: $0.0.id, event: .fired, title: $0.0.alert.title) }
            + late.map { notification, lateBy in
                HistoryEntry(time: instant, id: notification.id, event: .late, title: notification.alert.title,
                             detail: "Due \(LateText.describe(lateBy)) ago" + (summarized ? "; shown in a summary of \(late.count)." : "."))
            }
            + dropped.map { notification, lateBy in
                let limit = notification.lateLimit.map { " of \(LateText.describe($0))" } ?? ""
                return HistoryEntry(time: instant, id: notification.id, event: .dropped, title: notification.alert.title,
                                    detail: "\(LateText.describe(lateBy)) late, past its late limit\(limit).")
            }
    }

    /// Shows what was missed (the presenter says how late); many at once become one
    /// summary instead of a storm.
    private func presentLate(_ late: [(ScheduledNotification, due: Date, TimeInterval)], at instant: Date) {
        if late.count > Self.coalescingThreshold {
            var summary = Alert(title: pluralized("%1$d reminder while you were away", "%1$d reminders while you were away",
                                                  count: late.count, late.count))
            let more = late.count - 8
            summary.body = late.prefix(8).map { "• " + $0.0.alert.title }.joined(separator: "\n")
                + (more > 0 ? "\n" + pluralized("…and %1$d more", "…and %1$d more", count: more, more) : "")
            summary.sound = late.map(\.0.alert.sound).first { $0 != .serverDefault } ?? .serverDefault
            presenter.deliver(id: "summary-" + NotificationID.random(), kind: .notice, alert: summary, due: instant)
            return
        }
        for (notification, due, _) in late {
            presenter.deliver(id: notification.id, kind: .scheduled, alert: notification.alert, due: due)
        }
    }

    // MARK: - Time zone

    /// The system's time zone changed (`/etc/localtime`): floating notifications move.
    func systemZoneChanged() {
        Zone.resetCurrent()
        logger.info("The system time zone is now \(Zone.current.identifier).")
        do { try schedule.moveFloating() } catch { logger.error("Cannot move floating notifications: \(error)") }
        fireDue()
    }
}
