import Glibc
import Synchronization

enum SystemZone {
    static func load() -> Zone {
        if let tz = environmentValue("TZ") {
            return fromTZVariable(tz)
        }
        return fromLocaltime() ?? .utc
    }

    /// Follows glibc: `:` prefix stripped; a zone file name, an absolute path, or a POSIX rule.
    static func fromTZVariable(_ value: String) -> Zone {
        let text = value.hasPrefix(":") ? String(value.dropFirst()) : value
        if text.isEmpty { return .utc }
        if text.hasPrefix("/") {
            if !text.utf8.contains(0), let rules = ZoneRules(contentsOfFile: text) {
                return Zone(identifier: identifier(forPath: text), rules: rules)
            }
        } else if let zone = Zone(identifier: text) {
            return zone
        }
        if let rule = PosixRule(text) {
            return Zone(identifier: text, rules: ZoneRules(posixRule: rule))
        }
        return .utc
    }

    private static func identifier(forPath path: String) -> String {
        let prefix = ZoneDirectory.path + "/"
        guard path.hasPrefix(prefix), path.utf8.count > prefix.utf8.count else { return path }
        return String(path.dropFirst(prefix.count))
    }

    /// The zone in `localtimePath`, named by its symlink target, else by `namePath`, else "localtime".
    static func fromLocaltime(at localtimePath: String = "/etc/localtime",
                              namePath: String = "/etc/timezone") -> Zone? {
        guard let rules = ZoneRules(contentsOfFile: localtimePath) else { return nil }
        let linkName = FileReader.linkTarget(localtimePath).flatMap(identifier(forLinkTarget:))
        let name = linkName ?? debianTimezoneName(at: namePath) ?? "localtime"
        return Zone(identifier: name, rules: rules)
    }

    /// The part after the last `zoneinfo/`, without the `posix/` variant prefix.
    private static func identifier(forLinkTarget target: String) -> String? {
        // A byte search: the standard library's `ranges(of:)` instantiates generic
        // metadata on first use that cost more than reading the zone's file.
        let bytes = Array(target.utf8), marker = Array("zoneinfo/".utf8)
        guard let start = bytes.indices.reversed().first(where: { bytes[$0...].starts(with: marker) }) else { return nil }
        var name = String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
        if name.hasPrefix("posix/") { name.removeFirst("posix/".count) }
        return ZoneDirectory.isAcceptableIdentifier(name) ? name : nil
    }

    /// Debian keeps the zone's name in `/etc/timezone`, which matters when `/etc/localtime` is a copy.
    private static func debianTimezoneName(at path: String) -> String? {
        guard let bytes = FileReader.contents(of: path, limit: 4096) else { return nil }
        let name = String(decoding: bytes, as: UTF8.self).trimmingSpaces
        guard ZoneDirectory.isAcceptableIdentifier(name), Zone(identifier: name) != nil else { return nil }
        return name
    }
}
