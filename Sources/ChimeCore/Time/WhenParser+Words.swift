/// The spoken forms: a time and a day in either order, at(1)'s words and `+ N units`.
extension WhenReader {
    /// The day a phrase names, and how a time that is already past on it is read.
    private enum Day {
        /// `today`, `tomorrow`, `next week`: that day, even when the time is past.
        case fixed(LocalDateTime)
        /// `fri`, or with `strictlyLater` `next fri`: the next such weekday.
        case weekday(Int, strictlyLater: Bool)
        /// `dec 24`, `24.12.`: the next such date, this year if still ahead.
        case yearly(month: Int, day: Int)
    }

    func spoken(_ given: [String]) throws(FieldError) -> Trigger {
        var words = given.map { $0.lowercased() }.map { $0.hasSuffix(",") ? String($0.dropLast()) : $0 }.filter { !$0.isEmpty && $0 != "at" }
        // "9:30 pm" is one time.
        var index = 1
        while index < words.count {
            if ["am", "pm"].contains(words[index]), words[index - 1].last?.isASCIIDigit == true {
                words[index - 1] += words.remove(at: index)
            } else {
                index += 1
            }
        }
        // at(1)'s "TIME + N units", also written without spaces ("now+1hour").
        if let joined = words.firstIndex(where: { $0.dropFirst().contains("+") }), let sign = words[joined].firstIndex(of: "+") {
            words[joined...joined] = [String(words[joined][..<sign]), String(words[joined][sign...])]
        }
        if let plus = words.firstIndex(where: { $0 == "+" || ($0.hasPrefix("+") && $0.dropFirst().first?.isASCIIDigit == true) }) {
            let amount = ([String(words[plus].dropFirst())] + words[(plus + 1)...]).joined(separator: " ").trimmingSpaces
            guard !amount.isEmpty else { throw FieldError("when", "'\(input)' needs a duration after '+', as in 'now + 1 hour'.") }
            let base = Array(words[..<plus])
            if base.isEmpty || base == ["now"] { return try later(from: nil, by: amount) }
            guard let local = try spoken(base).local else { throw notATime() }
            return try later(from: local, by: amount)
        }
        guard !words.isEmpty else { throw notATime() }
        if words == ["now"] { return .absolute(now) }

        var clock: Clock?
        var rest = words[...]
        // at(1)'s HHMM (`1500`) only leads: last, four digits are the year of `dec 24 2027`.
        if let first = rest.first, let time = try leadingTime(first) {
            clock = time
            rest = rest.dropFirst()
        } else if let last = rest.last, rest.count > 1, let time = try timeWord(last) {
            clock = time
            rest = rest.dropLast()
        }
        let today = LocalDateTime(now, in: clockZone)
        guard !rest.isEmpty else {
            guard let clock else { throw notUnderstood(words[0]) }
            return nextAhead(clock, from: today, strictlyLater: false, step: 1)
        }
        // `fri dec 24`: the weekday only confirms the date, which must fall on it.
        if rest.count > 1, let weekday = Self.weekdays[rest[rest.startIndex]] {
            let dated = try spokenDay(rest.dropFirst(), clock: clock, today: today)
            if let local = dated.local, local.weekday != weekday {
                let date = "\(Self.monthNames[local.month - 1].prefix(3)) \(local.day) \(local.year)"
                throw FieldError("when", "'\(input)': \(date) is a \(Self.weekdayNames[local.weekday]), not a "
                    + "\(Self.weekdayNames[weekday]); leave the weekday out or correct the date.")
            }
            return dated
        }
        return try spokenDay(rest, clock: clock, today: today)
    }

    /// The day `words` names, at `clock` or else at the current time of day.
    private func spokenDay(_ words: ArraySlice<String>, clock: Clock?, today: LocalDateTime) throws(FieldError) -> Trigger {
        let day = try dayPhrase(words, today: today)
        let time = clock ?? Clock(hour: today.hour, minute: today.minute, second: today.second)
        switch day {
        case .fixed(let date):
            return wallClock(at(time, on: date))
        case .weekday(let weekday, let strictlyLater):
            let days = (weekday - today.weekday).floorModulo(7)
            // "fri" alone on a Friday is a week away: today at this very time is now.
            return nextAhead(time, from: today.adding(days: days), strictlyLater: (strictlyLater || clock == nil) && days == 0, step: 7)
        case .yearly(let month, let dayOfMonth):
            for year in today.year...(today.year + 8) where dayOfMonth <= LocalDateTime.daysIn(month: month, year: year) {
                let local = at(time, on: LocalDateTime(year: year, month: month, day: dayOfMonth))
                if local.date(in: clockZone) > now { return wallClock(local) }
            }
            throw notATime()
        }
    }

