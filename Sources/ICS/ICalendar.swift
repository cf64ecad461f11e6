import CICal
import DBus
import Glibc
import Localization

/// An iCalendar (RFC 5545) text parsed by libical, owned until ``free()``.
///
/// libical does the syntax (line folding, escaping, parameters, VTIMEZONE, RRULE); the
/// mapping to Chime's keys is in ICalendar+Import.swift and ICalendar+Export.swift, one
/// mapping for chimed's ImportICalendar/ExportICalendar, which chime import/export call.
struct ICalendar {
    /// The parsed root: a VCALENDAR, or an XROOT holding several.
    let root: OpaquePointer

    /// Parses `text`; nil when it holds no iCalendar object at all.
    init?(text: String) {
        guard let root = text.withCString({ icalparser_parse_string($0) }) else { return nil }
        let kind = icalcomponent_isa(root)
        guard kind == ICAL_VCALENDAR_COMPONENT || kind == ICAL_XROOT_COMPONENT else {
            icalcomponent_free(root)
            return nil
        }
        self.root = root
    }

    func free() { icalcomponent_free(root) }

    /// Opens libical; nil when it is open, else the sentence that says why not.
    static func loadFailure() -> String? {
        guard chime_ical_available() == 0 else { return nil }
        // TRANSLATORS: %1$s is the dynamic loader's reason, in English.
        return localized("reading and writing iCalendar files needs libical 3 (libical.so.3): %1$s", text(chime_ical_error()) ?? "")
    }

    /// The VEVENTs and VTODOs of every VCALENDAR, in the order of the file.
    var reminders: [OpaquePointer] {
        let calendars = icalcomponent_isa(root) == ICAL_XROOT_COMPONENT ? Self.children(of: root, ICAL_VCALENDAR_COMPONENT) : [root]
        return calendars.flatMap { calendar in
            Self.children(of: calendar, ICAL_ANY_COMPONENT).filter {
                icalcomponent_isa($0) == ICAL_VEVENT_COMPONENT || icalcomponent_isa($0) == ICAL_VTODO_COMPONENT
            }
        }
    }

    static func children(of component: OpaquePointer, _ kind: icalcomponent_kind) -> [OpaquePointer] {
        walk(icalcomponent_get_first_component(component, kind)) { icalcomponent_get_next_component(component, kind) }
    }

    static func properties(of component: OpaquePointer, _ kind: icalproperty_kind) -> [OpaquePointer] {
        walk(icalcomponent_get_first_property(component, kind)) { icalcomponent_get_next_property(component, kind) }
    }

    /// libical's iterators: a first item, then `next` until it answers NULL.
    private static func walk(_ first: OpaquePointer?, _ next: () -> OpaquePointer?) -> [OpaquePointer] {
        var found: [OpaquePointer] = []
        var item = first
        while let current = item {
            found.append(current)
            item = next()
        }
        return found
    }

    /// What libical could not read in `component` or its alarms (its X-LIC-ERROR properties).
    static func parseErrors(in component: OpaquePointer) -> [String] {
        let own = properties(of: component, ICAL_XLICERROR_PROPERTY).compactMap { text(icalproperty_get_xlicerror($0)) }
        return own + children(of: component, ICAL_ANY_COMPONENT).flatMap(parseErrors)
    }

    static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// A property's value as the file writes it (after unescaping, for text).
    static func value(_ property: OpaquePointer) -> String {
        text(icalproperty_get_value_as_string(property)) ?? ""
    }

    /// An X- property's text: libical escapes it as TEXT when it writes (RFC 5545 3.3.11)
    /// but hands it back raw, so the escapes are undone here.
    static func xValue(_ property: OpaquePointer) -> String {
        var result = "", escaped = false
        for character in value(property) {
            if escaped {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func parameter(_ name: String, of property: OpaquePointer) -> String? {
        text(icalproperty_get_parameter_as_string(property, name))
    }

    // MARK: - Times

    /// Two digits, or four for a year.
    static func digits(_ number: Int32, _ width: Int = 2) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// `2026-12-24T18:00:00`, the wall-clock form chimed reads.
    static func localText(_ time: icaltimetype) -> String {
        digits(time.year, 4) + "-" + digits(time.month) + "-" + digits(time.day) + "T"
            + digits(time.hour) + ":" + digits(time.minute) + ":" + digits(time.second)
    }

    /// The IANA zone a TZID names: as it is, or after a prefix such as Thunderbird's
    /// `/mozilla.org/20070129_1/` or libical's `/freeassociation.sourceforge.net/`; nil when
    /// it names none (Outlook's "W. Europe Standard Time", say).
    static func ianaZone(_ tzid: String) -> String? {
        var parts = tzid.split(separator: "/").map(String.init)
        while !parts.isEmpty {
            let name = parts.joined(separator: "/")
            if name == "UTC" || icaltimezone_get_builtin_timezone(name) != nil { return name }
            parts.removeFirst()
        }
        return nil
    }

    // MARK: - Typed values of X-CHIME properties

    /// A D-Bus value as `TYPE:TEXT` (string, int, double, bool), for userInfo and button options.
    static func typedText(_ value: Value) -> String {
        switch value.unwrapped {
        case .string(let text): return "string:" + text
        case .bool(let flag): return "bool:" + (flag ? "true" : "false")
        case .double(let number): return "double:\(number)"
        case let other: return other.integerValue.map { "int:\($0)" } ?? "string:\(other)"
        }
    }

    /// The value `typedText` wrote; nil when it is not of that form.
    static func typedValue(_ text: String) -> Value? {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let body = String(parts[1])
        switch parts[0] {
        case "string": return .string(body)
        case "bool": return body == "true" ? .bool(true) : body == "false" ? .bool(false) : nil
        case "double": return Double(body).map(Value.double)
        case "int": return Int64(body).map(Value.int64)
        default: return nil
        }
    }
}

/// The X-CHIME-* properties: Chime's fields that iCalendar has no property for, so that
/// export then import keeps every field.
enum ChimeProperty {
    /// Text fields, by Schedule key, written X-CHIME- and the key in capitals with hyphens.
    static let textKeys = ["appName", "desktopEntry", "image", "sound", "category", "defaultAction", "textDomain", "calendar"]
    /// Number fields: written as decimal text, given to Schedule as numbers.
    static let numberKeys = ["badge", "expires", "lateLimit"]

    /// `appName` → `X-CHIME-APP-NAME`.
    static func name(_ key: String) -> String {
        "X-CHIME-" + key.map { $0.isUppercase ? "-" + String($0) : $0.uppercased() }.joined()
    }

    static let urgency = "X-CHIME-URGENCY"
    /// One per button, in order: `X-CHIME-ACTION;X-CHIME-KEY=done:Done`.
    static let action = "X-CHIME-ACTION"
    /// `X-CHIME-ACTION-OPTION;X-CHIME-KEY=done;X-CHIME-NAME=destructive:bool:true`.
    static let actionOption = "X-CHIME-ACTION-OPTION"
    /// `X-CHIME-DATA;X-CHIME-KEY=plant:string:fern`: one userInfo entry.
    static let data = "X-CHIME-DATA"
    static let keyParameter = "X-CHIME-KEY"
    static let nameParameter = "X-CHIME-NAME"
}
