/// The BY parts and WKST of an RFC 5545 RRULE that Chime's days (``RepeatDay``) cannot say:
/// what ``RuleExpansion`` expands a period by.
///
/// Each list keeps the values as the rule gave them, without repeats, so that the rule reads
/// back as it was written; the expansion sorts what it needs.
public struct RuleParts: Hashable, Sendable {
    public var seconds: [Int] = []
    public var minutes: [Int] = []
    public var hours: [Int] = []
    /// BYDAY: a weekday (0 for Monday through 6 for Sunday) and its ordinal in the month or
    /// year, 0 for every such weekday.
    public var weekdays: [Weekday] = []
    public var monthDays: [Int] = []
    public var yearDays: [Int] = []
    public var weeks: [Int] = []
    public var months: [Int] = []
    public var positions: [Int] = []
    /// The day weeks start on (WKST), 0 for Monday.
    public var weekStart = 0

    /// One BYDAY value: `MO` (ordinal 0), `2TU`, `-1FR`, `20MO`.
    public struct Weekday: Hashable, Sendable {
        public var ordinal: Int
        public var weekday: Int
    }

    /// Whether a period expands by any part but WKST.
    var isEmpty: Bool {
        seconds.isEmpty && minutes.isEmpty && hours.isEmpty && weekdays.isEmpty && monthDays.isEmpty && yearDays.isEmpty
            && weeks.isEmpty && months.isEmpty && positions.isEmpty
    }

    // MARK: - Reading

