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

    /// The `strftime` formats of times for people, from the locale's `LC_TIME`.
    struct TimeFormats: Sendable {
        /// The C locale's: English words, written by chime itself (``englishTime(_:_:)``),
        /// so they read the same whatever locale the process is in.
        static let c = TimeFormats(day: "%a %-d %b", dayWithYear: "%a %-d %b %Y", date: "%-d %b %Y", time: "%H:%M", english: true)

        /// A day of this year: `%a %-d %b` (Tue 1 Dec) in the C locale; elsewhere the
        /// weekday and the locale's own date (`%x`) without its year.
        var day: String
        /// A day of another year: `%a %-d %b %Y`, or the weekday and the locale's date.
        var dayWithYear: String
        /// A date with its year and without a weekday: `%-d %b %Y`, or the locale's date.
        var date: String
        /// A time of day to the minute: `%H:%M`, or the locale's time without its seconds.
        var time: String
        /// Whether these are the C locale's, in English.
        var english = false
    }

    /// Made once, on first use: only commands that print times pay for reading the locale.
    /// The C locale (no locale set) gets English words and a 24-hour clock, since its own
    /// `%x` (12/24/26) helps nobody.
    static let formats: TimeFormats = {
        guard let name = setlocale(LC_TIME, "").map({ String(cString: $0) }),
              name != "C", name != "POSIX", !name.hasPrefix("C.") else {
            return .c
        }
        let time = withoutSeconds(String(cString: nl_langinfo(nl_item(T_FMT))),
                                  twelveHour: String(cString: nl_langinfo(nl_item(T_FMT_AMPM))))
        let thisYear = withoutYear(String(cString: nl_langinfo(nl_item(D_FMT))))
        return TimeFormats(day: "%a " + (thisYear.isEmpty ? "%x" : thisYear), dayWithYear: "%a %x", date: "%x",
                           time: time.isEmpty ? "%H:%M" : time)
    }()

    /// The format of ``calendarTime(_:)``: `%x` and the time, or ISO 8601's order in the C
    /// locale, whose own `%x` (12/24/26) helps nobody.
    static var timeFormat: String { formats.english ? "%Y-%m-%d %H:%M" : "%x " + formats.time }

    /// `2026-12-24 18:00` in the C locale, the locale's date and time elsewhere: a full date
    /// on every line, for `chime next`'s column of a rule's times.
    static func calendarTime(_ seconds: Int64) -> String {
        localParts(seconds).map { formattedTime($0, timeFormat, english: false) } ?? String(seconds)
    }

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

    /// A date format without its year, for days of this year: "%m/%d/%y" → "%m/%d",
    /// "%Y年%m月%d日" → "%m月%d日", "%Y-%m-%d" → "%m-%d", "%d.%m.%Y" → "%d.%m.". What
    /// separates the year from the rest goes with it, but for a dot, which marks the month
    /// as a number where dates are written so (07.12. in German). Empty when the format has
    /// no year, or nothing but the year.
    static func withoutYear(_ format: String) -> String {
        let expanded = format.replacing("%D", with: "%m/%d/%y").replacing("%F", with: "%Y-%m-%d")
        // The conversions in order, each with the literal text after it; the first has none.
        var pieces: [(conversion: String, text: String)] = [("", "")]
        var characters = Array(expanded)[...]
        while let character = characters.popFirst() {
            guard character == "%" else {
                pieces[pieces.count - 1].text.append(character)
                continue
            }
            // Flags, a width or an E/O modifier belong to the conversion.
            var conversion = "%"
            while let modifier = characters.first, "-_0^#EO".contains(modifier) || modifier.isNumber {
                conversion.append(modifier)
                characters.removeFirst()
            }
            guard let letter = characters.popFirst() else { break }
            guard letter != "%" else {
                pieces[pieces.count - 1].text += "%%"
                continue
            }
            pieces.append((conversion + String(letter), ""))
        }
        guard let year = pieces.indices.dropFirst().first(where: { "yYCG".contains(pieces[$0].conversion.last ?? " ") }),
              pieces.count > 2 else { return "" }
        // Last, the separator before it goes; else the one after it.
        if year == pieces.count - 1, pieces[year - 1].text != "." { pieces[year - 1].text = "" }
        pieces.remove(at: year)
        return pieces.map { $0.conversion + $0.text }.joined()
    }

    /// Unix seconds as ``date(_:zone:distance:now:)`` writes them; "-" for none.
    static func localTime(_ seconds: Int64?) -> String {
        seconds.map { date($0) } ?? "-"
    }

    // MARK: - Tables

    /// Left-aligned columns, two spaces apart; control characters in cells escaped.
    ///
    /// Wider than `width`, the cells of column `shrinking` (a title) are cut with an
    /// ellipsis until the rows fit, but to no fewer than 10 columns: a title cut shorter
    /// says nothing, and the other columns are facts that are not cut at all. A column with
    /// a cap in `caps` is laid out as wide as its cells up to the cap; a longer cell (a place,
    /// a time in two zones) pushes the rest of its own row to the right instead of
    /// narrowing every title for one row.
    static func table(header: [String], rows: [[String]], width: Int? = nil, shrinking: Int? = nil, caps: [Int: Int] = [:]) -> String {
        var all = [header] + rows.map { $0.map { escaped($0) } }
        var widths = header.indices.map { column in
            let cells = all.map { columns(of: $0[column]) }
            guard let cap = caps[column] else { return cells.max() ?? 0 }
            return cells.filter { $0 <= cap }.max() ?? cap
        }
        if let width, let shrinking, widths.indices.contains(shrinking) {
            let total = widths.reduce(0, +) + 2 * (widths.count - 1)
            let fitted = max(min(widths[shrinking], 10), widths[shrinking] - (total - width))
            if fitted < widths[shrinking] {
                widths[shrinking] = fitted
                for row in all.indices { all[row][shrinking] = truncated(all[row][shrinking], to: fitted) }
            }
        }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: max(0, widths[index] - columns(of: cell)))
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
