import ChimeAPI
import ChimeCore
import FoundationEssentials
import Logging

/// What a press on a notification does, and what its leaving the screen leaves behind:
/// the history, the bus's signals, and the button's handler (complete, snooze, a
/// command, or opening the app).
final class PressHandler {
    let store: Store
    private let schedule: Schedule
    let commits: CommitQueue
    private let commands: CommandRunner
    /// The calendars followed: what is pressed on a reminder of theirs goes back into its item.
    private let calendars: Calendars?
    let launcher: AppLauncher
    private let badges: Badges
    private let signals: ServiceSignals
    let logger: Logger
    let now: () -> Date
    /// Whether the session is locked, for buttons with `authenticationRequired`.
    let lock: SessionLock?
    /// Presses of buttons with `authenticationRequired` made while the session was locked,
    /// oldest first. Not stored: see ``mayRunNow(_:)``.
    var held: [Press] = []
    /// Notifications pressed whose popup has not closed yet: their closing is the press's,
    /// not a dismissal.
    private var pressedIDs: Set<String> = []

    init(store: Store, schedule: Schedule, commits: CommitQueue, commands: CommandRunner, calendars: Calendars? = nil,
         launcher: AppLauncher, badges: Badges, signals: ServiceSignals, lock: SessionLock? = nil, logger: Logger,
         now: @escaping () -> Date) {
        self.store = store
        self.schedule = schedule
        self.commits = commits
        self.commands = commands
        self.calendars = calendars
        self.launcher = launcher
        self.badges = badges
        self.signals = signals
        self.logger = logger
        self.now = now
        self.lock = lock
    }

    /// Runs what a press means: announces it, then opens the app or runs the button's
    /// handler (a foreground button: both, the app first). A button that requires
    /// authentication waits while the session is locked.
    func pressed(_ press: Press) {
        let (id, key, alert) = (press.id, press.key, press.alert)
        let options = press.button?.resolvedOptions ?? ActionOptions()
        // A popup kept on screen after Complete (mako, lxqt-notificationd) can still be
        // pressed: its lineage is over, so only opening the app is still meant.
        if key != Action.defaultKey, press.kind != .immediate,
           let completed = (try? commits.read({ () throws(StoreError) in try store.notification(id: id) }))??.completed {
            logger.notice("Ignored '\(key)' on \(id): it was completed at \(completed).")
            record(HistoryEntry(time: now(), id: id, event: .pressed, title: alert.title,
                                detail: "\(press.label): ignored, it was already completed.", action: key))
            return
        }
        if options.authenticationRequired, key != Action.defaultKey, !mayRunNow(press) { return }
        // A server that keeps a pressed popup never closes it: the set stays bounded.
        if pressedIDs.count >= 1_000 { pressedIDs.removeAll() }
        pressedIDs.insert(id)
        logger.info("Action '\(key)' on \(id).")
        signals.actionInvoked(id, key: key, userInfo: alert.userInfo)
        record(HistoryEntry(time: now(), id: id, event: .pressed, title: alert.title, detail: press.button?.label ?? "", action: key))
        // A click on the notification itself opens its app, as iOS launches the app with
        // the notification in its launch options.
        if key == Action.defaultKey, let entry = alert.desktopEntry {
            launcher.open(desktopEntry: entry, id: id, userInfo: alert.userInfo)
            return
        }
        guard options.activationMode == .foreground, key != Action.defaultKey else { return run(press) }
        bringForward(press) { [unowned self] in self.run(press) }
    }

    /// Runs the pressed button's handler; none: the button is only announced.
    private func run(_ press: Press) {
        let (id, key, alert) = (press.id, press.key, press.alert)
        switch press.handler {
        case nil, .announce:
            break
        case .complete:
            badges.lower(of: alert)
            if !completeOccurrence(id, title: alert.title) { complete(id, title: alert.title) }
        case .snooze(let time):
            do { try snooze(id, alert: alert, until: time) } catch { logger.error("Cannot snooze \(id): \(error)") }
        case .command(let argv, let timeout):
            commands.run(argv: argv, timeout: timeout, id: id, action: key,
                         userInfoJSON: CommandRunner.userInfoJSON(alert.userInfo))
        }
    }

    /// A notification left the screen: the history says how (for those of the schedule;
    /// `chime notify` ones and Chime's own notices stay out of it), and the bus hears it.
    func closed(_ closing: Closing) {
        let wasPressed = pressedIDs.remove(closing.id) != nil
        if closing.kind == .scheduled {
            record(HistoryEntry(time: now(), id: closing.id, event: closing.reason == 1 ? .expired : .closed,
                                title: closing.alert.title, detail: closing.detail))
            // Dismissed by the user: the alarm was seen (RFC 9074 6), on every client of its calendar.
            if closing.reason == 2, !wasPressed, let (_, link) = calendarItem(of: closing.id) {
                calendars?.write(.acknowledge, for: link, at: now())
            }
        }
        signals.closed(closing.id, reason: closing.reason)
    }

    // MARK: - Handlers

    /// Ends the notification and its whole lineage; then says so on the bus.
    private func complete(_ id: String, title: String) {
        schedule.complete(id, title: title, at: now()) { [unowned self] result in
            switch result {
            case .success(let ended):
                self.logger.info("Completed \(id)\(ended.isEmpty ? "" : "; no further occurrences of \(ended.joined(separator: ", "))").")
                if let (_, link) = self.calendarItem(of: id) { self.calendars?.write(.complete, for: link, at: self.now()) }
                self.signals.completed(id)
            case .failure(let error):
                self.logger.error("Cannot complete \(id): \(error)")
            }
        }
    }

