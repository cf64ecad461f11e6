import ChimeCore
import DBus
import EventLoop
import FoundationEssentials
import Logging

/// Fires notifications whose trigger is a place, at the crossings GeoClue (regions) and
/// NetworkManager (networks) report, through the same path as a due date: the
/// presenter's delivery, a `fired` history event and the `Fired` signal.
///
/// It is the place watch of the ``Schedule``, which alone changes what it watches
/// (``watch(_:)``, ``keep(_:)``, ``unwatch(ids:)``): what it sees happen at a place goes
/// to the schedule (``onPresence``, ``onCrossing``) to be written and watched together.
///
/// Place notifications are not in the heap of due times and add no wake-ups.
/// The system bus is connected only while one exists, and GeoClue's client is held only
/// while a region does. Without a system bus or the service, they wait (state `waiting`,
/// and the log says so) and start working when the service appears on the bus. A system
/// bus that is missing at that moment is tried again at the next place scheduled, or at
/// the next start; one that goes away stops nothing else.
final class PlaceTriggers {
    private let presenter: Presenter
    private let time: Timekeeper
    private let loop: EventLoop
    private let logger: Logger
    private var system: Connection?
    /// Whether a connection to the system bus is on its way (it is made from the loop).
    private var connecting = false
    /// Place notifications added meanwhile, to announce once it is there or not.
    private var addedWhileConnecting: [String] = []
    private var location: GeoClueClient?
    private var networks: NetworkManagerClient?
    /// Whether the last try to reach the system bus failed and was logged.
    private var systemBusMissingLogged = false
    /// The scheduled place notifications, by id, with where the user was last known to be.
    private var places: [String: ScheduledNotification] = [:]
    /// The last fix, so a region scheduled later learns where the user is at once.
    private var lastFix: Fix?
    /// The names of the active networks, once NetworkManager has said.
    private var activeNetworks: Set<String>?

    /// A place notification fired (after its delivery went to the presenter).
    var onFired: (ScheduledNotification) -> Void = { _ in }
    /// Where the user is for a place notification changed without firing it (the
    /// notification with its new presence): the schedule writes it and keeps it watched.
    var onPresence: (ScheduledNotification) -> Void = { _ in }
    /// A crossing fired a place notification (`once`: for the last time), with its history
    /// event: the schedule writes both and keeps or drops it from the watch.
    var onCrossing: (_ fired: ScheduledNotification, _ once: Bool, HistoryEntry) -> Void = { _, _, _ in }

    init(presenter: Presenter, time: Timekeeper, loop: EventLoop, logger: Logger) {
        (self.presenter, self.time, self.loop, self.logger) = (presenter, time, loop, logger)
    }

    /// Watches the scheduled place notifications read at start, and follows what they need.
    func start(watching scheduled: [ScheduledNotification]) {
        for notification in scheduled { places[notification.id] = notification }
        if !places.isEmpty { logger.info("\(places.count) waiting for a place.") }
        updateSources()
    }

    /// Watches a newly committed notification; false when it has no place (the heap's).
    func watch(_ notification: ScheduledNotification) -> Bool {
        guard notification.rule.trigger.place != nil else { return false }
        places[notification.id] = notification
        updateSources()
        // While the system bus is on its way, what waits is told once it is there (or not).
        if connecting { addedWhileConnecting.append(notification.id) } else { announce(notification) }
        return true
    }

    /// Says that a new place notification waits, or looks where the user is for it.
    private func announce(_ notification: ScheduledNotification) {
        if isWaiting(notification) {
            logger.notice("\(notification.id) waits for a location source: \(sourceText(notification)) is not available.")
        } else {
            observe(ids: [notification.id])
        }
    }

    /// Replaces the copy watched of `notification` (where the user was, its firings),
    /// unless it is not watched any more.
    func keep(_ notification: ScheduledNotification) {
        if places[notification.id] != nil { places[notification.id] = notification }
    }

    /// Forgets cancelled or completed notifications.
    func unwatch(ids: [String]) {
        // Each lookup hashes its id, even in an empty dictionary: a CancelAll of a million
        // hashed a million here for no place at all.
        guard !places.isEmpty else { return }
        let before = places.count
        for id in ids { places[id] = nil }
        if places.count != before { updateSources() }
    }

    /// Forgets every place notification (all were cancelled).
    func unwatchAll() {
        guard !places.isEmpty else { return }
        places.removeAll()
        updateSources()
    }

    /// Whether a place notification waits for its source (GeoClue or NetworkManager).
    func isWaiting(_ notification: ScheduledNotification) -> Bool {
        guard notification.state == .scheduled, let place = notification.rule.trigger.place else { return false }
        if place.isRegion { return ![.starting, .granted].contains(location?.state ?? .unavailable) }
        return networks?.state != .following
    }

    /// The ids watched, for the tests.
    var watchedIDs: [String] { places.keys.sorted() }

    /// `locationSource` and `networkSource` for Status.
    var sourceStates: (location: String, network: String) {
        let regions = places.values.contains { $0.rule.trigger.place?.isRegion == true }
        let nets = places.values.contains { $0.rule.trigger.place?.isRegion == false }
        return (location?.state.rawValue ?? (regions ? "unavailable" : "unused"),
                networks?.state.rawValue ?? (nets ? "unavailable" : "unused"))
    }

    // MARK: - Sources

