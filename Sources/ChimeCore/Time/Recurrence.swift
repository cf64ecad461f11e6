import FoundationEssentials

/// A calendar unit a notification repeats by.
public enum RepeatUnit: String, CaseIterable, Sendable {
    case minute, hour, day, week, month, year

    /// Shorter than a day: the steps that a daylight-saving jump can overtake.
    var isShorterThanADay: Bool { self == .minute || self == .hour }

    /// The length of one unit in a zone-less frame, for the units that have one.
    var fixedSeconds: Int? { TimeUnit(rawValue: rawValue)?.fixedSeconds }

    /// The repeat unit a unit of time is, when it is one (seconds are not).
    init?(_ unit: TimeUnit) {
        self.init(rawValue: unit.rawValue)
    }
}

/// How a notification repeats: every `count` units (UILocalNotification's `repeatInterval`,
/// with a count iOS does not have).
public struct Recurrence: Hashable, Sendable {
    /// The calendar unit of each step.
    public var unit: RepeatUnit
    /// Every `count` units; at least 1.
    public var count: Int
    /// The days of each week or month it falls on (RFC 5545 BYDAY, BYMONTHDAY=-1); empty
    /// repeats on the first occurrence's day.
    public var days: [RepeatDay] = []
    /// How many occurrences there are in all, skipped ones included (RFC 5545 COUNT).
    public var limit: Int?
    /// The last wall-clock time an occurrence may have, on the rule's own clock (RFC 5545 UNTIL).
    public var until: LocalDateTime?
    /// What a month without the first occurrence's day does, for a monthly or yearly repeat
    /// without days on the Gregorian calendar: `repeat` takes the last day, as iOS does; an
    /// RRULE leaves the month out, as RFC 5545 does, unless its RFC 7529 SKIP says otherwise.
    public var skip: MonthEndSkip = .backward
    /// The rest of an RRULE, when ``days`` cannot say it (BYMONTH, BYHOUR, BYSETPOS, any
    /// BYMONTHDAY, …): ``RuleExpansion`` then finds its occurrences; nil for Chime's own repeats.
    public var parts: RuleParts?

    /// Every `count` `unit`s; throws when `count` is below 1.
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
        guard let unit = TimeUnit(spelling: String(name)).flatMap(RepeatUnit.init) else {
            throw FieldError(field, "'\(text)' is not a repeat interval; \(usage)")
        }
        guard digits.isEmpty || digits.count <= 9, let count = digits.isEmpty ? 1 : Int(digits) else {
            throw FieldError(field, "'\(text)' is not a repeat interval: the count is too large.")
        }
        do { try self.init(unit: unit, count: count) } catch { throw FieldError(field, error.reason) }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