    /// Complete on a reminder of a repeating item of a followed calendar: the calendar owns
    /// the series, so only the occurrence that rang is done (written into the item as the
    /// calendar says it) and its snoozed copies go; the series rings on. False for any other.
    private func completeOccurrence(_ id: String, title: String) -> Bool {
        guard let calendars, let (pressed, link) = calendarItem(of: id), calendars.follows(link) else { return false }
        let root = pressed.origin.flatMap { origin in (try? commits.read({ () throws(StoreError) in try store.notification(id: origin) })) ?? nil }
            ?? pressed
        guard root.rule.recurrence != nil, let rootLink = root.link, let fired = root.lastFired else { return false }
        let zone = Zone.current
        var index = (root.rule.firstOccurrence(onOrAfter: fired.addingTimeInterval(0.001), systemZone: zone)?.index ?? root.nextIndex) - 1
        while index > 0, let local = root.rule.wallClock(ofOccurrence: index, systemZone: zone), root.rule.skipped.contains(local) { index -= 1 }
        guard index >= 0, let occurrence = root.rule.wallClock(ofOccurrence: index, systemZone: zone) else { return false }
        calendars.write(.completeOccurrence(occurrence), for: rootLink, at: now())
        let instant = now()
        record(HistoryEntry(time: instant, id: root.id, event: .completed, title: title,
                            detail: "The occurrence of \(occurrence); the series goes on in its calendar."))
        let copies = ((try? commits.read({ () throws(StoreError) in try store.scheduledCopies(of: root.id) })) ?? []).filter { $0 != root.id }
        if !copies.isEmpty {
            schedule.cancel(ids: copies, at: instant, detail: "Its occurrence was completed.") { [logger] result in
                if case .failure(let error) = result { logger.error("Cannot cancel the snoozed copies of \(root.id): \(error)") }
            }
        }
        logger.info("Completed the occurrence of \(occurrence) of \(root.id); its series goes on.")
        return true
    }

    /// Schedules a one-shot copy for `time`, or throws when that is not ahead; the series
    /// itself keeps its times. `done` hears the copy once it is stored, or why it was not.
    func snooze(_ id: String, alert: Alert, until time: SnoozeTime,
                done: @escaping (Result<ScheduledNotification, StoreError>) -> Void = { _ in }) throws(FieldError) {
        let instant = now()
        let zone = Zone.current
        let rule = try time.fireRule(now: instant, systemZone: zone)
        let fireDate = rule.occurrence(0, systemZone: zone) ?? instant
        let detail = switch time {
        case .after(let seconds): "Again in \(LateText.describe(seconds))."
        case .at(let text): "Again at \(text)."
        }
        var copy = ScheduledNotification(id: NotificationID.random(), alert: alert, rule: rule, lateLimit: nil,
                                         created: instant, nextIndex: 0, nextFire: fireDate)
        // RFC 9074 7 in the item's calendar: the copy is the snooze alarm written there, and
        // is read as it when the file is read again.
        var relinked: String?
        if let (snoozed, link) = calendarItem(of: id) {
            let snoozeUID = "chime-snooze-" + NotificationID.random()
            let occurrence = snoozed.rule.recurrence == nil ? nil
                : (snoozed.lastFired ?? snoozed.nextFire).map { $0.addingTimeInterval(snoozed.alert.leadTime ?? 0) }
            if let alarm = calendars?.write(.snooze(until: fireDate, snoozeUID: snoozeUID, occurrence: occurrence), for: link, at: instant) {
                copy.link = CalendarLink(uid: link.uid, recurrence: link.recurrence, alarm: snoozeUID, source: link.source)
                if alarm != link.alarm, snoozed.link != nil { relinked = alarm }
            }
        }
        schedule.addSnoozed(copy, of: id, relinked: relinked, event: { copyID in
            HistoryEntry(time: instant, id: id, event: .snoozed, title: alert.title, detail: detail, copy: copyID)
        }, done: { [unowned self] result in
            switch result {
            case .success(let copy):
                self.logger.info("Snoozed \(id) as \(copy.id) until \(fireDate).")
            case .failure(let error):
                self.logger.error("Cannot snooze \(id): \(error)")
            }
            done(result)
        })
    }

    /// The notification `id` and the calendar item it was made from (its own, or its
    /// lineage's for a snoozed copy); nil for one of Chime's own.
    private func calendarItem(of id: String) -> (ScheduledNotification, CalendarLink)? {
        guard calendars != nil, let notification = (try? commits.read({ () throws(StoreError) in try store.notification(id: id) })) ?? nil
        else { return nil }
        if let link = notification.link { return (notification, link) }
        guard let origin = notification.origin,
              let root = (try? commits.read({ () throws(StoreError) in try store.notification(id: origin) })) ?? nil,
              let link = root.link else { return nil }
        return (notification, link)
    }

    /// Writes one history event with the next group commit.
    func record(_ entry: HistoryEntry) {
        commits.stage({ db in try self.store.record(entry, in: db) }, done: { [unowned self] result in
            if case .failure(let error) = result { self.logger.error("Cannot record \(entry.event) of \(entry.id): \(error)") }
        })
    }
}
