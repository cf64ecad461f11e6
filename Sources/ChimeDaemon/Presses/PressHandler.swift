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

    init(store: Store, schedule: Schedule, commits: CommitQueue, commands: CommandRunner,
         launcher: AppLauncher, badges: Badges, signals: ServiceSignals, lock: SessionLock? = nil, logger: Logger,
         now: @escaping () -> Date) {
        self.store = store
        self.schedule = schedule
        self.commits = commits
        self.commands = commands
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
            complete(id, title: alert.title)
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
        if closing.kind == .scheduled {
            record(HistoryEntry(time: now(), id: closing.id, event: closing.reason == 1 ? .expired : .closed,
                                title: closing.alert.title, detail: closing.detail))
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
                self.signals.completed(id)
            case .failure(let error):
                self.logger.error("Cannot complete \(id): \(error)")
            }
        }
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
        let copy = ScheduledNotification(id: NotificationID.random(), alert: alert, rule: rule, lateLimit: nil,
                                         created: instant, nextIndex: 0, nextFire: fireDate)
        schedule.addSnoozed(copy, of: id, event: { copyID in
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

    /// Writes one history event with the next group commit.
    func record(_ entry: HistoryEntry) {
        commits.stage({ db in try self.store.record(entry, in: db) }, done: { [unowned self] result in
            if case .failure(let error) = result { self.logger.error("Cannot record \(entry.event) of \(entry.id): \(error)") }
        })
    }
}
