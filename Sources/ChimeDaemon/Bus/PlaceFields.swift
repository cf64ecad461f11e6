import ChimeAPI
import ChimeCore
import DBus

/// The keys of `Schedule` that make a place trigger: `region`, `network` and
/// `regionTriggersOnce`, typed or, for `ScheduleSimple`, as text (``ChimeAPI/PlaceText``).
struct PlaceFields {
    private var latitude: Double?
    private var longitude: Double?
    private var radius: Double?
    private var identifier = ""
    private var network: String?
    private var notifyOnEntry = false
    private var notifyOnExit = false
    private var triggersOnce: Bool?
    /// Which of `region` and `network` were given, in order.
    private(set) var given: [String] = []
    /// Which of them the text form's `region.…` and `network.…` options spoke of.
    private var flagged: [String] = []

    private static let regionKeys = ["latitude", "longitude", "radius", "identifier", "notifyOnEntry", "notifyOnExit"]
    private static let networkKeys = ["name", "notifyOnEntry", "notifyOnExit"]

    /// Takes a typed value; false for keys that are not place fields.
    mutating func set(_ key: String, typed value: Value) throws(FieldError) -> Bool {
        switch NotificationKey(rawValue: key) {
        case .region?, .network?:
            guard let entries = value.stringKeyedEntries else { throw FieldError(key, "must be a dictionary a{sv}, not type '\(value.signature)'.") }
            given.append(key)
            let allowed = key == NotificationKey.region.rawValue ? Self.regionKeys : Self.networkKeys
            for (name, wrapped) in entries {
                let field = key + "." + name
                guard allowed.contains(name) else { throw FieldError(field, "is not a key of \(key); use \(allowed.joined(separator: ", ")).") }
                try set(field, name: name, wrapped.unwrapped)
            }
            if key == NotificationKey.region.rawValue {
                for name in ["latitude", "longitude", "radius"] where entries.allSatisfy({ $0.key != name }) {
                    throw FieldError(key + "." + name, "is required.")
                }
            } else if network == nil {
                throw FieldError("network.name", "is required: a connection id or a Wi-Fi SSID.")
            }
        case .regionTriggersOnce?:
            guard let flag = value.boolValue else { throw FieldError(key, "must be a boolean, not type '\(value.signature)'.") }
            triggersOnce = flag
        default:
            return false
        }
        return true
    }

    private mutating func set(_ field: String, name: String, _ value: Value) throws(FieldError) {
        switch name {
        case "latitude", "longitude", "radius":
            let number: Double
            if case .double(let d) = value { number = d } else if let i = value.integerValue { number = Double(i) } else {
                throw FieldError(field, "must be a number (d), not type '\(value.signature)'.")
            }
            if name == "latitude" { latitude = number } else if name == "longitude" { longitude = number } else { radius = number }
        case "notifyOnEntry", "notifyOnExit":
            guard let flag = value.boolValue else { throw FieldError(field, "must be a boolean, not type '\(value.signature)'.") }
            if name == "notifyOnEntry" { notifyOnEntry = flag } else { notifyOnExit = flag }
        default:
            guard let text = value.stringValue else { throw FieldError(field, "must be a string, not type '\(value.signature)'.") }
            if name == "identifier" { identifier = text } else { network = text }
        }
    }

    /// Takes a value written as text (`ScheduleSimple`); false for keys that are not place fields.
    mutating func set(_ key: String, text: String) throws(FieldError) -> Bool {
        switch key {
        case NotificationKey.region.rawValue:
            guard let region = PlaceText.region(text) else {
                throw FieldError(key, "'\(text)' is not LAT,LON,RADIUS, as in 52.52,13.405,150m (RADIUS in m or km).")
            }
            given.append(key)
            (latitude, longitude, radius) = region
        case NotificationKey.network.rawValue:
            given.append(key)
            network = text
        case "region.identifier":
            identifier = text
        case "region.notifyOnEntry", "network.notifyOnEntry", "region.notifyOnExit", "network.notifyOnExit",
             NotificationKey.regionTriggersOnce.rawValue:
            let flag: Bool
            switch text.lowercased() {
            case "true", "1", "yes": flag = true
            case "false", "0", "no": flag = false
            default: throw FieldError(key, "'\(text)' is not true or false.")
            }
            if key.hasSuffix("Entry") { notifyOnEntry = flag } else if key.hasSuffix("Exit") { notifyOnExit = flag } else { triggersOnce = flag }
            if key.hasPrefix("region.") || key.hasPrefix("network.") { flagged.append(String(key.prefix { $0 != "." })) }
        default:
            return false
        }
        return true
    }

    /// The place these fields describe; nil when neither `region` nor `network` was given.
    func place() throws(FieldError) -> Place? {
        if let stray = flagged.first(where: { !given.contains($0) }) {
            throw FieldError(stray, "is missing: its options were given without it.")
        }
        guard let key = given.first else {
            if triggersOnce != nil { throw FieldError("regionTriggersOnce", "applies to a region or a network; give one.") }
            return nil
        }
        guard Set(given).count == 1 else { throw FieldError("region", "and network cannot both be given: a notification has one place.") }
        if key == NotificationKey.network.rawValue {
            return try Place(.network(network ?? ""), notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit, triggersOnce: triggersOnce ?? true)
        }
        let region = try Region(latitude: latitude ?? .nan, longitude: longitude ?? .nan, radius: radius ?? .nan, identifier: identifier)
        return try Place(.region(region), notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit, triggersOnce: triggersOnce ?? true)
    }
}
