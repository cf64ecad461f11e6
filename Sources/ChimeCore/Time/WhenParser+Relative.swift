import FoundationEssentials

/// `in 2 days`, `now + 1 hour`, `noon + 3 days`: a time some units after now or after a day.
extension WhenReader {
    /// `amount` after `base` (a wall-clock time), or after now when `base` is nil.
    ///
    /// Days, weeks, months and years move the calendar and keep the clock time, so `in 4
    /// weeks` across a DST change is still 14:37; hours, minutes and seconds are elapsed
    /// time. Both are what at(1) and GNU date do. Only calendar units give a wall-clock
    /// trigger; any elapsed part makes it an instant.
    func later(from base: LocalDateTime?, by amount: String) throws(FieldError) -> Trigger {
        guard let (months, days, seconds) = Self.parts(amount) else {
            // The duration reader's sentences say what is wrong with the words.
            _ = try WhenParser.duration(amount, field: "when")
            throw FieldError("when", "'\(amount)' is not a duration; use 20m, 1h30m, 2 days or 1 month.")
        }
        guard months + days + seconds > 0 else { throw FieldError("when", "'\(amount)' is not a duration: it must be longer than zero.") }
        guard months * 31 + days + seconds / 86_400 <= WhenParser.maximumDuration / 86_400 else {
            throw FieldError("when", "'\(amount)' is too long: the limit is 100 years.")
        }
        if base == nil, months == 0, days == 0 { return .absolute(now.addingTimeInterval(TimeInterval(seconds))) }
        let start = base ?? LocalDateTime(now, in: clockZone)
        let local = Self.adding(months: months, to: start).adding(days: days)
        guard seconds > 0 else { return wallClock(local) }
        return .absolute(local.date(in: clockZone).addingTimeInterval(TimeInterval(seconds)))
    }

    /// The months, days and seconds of `2 days 3h`, `1 month`, `1w2d`; nil when it is no
    /// such amount.
    private static func parts(_ text: String) -> (months: Int, days: Int, seconds: Int)? {
        let chars = Array(text.lowercased())
        var i = 0
        var months = 0, days = 0, seconds = 0, count = 0
        while i < chars.count {
            while i < chars.count, chars[i].isWhitespace { i += 1 }
            let numberStart = i
            while i < chars.count, chars[i].isASCIIDigit { i += 1 }
            var value: Int
            if i > numberStart {
                guard i - numberStart <= 6, let number = Int(String(chars[numberStart..<i])) else { return nil }
                value = number
            } else {
                // `in an hour`, `now + a week`: the article is one.
                while i < chars.count, chars[i].isLetter { i += 1 }
                guard ["a", "an"].contains(String(chars[numberStart..<i])), i < chars.count, chars[i].isWhitespace else { return nil }
                value = 1
            }
            while i < chars.count, chars[i].isWhitespace { i += 1 }
            let unitStart = i
            while i < chars.count, chars[i].isLetter { i += 1 }
            guard let unit = TimeUnit(spelling: String(chars[unitStart..<i])) else { return nil }
            switch unit {
            case .year: months += 12 * value
            case .month: months += value
            case .week: days += 7 * value
            case .day: days += value
            case .hour, .minute, .second: seconds += value * (unit.fixedSeconds ?? 0)
            }
            count += 1
            while i < chars.count, chars[i].isWhitespace { i += 1 }
        }
        guard count > 0 else { return nil }
        return (months, days, seconds)
    }

    /// The same day `months` later, held to the month's end (Jan 31 + 1 month is Feb 28),
    /// as a reminder wants and unlike GNU date, which overflows into March.
    static func adding(months: Int, to local: LocalDateTime) -> LocalDateTime {
        let index = local.year * 12 + local.month - 1 + months
        let year = index.floorDivided(by: 12), month = index.floorModulo(12) + 1
        var result = local
        (result.year, result.month) = (year, month)
        result.day = min(local.day, LocalDateTime.daysIn(month: month, year: year))
        return result
    }
}

extension LocalDateTime {
    /// The same day and time `months` later, held to the month's end.
    func adding(months: Int) -> LocalDateTime { WhenReader.adding(months: months, to: self) }
}
