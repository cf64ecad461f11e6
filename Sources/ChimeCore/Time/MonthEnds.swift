/// What a monthly or yearly repeat does in a month that lacks its day (the 31st in April,
/// 29 February in a common year): RFC 7529's SKIP, on the Gregorian calendar.
public enum MonthEndSkip: String, CaseIterable, Hashable, Sendable {
    /// The month is left out and not counted (SKIP=OMIT): RFC 5545 3.3.10's rule for every
    /// RRULE, under which invalid dates are ignored.
    case omit
    /// The month's last day (SKIP=BACKWARD): UILocalNotification's `repeatInterval`, and
    /// so Chime's `repeat`: the 31st monthly is Feb 28 (29), Mar 31, Apr 30.
    case backward
    /// The first day of the next month (SKIP=FORWARD).
    case forward

    /// RFC 7529's name for it: `OMIT`, `BACKWARD`, `FORWARD`.
    var rfc7529Name: String { rawValue.uppercased() }
}

/// Which steps of a Gregorian monthly or yearly repeat land on a date that exists, for
/// repeats that leave the others out (``MonthEndSkip/omit``), so that the n-th occurrence
/// is found without walking the steps before it.
///
/// Whether the month `m` steps on has the start's day depends only on `m` modulo 4,800
/// (400 years: the Gregorian leap cycle), or modulo 12 when the day is the 30th or 31st, whose
/// months are the same every year. So the existing steps repeat with a period of at most
/// 4,800 steps, listed once.
struct ExistingSteps {
    /// Steps after which the pattern repeats.
    let period: Int
    /// The steps in `0..<period` that exist, in order; the first is 0, the start itself.
    let offsets: [Int]

    /// The pattern of a repeat from `start` every `months` months; nil when every step exists
    /// (a day up to the 28th, or a yearly step from a day every such month has).
    init?(start: LocalDateTime, months: Int) {
        // A yearly step keeps the month, and only February's length changes from year to year.
        guard start.day > 28, months > 0, months % 12 != 0 || start.month == 2 else { return nil }
        let cycle = start.day == 29 ? 4_800 : 12
        let period = cycle / Self.greatestCommonDivisor(months % cycle, cycle)
        let first = start.year * 12 + start.month - 1
        var offsets: [Int] = []
        for step in 0..<period {
            // Months are taken modulo the cycle, and years modulo 400 (a leap year at 0).
            let month = (first + step * (months % cycle)).floorModulo(4_800)
            if LocalDateTime.daysIn(month: month % 12 + 1, year: month / 12) >= start.day { offsets.append(step) }
        }
        guard offsets.count < period else { return nil }
        self.period = period
        self.offsets = offsets
    }

    /// The step the n-th occurrence (0 = the start) lands on; nil when it overflows.
    func step(ofOccurrence n: Int) -> Int? {
        let (periods, overflow) = (n / offsets.count).multipliedReportingOverflow(by: period)
        guard n >= 0, !overflow else { return nil }
        let (step, overflowAgain) = periods.addingReportingOverflow(offsets[n % offsets.count])
        return overflowAgain ? nil : step
    }

    /// How many occurrences come before step `step` (0 for a step at or before the start).
    func occurrences(before step: Int) -> Int {
        guard step > 0 else { return 0 }
        let within = step % period
        var low = 0, high = offsets.count
        while low < high {
            let middle = (low + high) / 2
            if offsets[middle] < within { low = middle + 1 } else { high = middle }
        }
        return step / period * offsets.count + low
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
