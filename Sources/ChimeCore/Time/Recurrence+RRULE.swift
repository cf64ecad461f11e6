/// Days, counts and ends, and the RFC 5545 RRULE text a recurrence is stored and shown as.
extension Recurrence {
    // MARK: - Days, count and end

    /// Adds the days it falls on, how many times it fires and its last time, naming the
    /// field at fault (`field`, when given, for all of them).
    ///
    /// Weekdays go with weekly repeats and days of a month with monthly ones, as in KAlarm and
    /// GNOME Calendar. The last day stands alone, and the 4th and the last of one weekday do
    /// not go together: both can be one date, and a month must have one date per day given.
    public mutating func restrict(days: [RepeatDay], limit: Int?, until: LocalDateTime?, field: String? = nil) throws(FieldError) {
        let unique = days.reduce(into: [RepeatDay]()) { if !$0.contains($1) { $0.append($1) } }
        if let first = unique.first {
            let monthly = first.isMonthly
            guard unique.allSatisfy({ $0.isMonthly == monthly }) else {
                throw FieldError(field ?? "on", "mixes weekdays with days of a month; give one kind.")
            }
            guard unit == (monthly ? .month : .week) else {
                throw FieldError(field ?? "on", monthly ? "days of a month need a monthly repeat." : "weekdays need a weekly repeat.")
            }
            if unique.contains(.lastDay), unique.count > 1 {
                throw FieldError(field ?? "on", "last-day cannot be combined with other days.")
            }
            for case .nthWeekday(4, let weekday) in unique where unique.contains(.nthWeekday(-1, weekday: weekday)) {
                throw FieldError(field ?? "on", "the 4th and the last of a weekday are often the same day; give one of them.")
            }
        }
        if let limit, !(1...1_000_000).contains(limit) {
            throw FieldError(field ?? "count", "must be between 1 and 1000000, not \(limit).")
        }
        if let until, let problem = until.problem { throw FieldError(field ?? "until", "'\(until)' is not a valid date: \(problem)") }
        self.days = unique
        self.limit = limit
        self.until = until
    }

    /// The n-th occurrence's wall-clock time of a rule with days, counted from `start`:
    /// each week or month holds one occurrence per day given, and those before `start` are not counted.
    func dayOccurrence(_ n: Int, from start: LocalDateTime) -> LocalDateTime? {
        let startDay = LocalDateTime.daysFromCivil(year: start.year, month: start.month, day: start.day)
        let time = start.secondsAsUTC - startDay * 86_400
        guard n >= 0, n < 4_000_000, !days.isEmpty else { return nil }
        let day: Int
        if unit == .week {
            let monday = startDay - RepeatDay.mondayIndex(startDay)
            let offsets = days.compactMap { if case .weekday(let weekday) = $0 { weekday } else { nil } }.sorted()
            let index = n + offsets.filter { monday + $0 < startDay }.count
            let (weeks, overflow) = (index / offsets.count).multipliedReportingOverflow(by: count)
            guard !overflow, weeks <= 530_000 else { return nil }
            day = monday + weeks * 7 + offsets[index % offsets.count]
        } else {
            let firstMonth = start.year * 12 + start.month - 1
            let index = n + monthDays(firstMonth).filter { $0 < start.day }.count
            let (months, overflow) = (index / days.count).multipliedReportingOverflow(by: count)
            guard !overflow, months <= 120_000 else { return nil }
            let month = firstMonth + months
            let dates = monthDays(month)
            day = LocalDateTime.daysFromCivil(year: month.floorDivided(by: 12), month: month.floorModulo(12) + 1,
                                              day: dates[index % dates.count])
        }
        return LocalDateTime(secondsAsUTC: day * 86_400 + time)
    }

    private func monthDays(_ month: Int) -> [Int] {
        days.compactMap { $0.dayOfMonth(year: month.floorDivided(by: 12), month: month.floorModulo(12) + 1) }.sorted()
    }

    // MARK: - RRULE text

