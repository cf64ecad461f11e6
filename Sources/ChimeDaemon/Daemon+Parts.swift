import ChimeCore
import DBus
import EventLoop
import FoundationEssentials
import Logging

/// Every part of a running chimed, built and wired by ``Daemon/assemble(_:)``: the one
/// place that knows how they fit together. The in-process tests build the same graph on a
/// fake clock and server.
struct DaemonParts {
    /// What the parts are built from: the bus, the notification server, the open store,
    /// the clocks, the user's settings, and what runs the buttons' commands.
    struct Inputs {
        var connection: Connection
        var server: NotificationPoster
        var store: Store
        var commits: CommitQueue
        var loop: EventLoop
        var time: Timekeeper
        var settings: Settings
        var commands: CommandRunner
        var sounds: SoundPlayer?
        var frontApp: FrontAppAsking?
        var logger: Logger
        var now: () -> Date = Date.init
    }

    let presenter: Presenter
    /// The one writer of the schedule: the store's rows, the heap of due times and the place watch.
    let schedule: Schedule
    let fireTimer: FireTimer
    let places: PlaceTriggers
    let badges: Badges
    let signals: ServiceSignals
    let presses: PressHandler
    let lock: SessionLock
    /// The calendars followed, read into the schedule.
    let calendars: Calendars
    /// The exported API: ``ChimeAPI/Scheduler1``'s method table.
    let methods: MethodTable
}

extension Daemon {
    /// Builds every part of chimed and wires every callback between them: what comes due
    /// goes from the fire timer (or the place watch) to the presenter, what is pressed or
    /// closed on screen to the press handler, what is decided for a badge to the badges,
    /// and what happened to the bus's signals.
    static func assemble(_ inputs: DaemonParts.Inputs) -> DaemonParts {
        let (connection, store, commits, time, logger) = (inputs.connection, inputs.store, inputs.commits, inputs.time, inputs.logger)
        let presenter = Presenter(server: inputs.server, store: store, commits: commits, time: time, settings: inputs.settings,
                                  sounds: inputs.sounds, frontApp: inputs.frontApp, logger: logger)
        // A connection of its own, opened only while a place notification exists.
        let places = PlaceTriggers(presenter: presenter, time: time, loop: inputs.loop, logger: logger)
        let schedule = Schedule(store: store, commits: commits, places: places, logger: logger)
        let fireTimer = FireTimer(store: store, schedule: schedule, presenter: presenter, commits: commits, time: time,
                                  logger: logger)
        let lock = SessionLock(logger: logger)
        let badges = Badges(connection: connection, store: store, commits: commits, logger: logger)
        let signals = ServiceSignals(connection: connection, logger: logger)
        let launcher = AppLauncher(connection: connection, logger: logger, placement: inputs.commands.placement)
        let calendars = Calendars(Calendars.Context(store: store, commits: commits, schedule: schedule, loop: inputs.loop,
                                                    settings: inputs.settings, logger: logger, now: inputs.now),
                                  passwords: Passwords(bus: connection, loop: inputs.loop, logger: logger))
        let presses = PressHandler(store: store, schedule: schedule, commits: commits, commands: inputs.commands, calendars: calendars,
                                   launcher: launcher, badges: badges, signals: signals, lock: lock, logger: logger,
                                   now: inputs.now)
        let methods = MethodTable(server: inputs.server, presenter: presenter, store: store, schedule: schedule,
                                  commits: commits, settings: inputs.settings, badges: badges, presses: presses,
                                  calendars: calendars, logger: logger, now: inputs.now)

        // Unowned: each part is held by the parts (and they by the daemon) for as long as
        // chimed runs; the closures must not keep them alive past it.
        presenter.onPress = { [unowned presses] press in presses.pressed(press) }
        presenter.onClosed = { [unowned presses] closing in presses.closed(closing) }
        // A badge follows what was decided for the occurrence (per-app settings, the app in front).
        presenter.onBadge = { alert in badges.apply(of: alert) }
        lock.onUnlocked = { [unowned presses] in presses.releaseHeld() }
        let fired = { [unowned presenter, settings = inputs.settings] (notification: ScheduledNotification, lateBy: TimeInterval,
                                                                        shown: Bool) in
            guard shown else { return }
            // A late one folded into a summary of missed ones is not presented by itself:
            // its badge is set here, if its app's settings allow.
            if lateBy > Presenter.lateThreshold, presenter.alert(for: notification.id) == nil,
               settings.app(of: notification.alert).badges {
                badges.apply(of: notification.alert)
            }
            signals.fired(notification.id, NotificationEncoding.entries(notification, zone: Zone.current), lateBy: lateBy)
        }
        fireTimer.onFired = fired
        places.onFired = { notification in fired(notification, 0, true) }
        // A calendar trouble the user must mend (a password refused) is told once, as Chime's own word.
        calendars.onTrouble = { [unowned presenter] sentence in
            var alert = Alert(title: "Chime: a calendar needs you")
            alert.body = sentence
            presenter.announce(alert)
        }
        calendars.onDoneElsewhere = { [unowned presenter] ids in presenter.closeDoneElsewhere(ids: ids) }
        calendars.shown = { [unowned presenter] in presenter.onScreenOccurrences() }
        return DaemonParts(presenter: presenter, schedule: schedule, fireTimer: fireTimer, places: places, badges: badges,
                           signals: signals, presses: presses, lock: lock, calendars: calendars, methods: methods)
    }
}
