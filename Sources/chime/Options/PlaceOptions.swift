import ArgumentParser
import ChimeAPI
import DBus
import Localization

/// `chime add`'s place options: a region (`--near`) or a network (`--on-network`)
/// instead of a time, sent as `ScheduleSimple`'s `region` or `network` option.
struct PlaceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Fire on entering or leaving the circle around a point (GeoClue).", valueName: "LAT,LON"))
    var near: String?

    @Option(help: ArgumentHelp("The circle's radius for --near, in m or km (default \(Int(PlaceText.defaultRadius))m, at most \(Int(PlaceText.maximumRadius / 1000))km).",
                             valueName: "DISTANCE"))
    var radius: String?

    @Option(name: .customLong("on-network"),
            help: ArgumentHelp("Fire on connecting to a network: a NetworkManager connection id or a Wi-Fi SSID.", valueName: "NAME"))
    var network: String?

    @Flag(name: .customLong("on-entry"), help: "Fire on entering the place (with --on-exit too: both).")
    var onEntry = false

    @Flag(name: .customLong("on-exit"), help: "Fire on leaving the place.")
    var onExit = false

    @Flag(name: .customLong("every-time"), help: "Fire at every crossing, not only the first (regionTriggersOnce false).")
    var everyTime = false

    /// Whether a place was asked for.
    var isGiven: Bool { near != nil || network != nil }

    func validate() throws {
        if near != nil && network != nil { throw ValidationError(localized("give one place: --near or --on-network, not both.")) }
        if !isGiven {
            let stray = [("--radius", radius != nil), ("--on-entry", onEntry), ("--on-exit", onExit), ("--every-time", everyTime)]
            if let (flag, _) = stray.first(where: \.1) { throw ValidationError(localized("%1$s needs a place: --near LAT,LON or --on-network NAME.", flag)) }
        }
        if let near, PlaceText.coordinates(near) == nil {
            throw ValidationError(localized("--near '%1$s' is not LAT,LON in degrees, as in 52.5200,13.4050.", near))
        }
        if let radius {
            guard near != nil else { throw ValidationError(localized("--radius applies to --near, not to --on-network.")) }
            guard let metres = PlaceText.metres(radius), metres > 0 else {
                throw ValidationError(localized("--radius '%1$s' is not a distance such as 150m or 2km.", radius))
            }
            guard metres <= PlaceText.maximumRadius else {
                throw ValidationError(localized("--radius '%1$s' is more than %2$s, the largest circle Chime watches.", radius,
                                                "\(Int(PlaceText.maximumRadius / 1000))km"))
            }
        }
        if let network, network.allSatisfy(\.isWhitespace) {
            throw ValidationError(localized("--on-network needs a name: a connection id or a Wi-Fi SSID."))
        }
    }

    /// The `a{ss}` options that say the place.
    var options: [(String, String)] {
        var options: [(String, String)] = []
        if let near {
            let metres = radius.flatMap(PlaceText.metres) ?? PlaceText.defaultRadius
            options.append(("region", near.filter { $0 != " " } + ",\(metres)m"))
            // Neither flag means both, as CLRegion: leave both out.
            if onEntry { options.append(("region.notifyOnEntry", "true")) }
            if onExit { options.append(("region.notifyOnExit", "true")) }
        } else if let network {
            options.append(("network", network))
            // A network place is for arriving unless --on-exit says leaving.
            options.append(("network.notifyOnEntry", String(onEntry || !onExit)))
            options.append(("network.notifyOnExit", String(onExit)))
        }
        if everyTime { options.append((NotificationKey.regionTriggersOnce.rawValue, "false")) }
        return options
    }

    /// Says on standard error when the new notification waits for its location source.
    func tellIfWaiting(_ id: String, _ client: ChimedClient) {
        guard let entries = try? client.call(Scheduler1.get, [.string(id)]).first?.stringKeyedEntries,
              HumanText.fields(entries)[.state]?.stringValue == "waiting" else { return }
        writeError(near != nil
            ? localized("%1$s is waiting for a location source: GeoClue (chime doctor says why); it fires once that is there.", id)
            : localized("%1$s is waiting for a location source: NetworkManager, which is not on the system bus; it fires once that is there.", id))
    }

    /// Where a place notification fires, as `chime list` and `chime show` name it: `on
    /// entering 150m around 52.52,13.405`, `on leaving Home` (a region with an identifier),
    /// `on entering network Office Wi-Fi`; nil for a notification with a time.
    static func describe(_ fields: [NotificationKey: Value]) -> String? {
        let place = fields[.region] ?? fields[.network]
        guard let entries = place?.stringKeyedEntries else { return nil }
        var values: [String: Value] = [:]
        for (key, value) in entries { values[key] = value.unwrapped }
        let entry = values["notifyOnEntry"]?.boolValue ?? true, exit = values["notifyOnExit"]?.boolValue ?? true
        // One whole phrase per crossing, since a language may put the verb anywhere.
        if let name = values["name"]?.stringValue {
            return entry && exit ? localized("on entering or leaving network %1$s", name)
                : entry ? localized("on entering network %1$s", name) : localized("on leaving network %1$s", name)
        }
        // The caller's own name for a region says more than its numbers.
        if let name = values["identifier"]?.stringValue, !name.isEmpty {
            // TRANSLATORS: %1$s is the name an app gave a place, such as Home.
            return entry && exit ? localized("on entering or leaving %1$s", name)
                : entry ? localized("on entering %1$s", name) : localized("on leaving %1$s", name)
        }
        guard case .double(let latitude)? = values["latitude"], case .double(let longitude)? = values["longitude"],
              case .double(let radius)? = values["radius"] else { return nil }
        let kilometres = radius / 1000
        let metres = radius < 1000 ? "\(Int(radius))m" : kilometres.rounded() == kilometres ? "\(Int(kilometres))km" : "\(kilometres)km"
        let point = "\(latitude),\(longitude)"
        // TRANSLATORS: %1$s is a distance such as 150m or 1.5km, %2$s a latitude,longitude pair.
        return entry && exit ? localized("on entering or leaving %1$s around %2$s", metres, point)
            : entry ? localized("on entering %1$s around %2$s", metres, point) : localized("on leaving %1$s around %2$s", metres, point)
    }
}
