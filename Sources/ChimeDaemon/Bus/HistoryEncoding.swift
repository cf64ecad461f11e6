import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials

/// How history events look to bus callers: the `a{sv}` of `History` and `HistoryOf`,
/// with the keys of ``ChimeAPI/HistoryKey``.
enum HistoryEncoding {
    /// What a limit of 0 asks for.
    static let defaultLimit = Limits.historyDefault

    /// The number of events asked for: 0 is the default, more than the store keeps is refused.
    static func limit(_ value: Value) throws(DBusError) -> Int {
        guard case .uint32(let limit) = value else { throw .invalidArgs("limit: expected u.") }
        guard limit <= Store.defaultHistoryLimit else {
            throw .invalidArgs("limit must be at most \(Store.defaultHistoryLimit), not \(limit); 0 asks for the newest \(defaultLimit).")
        }
        return limit == 0 ? defaultLimit : Int(limit)
    }

    static func entries(_ entry: HistoryEntry, zone: Zone) -> [(String, Value)] {
        let event = HistoryEvent(timestamp: NotificationEncoding.seconds(entry.time), id: entry.id, event: entry.event.rawValue,
                                 title: entry.title, detail: entry.detail, action: entry.action, copy: entry.copy)
        return event.entries { _ in NotificationEncoding.isoText(entry.time, zone: zone) }
    }

    /// The `aa{sv}` reply.
    static func array(_ events: [HistoryEntry], zone: Zone) -> Value {
        .array(element: "a{sv}", events.map { .variantDictionary(entries($0, zone: zone)) })
    }

    /// The JSON reply: an array of objects with the same keys.
    static func json(_ events: [HistoryEntry], zone: Zone) -> String {
        NotificationEncoding.json(events.map { entries($0, zone: zone) })
    }
}
