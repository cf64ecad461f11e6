import ChimeAPI
import DBus

/// NetworkManager as far as chimed uses it (`NetworkManagerClient`), served on the system
/// bus for `place`.
///
/// Starts with no active connection (the user is outside). Arriving exports a new
/// `ActiveConnection` object whose `Id` is the network's name, wired (`SpecificObject` is
/// `/`), and leaving drops it; either way `ActiveConnections` changes and the standard
/// `PropertiesChanged` says so with the new list, as NetworkManager does. chimed reads
/// the names of a connection it has not seen (one `GetAll`), so an arrival costs one
/// round trip more than a departure.
final class NetworkManagerFake: PlaceSource {
    static let busName = try! BusName("org.freedesktop.NetworkManager")
    static let path = try! ObjectPath("/org/freedesktop/NetworkManager")
    static let interface = "org.freedesktop.NetworkManager"
    static let networkName = "Bench LAN"
    /// NMState: connected with global reach, and asleep-or-disconnected.
    static let (connected, disconnected): (UInt32, UInt32) = (70, 20)

    let trigger: (String, Value) = (NotificationKey.network.rawValue, .variantDictionary([
        ("name", .string(networkName)), ("notifyOnEntry", .bool(true)), ("notifyOnExit", .bool(true)),
    ]))

    private let connection: Connection
    private var manager: Registration?
    private var activeConnection: Registration?
    private var active: [ObjectPath] = []
    private var serial = 0
    /// Reads of `ActiveConnections`: chimed reads the list once when it starts following.
    private var reads = 0

    var ready: Bool { reads > 0 }
    /// chimed's only sign of letting go is removing its match rule, which the bus keeps to itself.
    var released: Bool { true }

    init(_ connection: Connection) throws {
        self.connection = connection
        manager = try connection.export([Interface(try InterfaceName(Self.interface), methods: [], properties: [
            Property("ActiveConnections", "ao") { [unowned self] in
                self.reads += 1
                return self.list
            },
            Property("PrimaryConnection", "o") { [unowned self] in .objectPath(self.active.first ?? (try! ObjectPath("/"))) },
            Property("State", "u") { [unowned self] in .uint32(self.active.isEmpty ? Self.disconnected : Self.connected) },
            Property("Version", "s") { .string("1.42.0") },
        ])], at: Self.path)
        guard try connection.requestName(Self.busName) == .owned else {
            throw BenchError("\(Self.busName) is taken on the system bus")
        }
    }

    private var list: Value { .array(element: "o", active.map(Value.objectPath)) }

    func cross(inside: Bool) throws(DBusError) {
        if inside {
            serial += 1
            let path = try ObjectPath("/org/freedesktop/NetworkManager/ActiveConnection/\(serial)")
            activeConnection = try connection.export([Interface(try InterfaceName("org.freedesktop.NetworkManager.Connection.Active"),
                                                                methods: [], properties: [
                Property("Id", "s") { .string(Self.networkName) },
                Property("Uuid", "s") { .string("0b7c5a6e-0f4e-4c55-9d2c-6a8f3e0b1000") },
                Property("Type", "s") { .string("802-3-ethernet") },
                Property("SpecificObject", "o") { .objectPath(try! ObjectPath("/")) },
                Property("State", "u") { .uint32(2) },
            ])], at: path)
            active = [path]
        } else {
            activeConnection = nil
            active = []
        }
        try connection.emit(path: Self.path, interface: try InterfaceName("org.freedesktop.DBus.Properties"),
                            member: try MemberName("PropertiesChanged"),
                            arguments: [.string(Self.interface), .variantDictionary([("ActiveConnections", list)]), .stringArray([])])
    }
}