    /// `clock` on `day` if that is still ahead (and not `strictlyLater`), else `step` days on.
    private func nextAhead(_ clock: Clock, from day: LocalDateTime, strictlyLater: Bool, step: Int) -> Trigger {
        var local = at(clock, on: day)
        if strictlyLater || local.date(in: clockZone) <= now { local = local.adding(days: step) }
        return wallClock(local)
    }

    private func at(_ clock: Clock, on day: LocalDateTime) -> LocalDateTime {
        LocalDateTime(year: day.year, month: day.month, day: day.day, hour: clock.hour, minute: clock.minute, second: clock.second)
    }

    /// A time of day: a clock time or one of at(1)'s words; nil for any other word.
    private func timeWord(_ word: String) throws(FieldError) -> Clock? {
        switch word {
        case "noon": return Clock(hour: 12, minute: 0, second: 0)
        case "midnight": return Clock(hour: 0, minute: 0, second: 0)
        case "teatime": return Clock(hour: 16, minute: 0, second: 0)
        default: return try clock(word, allowingSuffix: false)
        }
    }

    private func leadingTime(_ word: String) throws(FieldError) -> Clock? {
        if let time = try timeWord(word) { return time }
        return try hhmm(word)
    }

    /// at(1)'s 24-hour `HHMM`, four digits (`0930`, `1500`); nil for any other word.
    private func hhmm(_ word: String) throws(FieldError) -> Clock? {
        guard word.count == 4, word.allSatisfy(\.isASCIIDigit), let number = Int(word) else { return nil }
        let (hour, minute) = (number / 100, number % 100)
        if let problem = LocalDateTime(year: 2000, month: 1, day: 1, hour: hour, minute: minute).problem {
            throw FieldError("when", "'\(input)' is not a valid time: \(problem)")
        }
        return Clock(hour: hour, minute: minute, second: 0)
    }

    private func dayPhrase(_ words: ArraySlice<String>, today: LocalDateTime) throws(FieldError) -> Day {
        let first = words[words.startIndex]
        let tail = words.dropFirst()
        switch (first, tail.count) {
        case ("today", 0): return .fixed(today)
        case ("tomorrow", 0): return .fixed(today.adding(days: 1))
        case ("next", 1):
            let word = tail[tail.startIndex]
            if let weekday = Self.weekdays[word] { return .weekday(weekday, strictlyLater: true) }
            switch TimeUnit(spelling: word) {
            case .day?: return .fixed(today.adding(days: 1))
            case .week?: return .fixed(today.adding(days: 7))
            case .month?: return .fixed(today.adding(months: 1))
            case .year?: return .fixed(today.adding(months: 12))
            default: throw notUnderstood(word)
            }
        default: break
        }
        if tail.isEmpty, let weekday = Self.weekdays[first] { return .weekday(weekday, strictlyLater: false) }
        if tail.isEmpty, Self.startsWithDate(first) { return try isoDay(first) }
        if tail.isEmpty, first.contains("/") || first.contains(".") { return try numericDate(first) }
        return try namedDate(Array(words))
    }

    private func isoDay(_ word: String) throws(FieldError) -> Day {
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { throw notUnderstood(word) }
        return .fixed(try validDate(year: y, month: m, day: d))
    }

