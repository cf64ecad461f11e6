import ChimeAPI
import ChimeCore
import FoundationEssentials

extension DaemonStatus {
    /// What `Status` tells `chime doctor` about this chimed now; optional parts stay
    /// absent, not empty.
    init(store: Store, schedule: Schedule, presenter: Presenter, server: NotificationPoster, config: ConfigInForce,
         calendars: Calendars, zone: Zone) {
        self.init()
        let upcoming = schedule.upcoming
        version = chimeVersion
        interface = Scheduler1.name.rawValue
        pid = UInt32(clamping: ProcessInfo.processInfo.processIdentifier)
        self.store = store.databaseURL.path
        scheduled = UInt32(clamping: upcoming.count)
        pending = UInt32(clamping: presenter.waitingCount)
        timeZone = zone.identifier
        nextFire = upcoming.next.map(NotificationEncoding.seconds)
        notificationServer = server.owner
        // Absent while the server has not answered GetCapabilities.
        capabilities = server.owner == nil ? nil : server.capabilities?.sorted()
        localSound = presenter.sounds?.isAvailable ?? false
        lastLocalSound = presenter.sounds?.lastResult
        backup = store.lastBackup.map(NotificationEncoding.seconds)
        (locationSource, networkSource) = schedule.placeSources
        // Shown until the user removes the damaged file it keeps.
        if let recovery = store.recovery, FileManager.default.fileExists(atPath: recovery.keptAs) { self.recovery = recovery.sentence }
        self.config = config.path
        categories = config.categories.keys.sorted()
        appSettings = UInt32(clamping: config.apps.count)
        configErrors = config.errors
        self.calendars = UInt32(clamping: calendars.names.count)
        calendarProblems = UInt32(clamping: calendars.folders.reduce(0) { $0 + $1.problems.count + ($1.state == .watching || $1.state == .reading ? 0 : 1) }
            + calendars.collections.reduce(0) { $0 + $1.problems.count + ($1.state == .synced || $1.state == .syncing ? 0 : 1) })
    }
}
