import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials
import JSON

/// How a scheduled notification looks to bus callers: the `a{sv}` of `Get`, `List` and
/// `Fired`, with the same keys `Schedule` takes, and its JSON form for scripts.
enum NotificationEncoding {
    /// `waiting`: a place notification whose location source is missing (state `waiting`).
    /// `pendingSince`: when an occurrence of it came due that still waits for a notification
    /// server (state `pending`); that time is its `nextFire` when it has no next occurrence.
    static func entries(_ notification: ScheduledNotification, zone: Zone, waiting: Bool = false,
                        pendingSince: Date? = nil) -> [(String, Value)] {
        let alert = notification.alert
        var entries: [(NotificationKey, Value)] = [
            (.id, .string(notification.id)),
            (.title, .string(alert.title)),
            (.body, .string(alert.body)),
            (.urgency, .byte(alert.urgency.rawValue)),
            (.appName, .string(alert.appName)),
        ]
        if let place = notification.rule.trigger.place {
            entries += placeEntries(place)
        } else {
            entries.append((.when, .string(whenText(notification.rule.fireTrigger, zone: zone))))
            entries.append((.calendar, .string(notification.rule.calendar)))
        }
        entries += [
            (.state, .string(waiting ? "waiting" : pendingSince != nil ? "pending" : notification.state.rawValue)),
            (.fireCount, .uint32(UInt32(clamping: notification.fireCount))),
            (.created, .int64(seconds(notification.created))),
        ]
        if let recurrence = notification.rule.recurrence {
            entries.append((.repeat, .string(recurrence.unit.rawValue)))
            entries.append((.every, .uint32(UInt32(clamping: recurrence.count))))
            entries.append((.rrule, .string(notification.rule.rrule ?? recurrence.rrule())))
            let skipped = notification.rule.skippedInstants(systemZone: zone)
            if !skipped.isEmpty { entries.append((.skipped, .array(element: "x", skipped.map { .int64(seconds($0)) }))) }
        }
        if let next = notification.nextFire ?? pendingSince {
            entries.append((.nextFire, .int64(seconds(next))))
            entries.append((.nextFireLocal, .string(isoText(next, zone: zone))))
        }
        if let last = notification.lastFired { entries.append((.lastFired, .int64(seconds(last)))) }
        if let lateLimit = notification.lateLimit { entries.append((.lateLimit, .double(lateLimit))) }
        if let origin = notification.origin { entries.append((.origin, .string(origin))) }
        if let completed = notification.completed { entries.append((.completed, .int64(seconds(completed)))) }
        entries += fields(of: alert)
        return entries.map { ($0.0.rawValue, $0.1) }
    }

    /// A notification as `WillPresent` hands it to the app in front: its id and what it shows.
    static func alertEntries(_ id: String, _ alert: Alert) -> [(String, Value)] {
        let entries: [(NotificationKey, Value)] = [
            (.id, .string(id)), (.title, .string(alert.title)), (.body, .string(alert.body)),
            (.urgency, .byte(alert.urgency.rawValue)), (.appName, .string(alert.appName)),
        ]
        return (entries + fields(of: alert)).map { ($0.0.rawValue, $0.1) }
    }

    /// The alert's optional fields, then its userInfo.
    private static func fields(of alert: Alert) -> [(NotificationKey, Value)] {
        var fields: [(NotificationKey, Value)] = []
        if let badge = alert.badge { fields.append((.badge, .int32(Int32(clamping: badge)))) }
        if let entry = alert.desktopEntry { fields.append((.desktopEntry, .string(entry))) }
        if let image = alert.image { fields.append((.image, .string(image))) }
        if let category = alert.category { fields.append((.category, .string(category))) }
        if let label = alert.defaultAction { fields.append((.defaultAction, .string(label))) }
        if let domain = alert.textDomain { fields.append((.textDomain, .string(domain))) }
        if let location = alert.location { fields.append((.location, .string(location))) }
        if let lead = alert.leadTime { fields.append((.leadTime, .double(lead))) }
        if let expires = alert.expires { fields.append((.expires, .int32(expires))) }
        switch alert.sound {
        case .serverDefault: break
        case .none: fields.append((.sound, .string("none")))
        case .themed(let name): fields.append((.sound, .string(name)))
        case .file(let path): fields.append((.sound, .string(path)))
        }
        if !alert.actions.isEmpty {
            fields.append((.actions, .array(element: "(ss)", alert.actions.map { .structure([.string($0.key), .string($0.label)]) })))
        }
        if let options = ActionOptionsDecoding.encode(alert.actions) { fields.append((.actionOptions, options)) }
        fields.append((.userInfo, userInfo(alert.userInfo)))
        return fields
    }