    private static let frequencies: [(RepeatUnit, String)] = [
        (.minute, "MINUTELY"), (.hour, "HOURLY"), (.day, "DAILY"), (.week, "WEEKLY"), (.month, "MONTHLY"), (.year, "YEARLY"),
    ]

    /// RFC 5545's FREQ value for a unit: `MINUTELY` … `YEARLY`.
    static func frequencyName(_ unit: RepeatUnit) -> String { frequencies.first { $0.0 == unit }?.1 ?? "" }

    /// The rule as an RFC 5545 RRULE value, such as `FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3`; `utc`
    /// writes UNTIL as UTC (`Z`), for rules that count on UTC. A month end that is not RFC
    /// 5545's is written as RFC 7529 says it (`FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD`),
    /// wherever it could change an occurrence: ``parse(rrule:field:)`` reads back the same rule.
    public func rrule(utc: Bool = false) -> String {
        rrule(utc: utc, monthEnds: skip != .omit && stepsOverMonthEnds)
    }

    /// Whether a month that lacks the first occurrence's day can be stepped on: months or
    /// years are stepped without days (a day such as BYMONTHDAY=-1 exists in every month).
    var stepsOverMonthEnds: Bool { (unit == .month || unit == .year) && days.isEmpty }

    /// The RRULE value, with RSCALE and SKIP when `monthEnds`.
    func rrule(utc: Bool, monthEnds: Bool) -> String {
        var parts = ["FREQ=" + Self.frequencyName(unit)]
        if count != 1 { parts.append("INTERVAL=\(count)") }
        parts += self.parts?.rruleParts ?? []
        let byDay = days.compactMap { day -> String? in
            switch day {
            case .weekday(let weekday): RepeatDay.codes[weekday]
            case .nthWeekday(let ordinal, let weekday): "\(ordinal)" + RepeatDay.codes[weekday]
            case .lastDay: nil
            }
        }
        if !byDay.isEmpty { parts.append("BYDAY=" + byDay.joined(separator: ",")) }
        if days.contains(.lastDay) { parts.append("BYMONTHDAY=-1") }
        if let limit { parts.append("COUNT=\(limit)") }
        if let until {
            let digits = until.description.filter { $0.isASCIIDigit || $0 == "T" }
            parts.append("UNTIL=" + digits + (utc ? "Z" : ""))
        }
        if monthEnds { parts += ["RSCALE=GREGORIAN", "SKIP=" + skip.rfc7529Name] }
        return parts.joined(separator: ";")
    }

