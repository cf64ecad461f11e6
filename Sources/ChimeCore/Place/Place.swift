import FoundationEssentials

/// Where a notification fires instead of when: a circle on the map (CLRegion) or a
/// network, and which crossings of its edge count.
///
/// A notification has a date or a place, never both: a place is a kind of ``Trigger``,
/// so the two cannot be set together. Crossings are the only events: the first thing
/// learnt about a place (at scheduling, or the first fix) sets where the user is without
/// firing, as Core Location reports no entry into a region the device is already in.
public struct Place: Hashable, Sendable, Codable {
    /// What is watched.
    public enum Kind: Hashable, Sendable, Codable {
        /// A circle, watched through GeoClue.
        case region(Region)
        /// A network, by its NetworkManager connection id or Wi-Fi SSID.
        case network(String)
    }

    /// What is watched.
    public var kind: Kind
    /// Whether coming in fires it (CLRegion's `notifyOnEntry`).
    public var notifyOnEntry: Bool
    /// Whether going out fires it (`notifyOnExit`).
    public var notifyOnExit: Bool
    /// Whether the first crossing that fires ends it (`regionTriggersOnce`); false fires at every one.
    public var triggersOnce: Bool

    /// A place; neither `notifyOnEntry` nor `notifyOnExit` means both, as CLRegion does.
    /// Throws when a network name is empty; regions are checked by ``Region/init(latitude:longitude:radius:identifier:)``.
    public init(_ kind: Kind, notifyOnEntry: Bool, notifyOnExit: Bool, triggersOnce: Bool = true) throws(FieldError) {
        if case .network(let name) = kind, name.trimmingSpaces.isEmpty {
            throw FieldError("network.name", "must not be empty: give a connection id or a Wi-Fi SSID.")
        }
        self.kind = kind
        self.notifyOnEntry = notifyOnEntry || !notifyOnExit
        self.notifyOnExit = notifyOnExit || !notifyOnEntry
        self.triggersOnce = triggersOnce
    }

    /// Whether it is a circle (GeoClue) rather than a network (NetworkManager).
    public var isRegion: Bool {
        if case .region = kind { return true }
        return false
    }

    /// Whether moving from `old` to `new` fires it: a change, in a direction it watches.
    /// Nothing known before (`old` nil) or nothing known now (`new` nil) is no crossing.
    public func fires(from old: Presence?, to new: Presence?) -> Bool {
        guard let old, let new, old != new else { return false }
        return new == .inside ? notifyOnEntry : notifyOnExit
    }
}

/// Whether the user is in a place, as last decided.
public enum Presence: String, Hashable, Sendable, Codable {
    case inside, outside
}
