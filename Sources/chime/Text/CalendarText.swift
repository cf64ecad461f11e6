import ChimeAPI
import DBus
import JSON
import Localization

/// One calendar as chimed describes it (``ChimeAPI/CalendarKey``): a vdir folder or a
/// CalDAV collection, for `chime calendar` and `chime doctor`.
struct CalendarText {
    let entries: [(key: String, value: Value)]

    init(_ entries: [(key: String, value: Value)]) {
        self.entries = entries.map { ($0.key, $0.value.unwrapped) }
    }

    private func value(_ key: CalendarKey) -> Value? { entries.first { $0.key == key.rawValue }?.value }

    var name: String { value(.name)?.stringValue ?? "" }
    var kind: String { value(.kind)?.stringValue ?? "" }
    var location: String { value(.location)?.stringValue ?? "" }
    var state: String { value(.state)?.stringValue ?? "" }
    var reminders: Int { Int(value(.reminders)?.integerValue ?? 0) }
    var problems: [String] { (value(.problems)?.arrayElements ?? []).compactMap(\.stringValue) }

    /// Whether it is a CalDAV collection, synced, rather than a folder.
    var isCalDAV: Bool { kind == "caldav" }
    /// CalDAV: the user it is read as.
    var user: String? { value(.user)?.stringValue }
    /// CalDAV: whether a dismissal reaches the server (true when chimed does not say).
    var sharesDismissals: Bool { value(.shareDismissals)?.boolValue ?? true }
    /// CalDAV: the last sync that ended well, as Unix seconds.
    var lastSync: Int64? { value(.lastSyncTimestamp)?.integerValue }
    /// CalDAV: why the last sync did not end well.
    var error: String? { value(.error)?.stringValue }
    /// CalDAV: presses still to be written to the server.
    var queued: Int { Int(value(.queued)?.integerValue ?? 0) }
    /// CalDAV: false when the server does not let the user change its items.
    var writable: Bool { value(.writable)?.boolValue ?? true }

    /// A CalDAV calendar whose sync waits for the user (the password refused, the calendar
    /// gone): its state is the sentence saying why, not one of the state words.
    var needsUser: Bool { isCalDAV && !["syncing", "synced", "offline"].contains(state) }

    /// The state in the session's language; for a CalDAV calendar with when it last synced,
    /// the presses waiting to be sent and where dismissals stay.
    var stateText: String {
        guard isCalDAV else {
            switch state {
            case "watching": return localized("watching")
            case "reading": return localized("reading")
            case "missing": return localized("its folder is missing")
            default: return state
            }
        }
        var parts = [syncText]
        if queued > 0 { parts.append(pluralized("%1$d press to send", "%1$d presses to send", count: queued, queued)) }
        if !writable { parts.append(localized("read-only")) }
        if !sharesDismissals { parts.append(localized("dismissals kept here")) }
        return parts.joined(separator: ", ")
    }

    private var syncText: String {
        let last = lastSync.map { HumanText.date($0) }
        switch state {
        case "syncing": return localized("syncing")
        // TRANSLATORS: %1$s is a time such as "today 09:12".
        case "synced": return last.map { localized("synced %1$s", $0) } ?? localized("synced")
        // TRANSLATORS: %1$s is a time such as "today 09:12".
        case "offline": return last.map { localized("offline, last synced %1$s", $0) } ?? localized("offline, never synced")
        // TRANSLATORS: %1$s is a time such as "today 09:12".
        default: return last.map { localized("not syncing, last synced %1$s", $0) } ?? localized("not syncing")
        }
    }

    /// The object `chime calendar list --json` prints: every key chimed gave, in the
    /// order ``ChimeAPI/CalendarKey`` lists them, the first six always.
    var json: JSONText {
        var object: [(String, JSONText)] = [
            (CalendarKey.name.rawValue, .string(name)), (CalendarKey.kind.rawValue, .string(kind)),
            (CalendarKey.location.rawValue, .string(location)), (CalendarKey.state.rawValue, .string(state)),
            (CalendarKey.reminders.rawValue, .integer(reminders)), (CalendarKey.problems.rawValue, .strings(problems)),
        ]
        let always: Set<CalendarKey> = [.name, .kind, .location, .state, .reminders, .problems]
        for key in CalendarKey.allCases where !always.contains(key) {
            if let value = value(key) { object.append((key.rawValue, Self.json(value))) }
        }
        return .object(object)
    }

    /// A value of chimed's as JSON: text, a flag, a number or a list of them.
    static func json(_ value: Value) -> JSONText {
        let value = value.unwrapped
        if let text = value.stringValue { return .string(text) }
        if let flag = value.boolValue { return .bool(flag) }
        if let number = value.integerValue { return .integer(number) }
        if let elements = value.arrayElements { return .array(elements.map(json)) }
        return .null
    }
}
