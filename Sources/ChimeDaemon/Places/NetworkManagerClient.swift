import DBus
import FoundationEssentials
import Logging

/// Follows NetworkManager's active connections on the system bus, while a network place
/// exists, and reports the names they go by.
///
/// A connection goes by its `Id` (the name in the network menu) and, for Wi-Fi, by the
/// SSID of its access point (`SpecificObject` → `AccessPoint.Ssid`, bytes). The list
/// `ActiveConnections` is read at start and again whenever its `PropertiesChanged` says
/// it changed; `PrimaryConnection` is always one of its elements, so it adds nothing.
final class NetworkManagerClient {
    /// Where network places stand, as `Status` says it (`networkSource`).
    enum State: String {
        /// No network place: nothing is followed.
        case unused
        /// NetworkManager is not on the system bus (or there is no system bus).
        case unavailable
        /// Its active connections are followed.
        case following
    }

    static let busName = try! BusName("org.freedesktop.NetworkManager")
    static let path = try! ObjectPath("/org/freedesktop/NetworkManager")
    static let interface = "org.freedesktop.NetworkManager"

    private let service: SystemService
    private let logger: Logger
    private var changes: Subscription?
    /// The names of each active connection read so far, by its object path.
    private var known: [ObjectPath: [String]] = [:]
    /// Counts reads of the list, so a slower earlier read does not overwrite a later one.
    private var generation = 0

    private(set) var state: State = .unused
    /// The names of the active connections now (ids and SSIDs), after each change.
    var onChange: (Set<String>) -> Void = { _ in }
    /// ``state`` changed.
    var onStateChanged: (State) -> Void = { _ in }

    /// Whether to follow: set while network places exist.
    var wanted = false {
        didSet { if wanted != oldValue { update() } }
    }

    init(connection: Connection, logger: Logger) {
        service = SystemService(Self.busName, connection: connection)
        self.logger = logger
        service.onOwnerChanged = { [unowned self] owner in
            self.changes = nil
            self.known = [:]
            if owner == nil, self.wanted { self.logger.info("NetworkManager is not on the system bus; network notifications wait for it.") }
            self.update()
        }
    }

    /// Follows NetworkManager's name on the system bus.
    func start() { service.follow() }

    private func set(_ new: State) {
        guard new != state else { return }
        state = new
        onStateChanged(new)
    }

    private func update() {
        guard wanted else {
            changes = nil
            known = [:]
            generation += 1
            return set(.unused)
        }
        guard service.owner != nil else { return set(.unavailable) }
        guard changes == nil else { return }
        changes = service.subscribe(Self.path, "org.freedesktop.DBus.Properties", "PropertiesChanged", arg0: Self.interface) {
            [unowned self] args in
            guard args.count >= 2, let changed = args[1].stringKeyedEntries else { return }
            let invalidated = args.count > 2 ? args[2].arrayElements?.compactMap(\.stringValue) ?? [] : []
            if let list = changed.first(where: { $0.key == "ActiveConnections" }) {
                self.read(paths(list.value.unwrapped))
            } else if invalidated.contains("ActiveConnections") {
                self.readList()
            }
        }
        set(.following)
        readList()
    }

    private func readList() {
        service.property(Self.path, Self.interface, "ActiveConnections") { [unowned self] result in
            switch result {
            case .success(let value): self.read(paths(value))
            case .failure(let error): self.logger.warning("Cannot read NetworkManager's active connections: \(error)")
            }
        }
    }

    /// Reads the names of the connections not read before, then reports them all.
    private func read(_ active: [ObjectPath]) {
        generation += 1
        let current = generation
        known = known.filter { active.contains($0.key) }
        var missing = Set(active.filter { known[$0] == nil })
        let report = { [unowned self] in
            guard current == self.generation, missing.isEmpty else { return }
            self.onChange(Set(self.known.values.joined()))
        }
        for path in missing {
            names(of: path) { [unowned self] names in
                guard current == self.generation else { return }
                self.known[path] = names
                missing.remove(path)
                report()
            }
        }
        report()
    }

    private func names(of connection: ObjectPath, reply: @escaping ([String]) -> Void) {
        service.properties(connection, "org.freedesktop.NetworkManager.Connection.Active") { [unowned self] result in
            guard case .success(let values) = result else { return reply([]) }
            let id = values["Id"]?.stringValue
            guard case .objectPath(let specific)? = values["SpecificObject"], specific.rawValue.contains("/AccessPoint/") else {
                return reply(id.map { [$0] } ?? [])
            }
            self.service.property(specific, "org.freedesktop.NetworkManager.AccessPoint", "Ssid") { result in
                var names = id.map { [$0] } ?? []
                if case .success(let ssid) = result, let bytes = ssid.arrayElements {
                    let octets = bytes.compactMap { value -> UInt8? in if case .byte(let b) = value { return b } else { return nil } }
                    // An SSID is 0 to 32 bytes, not necessarily UTF-8: one that is not cannot match a name.
                    if let text = String(validating: octets, as: UTF8.self), !text.isEmpty { names.append(text) }
                }
                reply(names)
            }
        }
    }
}

/// The object paths of an `ao` value.
private func paths(_ value: Value) -> [ObjectPath] {
    (value.arrayElements ?? []).compactMap { if case .objectPath(let path) = $0 { return path } else { return nil } }
}