    /// Takes the BY parts and WKST out of `values` (an RRULE's parts by name), checked against
    /// RFC 5545 3.3.10's ranges and its table of which parts go with which FREQ.
    static func take(from values: inout [String: String], unit: RepeatUnit, field: String) throws(FieldError) -> RuleParts {
        var parts = RuleParts()
        func numbers(_ key: String, _ ranges: [ClosedRange<Int>], _ usage: String) throws(FieldError) -> [Int] {
            guard let text = values.removeValue(forKey: key) else { return [] }
            var found: [Int] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = item.hasPrefix("+") ? item.dropFirst() : item
                guard let value = Int(digits) else { throw FieldError(field, "\(key)=\(text): '\(item)' is not a whole number.") }
                guard ranges.contains(where: { $0.contains(value) }) else { throw FieldError(field, "\(key)=\(value) \(usage).") }
                if !found.contains(value) { found.append(value) }
            }
            return found
        }
        parts.seconds = try numbers("BYSECOND", [0...59], "is not a second Chime fires at; use 0 to 59")
        parts.minutes = try numbers("BYMINUTE", [0...59], "is not a minute; use 0 to 59")
        parts.hours = try numbers("BYHOUR", [0...23], "is not an hour; use 0 to 23")
        parts.monthDays = try numbers("BYMONTHDAY", [1...31, -31 ... -1], "is not a day of a month; use 1 to 31 or -31 to -1")
        parts.yearDays = try numbers("BYYEARDAY", [1...366, -366 ... -1], "is not a day of a year; use 1 to 366 or -366 to -1")
        parts.weeks = try numbers("BYWEEKNO", [1...53, -53 ... -1], "is not a week of a year; use 1 to 53 or -53 to -1")
        parts.months = try numbers("BYMONTH", [1...12], "is not a month; use 1 to 12")
        parts.positions = try numbers("BYSETPOS", [1...366, -366 ... -1], "is not a position in a period; use 1 to 366 or -366 to -1")
        if let text = values.removeValue(forKey: "BYDAY") {
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let day = try weekday(item, unit: unit, field: field)
                if !parts.weekdays.contains(day) { parts.weekdays.append(day) }
            }
        }
        if let text = values.removeValue(forKey: "WKST") {
            guard let weekStart = RepeatDay.codes.firstIndex(of: text) else {
                throw FieldError(field, "WKST=\(text) is not a weekday (MO, TU, WE, TH, FR, SA, SU).")
            }
            parts.weekStart = weekStart
        }
        // RFC 5545 3.3.10: these parts MUST NOT be given with the other frequencies.
        let frequency = "FREQ=" + Recurrence.frequencyName(unit)
        if !parts.monthDays.isEmpty, unit == .week { throw FieldError(field, "BYMONTHDAY does not go with \(frequency) (RFC 5545 3.3.10).") }
        if !parts.yearDays.isEmpty, [.day, .week, .month].contains(unit) {
            throw FieldError(field, "BYYEARDAY does not go with \(frequency) (RFC 5545 3.3.10).")
        }
        if !parts.weeks.isEmpty, unit != .year { throw FieldError(field, "BYWEEKNO goes with FREQ=YEARLY only (RFC 5545 3.3.10).") }
        if let day = parts.weekdays.first(where: { $0.ordinal != 0 }), !parts.weeks.isEmpty {
            throw FieldError(field, "BYDAY \(day.ordinal)\(RepeatDay.codes[day.weekday]) cannot be numbered beside BYWEEKNO (RFC 5545 3.3.10).")
        }
        if !parts.positions.isEmpty, parts.with(positions: []).isEmpty {
            throw FieldError(field, "BYSETPOS needs another BY part to pick from (RFC 5545 3.3.10).")
        }
        return parts
    }

    private func with(positions: [Int]) -> RuleParts {
        var copy = self
        copy.positions = positions
        return copy
    }

    private static func weekday(_ item: Substring, unit: RepeatUnit, field: String) throws(FieldError) -> Weekday {
        let code = String(item.suffix(2))
        let ordinalText = item.dropLast(2)
        guard let weekday = RepeatDay.codes.firstIndex(of: code) else { throw FieldError(field, "BYDAY \(item) is not a weekday.") }
        if ordinalText.isEmpty { return Weekday(ordinal: 0, weekday: weekday) }
        guard let ordinal = Int(ordinalText.hasPrefix("+") ? ordinalText.dropFirst() : ordinalText) else {
            throw FieldError(field, "BYDAY \(item) is not a weekday.")
        }
        switch unit {
        case .month:
            guard (1...5).contains(abs(ordinal)) else {
                throw FieldError(field, "BYDAY \(item): a month has at most 5 of a weekday; number it 1 to 5 or -5 to -1.")
            }
        case .year:
            guard (1...53).contains(abs(ordinal)) else {
                throw FieldError(field, "BYDAY \(item): a year has at most 53 of a weekday; number it 1 to 53 or -53 to -1.")
            }
        default:
            throw FieldError(field, "BYDAY \(item): a numbered weekday needs FREQ=MONTHLY or FREQ=YEARLY (RFC 5545 3.3.10).")
        }
        return Weekday(ordinal: ordinal, weekday: weekday)
    }

    // MARK: - Chime's days

    /// The same rule as Chime's days, when they say all of it: weekdays of a weekly repeat
    /// (their weeks start on Monday: another WKST matters to a repeat every N weeks, whose
    /// weeks it cuts, even on one day when the start is not on it), the 1st to 4th or last
    /// weekday of a month, or its last day. Nil sends the rule to ``RuleExpansion``.
    func days(unit: RepeatUnit, interval: Int) -> [RepeatDay]? {
        guard seconds.isEmpty, minutes.isEmpty, hours.isEmpty, yearDays.isEmpty, weeks.isEmpty, months.isEmpty, positions.isEmpty
        else { return nil }
        if weekdays.isEmpty, monthDays.isEmpty { return [] }
        switch unit {
        case .week:
            guard monthDays.isEmpty, weekdays.allSatisfy({ $0.ordinal == 0 }) else { return nil }
            if weekStart != 0, interval > 1, !weekdays.isEmpty { return nil }
            return weekdays.map { .weekday($0.weekday) }
        case .month:
            if weekdays.isEmpty { return monthDays == [-1] ? [.lastDay] : nil }
            guard monthDays.isEmpty, weekdays.allSatisfy({ [1, 2, 3, 4, -1].contains($0.ordinal) }) else { return nil }
            // Chime's days refuse the 4th and the last of one weekday together (one date, at times).
            let days = weekdays.map { RepeatDay.nthWeekday($0.ordinal, weekday: $0.weekday) }
            for case .nthWeekday(4, let weekday) in days where days.contains(.nthWeekday(-1, weekday: weekday)) { return nil }
            return days
        default:
            return nil
        }
    }

    // MARK: - Text

    /// The parts as RRULE text, in RFC 5545's order of BY parts, then WKST when not Monday.
    var rruleParts: [String] {
        func list(_ key: String, _ values: [Int]) -> [String] {
            values.isEmpty ? [] : [key + "=" + values.map(String.init).joined(separator: ",")]
        }
        var parts = list("BYSECOND", seconds) + list("BYMINUTE", minutes) + list("BYHOUR", hours)
        if !weekdays.isEmpty {
            parts.append("BYDAY=" + weekdays.map { ($0.ordinal == 0 ? "" : "\($0.ordinal)") + RepeatDay.codes[$0.weekday] }.joined(separator: ","))
        }
        parts += list("BYMONTHDAY", monthDays) + list("BYYEARDAY", yearDays) + list("BYWEEKNO", weeks) + list("BYMONTH", months)
            + list("BYSETPOS", positions)
        if weekStart != 0 { parts.append("WKST=" + RepeatDay.codes[weekStart]) }
        return parts
    }
}
