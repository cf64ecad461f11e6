import ChimeCore
import DBus
import Foundation

/// How history events look to bus callers: the `a{sv}` of `History` and `HistoryOf`.
///
/// Keys: `time` (s, ISO 8601 with the system zone's offset), `timestamp` (x, Unix seconds,
/// like `nextFire`), `id`, `event`, `title`, `detail` (s, possibly empty), and, where
/// they apply, `action` (s, the pressed key) and `copy` (s, the snoozed copy's id).
enum HistoryEncoding {
    /// What a limit of 0 asks for.
    static let defaultLimit = 50

    /// The number of events asked for: 0 is the default, more than the store keeps is refused.
    static func limit(_ value: Value) throws(DBusError) -> Int {
        guard case .uint32(let limit) = value else { throw .invalidArgs("limit: expected u.") }
        guard limit <= Store.defaultHistoryLimit else {
            throw .invalidArgs("limit must be at most \(Store.defaultHistoryLimit), not \(limit); 0 asks for the newest \(defaultLimit).")
        }
        return limit == 0 ? defaultLimit : Int(limit)
    }

    static func entries(_ entry: HistoryEntry, zone: TimeZone) -> [(String, Value)] {
        var entries: [(String, Value)] = [
            ("time", .string(NotificationEncoding.isoText(entry.time, zone: zone))),
            ("timestamp", .int64(Int64(entry.time.timeIntervalSince1970.rounded(.down)))),
            ("id", .string(entry.id)),
            ("event", .string(entry.event.rawValue)),
            ("title", .string(entry.title)),
            ("detail", .string(entry.detail)),
        ]
        if let action = entry.action { entries.append(("action", .string(action))) }
        if let copy = entry.copy { entries.append(("copy", .string(copy))) }
        return entries
    }

    /// The `aa{sv}` reply.
    static func array(_ events: [HistoryEntry], zone: TimeZone) -> Value {
        .array(element: "a{sv}", events.map { .variantDictionary(entries($0, zone: zone)) })
    }

    /// The JSON reply: an array of objects with the same keys.
    static func json(_ events: [HistoryEntry], zone: TimeZone) -> String {
        NotificationEncoding.json(events.map { entries($0, zone: zone) })
    }
}
