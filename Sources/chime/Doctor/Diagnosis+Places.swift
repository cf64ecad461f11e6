import ChimeAPI
import DBus
import JSON
import Localization

// MARK: - Places: GeoClue and NetworkManager on the system bus

extension Diagnosis {
    /// Whether the services behind place notifications are on the system bus, and what
    /// chimed made of them.
    struct Places {
        /// False when there is no system bus to ask.
        var systemBus = false
        var geoClue: Bool?
        var networkManager: Bool?
        /// chimed's `locationSource` and `networkSource`.
        var location: String?
        var network: String?

        var rows: [(String, String)] {
            guard systemBus else { return [(localized("system bus"), localized("not reachable: place notifications wait for a location source"))] }
            let reach = { (found: Bool?) in found == true ? localized("on the system bus") : localized("not on the system bus") }
            var rows = [("GeoClue", reach(geoClue)), ("NetworkManager", reach(networkManager))]
            if let location { rows.append((localized("location access"), Self.meaning(location))) }
            if let network { rows.append((localized("network places"), Self.meaning(network))) }
            return rows
        }

        static func meaning(_ state: String) -> String {
            switch state {
            case "unused": localized("not asked (no place notification needs it)")
            case "unavailable": localized("waiting: the service is not on the system bus")
            case "starting": localized("asked, no answer yet")
            case "granted": localized("granted")
            case "following": localized("followed")
            case "denied": localized("denied")
            default: state
            }
        }

        var json: JSONText {
            .object([
                ("systemBus", .bool(systemBus)), ("geoClue", .bool(geoClue)), ("networkManager", .bool(networkManager)),
                ("locationSource", .string(location)), ("networkSource", .string(network)),
            ])
        }
    }

    /// Looks on the system bus for GeoClue and NetworkManager, without starting either.
    mutating func checkPlaces() {
        var places = Places(location: daemon?.locationSource, network: daemon?.networkSource)
        defer { self.places = places }
        // chimed logs the same sentence, so it is one English constant: not translated.
        if places.location == "denied" { problems.append(Note(english: PlaceText.geoClueDenial, text: PlaceText.geoClueDenial)) }
        // A system bus that takes the connection and never answers would hold libdbus's
        // own connect for ever.
        guard let connection = try? Connection.system(timeoutMilliseconds: 5_000) else {
            if places.location == "unavailable" || places.network == "unavailable" {
                warnings.append(Note { localized("Place notifications wait for a location source: there is no system bus to find GeoClue or NetworkManager on.") })
            }
            return
        }
        places.systemBus = true
        let lookups = BusLookups(connection: connection)
        places.geoClue = lookups.hasOwner("org.freedesktop.GeoClue2")
        places.networkManager = lookups.hasOwner("org.freedesktop.NetworkManager")
        if places.location == "unavailable" {
            warnings.append(Note { localized("Region notifications wait: GeoClue is not on the system bus; install and start geoclue-2.0.") })
        }
        if places.network == "unavailable" {
            warnings.append(Note { localized("Network notifications wait: NetworkManager is not on the system bus.") })
        }
    }
}