    /// `24.12.2026`, `24.12.` (day first, always) and `12/24`, `12/24/2026` in the locale's order.
    private func numericDate(_ word: String) throws(FieldError) -> Day {
        let dotted = word.contains(".")
        let parts = word.split(separator: dotted ? "." : "/", omittingEmptySubsequences: false)
        let fields = dotted && parts.last == "" ? parts.dropLast() : parts[...]
        guard (2...3).contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isASCIIDigit) }),
              fields.prefix(2).allSatisfy({ $0.count <= 2 }) else { throw notUnderstood(word) }
        let numbers = fields.compactMap { Int($0) }
        var order = WhenParser.DateOrder.dayFirst
        if !dotted {
            guard let locale = dateOrder else {
                throw FieldError("when", "'\(input)': the locale gives no order of day and month for '\(word)'; write 24 dec or 2026-12-24.")
            }
            order = locale
        }
        let (month, day) = order == .monthFirst ? (numbers[0], numbers[1]) : (numbers[1], numbers[0])
        guard (1...12).contains(month), (1...31).contains(day) else {
            let shape = dotted ? "day.month." : order == .monthFirst ? "month/day" : "day/month"
            throw FieldError("when", "'\(input)': '\(word)' is no date read as \(shape), as the locale orders it; write 24 dec or 2026-12-24.")
        }
        guard numbers.count == 3 else { return try yearly(month: month, day: day) }
        guard fields.last?.count == 4 else { throw FieldError("when", "'\(input)': write the year of '\(word)' with four digits.") }
        return .fixed(try validDate(year: numbers[2], month: month, day: day))
    }

    /// `dec 24`, `24 dec`, `december 24th 2027`, `24 december 2027`.
    private func namedDate(_ words: [String]) throws(FieldError) -> Day {
        // The phrase is no other form: blame the word the parser does not know, not the
        // first ("tomorrow morning" fails on 'morning').
        guard words.count == 2 || words.count == 3 else {
            throw notUnderstood(unknownWord(in: words) ?? words.first { Self.months[$0] == nil } ?? words[0])
        }
        let month: Int, dayWord: String
        if let m = Self.months[words[0]] {
            (month, dayWord) = (m, words[1])
        } else if let m = Self.months[words[1]] {
            (month, dayWord) = (m, words[0])
        } else {
            throw notUnderstood(unknownWord(in: words) ?? words[0])
        }
        let digits = dayWord.prefix(while: \.isASCIIDigit)
        guard let day = Int(digits), digits.count <= 2, ["", "st", "nd", "rd", "th"].contains(dayWord.dropFirst(digits.count)) else {
            throw notUnderstood(dayWord)
        }
        guard words.count == 3 else {
            guard day <= (month == 2 ? 29 : LocalDateTime.daysIn(month: month, year: 2001)), day >= 1 else {
                throw FieldError("when", "'\(input)' is not a valid date: \(Self.monthNames[month - 1]) has no day \(day).")
            }
            return try yearly(month: month, day: day)
        }
        let yearWord = words[2]
        guard yearWord.allSatisfy(\.isASCIIDigit), let year = Int(yearWord) else { throw notUnderstood(yearWord) }
        guard yearWord.count == 4 else { throw FieldError("when", "'\(input)': write the year '\(yearWord)' with four digits.") }
        return .fixed(try validDate(year: year, month: month, day: day))
    }

    private func yearly(month: Int, day: Int) throws(FieldError) -> Day {
        guard day <= (month == 2 ? 29 : LocalDateTime.daysIn(month: month, year: 2001)) else {
            throw FieldError("when", "'\(input)' is not a valid date: \(Self.monthNames[month - 1]) has no day \(day).")
        }
        return .yearly(month: month, day: day)
    }

    private func validDate(year: Int, month: Int, day: Int) throws(FieldError) -> LocalDateTime {
        let date = LocalDateTime(year: year, month: month, day: day)
        if let problem = date.problem { throw FieldError("when", "'\(input)' is not a valid date: \(problem)") }
        return date
    }

    static let weekdays: [String: Int] = [
        "sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2,
        "wed": 3, "weds": 3, "wednesday": 3, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4,
        "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
    ]

    static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    static let months: [String: Int] = {
        var months: [String: Int] = ["sept": 9]
        for (index, name) in monthNames.enumerated() {
            months[name.lowercased()] = index + 1
            months[String(name.lowercased().prefix(3))] = index + 1
        }
        return months
    }()
}

extension Trigger {
    /// The wall-clock time of a floating or zoned trigger.
    var local: LocalDateTime? {
        switch self {
        case .floating(let local), .zoned(let local, _): local
        default: nil
        }
    }
}
