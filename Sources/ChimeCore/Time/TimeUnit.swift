/// A unit of time as people write it (`m`, `min`, `minutes`): the one table of spellings
/// that durations (`1h30m`) and repeat intervals (`2 weeks`) read.
enum TimeUnit: String, CaseIterable {
    case second, minute, hour, day, week, month, year

    /// The unit `spelling` (lower case) names; nil when it names none.
    init?(spelling: String) {
        guard let unit = Self.bySpelling[spelling] else { return nil }
        self = unit
    }

    /// Its length in a zone-less frame; nil for months and years, which have none.
    var fixedSeconds: Int? {
        switch self {
        case .second: 1
        case .minute: 60
        case .hour: 3_600
        case .day: 86_400
        case .week: 604_800
        case .month, .year: nil
        }
    }

    private var spellings: [String] {
        switch self {
        case .second: ["s", "sec", "secs", "second", "seconds"]
        case .minute: ["m", "min", "mins", "minute", "minutes"]
        case .hour: ["h", "hr", "hrs", "hour", "hours"]
        case .day: ["d", "day", "days"]
        case .week: ["w", "wk", "wks", "week", "weeks"]
        case .month: ["mo", "month", "months"]
        case .year: ["y", "yr", "yrs", "year", "years"]
        }
    }

    private static let bySpelling: [String: TimeUnit] = Dictionary(
        uniqueKeysWithValues: allCases.flatMap { unit in unit.spellings.map { ($0, unit) } })
}
