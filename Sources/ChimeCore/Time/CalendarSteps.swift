/// Month and year steps on a wall-clock time, in a rule's calendar; the time of day is kept.
///
/// Two calendars are counted here rather than by ICU (as Foundation does), where it is wrong:
/// - the Gregorian family (`gregorian`, `iso8601`, and `buddhist`, `japanese` and
///   `republicOfChina`, which differ from it only in how years are numbered) is proleptic,
///   as RFC 5545 and Python's `datetime` are: ICU's switches to the Julian calendar
///   before 1582-10-15, so a monthly repeat started there would drift by ten days;
/// - `hebrew`, whose year lengths Foundation's ICU got wrong (``HebrewDate``).
enum CalendarSteps {
    case gregorian
    case hebrew
    /// Any other calendar, by its CLDR name: counted by the system's ICU in UTC, so that
    /// it does plain wall-clock arithmetic (``ICUCalendar``).
    case icu(String)

    init(_ calendar: (name: String, cldr: String)) {
        switch calendar.name {
        case "gregorian", "iso8601", "buddhist", "japanese", "republicOfChina": self = .gregorian
        case "hebrew": self = .hebrew
        default: self = .icu(calendar.cldr)
        }
    }

    /// `local` moved `steps` months (or years, when `years`). A day the target month lacks
    /// is, on the Gregorian calendar, what `skip` says (nil for ``MonthEndSkip/omit``);
    /// on the others it becomes the month's last day. Nil when ICU cannot say (or cannot be
    /// loaded).
    func adding(_ steps: Int, years: Bool, to local: LocalDateTime, skip: MonthEndSkip = .backward) -> LocalDateTime? {
        let timeOfDay = local.hour * 3_600 + local.minute * 60 + local.second
        switch self {
        case .gregorian:
            let total = local.year * 12 + local.month - 1 + (years ? steps * 12 : steps)
            let year = total.floorDivided(by: 12), month = total.floorModulo(12) + 1
            var moved = local
            (moved.year, moved.month) = (year, month)
            let length = LocalDateTime.daysIn(month: month, year: year)
            guard local.day > length else { return moved }
            switch skip {
            case .omit: return nil
            case .backward: moved.day = length
            case .forward: (moved.year, moved.month, moved.day) = (month == 12 ? year + 1 : year, month % 12 + 1, 1)
            }
            return moved
        case .hebrew:
            let date = HebrewDate(days: local.days)
            let moved = years ? date.adding(years: steps) : date.adding(months: steps)
            return LocalDateTime(secondsAsUTC: moved.days * 86_400 + timeOfDay)
        case .icu(let calendar):
            return ICUCalendar.adding(steps, years: years, toSecondsAsUTC: local.secondsAsUTC, calendar: calendar)
                .map(LocalDateTime.init(secondsAsUTC:))
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
        case .icu(let calendar):
            return ICUCalendar.count(years: years, from: start.secondsAsUTC, to: end.secondsAsUTC, calendar: calendar) ?? 0
        }
    }
}

extension LocalDateTime {
    /// Days from 1970-01-01 to this date.
    var days: Int { Self.daysFromCivil(year: year, month: month, day: day) }
}
