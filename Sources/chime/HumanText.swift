import ChimeAPI
import DBus
import Glibc
import Localization

/// Text for people (tables, local times, values), without Foundation (chime starts faster without it).
enum HumanText {
    /// The entries of a notification's `a{sv}` by key, their variants unwrapped; keys
    /// this chime does not know are left out.
    static func fields(_ entries: [(key: String, value: Value)]) -> [NotificationKey: Value] {
        var fields: [NotificationKey: Value] = [:]
        for (key, value) in entries { if let key = NotificationKey(rawValue: key), fields[key] == nil { fields[key] = value.unwrapped } }
        return fields
    }

    // MARK: - Local time

    /// The `strftime` format of local times: the locale's date and its time to the
    /// minute, or "2026-12-24 18:00" in the C locale, whose own "12/24/26" helps nobody.
    ///
    /// Made once, on first use: only commands that print times pay for reading the locale.
    static let timeFormat: String = {
        guard let name = setlocale(LC_TIME, "").map({ String(cString: $0) }),
              name != "C", name != "POSIX", !name.hasPrefix("C.") else { return "%Y-%m-%d %H:%M" }
        let time = withoutSeconds(String(cString: nl_langinfo(nl_item(T_FMT))),
                                  twelveHour: String(cString: nl_langinfo(nl_item(T_FMT_AMPM))))
        return "%x " + (time.isEmpty ? "%H:%M" : time)
    }()

    /// A time format without its seconds: "%H:%M:%S" → "%H:%M", "%r" → "%I:%M %p",
    /// "%H時%M分%S秒" → "%H時%M分". A reminder's seconds are noise in a table.
    static func withoutSeconds(_ format: String, twelveHour: String) -> String {
        let expanded = format.replacing("%T", with: "%H:%M:%S").replacing("%r", with: twelveHour)
        let characters = Array(expanded)
        var result = ""
        var index = 0
        while index < characters.count {
            guard characters[index] == "%", index + 1 < characters.count else {
                result.append(characters[index])
                index += 1
                continue
            }
            guard characters[index + 1] == "S" else {
                result.append(characters[index])
                result.append(characters[index + 1])
                index += 2
                continue
            }
            // The separator before the seconds and a unit word after them go with them.
            if let last = result.last, last == ":" || last == "." { result.removeLast() }
            index += 2
            while index < characters.count, characters[index] != "%", characters[index] != " ", !characters[index].isASCII {
                index += 1
            }
        }
        return result
    }

    /// Unix seconds as a local time for people; "-" for none.
    static func localTime(_ seconds: Int64?) -> String {
        guard let seconds else { return "-" }
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return "-" }
        var buffer = [CChar](repeating: 0, count: 256)
        let count = strftime(&buffer, buffer.count, timeFormat, &parts)
        guard count > 0 else { return "-" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: - Tables

    /// "every day", "every 2 weeks": a repeat rule's unit and step, in the session's language.
    static func repetition(_ unit: String?, every: Int64?, rrule: String? = nil) -> String {
        guard let unit else { return "-" }
        // Days, a count or an end say more than any phrase would: the RRULE shows them all.
        if let rrule, rrule.contains(";BY") || rrule.contains(";COUNT") || rrule.contains(";UNTIL") { return rrule }
        let count = Int(clamping: every ?? 1)
        // One message per unit, since a unit's gender and plural differ by language.
        switch unit {
        case "minute": return pluralized("every minute", "every %1$d minutes", count: count, count)
        case "hour": return pluralized("every hour", "every %1$d hours", count: count, count)
        case "day": return pluralized("every day", "every %1$d days", count: count, count)
        case "week": return pluralized("every week", "every %1$d weeks", count: count, count)
        case "month": return pluralized("every month", "every %1$d months", count: count, count)
        case "year": return pluralized("every year", "every %1$d years", count: count, count)
        default: return count == 1 ? "every \(unit)" : "every \(count) \(unit)s"
        }
    }

    /// Left-aligned columns, two spaces apart; control characters in cells escaped.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows.map { $0.map { escaped($0) } }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// A value as a person reads it.
    static func text(_ value: Value) -> String {
        switch value.unwrapped {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .double(let d): return String(d)
        case .array(_, let elements): return elements.map(text).joined(separator: ", ")
        case .structure(let fields): return fields.map(text).joined(separator: "=")
        case .dictionary(_, _, let entries):
            return entries.map { text($0.key) + "=" + text($0.value) }.joined(separator: ", ")
        case let other: return other.integerValue.map(String.init) ?? "\(other)"
        }
    }
}
