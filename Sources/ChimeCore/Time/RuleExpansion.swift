import Synchronization

/// The occurrences of an RRULE that Chime's days cannot say (``Recurrence/parts``), on the
/// proleptic Gregorian calendar, as RFC 5545 3.3.10 finds them.
///
/// - **Periods.** The rule's FREQ cuts the wall clock into years, months, weeks (starting on
///   WKST), days, hours or minutes; the k-th period is the one of the start, plus k × INTERVAL.
///   Each expands into its wall-clock times by RFC 5545's table (page 44): a BY part expands
///   where the table says so and limits elsewhere, which comes to the days of the period that
///   every day part admits (a numbered BYDAY counted in the month, or in the year of a yearly
///   rule without BYMONTH), at the hours, minutes and seconds the time parts give (the
///   start's own where a part is absent and the period is longer). BYSETPOS then picks
///   from the period's sorted times.
/// - **Defaults.** Without BYWEEKNO, BYYEARDAY, BYMONTHDAY and BYDAY, a yearly rule takes the
///   start's month (unless BYMONTH) and day, a monthly one the start's day, a weekly one its
///   weekday, as RFC 5545's examples and python-dateutil do.
/// - **The start.** Times before the start are not occurrences, and the start is one only
///   when the rule gives it. RFC 5545 counts DTSTART as the first instance either way, but
///   calls a set from a DTSTART the rule does not give undefined (3.8.5.3); python-dateutil's
///   rrule, libical's iterator and Chime's own days all leave such a start out, and so does
///   this. BYSETPOS picks before the start cuts, as in python-dateutil.
/// - **Invalid dates** (the 30th of February, the 366th day of a common year) are not made:
///   they are ignored and not counted, as 3.3.10 says.
/// - **Limits.** A search that meets no occurrence in 400 years (a Gregorian cycle, after
///   which every period repeats) gives up: a rule such as BYMONTH=2;BYMONTHDAY=30 has no
///   occurrence. Nothing is found past the year 9999. A numbered BYDAY and a plain one
///   together are each taken (RFC 5545's union, where python-dateutil asks for both).
/// - **Cost.** The n-th occurrence is found from counts of occurrences before every few
///   periods, kept for the process (``counted``): the first query far into a rule's life
///   counts the periods from its start once, and later ones start from the nearest count.
struct RuleExpansion {
    let start: LocalDateTime
    let unit: RepeatUnit
    let interval: Int
    let parts: RuleParts
    /// The start's period, in units of the FREQ since the epoch (years since year 0 for a year).
    let firstPeriod: Int
    /// The times of day of a daily or longer period, in seconds after midnight, sorted.
    private let times: [Int]
    private let hours: Set<Int>, minutes: Set<Int>
    private let seconds: [Int]
    private let key: Key
    /// Whether the steps never reach the hours and minutes the rule gives.
    private let never: Bool
    /// The last period read, for callers that walk the occurrences one by one.
    private let recent = Recent()

