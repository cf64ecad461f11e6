import ChimeAPI
import DBus
import Localization

/// A calendar of a CalDAV account, as DiscoverCalendars found it (``ChimeAPI/DiscoveredKey``).
struct FoundCalendar: Equatable {
    /// Its URL, as AddCalendar takes it.
    var location: String
    /// Its display name.
    var name: String
    /// What it holds (VEVENT, VTODO); empty when the server does not say.
    var components: [String] = []
    var writable = true
    /// The name chimed follows it by already; nil when it does not.
    var followedAs: String?

    init(location: String, name: String, components: [String] = [], writable: Bool = true, followedAs: String? = nil) {
        (self.location, self.name, self.components, self.writable, self.followedAs) = (location, name, components, writable, followedAs)
    }

    /// One of DiscoverCalendars' answer; nil without a location.
    init?(_ entries: [(key: String, value: Value)]) {
        func value(_ key: DiscoveredKey) -> Value? { entries.first { $0.key == key.rawValue }?.value.unwrapped }
        guard let location = value(.location)?.stringValue, !location.isEmpty else { return nil }
        self.location = location
        name = value(.name)?.stringValue ?? ""
        components = (value(.components)?.arrayElements ?? []).compactMap(\.stringValue)
        writable = value(.writable)?.boolValue ?? true
    }

    /// The last segment of its URL, percent-decoded: the collection's own name, as
    /// `personal` in `https://dav.example.org/alice/personal/`.
    var segment: String {
        let last = location.split(separator: "/").last.map(String.init) ?? location
        return Self.percentDecoded(last)
    }

    /// Its display name, or its collection's name when it has none.
    var title: String { name.isEmpty ? segment : name }

    /// Whether it may hold events: it says so, or says nothing (RFC 4791 5.2.3: then any kind).
    var holdsEvents: Bool { components.isEmpty || components.contains { $0.uppercased() == "VEVENT" } }
    /// Whether it may hold tasks.
    var holdsTasks: Bool { components.isEmpty || components.contains { $0.uppercased() == "VTODO" } }
    /// Whether it may hold anything to remind of, not only journals or free-busy.
    var holdsReminders: Bool { holdsEvents || holdsTasks }

    /// What it holds, for people: `events and tasks`, `tasks, read-only`,
    /// `events, followed as work`.
    var contents: String {
        var parts = [holdsEvents && holdsTasks ? localized("events and tasks")
                     : holdsEvents ? localized("events") : holdsTasks ? localized("tasks") : localized("no events or tasks")]
        if !writable { parts.append(localized("read-only")) }
        // TRANSLATORS: %1$s is the name of a calendar Chime follows already.
        if let followedAs { parts.append(localized("followed as %1$s", followedAs)) }
        return parts.joined(separator: ", ")
    }

    /// `text` with its `%XX` escapes read as UTF-8; a malformed escape is kept as it is.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let byte = UInt8(String(decoding: utf8[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
