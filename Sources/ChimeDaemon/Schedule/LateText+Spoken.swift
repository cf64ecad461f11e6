import Localization

extension LateText {
    /// The span of ``describe(_:)`` in chimed's language, for the late mark on a
    /// notification ("Due 5 min ago.").
    static func spoken(_ seconds: Double) -> String {
        switch span(seconds) {
        // TRANSLATORS: these fill "Due %1$s ago.": use the form that reads well there.
        case .seconds(let count): return localized("%1$d s", count)
        case .minutes(let count): return localized("%1$d min", count)
        case .hours(let hours, let minutes):
            return minutes == 0 ? localized("%1$d h", hours) : localized("%1$d h %2$d min", hours, minutes)
        case .days(let count): return pluralized("%1$d day", "%1$d days", count: count, count)
        // TRANSLATORS: these fill "Due %1$s ago." too, for a notification missed for weeks.
        case .weeks(let count): return pluralized("%1$d week", "%1$d weeks", count: count, count)
        // TRANSLATORS: these fill "Due %1$s ago." too, for a notification missed for months.
        case .months(let count): return pluralized("%1$d month", "%1$d months", count: count, count)
        // TRANSLATORS: these fill "Due %1$s ago." too, for a notification missed for years.
        case .years(let count): return pluralized("%1$d year", "%1$d years", count: count, count)
        }
    }
}
