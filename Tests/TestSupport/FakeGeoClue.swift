import Foundation

/// A GeoClue2 on a private system bus, made of python-dbusmock objects: a Manager whose
/// `GetClient` hands out one client, and `Location` objects announced by
/// `LocationUpdated`, as GeoClue does.
public final class FakeGeoClue {
    public static let name = "org.freedesktop.GeoClue2"
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    public static let clientPath = "/org/freedesktop/GeoClue2/Client/1"
    public static let clientInterface = "org.freedesktop.GeoClue2.Client"

    private let bus: SystemBus
    private var locations = 0
    private var current = "/"

    /// Starts it on `bus`; `denying` makes `Start` fail with AccessDenied, as GeoClue does
    /// when its agent or its config refuses the app.
    public init(on bus: SystemBus, denying: Bool = false) throws {
        self.bus = bus
        try bus.startObject(name: Self.name, path: Self.managerPath, interface: "org.freedesktop.GeoClue2.Manager")
        try bus.call(Self.name, Self.managerPath, "org.freedesktop.DBus.Mock.AddMethod", "", "GetClient", "", "o",
                     "ret = dbus.ObjectPath('\(Self.clientPath)')")
        let start = denying
            ? "raise dbus.exceptions.DBusException(\"Chime is not allowed\", name=\"org.freedesktop.DBus.Error.AccessDenied\")" : ""
        try bus.call(Self.name, Self.managerPath, "org.freedesktop.DBus.Mock.AddObject", Self.clientPath, Self.clientInterface,
                     "{'DesktopId': <''>, 'RequestedAccuracyLevel': <uint32 0>, 'DistanceThreshold': <uint32 0>, "
                        + "'TimeThreshold': <uint32 0>, 'Active': <false>, 'Location': <objectpath '/'>}",
                     "[('Start', '', '', '\(start)'), ('Stop', '', '', '')]")
    }

    /// Announces a fix, as GeoClue does when the position changes.
    public func move(to latitude: Double, _ longitude: Double, accuracy: Double) throws {
        locations += 1
        let path = "/org/freedesktop/GeoClue2/Location/\(locations)"
        try bus.call(Self.name, Self.managerPath, "org.freedesktop.DBus.Mock.AddObject", path, "org.freedesktop.GeoClue2.Location",
                     "{'Latitude': <\(Self.number(latitude))>, 'Longitude': <\(Self.number(longitude))>, "
                        + "'Accuracy': <\(Self.number(accuracy))>, 'Altitude': <-1.7976931348623157e308>, 'Speed': <-1.0>, "
                        + "'Heading': <-1.0>, 'Description': <''>}", "@a(ssss) []")
        try bus.call(Self.name, Self.clientPath, "org.freedesktop.DBus.Mock.EmitSignal", Self.clientInterface, "LocationUpdated",
                     "oo", "[<objectpath '\(current)'>, <objectpath '\(path)'>]")
        current = path
    }

    /// A point `metres` north of (`latitude`, `longitude`).
    public static func north(of latitude: Double, by metres: Double) -> Double { latitude + metres / 111_195 }

    /// How often the client's method `method` was called (Start, Stop).
    public func calls(_ method: String) throws -> Int {
        let text = try bus.call(Self.name, Self.clientPath, "org.freedesktop.DBus.Mock.GetMethodCalls", method)
        // Each call is (TIME, ARGS); gdbus types only the first TIME (uint64 N), and an empty
        // first ARGS (@av []).
        let calls = try NSRegularExpression(pattern: "\\((uint64 )?[0-9]+, ")
        return calls.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
    }

    /// Waits until `method` was called `count` times; the mock offers no signal for a call,
    /// so this asks at a short interval.
    public func waitForCalls(_ method: String, _ count: Int, timeout: TimeInterval = 60) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while try calls(method) < count {
            guard Date() < deadline else { throw TestFailure.timeout("\(count) \(method) calls on the GeoClue fake") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// What the client's property `name` was set to, as gdbus prints it.
    public func property(_ name: String) throws -> String {
        try bus.call(Self.name, Self.clientPath, "org.freedesktop.DBus.Properties.Get", Self.clientInterface, name)
    }

    private static func number(_ value: Double) -> String {
        let text = String(value)
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}