    init(start: LocalDateTime, recurrence: Recurrence, parts given: RuleParts) {
        (self.start, unit, interval) = (start, recurrence.unit, recurrence.count)
        var parts = given
        if parts.weeks.isEmpty, parts.yearDays.isEmpty, parts.monthDays.isEmpty, parts.weekdays.isEmpty {
            switch unit {
            case .year:
                if parts.months.isEmpty { parts.months = [start.month] }
                parts.monthDays = [start.day]
            case .month: parts.monthDays = [start.day]
            case .week:
                let day = LocalDateTime.daysFromCivil(year: start.year, month: start.month, day: start.day)
                parts.weekdays = [.init(ordinal: 0, weekday: RepeatDay.mondayIndex(day))]
            default: break
            }
        }
        self.parts = parts
        hours = Set(parts.hours)
        minutes = Set(parts.minutes)
        let seconds = parts.seconds.isEmpty ? [start.second] : parts.seconds.sorted()
        self.seconds = seconds
        let hourList = parts.hours.isEmpty ? [start.hour] : parts.hours.sorted()
        let minuteList = parts.minutes.isEmpty ? [start.minute] : parts.minutes.sorted()
        times = hourList.flatMap { hour in minuteList.flatMap { minute in seconds.map { hour * 3_600 + minute * 60 + $0 } } }
        key = Key(recurrence: recurrence, start: start)
        // An hourly or minutely step that never lands on BYHOUR (or BYMINUTE) would be searched
        // for 400 years, one step at a time: it is known at once.
        if recurrence.unit == .hour || recurrence.unit == .minute, !parts.hours.isEmpty || !parts.minutes.isEmpty {
            let (step, length) = recurrence.unit == .hour ? (recurrence.count * 60, 1_440) : (recurrence.count, 1_440)
            let first = start.hour * 60 + (recurrence.unit == .hour ? 0 : start.minute)
            var reached = Set<Int>(), minute = first
            while reached.insert(minute).inserted { minute = (minute + step) % length }
            let hours = Set(parts.hours), minutes = Set(parts.minutes)
            never = !reached.contains { (hours.isEmpty || hours.contains($0 / 60)) && (recurrence.unit == .hour || minutes.isEmpty || minutes.contains($0 % 60)) }
        } else {
            never = false
        }
        firstPeriod = Self.period(of: start, unit: recurrence.unit, weekStart: parts.weekStart)
    }

    // MARK: - Periods

    /// The first day (from 1970-01-01) that starts a week, for the week that starts on WKST.
    private var weekAnchor: Int { Self.weekAnchor(parts.weekStart) }

    private static func weekAnchor(_ weekStart: Int) -> Int { (weekStart - 3).floorModulo(7) }

    /// The period, in units of the FREQ, that holds a wall-clock time.
    func period(of local: LocalDateTime) -> Int {
        Self.period(of: local, unit: unit, weekStart: parts.weekStart)
    }

    private static func period(of local: LocalDateTime, unit: RepeatUnit, weekStart: Int) -> Int {
        let day = LocalDateTime.daysFromCivil(year: local.year, month: local.month, day: local.day)
        switch unit {
        case .year: return local.year
        case .month: return local.year * 12 + local.month - 1
        case .week: return (day - weekAnchor(weekStart)).floorDivided(by: 7)
        case .day: return day
        case .hour: return local.secondsAsUTC.floorDivided(by: 3_600)
        case .minute: return local.secondsAsUTC.floorDivided(by: 60)
        }
    }

    /// The unit of the k-th period; nil past any year a rule reaches.
    private func unitOf(_ k: Int) -> Int? {
        let (steps, overflow) = k.multipliedReportingOverflow(by: interval)
        guard !overflow, steps < 10_000 * 527_040 else { return nil }
        return firstPeriod + steps
    }

    /// The year a period starts in.
    private func year(ofUnit u: Int) -> Int {
        switch unit {
        case .year: return u
        case .month: return u.floorDivided(by: 12)
        case .week: return LocalDateTime.civilFromDays(weekAnchor + 7 * u).year
        case .day: return LocalDateTime.civilFromDays(u).year
        case .hour: return LocalDateTime.civilFromDays(u.floorDivided(by: 24)).year
        case .minute: return LocalDateTime.civilFromDays(u.floorDivided(by: 1_440)).year
        }
    }

    /// The first period index whose unit is at or after `u`.
    private func index(atOrAfterUnit u: Int) -> Int {
        let distance = u - firstPeriod
        return distance <= 0 ? 0 : (distance + interval - 1) / interval
    }