    /// Reads an RRULE value (`RRULE:` in front is allowed) of RFC 5545 3.3.10, on the
    /// Gregorian calendar (FREQ=SECONDLY and BYSECOND=60 aside); says whether UNTIL was in
    /// UTC, which the caller reads onto the rule's own clock.
    ///
    /// A rule Chime's days say (``RuleParts/days(unit:interval:)``) is read as them, and
    /// written back so; any other keeps its ``parts``, written back in RFC 5545's order.
    public static func parse(rrule text: String, field: String = "rrule") throws(FieldError) -> (Recurrence, untilIsUTC: Bool) {
        var body = Substring(text.trimmingSpaces)
        if body.uppercased().hasPrefix("RRULE:") { body = body.dropFirst(6) }
        var values: [String: String] = [:]
        for part in body.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { String($0).uppercased() }
            guard pair.count == 2, values[pair[0]] == nil else { throw FieldError(field, "'\(part)' is not a NAME=VALUE part.") }
            values[pair[0]] = pair[1]
        }
        let units = "MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY"
        guard let frequency = values.removeValue(forKey: "FREQ") else { throw FieldError(field, "needs FREQ: \(units).") }
        guard let unit = frequencies.first(where: { $0.1 == frequency })?.0 else {
            throw FieldError(field, "'FREQ=\(frequency)' is not a frequency Chime repeats by; use FREQ=\(units).")
        }
        func number(_ key: String) throws(FieldError) -> Int? {
            guard let text = values.removeValue(forKey: key) else { return nil }
            guard let value = Int(text) else { throw FieldError(field, "\(key)=\(text) is not a whole number.") }
            return value
        }
        let interval = try number("INTERVAL") ?? 1
        let limit = try number("COUNT")
        let parts = try RuleParts.take(from: &values, unit: unit, field: field)
        var until: LocalDateTime?
        var utc = false
        if let text = values.removeValue(forKey: "UNTIL") {
            utc = text.hasSuffix("Z")
            let raw = utc ? String(text.dropLast()) : text
            let chars = Array(raw.count == 8 ? raw + "T235959" : raw)
            func digits(_ range: Range<Int>) -> Int? { Int(String(chars[range])) }
            guard chars.count == 15, chars[8] == "T", chars.allSatisfy({ $0.isASCIIDigit || $0 == "T" }),
                  let year = digits(0..<4), let month = digits(4..<6), let day = digits(6..<8), let hour = digits(9..<11),
                  let minute = digits(11..<13), let second = digits(13..<15)
            else { throw FieldError(field, "UNTIL=\(text) is not a date (20261231) or a date and time (20261231T180000Z).") }
            until = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }
        if limit != nil, until != nil {
            throw FieldError(field, "COUNT and UNTIL cannot both end one rule (RFC 5545 3.3.10); keep one.")
        }
        let skip = try monthEnds(scale: values.removeValue(forKey: "RSCALE"), skip: values.removeValue(forKey: "SKIP"), field)
        if let key = values.keys.sorted().first {
            throw FieldError(field, "\(key) is not supported; use FREQ, INTERVAL, COUNT, UNTIL, the BY parts of RFC 5545, WKST "
                + "and RSCALE=GREGORIAN with SKIP.")
        }
        var recurrence: Recurrence
        do { recurrence = try Recurrence(unit: unit, count: interval) } catch { throw FieldError(field, "INTERVAL: " + error.reason) }
        if let days = parts.days(unit: unit, interval: interval) {
            try recurrence.restrict(days: days, limit: limit, until: until, field: field)
        } else {
            // RFC 7529 3.1 lets SKIP change BYMONTHDAY and BYMONTH too; Chime reads it for a
            // rule without them only, so a rule with them says OMIT, RFC 5545's way.
            if skip != .omit {
                throw FieldError(field, "SKIP=\(skip.rfc7529Name) goes with a rule without BY parts; leave SKIP out of one with them.")
            }
            try recurrence.restrict(days: [], limit: limit, until: until, field: field)
            recurrence.parts = parts
        }
        recurrence.skip = skip
        return (recurrence, utc)
    }

    /// RFC 7529's RSCALE and SKIP: GREGORIAN only, since a rule counted in another calendar
    /// read as Gregorian would fire on other days; SKIP only beside RSCALE, as RFC 7529 3.1
    /// asks. Without them, RFC 5545's month end: OMIT.
    private static func monthEnds(scale: String?, skip: String?, _ field: String) throws(FieldError) -> MonthEndSkip {
        guard let scale else {
            if let skip { throw FieldError(field, "SKIP=\(skip) needs RSCALE (RFC 7529 3.1); write RSCALE=GREGORIAN;SKIP=\(skip).") }
            return .omit
        }
        guard scale == "GREGORIAN" else {
            let known = FireRule.calendarEntry(named: scale).map { " or leave RSCALE out and give calendar \($0.cldr) (chime: --calendar \($0.cldr))" }
            throw FieldError(field, "RSCALE=\(scale): only GREGORIAN is supported; give the rule in the Gregorian calendar\(known ?? "").")
        }
        guard let skip else { return .omit }
        guard let value = MonthEndSkip.allCases.first(where: { $0.rfc7529Name == skip }) else {
            throw FieldError(field, "SKIP=\(skip) is not OMIT, BACKWARD or FORWARD (RFC 7529 3.1).")
        }
        return value
    }
}
