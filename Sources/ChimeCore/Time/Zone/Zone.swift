import Glibc
import Synchronization

/// A time zone read from the system's TZif files (RFC 8536): offsets from UTC by instant.
///
/// Two zones are equal when their identifiers are equal; the parsed rules are not compared.
public struct Zone: Sendable, Hashable, CustomStringConvertible {
    /// The zone's name, such as `"Europe/Berlin"` or `"UTC"`.
    public let identifier: String
    let rules: ZoneRules

    init(identifier: String, rules: ZoneRules) {
        self.identifier = identifier
        self.rules = rules
    }

    /// Reads the zone named `identifier` from `$TZDIR` (or `/usr/share/zoneinfo`).
    ///
    /// Returns `nil` when the name is not a safe relative path, or when the file is missing,
    /// unreadable, or not a well-formed TZif file.
    public init?(identifier: String) {
        self.init(identifier: identifier, in: ZoneDirectory.path)
    }

    /// Reads the zone named `identifier` from `directory` (tests give their own, as TZDIR
    /// is the whole process's).
    init?(identifier: String, in directory: String) {
        guard ZoneDirectory.isAcceptableIdentifier(identifier),
              let rules = ZoneRules.cached(contentsOfFile: directory + "/" + identifier)
        else { return nil }
        self.init(identifier: identifier, rules: rules)
    }

    /// The offset from UTC, in seconds, in force at `unixSeconds` (UTC seconds since 1970).
    public func secondsFromGMT(at unixSeconds: Int) -> Int {
        rules.secondsFromGMT(at: unixSeconds)
    }

    /// The system's zone, read afresh on every call (from `TZ`, else `/etc/localtime`).
    public static var system: Zone {
        SystemZone.load()
    }

    private static let kept = Mutex<Zone?>(nil)

    /// The system's zone, read once and kept until ``resetCurrent()``, which chimed calls
    /// when the system's zone changes: every fire and every answer reads it.
    public static var current: Zone {
        kept.withLock { kept in
            if let kept { return kept }
            let zone = system
            kept = zone
            return zone
        }
    }

    /// Forgets the kept system zone: the next ``current`` reads it again.
    public static func resetCurrent() {
        kept.withLock { $0 = nil }
    }

    /// Coordinated Universal Time; needs no zone file.
    public static let utc = Zone(identifier: "UTC", rules: .fixed(offset: 0))

    /// Every zone and link name the installed tz database offers, sorted.
    public static var knownIdentifiers: [String] {
        ZoneDirectory.knownIdentifiers()
    }

    public var description: String { identifier }

    public static func == (lhs: Zone, rhs: Zone) -> Bool {
        lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }
}