    /// The first period from the k-th that can hold an occurrence: an hour or a minute on a
    /// day no day part admits is passed over with the rest of its day.
    /// Never beyond `end`.
    private func skippingEmpty(_ k: Int, end: Int = Int.max) -> Int {
        guard unit == .hour || unit == .minute else { return k }
        var k = k
        for _ in 0..<1_000_000 {
            guard k < end, let u = unitOf(k) else { return min(k, end) }
            let perDay = unit == .hour ? 24 : 1_440
            let day = u.floorDivided(by: perDay)
            if !admits(day: day) {
                k = index(atOrAfterUnit: (day + 1) * perDay)
                continue
            }
            let hour = unit == .hour ? u.floorModulo(24) : u.floorModulo(1_440) / 60
            if !hours.isEmpty, !hours.contains(hour) {
                k = index(atOrAfterUnit: unit == .hour ? u + 1 : (u.floorDivided(by: 60) + 1) * 60)
                continue
            }
            return k
        }
        return k
    }

    // MARK: - Days

    /// Whether every day part admits a day (counted from 1970-01-01).
    private func admits(day: Int) -> Bool {
        let (year, month, date) = LocalDateTime.civilFromDays(day)
        return admits(day: day, year: year, month: month, date: date)
    }

    private func admits(day: Int, year: Int, month: Int, date: Int) -> Bool {
        if !parts.months.isEmpty, !parts.months.contains(month) { return false }
        let monthLength = LocalDateTime.daysIn(month: month, year: year)
        if !parts.monthDays.isEmpty, !parts.monthDays.contains(date), !parts.monthDays.contains(date - monthLength - 1) { return false }
        if !parts.yearDays.isEmpty || !parts.weeks.isEmpty || parts.weekdays.contains(where: { $0.ordinal != 0 }) {
            let newYear = LocalDateTime.daysFromCivil(year: year, month: 1, day: 1)
            let yearLength = LocalDateTime.isLeap(year) ? 366 : 365
            if !parts.yearDays.isEmpty {
                let ordinal = day - newYear + 1
                if !parts.yearDays.contains(ordinal), !parts.yearDays.contains(ordinal - yearLength - 1) { return false }
            }
            if !parts.weeks.isEmpty, !admitsWeek(of: day) { return false }
            if !parts.weekdays.isEmpty {
                let weekday = RepeatDay.mondayIndex(day)
                // RFC 5545 3.3.10: numbered within the month, or the year of a yearly rule without BYMONTH.
                let (first, last) = unit == .year && parts.months.isEmpty
                    ? (newYear, newYear + yearLength - 1) : (day - date + 1, day - date + monthLength)
                let fromStart = (day - first) / 7 + 1, fromEnd = -((last - day) / 7 + 1)
                return parts.weekdays.contains { $0.weekday == weekday && ($0.ordinal == 0 || $0.ordinal == fromStart || $0.ordinal == fromEnd) }
            }
            return true
        }
        if !parts.weekdays.isEmpty {
            let weekday = RepeatDay.mondayIndex(day)
            return parts.weekdays.contains { $0.weekday == weekday }
        }
        return true
    }

    /// Whether BYWEEKNO names the week of a day: weeks start on WKST, and week 1 of a year
    /// is the first with at least four of its days (RFC 5545 3.3.10), the one with 4 January.
    private func admitsWeek(of day: Int) -> Bool {
        func weekStart(_ day: Int) -> Int { day - (RepeatDay.mondayIndex(day) - parts.weekStart).floorModulo(7) }
        func firstWeek(_ year: Int) -> Int { weekStart(LocalDateTime.daysFromCivil(year: year, month: 1, day: 4)) }
        let start = weekStart(day)
        var year = LocalDateTime.civilFromDays(day).year
        if start >= firstWeek(year + 1) { year += 1 } else if start < firstWeek(year) { year -= 1 }
        let number = (start - firstWeek(year)) / 7 + 1
        let weeks = (firstWeek(year + 1) - firstWeek(year)) / 7
        return parts.weeks.contains(number) || parts.weeks.contains(number - weeks - 1)
    }

    // MARK: - Occurrences of a period

