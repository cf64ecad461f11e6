import Foundation

/// A calendar unit a notification repeats by.
public enum RepeatUnit: String, CaseIterable, Sendable {
    case minute, hour, day, week, month, year

    /// Shorter than a day: the steps that a daylight-saving jump can overtake.
    var isShorterThanADay: Bool { self == .minute || self == .hour }

    /// The length of one unit in a zone-less frame, for the units that have one.
    var fixedSeconds: Int? {
        switch self {
        case .minute: 60
        case .hour: 3_600
        case .day: 86_400
        case .week: 604_800
        case .month, .year: nil
        }
    }
}

/// How a notification repeats: every `count` units (UILocalNotification's `repeatInterval`,
/// with a count iOS does not have).
public struct Recurrence: Hashable, Sendable {
    public var unit: RepeatUnit
    /// Every `count` units; at least 1.
    public var count: Int

    public init(unit: RepeatUnit, count: Int = 1) throws(FieldError) {
        guard count >= 1 else { throw FieldError("every", "the count must be 1 or more, not \(count).") }
        self.unit = unit
        self.count = count
    }

    /// Reads `day`, `2 weeks`, `30 minutes`, `30min`, `hourly`, `daily`, `weekly`, `monthly`,
    /// `yearly` or `annually` (any case).
    public init(parsing text: String, field: String = "every") throws(FieldError) {
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).joined()
        let adverbs: [String: RepeatUnit] = [
            "hourly": .hour, "daily": .day, "weekly": .week, "monthly": .month, "yearly": .year, "annually": .year,
        ]
        if let unit = adverbs[words] {
            try self.init(unit: unit)
            return
        }
        let digits = words.prefix(while: \.isASCIIDigit)
        let name = words.dropFirst(digits.count)
        let usage = "use a unit (minute, hour, day, week, month, year) with an optional count, as in 30 minutes or 2 weeks."
        guard let unit = Self.unitNames[String(name)] else {
            throw FieldError(field, "'\(text)' is not a repeat interval; \(usage)")
        }
        guard digits.isEmpty || digits.count <= 9, let count = digits.isEmpty ? 1 : Int(digits) else {
            throw FieldError(field, "'\(text)' is not a repeat interval: the count is too large.")
        }
        do { try self.init(unit: unit, count: count) } catch { throw FieldError(field, error.reason) }
    }

    private static let unitNames: [String: RepeatUnit] = {
        var names: [String: RepeatUnit] = [:]
        for (unit, spellings) in [
            (RepeatUnit.minute, ["m", "min", "mins", "minute", "minutes"]),
            (.hour, ["h", "hr", "hrs", "hour", "hours"]),
            (.day, ["d", "day", "days"]),
            (.week, ["w", "wk", "wks", "week", "weeks"]),
            (.month, ["mo", "month", "months"]),
            (.year, ["y", "yr", "yrs", "year", "years"]),
        ] {
            for spelling in spellings { names[spelling] = unit }
        }
        return names
    }()
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
