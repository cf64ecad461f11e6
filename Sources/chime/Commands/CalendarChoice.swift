import Localization
import Spelling

/// Which of the calendars a CalDAV account holds `chime calendar add` follows, and the
/// names it follows them by.
enum CalendarChoice {
    /// A `--calendar` that names none of the calendars found.
    struct Unmatched: Error, Equatable {
        /// The name as typed.
        var typed: String
        /// The names it could have been (display names, and collection names unlike them).
        var names: [String]
        /// The one it most likely meant.
        var suggestion: String?

        /// The sentence of the usage error.
        var sentence: String {
            let list = names.joined(separator: ", ")
            if let suggestion {
                // TRANSLATORS: %2$s lists the calendars' names, %3$s is the one likely meant.
                return localized("--calendar '%1$s' names none of the calendars found (%2$s); did you mean '%3$s'?", typed, list, suggestion)
            }
            // TRANSLATORS: %2$s lists the calendars' names.
            return localized("--calendar '%1$s' names none of the calendars found: %2$s.", typed, list)
        }
    }

    /// The places in `found` of the calendars `typed` names, in the order found, each once.
    static func named(_ typed: [String], in found: [FoundCalendar]) throws(Unmatched) -> [Int] {
        var chosen = Set<Int>()
        for name in typed {
            guard let index = index(of: name, in: found) else {
                let names = Self.names(of: found)
                throw Unmatched(typed: name, names: names, suggestion: Spelling.nearest(to: name, among: names))
            }
            chosen.insert(index)
        }
        return chosen.sorted()
    }

    /// The calendar `name` means: the one with that display name or collection name, else
    /// the only one with it in another case.
    static func index(of name: String, in found: [FoundCalendar]) -> Int? {
        if let exact = found.firstIndex(where: { $0.name == name }) ?? found.firstIndex(where: { $0.segment == name }) { return exact }
        let lower = name.lowercased()
        let matches = found.indices.filter { found[$0].name.lowercased() == lower || found[$0].segment.lowercased() == lower }
        return matches.count == 1 ? matches[0] : nil
    }

    /// What a user may type for each calendar: its display name, and its collection's name
    /// where that is another word.
    static func names(of found: [FoundCalendar]) -> [String] {
        var names: [String] = []
        for calendar in found {
            let segment = calendar.name.lowercased() == calendar.segment.lowercased() ? "" : calendar.segment
            for name in [calendar.name, segment] where !name.isEmpty && !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The places picked by an answer to "which to follow?": `all`, or numbers from 1 to
    /// `count` and ranges (`1,3`, `1 3`, `2-4`); nil when it is none of these.
    static func answer(_ text: String, count: Int) -> [Int]? {
        let words = text.split { $0 == "," || $0.isWhitespace }
        guard !words.isEmpty else { return nil }
        // TRANSLATORS: the answer that picks every calendar found.
        let every = localized("all")
        if words.count == 1, words[0].lowercased() == "all" || words[0].lowercased() == every.lowercased() {
            return Array(0..<count)
        }
        var chosen = Set<Int>()
        for word in words {
            let ends = word.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let first = Int(ends[0]), let last = Int(ends[ends.count - 1]),
                  1 <= first, first <= last, last <= count else { return nil }
            chosen.formUnion((first - 1)...(last - 1))
        }
        return chosen.sorted()
    }

    // MARK: - Names

    /// The longest name chimed takes.
    static let longestName = 64

    /// The names to follow `chosen` by: each one's display name (its collection's name when
    /// it has none) made a name chimed takes, and unlike `taken` and one another.
    static func names(for chosen: [FoundCalendar], taken: some Sequence<String>) -> [String] {
        var used = Set(taken)
        return chosen.map { calendar in
            let base = [safeName(calendar.name), safeName(calendar.segment)].first { !$0.isEmpty } ?? "calendar"
            var name = base
            var number = 2
            while used.contains(name) {
                let suffix = " \(number)"
                name = trimmed(String(base.prefix(longestName - suffix.count))) + suffix
                number += 1
            }
            used.insert(name)
            return name
        }
    }

    /// `text` as a calendar name chimed takes: no `/` (made `-`), no control characters
    /// (white space ones made spaces), not starting with `-`, at most 64 characters.
    static func safeName(_ text: String) -> String {
        var name = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                if scalar.properties.isWhitespace { name.unicodeScalars.append(" ") }
            default:
                name.unicodeScalars.append(scalar == "/" ? "-" : scalar)
            }
        }
        var cut = Substring(trimmed(name))
        while cut.first == "-" || cut.first?.isWhitespace == true { cut.removeFirst() }
        return trimmed(String(cut.prefix(longestName)))
    }

    private static func trimmed(_ text: String) -> String {
        String(Substring(text).trimmingSpaces)
    }
}