    /// The k-th period's occurrences, sorted: its times, picked by BYSETPOS, from the start on.
    func occurrences(ofPeriod k: Int) -> [LocalDateTime] {
        guard let u = unitOf(k) else { return [] }
        var found: [LocalDateTime] = []
        func addDay(_ day: Int, _ year: Int, _ month: Int, _ date: Int) {
            guard admits(day: day, year: year, month: month, date: date) else { return }
            for time in times { found.append(LocalDateTime(year: year, month: month, day: date, hour: time / 3_600, minute: time % 3_600 / 60, second: time % 60)) }
        }
        switch unit {
        case .year, .month:
            let (year, months) = unit == .year ? (u, 1...12) : (u.floorDivided(by: 12), (u.floorModulo(12) + 1)...(u.floorModulo(12) + 1))
            guard (1...9999).contains(year) else { return [] }
            for month in months where parts.months.isEmpty || parts.months.contains(month) {
                let first = LocalDateTime.daysFromCivil(year: year, month: month, day: 1)
                for date in 1...LocalDateTime.daysIn(month: month, year: year) { addDay(first + date - 1, year, month, date) }
            }
        case .week, .day:
            let first = unit == .week ? weekAnchor + 7 * u : u
            for day in first..<(first + (unit == .week ? 7 : 1)) {
                let (year, month, date) = LocalDateTime.civilFromDays(day)
                guard (1...9999).contains(year) else { continue }
                addDay(day, year, month, date)
            }
        case .hour, .minute:
            let perDay = unit == .hour ? 24 : 1_440
            let day = u.floorDivided(by: perDay), within = u.floorModulo(perDay)
            let (hour, minute) = unit == .hour ? (within, nil) : (within / 60, within % 60)
            guard admits(day: day), hours.isEmpty || hours.contains(hour) else { return [] }
            if let minute, !minutes.isEmpty, !minutes.contains(minute) { return [] }
            let (year, month, date) = LocalDateTime.civilFromDays(day)
            guard (1...9999).contains(year) else { return [] }
            let minuteList = minute.map { [$0] } ?? (parts.minutes.isEmpty ? [start.minute] : parts.minutes.sorted())
            for minute in minuteList {
                for second in seconds { found.append(LocalDateTime(year: year, month: month, day: date, hour: hour, minute: minute, second: second)) }
            }
        }
        if !parts.positions.isEmpty {
            let all = found
            found = []
            for position in parts.positions {
                let index = position > 0 ? position - 1 : all.count + position
                if all.indices.contains(index), !found.contains(all[index]) { found.append(all[index]) }
            }
            found.sort()
        }
        return k == 0 ? found.filter { $0 >= start } : found
    }

    // MARK: - Counting

    /// Periods between two kept counts.
    private var block: Int {
        switch unit {
        case .year, .month, .week: 1
        case .day: 16
        case .hour: 24 * 16
        case .minute: 1_440 * 4
        }
    }

    /// Periods without an occurrence after which a search gives up: 400 years of them.
    private var emptyLimit: Int {
        let perYear = switch unit {
        case .year: 1
        case .month: 12
        case .week: 53
        case .day: 366
        case .hour: 366 * 24
        case .minute: 366 * 1_440
        }
        return 400 * perYear / interval + 1
    }

    private struct Key: Hashable {
        let recurrence: Recurrence
        let start: LocalDateTime
    }

    /// For each rule and start, the occurrences before every ``block``-th period; and the
    /// periods counted so far for the last of them, when a search gave up there.
    private static let counted = Mutex<[Key: [Int]]>([:])
    /// The rules whose counts are kept at once; beyond, the oldest are forgotten together.
    private static let keptRules = 4_096

    private func occurrences(inPeriods range: Range<Int>) -> Int {
        var total = 0
        var k = skippingEmpty(range.lowerBound, end: range.upperBound)
        while k < range.upperBound {
            total += occurrences(ofPeriod: k).count
            k = skippingEmpty(k + 1, end: range.upperBound)
        }
        return total
    }

