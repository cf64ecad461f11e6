import ChimeAPI
import DBus

/// GeoClue2 as far as chimed uses it (`GeoClueClient`), served on the system bus for `place`.
///
/// `Manager.GetClient` (or `CreateClient`) gives the one client object; its `Start` sends
/// the first fix, outside the region, as GeoClue sends one soon after a start. Each fix is
/// a new `Location` object announced by `LocationUpdated(old, new)`; the last two are kept
/// exported, as GeoClue keeps the old one until the next update. chimed's `Set` of
/// `DesktopId`, `RequestedAccuracyLevel` and `DistanceThreshold` is answered
/// PropertyReadOnly (the DBus module serves read-only properties): chimed logs a warning
/// for each and goes on, which is not on the timed path.
final class GeoClueFake: PlaceSource {
    static let busName = try! BusName("org.freedesktop.GeoClue2")
    static let managerPath = try! ObjectPath("/org/freedesktop/GeoClue2/Manager")
    static let clientPath = try! ObjectPath("/org/freedesktop/GeoClue2/Client/1")
    static let clientInterface = try! InterfaceName("org.freedesktop.GeoClue2.Client")
    static let locationInterface = try! InterfaceName("org.freedesktop.GeoClue2.Location")
    /// The region's centre; 150 m around it.
    static let centre = (latitude: 52.52, longitude: 13.405)
    /// A fix's accuracy, in metres: Wi-Fi positioning's, well inside the radius.
    static let accuracy = 10.0
    /// About 1.1 km north of the centre: wholly outside, fix circle and all.
    static let outsideLatitude = centre.latitude + 0.01

    let trigger: (String, Value) = (NotificationKey.region.rawValue, .variantDictionary([
        ("latitude", .double(centre.latitude)), ("longitude", .double(centre.longitude)), ("radius", .double(150)),
    ]))

    private let connection: Connection
    private var objects: [Registration] = []
    private var locations: [Registration] = []
    private var current = try! ObjectPath("/")
    private var serial = 0
    private var started = false
    private var stopped = false
    /// Reads of a Location's properties: chimed takes each fix from one.
    private var reads = 0

    var ready: Bool { started && reads > 0 }
    var released: Bool { stopped }

    init(_ connection: Connection) throws {
        self.connection = connection
        let clientPath = Value.objectPath(Self.clientPath)
        objects.append(try connection.export([Interface(try InterfaceName("org.freedesktop.GeoClue2.Manager"), methods: [
            Method(try MemberName("GetClient"), outputs: [Argument("client", "o")]) { _ in [clientPath] },
            Method(try MemberName("CreateClient"), outputs: [Argument("client", "o")]) { _ in [clientPath] },
        ], properties: [
            Property("InUse", "b") { [unowned self] in .bool(self.started && !self.stopped) },
            Property("AvailableAccuracyLevel", "u") { .uint32(8) },
        ])], at: Self.managerPath))
        objects.append(try connection.export([Interface(Self.clientInterface, methods: [
            Method(try MemberName("Start")) { [unowned self] _ throws(DBusError) in
                self.started = true
                self.stopped = false
                try self.locate(latitude: Self.outsideLatitude)
                return []
            },
            Method(try MemberName("Stop")) { [unowned self] _ in
                self.stopped = true
                return []
            },
        ], signals: [
            SignalDescription(try MemberName("LocationUpdated"), arguments: [Argument("old", "o"), Argument("new", "o")]),
        ], properties: [
            Property("Location", "o") { [unowned self] in .objectPath(self.current) },
            Property("DesktopId", "s") { .string("") },
            Property("RequestedAccuracyLevel", "u") { .uint32(0) },
            Property("DistanceThreshold", "u") { .uint32(0) },
            Property("TimeThreshold", "u") { .uint32(0) },
            Property("Active", "b") { [unowned self] in .bool(self.started && !self.stopped) },
        ])], at: Self.clientPath))
        guard try connection.requestName(Self.busName) == .owned else {
            throw BenchError("\(Self.busName) is taken on the system bus")
        }
    }

    func cross(inside: Bool) throws(DBusError) {
        try locate(latitude: inside ? Self.centre.latitude : Self.outsideLatitude)
    }

    private func locate(latitude: Double) throws(DBusError) {
        serial += 1
        let path = try ObjectPath("/org/freedesktop/GeoClue2/Location/\(serial)")
        locations.append(try connection.export([Interface(Self.locationInterface, methods: [], properties: [
            Property("Latitude", "d") { [unowned self] in
                self.reads += 1
                return .double(latitude)
            },
            Property("Longitude", "d") { .double(Self.centre.longitude) },
            Property("Accuracy", "d") { .double(Self.accuracy) },
            Property("Altitude", "d") { .double(-Double.greatestFiniteMagnitude) },
            Property("Description", "s") { .string("") },
        ])], at: path))
        if locations.count > 2 { locations.removeFirst().cancel() }
        let old = current
        current = path
        try connection.emit(path: Self.clientPath, interface: Self.clientInterface, member: try MemberName("LocationUpdated"),
                            arguments: [.objectPath(old), .objectPath(path)])
    }
}