    /// A notification that is due but waits for a notification server, as `List` shows it:
    /// its `nextFire` is when it came due, which places it among the others by time.
    static func pending(_ id: String, _ alert: Alert, due: Date, zone: Zone) -> [(String, Value)] {
        let entries: [(NotificationKey, Value)] = [
            (.id, .string(id)), (.title, .string(alert.title)), (.body, .string(alert.body)), (.state, .string("pending")),
            (.nextFire, .int64(seconds(due))), (.nextFireLocal, .string(isoText(due, zone: zone))),
            (.userInfo, userInfo(alert.userInfo)),
        ]
        return entries.map { ($0.0.rawValue, $0.1) }
    }

    /// An instant as the `x` keys carry it: whole seconds since 1970, rounded down.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func userInfo(_ info: [String: UserInfoValue]) -> Value {
        .variantDictionary(info.sorted { $0.key < $1.key }.map { ($0.key, $0.value.dbusValue) })
    }

    /// The trigger as `WhenParser` reads it back: an instant with its offset, a bare
    /// wall-clock time (floating), or a wall-clock time with `[Zone/Name]`.
    static func whenText(_ trigger: Trigger, zone: Zone) -> String {
        switch trigger {
        case .absolute(let date): isoText(date, zone: zone)
        case .floating(let local): local.description
        case .zoned(let local, let name): "\(local)[\(name)]"
        case .place: ""
        }
    }

    /// `region` or `network`, as Schedule takes them, and `regionTriggersOnce`.
    static func placeEntries(_ place: Place) -> [(NotificationKey, Value)] {
        let flags: [(String, Value)] = [("notifyOnEntry", .bool(place.notifyOnEntry)), ("notifyOnExit", .bool(place.notifyOnExit))]
        let entry: (NotificationKey, Value)
        switch place.kind {
        case .region(let region):
            entry = (.region, .variantDictionary([
                ("latitude", .double(region.latitude)), ("longitude", .double(region.longitude)), ("radius", .double(region.radius)),
                ("identifier", .string(region.identifier)),
            ] + flags))
        case .network(let name):
            entry = (.network, .variantDictionary([("name", .string(name))] + flags))
        }
        return [entry, (.regionTriggersOnce, .bool(place.triggersOnce))]
    }

    /// ISO 8601 with the zone's offset, to the second: `2026-12-24T18:00:00+01:00`, and
    /// `1850-01-01T09:00:00-04:56:02` for an offset with seconds.
    ///
    /// Written out by hand: an ISO8601DateFormatter costs about a millisecond to make,
    /// and this runs for every Fired signal and every row of List.
    static func isoText(_ date: Date, zone: Zone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        // Local mean time before standard time has offsets in seconds (New York −04:56:02).
        let seconds = abs(offset) % 60 == 0 ? "" : ":" + two(abs(offset) % 60)
        return LocalDateTime(date, in: zone).description + sign + two(minutes / 60) + ":" + two(minutes % 60) + seconds
    }

    // MARK: - JSON

    /// A list of notifications as a JSON array of objects.
    static func json(_ list: [[(String, Value)]]) -> String {
        JSONText.array(list.map { object($0) }).compact
    }

    /// One value as JSON (a dictionary becomes an object).
    static func jsonText(_ value: Value) -> String { json(value).compact }

    private static func object(_ entries: [(String, Value)]) -> JSONText {
        .object(entries.map { ($0.0, json($0.1)) })
    }

    private static func json(_ value: Value) -> JSONText {
        switch value.unwrapped {
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .double(let d): return .double(d)
        case .array(_, let elements):
            return .array(elements.map { element in
                // An (action key, label) pair reads better as an object.
                if let pair = element.structureFields, pair.count == 2, let key = pair[0].stringValue, let label = pair[1].stringValue {
                    return .object([("key", .string(key)), ("label", .string(label))])
                }
                return json(element)
            })
        case .dictionary(_, _, let entries):
            return object(entries.map { (($0.key.stringValue ?? "\($0.key)"), $0.value) })
        case let other:
            if let integer = other.integerValue { return .integer(integer) }
            return .string("\(other)")
        }
    }
}

extension Date {
    /// The instant `seconds` after 1970, as the `x` keys carry it.
    init(seconds: Int64) { self.init(timeIntervalSince1970: TimeInterval(seconds)) }
}