    private func updateSources() {
        let regions = places.values.compactMap { n -> Region? in
            if case .region(let region)? = n.rule.trigger.place?.kind { return region } else { return nil }
        }
        let nets = places.count - regions.count
        if !places.isEmpty { connectSystemBus() }
        if let smallest = regions.map(\.radius).min() {
            // A quarter of the smallest radius: fine enough to see it crossed, coarse
            // enough that GeoClue does not wake us for every metre.
            location?.distanceThreshold = UInt32(min(1000, max(10, smallest / 4)))
        }
        location?.wanted = !regions.isEmpty
        networks?.wanted = nets > 0
        if regions.isEmpty { lastFix = nil }
        if nets == 0 { activeNetworks = nil }
    }

    /// Connects from the loop: a wedged system bus keeps the place notifications waiting,
    /// not chimed.
    private func connectSystemBus() {
        guard system == nil, !connecting else { return }
        connecting = true
        Connection.system(on: loop, timeoutMilliseconds: 25_000, readLimits: RequestLimits.bus) { [unowned self] result in
            self.connecting = false
            switch result {
            case .success(let connection):
                self.systemBusMissingLogged = false
                self.follow(connection)
                self.updateSources()
            case .failure(let error):
                if !self.systemBusMissingLogged { self.logger.warning("\(error.message) Place notifications wait for a location source.") }
                self.systemBusMissingLogged = true
            }
            let added = self.addedWhileConnecting
            self.addedWhileConnecting = []
            for id in added { if let notification = self.places[id] { self.announce(notification) } }
        }
    }

    /// Follows GeoClue and NetworkManager on the system bus.
    private func follow(_ connection: Connection) {
        connection.onDisconnect = { [unowned self] in
            self.logger.warning("The system bus closed; place notifications wait for it (tried again at the next place scheduled).")
            self.location = nil
            self.networks = nil
            self.system = nil
        }
        system = connection
        let location = GeoClueClient(connection: connection, loop: loop, logger: logger)
        location.onFix = { [unowned self] fix in self.located(fix) }
        location.onStateChanged = { [unowned self] state in self.sourceChanged("GeoClue", state.rawValue, regions: true) }
        let networks = NetworkManagerClient(connection: connection, logger: logger)
        networks.onChange = { [unowned self] names in self.networksChanged(names) }
        networks.onStateChanged = { [unowned self] state in self.sourceChanged("NetworkManager", state.rawValue, regions: false) }
        self.location = location
        self.networks = networks
        location.start()
        networks.start()
    }

    private func sourceChanged(_ source: String, _ state: String, regions: Bool) {
        let count = places.values.filter { ($0.rule.trigger.place?.isRegion ?? !regions) == regions }.count
        guard count > 0 else { return }
        logger.info("\(source) is \(state); \(count) \(regions ? "region" : "network") notifications \(["granted", "following"].contains(state) ? "follow it" : "wait for a location source").")
    }

    private func sourceText(_ notification: ScheduledNotification) -> String {
        guard system != nil else { return "the system bus" }
        return notification.rule.trigger.place?.isRegion == true ? "GeoClue (\(location?.state.rawValue ?? "unavailable"))" : "NetworkManager"
    }

    // MARK: - Crossings

    // Not private: PlaceTriggersTests report fixes and networks here, as GeoClue and
    // NetworkManager would, without a system bus.
    func located(_ fix: Fix) {
        lastFix = fix
        observe(ids: Array(places.keys))
    }

    func networksChanged(_ names: Set<String>) {
        logger.debug("Active networks: \(names.sorted().joined(separator: ", "))")
        activeNetworks = names
        observe(ids: Array(places.keys))
    }

    /// Decides where the user is for each place, firing those crossed.
    private func observe(ids: [String]) {
        for id in ids.sorted() {
            guard let notification = places[id], let place = notification.rule.trigger.place else { continue }
            let presence: Presence?
            switch place.kind {
            case .region(let region):
                guard let lastFix else { continue }
                presence = region.presence(of: lastFix, previous: notification.presence)
            case .network(let name):
                guard let activeNetworks else { continue }
                presence = activeNetworks.contains(name) ? .inside : .outside
            }
            guard let presence, presence != notification.presence else { continue }
            if place.fires(from: notification.presence, to: presence) {
                fire(notification, place, presence)
            } else {
                var moved = notification
                moved.presence = presence
                onPresence(moved)
            }
        }
    }

    private func fire(_ notification: ScheduledNotification, _ place: Place, _ presence: Presence) {
        let instant = time.now
        presenter.deliver(id: notification.id, kind: .scheduled, alert: notification.alert, due: instant)
        var fired = notification
        fired.lastFired = instant
        fired.fireCount += 1
        fired.presence = presence
        fired.state = place.triggersOnce ? .done : .scheduled
        let detail = (presence == .inside ? "Entered " : "Left ") + Self.describe(place) + "."
        logger.info("\(notification.id): \(detail)")
        let event = HistoryEntry(time: instant, id: notification.id, event: .fired, title: notification.alert.title, detail: detail)
        onCrossing(fired, place.triggersOnce, event)
        onFired(fired)
    }

    /// "the region shop (150 m around 52.52,13.405)", "the network Office Wi-Fi".
    static func describe(_ place: Place) -> String {
        switch place.kind {
        case .region(let region):
            let name = region.identifier.isEmpty ? "" : region.identifier + " "
            return "the region \(name)(\(Int(region.radius)) m around \(region.latitude),\(region.longitude))"
        case .network(let name):
            return "the network \(name)"
        }
    }
}
