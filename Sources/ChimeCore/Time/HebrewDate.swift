/// A date of the arithmetic Hebrew calendar, computed from the molad and the four
/// postponements (dehiyyot), as in Dershowitz and Reingold, *Calendrical Calculations*, ch. 8.
///
/// Months are numbered as Foundation numbers them, from Tishri: 1 Tishri, 2 Heshvan,
/// 3 Kislev, 4 Tevet, 5 Shevat, 6 Adar I (leap years only), 7 Adar (Adar II in leap
/// years), 8 Nisan, … 13 Elul.
///
/// Foundation's Hebrew calendar is not used for the arithmetic: on Linux (swift-foundation
/// 6.3) it makes 5806 a year of 385 days instead of 384, so it is a day off from late 5804
/// to 5806 and month steps across those years drift.
struct HebrewDate: Hashable {
    var year, month, day: Int

    /// Days from 1970-01-01 to 1 Tishri AM 1 (R.D. −1 373 427 in the proleptic Gregorian count).
    private static let epoch = -1_373_427 - 719_163

    static func isLeap(_ year: Int) -> Bool { (7 * year + 1).floorModulo(19) < 7 }

    /// Months from the epoch to 1 Tishri of `year`.
    static func monthsElapsed(_ year: Int) -> Int { (235 * year - 234).floorDivided(by: 19) }

    /// Days from the epoch to the molad of Tishri, moved off Sunday, Wednesday and Friday.
    private static func elapsedDays(_ year: Int) -> Int {
        let months = monthsElapsed(year)
        let parts = 12_084 + 13_753 * months
        let days = 29 * months + parts.floorDivided(by: 25_920)
        return (3 * (days + 1)).floorModulo(7) < 3 ? days + 1 : days
    }

    /// Days from 1970-01-01 to 1 Tishri of `year`, with the postponements that keep every
    /// year 353–355 or 383–385 days long.
    static func newYear(_ year: Int) -> Int {
        let previous = elapsedDays(year - 1), this = elapsedDays(year), next = elapsedDays(year + 1)
        let correction = next - this == 356 ? 2 : this - previous == 382 ? 1 : 0
        return epoch + this + correction
    }

    static func daysInYear(_ year: Int) -> Int { newYear(year + 1) - newYear(year) }

    /// The length of a month (0 for Adar I in a common year).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: daysInYear(year) % 10 == 5 ? 30 : 29
        case 3: daysInYear(year) % 10 == 3 ? 29 : 30
        case 6: isLeap(year) ? 30 : 0
        case 1, 5, 8, 10, 12: 30
        default: 29
        }
    }

    /// Days from 1970-01-01.
    var days: Int {
        (1..<month).reduce(Self.newYear(year)) { $0 + Self.daysIn(month: $1, year: year) } + day - 1
    }

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The Hebrew date of the day `days` after 1970-01-01.
    init(days: Int) {
        var year = (days - Self.epoch).floorDivided(by: 366) + 1
        while Self.newYear(year + 1) <= days { year += 1 }
        var month = 1
        var start = Self.newYear(year)
        while start + Self.daysIn(month: month, year: year) <= days {
            start += Self.daysIn(month: month, year: year)
            month += 1
        }
        self.init(year: year, month: month, day: days - start + 1)
    }

    // MARK: - Steps

    /// Months from the epoch to the start of this month, counting only months the year has.
    var monthIndex: Int {
        Self.monthsElapsed(year) + (month > 6 && !Self.isLeap(year) ? month - 2 : month - 1)
    }

    /// The same day `steps` months on, through the months each year really has; a day the
    /// month lacks (30 Heshvan, 30 Kislev, 30 Adar I) becomes its last day.
    func adding(months steps: Int) -> HebrewDate {
        let index = monthIndex + steps
        var year = (19 * index + 234).floorDivided(by: 235) + 1
        while Self.monthsElapsed(year) > index { year -= 1 }
        while Self.monthsElapsed(year + 1) <= index { year += 1 }
        let ordinal = index - Self.monthsElapsed(year) + 1
        let month = ordinal >= 6 && !Self.isLeap(year) ? ordinal + 1 : ordinal
        return HebrewDate(year: year, month: month, day: min(day, Self.daysIn(month: month, year: year)))
    }

    /// The same day and month `steps` years on: Adar I becomes Adar in a common year, Adar
    /// stays Adar (Adar II) in a leap year; a day the month lacks becomes its last day.
    func adding(years steps: Int) -> HebrewDate {
        let year = year + steps
        let month = month == 6 && !Self.isLeap(year) ? 7 : month
        return HebrewDate(year: year, month: month, day: min(day, Self.daysIn(month: month, year: year)))
    }
}
