import Foundation

/// Month and year steps on a wall-clock time, in a rule's calendar; the time of day is kept.
///
/// Two calendars are counted here rather than by Foundation, where it is wrong:
/// - the Gregorian family (`gregorian`, `iso8601`, and `buddhist`, `japanese` and
///   `republicOfChina`, which differ from it only in how years are numbered) is proleptic,
///   as RFC 5545 and Python's `datetime` are: Foundation's switches to the Julian calendar
///   before 1582-10-15, so a monthly repeat started there would drift by ten days;
/// - `hebrew`, whose year lengths Foundation gets wrong (``HebrewDate``).
enum CalendarSteps {
    case gregorian
    case hebrew
    /// Any other calendar, set to UTC so that it does plain wall-clock arithmetic.
    case foundation(Calendar)

    init(_ identifier: Calendar.Identifier) {
        switch identifier {
        case .gregorian, .iso8601, .buddhist, .japanese, .republicOfChina: self = .gregorian
        case .hebrew: self = .hebrew
        default:
            var calendar = Calendar(identifier: identifier)
            calendar.timeZone = .gmt
            self = .foundation(calendar)
        }
    }

    /// `local` moved `steps` months (or years, when `years`); a day the target month lacks
    /// becomes its last day. Nil when Foundation cannot say.
    func adding(_ steps: Int, years: Bool, to local: LocalDateTime) -> LocalDateTime? {
        let timeOfDay = local.hour * 3_600 + local.minute * 60 + local.second
        switch self {
        case .gregorian:
            let total = local.year * 12 + local.month - 1 + (years ? steps * 12 : steps)
            let year = total.floorDivided(by: 12), month = total.floorModulo(12) + 1
            var moved = local
            (moved.year, moved.month) = (year, month)
            moved.day = min(local.day, LocalDateTime.daysIn(month: month, year: year))
            return moved
        case .hebrew:
            let date = HebrewDate(days: local.days)
            let moved = years ? date.adding(years: steps) : date.adding(months: steps)
            return LocalDateTime(secondsAsUTC: moved.days * 86_400 + timeOfDay)
        case .foundation(let calendar):
            guard let date = calendar.date(byAdding: years ? .year : .month, value: steps, to: Self.date(local)) else { return nil }
            return LocalDateTime(secondsAsUTC: Int(date.timeIntervalSince1970.rounded(.down)))
        }
    }

    /// Whole months (or years) from `start` to `end` by the calendar's month numbers, give
    /// or take one: an estimate the search corrects.
    func count(years: Bool, from start: LocalDateTime, to end: LocalDateTime) -> Int {
        switch self {
        case .gregorian:
            return years ? end.year - start.year : (end.year - start.year) * 12 + end.month - start.month
        case .hebrew:
            let from = HebrewDate(days: start.days), to = HebrewDate(days: end.days)
            return years ? to.year - from.year : to.monthIndex - from.monthIndex
        case .foundation(let calendar):
            let component: Calendar.Component = years ? .year : .month
            return calendar.dateComponents([component], from: Self.date(start), to: Self.date(end)).value(for: component) ?? 0
        }
    }

    private static func date(_ local: LocalDateTime) -> Date {
        Date(timeIntervalSince1970: TimeInterval(local.secondsAsUTC))
    }
}

extension LocalDateTime {
    /// Days from 1970-01-01 to this date.
    var days: Int { Self.daysFromCivil(year: year, month: month, day: day) }
}
