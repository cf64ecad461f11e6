import ChimeAPI
import ChimeCore
import DBus
import EventLoop
import Logging

/// Chime's client of GeoClue2 on the system bus: holds one only while a region trigger
/// exists, so a daemon without regions asks for no location and wakes for none.
///
/// `Manager.GetClient` gives a client object; Chime names itself (`DesktopId`, which
/// GeoClue's agent and its config check), asks for street-level fixes and a distance
/// threshold, and calls `Start`. Each `LocationUpdated(old, new)` names a `Location`
/// object whose `Latitude`, `Longitude` and `Accuracy` make a ``ChimeCore/Fix``.
final class GeoClueClient {
    /// Where location stands, as `Status` says it (`locationSource`).
    enum State: String {
        /// No region trigger: no client is held.
        case unused
        /// GeoClue is not on the system bus (or there is no system bus).
        case unavailable
        /// A client was asked for and not started yet.
        case starting
        /// Started: fixes arrive.
        case granted
        /// GeoClue, its agent or its config refused Chime.
        case denied
    }

    /// The desktop id Chime gives GeoClue: its desktop entry, without `.desktop`.
    static let desktopID = "io.github.chime.Chime"
    static let busName = try! BusName("org.freedesktop.GeoClue2")
    static let managerPath = try! ObjectPath("/org/freedesktop/GeoClue2/Manager")
    static let clientInterface = "org.freedesktop.GeoClue2.Client"
    /// GClueAccuracyLevel: street (6) is what Wi-Fi positioning gives; exact (8) would ask
    /// for GPS where there is one, which costs power for no better answer to "near the shop".
    static let accuracyLevel: UInt32 = 6

    /// The first wait before asking again after a failure that is no denial (GeoClue
    /// restarting, or owning its name before its objects are there); it doubles up to
    /// a minute, and runs only while a region exists and GeoClue fails.
    static let retryMilliseconds = 1_000

    private let service: SystemService
    private let loop: EventLoop
    private let logger: Logger
    private var retry: Source?
    private var retryDelay = retryMilliseconds
    private var client: ObjectPath?
    private var updates: Subscription?
    /// Counts attempts, so the answers of an attempt given up are ignored.
    private var attempt = 0
    /// Whether the last denial was logged, so it is logged once.
    private var deniedLogged = false

    private(set) var state: State = .unused
    /// A new fix.
    var onFix: (Fix) -> Void = { _ in }
    /// ``state`` changed.
    var onStateChanged: (State) -> Void = { _ in }
    /// The metres GeoClue may move before it tells us again (`DistanceThreshold`).
    var distanceThreshold: UInt32 = 25

    /// Whether a client should be held: set while region triggers exist.
    var wanted = false {
        didSet { if wanted != oldValue { update() } }
    }

    init(connection: Connection, loop: EventLoop, logger: Logger) {
        service = SystemService(Self.busName, connection: connection)
        self.loop = loop
        self.logger = logger
        service.onOwnerChanged = { [unowned self] owner in
            // A new GeoClue knows nothing of the old one's client.
            self.drop()
            self.retry = nil
            self.retryDelay = Self.retryMilliseconds
            if owner == nil { self.logger.info("GeoClue is not on the system bus; region notifications wait for it.") }
            self.deniedLogged = false
            self.update()
        }
    }

    /// Follows GeoClue's name on the system bus.
    func start() { service.follow() }

    private func set(_ new: State) {
        guard new != state else { return }
        state = new
        onStateChanged(new)
    }

    private func update() {
        guard wanted else {
            stop()
            return set(.unused)
        }
        guard service.owner != nil else { return set(.unavailable) }
        guard client == nil, state != .starting, state != .denied, retry == nil else { return }
        attempt += 1
        let current = attempt
        set(.starting)
        service.call(Self.managerPath, "org.freedesktop.GeoClue2.Manager", "GetClient") { [unowned self] result in
            guard current == self.attempt else { return }
            switch result {
            case .success(let args):
                guard case .objectPath(let path)? = args.first else { return self.failed(.failed("GetClient answered no client path.")) }
                self.configure(path, attempt: current)
            case .failure(let error):
                self.failed(error)
            }
        }
    }

    private func configure(_ path: ObjectPath, attempt current: Int) {
        client = path
        updates = service.subscribe(path, Self.clientInterface, "LocationUpdated") { [unowned self] args in
            guard args.count == 2, case .objectPath(let location) = args[1] else { return }
            self.read(location)
        }
        let settings: [(String, Value)] = [
            ("DesktopId", .string(Self.desktopID)), ("RequestedAccuracyLevel", .uint32(Self.accuracyLevel)),
            ("DistanceThreshold", .uint32(distanceThreshold)),
        ]
        for (name, value) in settings {
            service.setProperty(path, Self.clientInterface, name, value) { [logger] result in
                if case .failure(let error) = result { logger.warning("GeoClue refused \(name): \(error)") }
            }
        }
        // Sent after the settings on the same connection, so GeoClue has them when it starts.
        service.call(path, Self.clientInterface, "Start") { [unowned self] result in
            guard current == self.attempt else { return }
            switch result {
            case .success:
                self.logger.info("GeoClue started Chime's client \(path); region notifications follow the location.")
                self.retryDelay = Self.retryMilliseconds
                self.set(.granted)
            case .failure(let error):
                self.failed(error)
            }
        }
    }

    private func failed(_ error: DBusError) {
        drop()
        if error.name == "org.freedesktop.DBus.Error.AccessDenied" || error.name.hasSuffix(".AccessDenied") {
            if !deniedLogged {
                logger.warning("\(PlaceText.geoClueDenial) (\(error.message))")
                deniedLogged = true
            }
            set(.denied)
        } else {
            logger.warning("GeoClue did not start Chime's client (\(error)); region notifications wait; asking again in \(retryDelay) ms.")
            set(.unavailable)
            retry = loop.timeout(afterMilliseconds: retryDelay) { [unowned self] in
                self.retry = nil
                self.update()
            }
            retryDelay = min(retryDelay * 2, 60_000)
        }
    }

    private func read(_ location: ObjectPath) {
        service.properties(location, "org.freedesktop.GeoClue2.Location") { [unowned self] result in
            guard case .success(let values) = result, case .double(let latitude)? = values["Latitude"],
                  case .double(let longitude)? = values["Longitude"] else {
                return self.logger.debug("Unreadable GeoClue location \(location).")
            }
            var accuracy = Double.infinity
            if case .double(let metres)? = values["Accuracy"] { accuracy = metres }
            self.logger.debug("Location \(latitude),\(longitude) ±\(accuracy) m.")
            self.onFix(Fix(latitude: latitude, longitude: longitude, accuracy: accuracy))
        }
    }

    /// Stops and lets go of the client: GeoClue turns its sources off when no client runs.
    private func stop() {
        retry = nil
        guard let path = client else { return drop() }
        service.call(path, Self.clientInterface, "Stop") { [logger] result in
            if case .failure(let error) = result { logger.debug("GeoClue Stop: \(error)") }
        }
        logger.info("No region notification left; GeoClue's client is stopped.")
        drop()
    }

    private func drop() {
        attempt += 1
        client = nil
        updates = nil
        set(service.owner == nil ? .unavailable : .unused)
    }
}
