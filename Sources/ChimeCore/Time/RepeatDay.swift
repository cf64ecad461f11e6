/// A day a weekly or monthly repeat falls on: the part of RFC 5545's BYDAY and BYMONTHDAY
/// that KAlarm, GNOME Calendar and systemd's `OnCalendar=` all offer.
public enum RepeatDay: Hashable, Sendable {
    /// A weekday of every week, 0 for Monday through 6 for Sunday (`BYDAY=MO`).
    case weekday(Int)
    /// The n-th (1 to 4) or last (-1) such weekday of every month (`BYDAY=2TU`, `BYDAY=-1FR`).
    case nthWeekday(Int, weekday: Int)
    /// The last day of every month (`BYMONTHDAY=-1`).
    case lastDay

    /// RFC 5545's two-letter weekday names, Monday first.
    static let codes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
    private static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let ordinals = ["1st": 1, "first": 1, "2nd": 2, "second": 2, "3rd": 3, "third": 3, "4th": 4, "fourth": 4,
                                   "last": -1]

    /// Whether it names a day of a month rather than of a week.
    var isMonthly: Bool { if case .weekday = self { false } else { true } }

    /// Reads what `--on` takes: `mon,wed,fri`, `weekdays`, `weekends`, `2nd tue`, `last fri`,
    /// `last-day`, comma-separated, in any case; weekday names may be written out.
    public static func parse(_ text: String, field: String = "on") throws(FieldError) -> [RepeatDay] {
        var days: [RepeatDay] = []
        for item in text.lowercased().split(separator: ",") {
            let words = item.split(whereSeparator: \.isWhitespace).map(String.init)
            switch words {
            case ["weekdays"]: days += (0...4).map(RepeatDay.weekday)
            case ["weekends"]: days += [.weekday(5), .weekday(6)]
            case ["last-day"], ["last", "day"], ["lastday"]: days.append(.lastDay)
            case let words where words.count == 1:
                guard let weekday = weekday(words[0]) else { throw unknown(String(item), field) }
                days.append(.weekday(weekday))
            case let words where words.count == 2:
                guard let ordinal = ordinals[words[0]], let weekday = weekday(words[1]) else { throw unknown(String(item), field) }
                days.append(.nthWeekday(ordinal, weekday: weekday))
            default:
                throw unknown(String(item), field)
            }
        }
        guard !days.isEmpty else { throw unknown(text, field) }
        return days
    }

    private static func weekday(_ word: String) -> Int? {
        names.firstIndex(of: word) ?? fullNames.firstIndex(of: word)
    }

    private static let fullNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    private static func unknown(_ item: String, _ field: String) -> FieldError {
        FieldError(field, "'\(item.trimmingSpaces)' is not a day to repeat on; use weekdays (mon,wed,fri), weekdays, "
            + "weekends, the n-th or last weekday of a month (2nd tue, last fri) or last-day.")
    }

    /// The day of the month it falls on in `month` of `year` (proleptic Gregorian); nil for a weekly day.
    func dayOfMonth(year: Int, month: Int) -> Int? {
        let length = LocalDateTime.daysIn(month: month, year: year)
        switch self {
        case .weekday: return nil
        case .lastDay: return length
        case .nthWeekday(let ordinal, let weekday):
            let first = LocalDateTime.daysFromCivil(year: year, month: month, day: 1)
            let firstMatch = 1 + (weekday - Self.mondayIndex(first)).floorModulo(7)
            if ordinal > 0 { return firstMatch + 7 * (ordinal - 1) }
            return firstMatch + 7 * ((length - firstMatch) / 7)
        }
    }

    /// 0 for Monday through 6 for Sunday, of a day counted from 1970-01-01 (a Thursday).
    static func mondayIndex(_ day: Int) -> Int { (day + 3).floorModulo(7) }
}