    /// The kept counts up to the j-th block, extending them; nil when the j-th lies past
    /// 400 empty years.
    private func counts(through j: Int, stopAfter limit: Int? = nil) -> [Int] {
        var known = Self.counted.withLock { $0[key] } ?? [0]
        var empty = 0
        while known.count <= j {
            let next = known.count - 1
            let added = occurrences(inPeriods: (next * block)..<((next + 1) * block))
            known.append(known[known.count - 1] + added)
            empty = added == 0 ? empty + block : 0
            if empty > emptyLimit || unitOf((next + 1) * block) == nil { break }
            if let limit, known[known.count - 1] > limit { break }
        }
        let result = known
        Self.counted.withLock { counts in
            if counts.count >= Self.keptRules { counts.removeAll() }
            if (counts[key]?.count ?? 0) < result.count { counts[key] = result }
        }
        return result
    }

    /// The occurrences in the periods before the k-th.
    private func occurrences(before k: Int) -> Int? {
        let j = k / block
        let known = counts(through: j)
        guard known.count > j else { return nil }
        return known[j] + occurrences(inPeriods: (j * block)..<k)
    }

    /// The n-th occurrence (0 = the first).
    func local(_ n: Int) -> LocalDateTime? {
        guard n >= 0, !never else { return nil }
        if let found = recent.find(n) { return found }
        // The next after the last one read is in the periods right after it.
        var k: Int, base: Int
        if let last = recent.period, n >= last.base + last.times.count {
            (k, base) = (skippingEmpty(last.k + 1), last.base + last.times.count)
        } else {
            var known = Self.counted.withLock { $0[key] } ?? [0]
            if known[known.count - 1] <= n { known = counts(through: Int.max / 2, stopAfter: n) }
            guard let j = known.lastIndex(where: { $0 <= n }), j < known.count - 1 else { return nil }
            (k, base) = (skippingEmpty(j * block), known[j])
        }
        var empty = 0
        while let u = unitOf(k), year(ofUnit: u) <= 9999, empty <= emptyLimit {
            let times = occurrences(ofPeriod: k)
            if n < base + times.count {
                recent.period = (k, base, times)
                return times[n - base]
            }
            base += times.count
            let next = skippingEmpty(k + 1)
            empty = times.isEmpty ? empty + (next - k) : 0
            k = next
        }
        return nil
    }

    /// The first occurrence whose instant (``instant``) qualifies, searched from the period
    /// of `target` (a wall-clock time a little before the answer can be), with its index.
    func first(from target: LocalDateTime, limit: Int?, until: LocalDateTime?, qualifies: (LocalDateTime) -> Bool)
        -> (index: Int, local: LocalDateTime)? {
        guard !never else { return nil }
        var k = target > start ? index(atOrAfterUnit: period(of: target) - interval + 1) : 0
        k = skippingEmpty(k)
        guard var base = occurrences(before: k) else { return nil }
        var empty = 0
        while let u = unitOf(k), year(ofUnit: u) <= 9999, empty <= emptyLimit {
            let times = occurrences(ofPeriod: k)
            for (offset, local) in times.enumerated() {
                if let limit, base + offset >= limit { return nil }
                if let until, local > until { return nil }
                if qualifies(local) {
                    recent.period = (k, base, times)
                    return (base + offset, local)
                }
            }
            base += times.count
            let next = skippingEmpty(k + 1)
            empty = times.isEmpty ? empty + (next - k) : 0
            k = next
        }
        return nil
    }
}

/// The last period a ``RuleExpansion`` read: its index, the occurrences before it, and its own.
private final class Recent {
    var period: (k: Int, base: Int, times: [LocalDateTime])?

    func find(_ n: Int) -> LocalDateTime? {
        guard let period, n >= period.base, n < period.base + period.times.count else { return nil }
        return period.times[n - period.base]
    }
}
