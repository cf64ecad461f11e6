import Foundation

/// Parses the times people and scripts write.
///
/// | text | trigger |
/// |---|---|
/// | `2026-12-24T18:00:00+01:00`, `2026-12-24T17:00Z` | absolute: the offset fixes the instant |
/// | `2026-12-24T18:00[Europe/Berlin]` (RFC 9557) | zoned in the bracketed zone |
/// | `2026-12-24T18:00`, `2026-12-24 18:00` | wall clock |
/// | `15:00`, `9:05`, `15:00:30`, `3pm`, `9:30 am` | wall clock, today if still ahead, else tomorrow |
/// | `today 18:00`, `tomorrow 9:00` (an `at` may follow the day) | wall clock on that day, even if past |
/// | `mon 8:30`, `monday 8:30` | wall clock on the next such day: today if still ahead |
/// | `in 20m`, `in 1h30m`, `in 2 days` | absolute: now plus the duration, so suspend cannot delay it |
///
/// Wall-clock forms are floating, or zoned when a zone is given; "today" and "ahead" are
/// judged on that zone's clock. Words are case-insensitive. A date without a time is
/// refused rather than guessed. Every error names the field `at` (or `zone`) and says why.
public struct WhenParser: Sendable {
    /// The instant relative forms (`in 20m`, `today`, `15:00`) count from.
    public var now: Date
    /// The zone whose wall clock says what "today" and "still ahead" are, when no zone is given.
    public var systemZone: TimeZone

    /// A parser that reads times as of `now` in `systemZone`.
    public init(now: Date, systemZone: TimeZone) {
        self.now = now
        self.systemZone = systemZone
    }

    /// The trigger `text` names; with a `zone`, wall-clock forms are zoned in it instead of
    /// floating.
    public func trigger(_ text: String, zone: String? = nil) throws(FieldError) -> Trigger {
        var clockZone = systemZone
        if let zone {
            guard let known = TimeZone(identifier: zone) else { throw FieldError("zone", "'\(zone)' is not a known time zone.") }
            clockZone = known
        }
        let input = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let reader = Reader(input: input, now: now, clockZone: clockZone, zoneName: zone)
        return try reader.trigger()
    }
}

/// One parse: the input, and the clock its wall-clock forms are read on.
private struct Reader {
    let input: String
    let now: Date
    let clockZone: TimeZone
    /// The zone wall-clock forms are pinned to; nil leaves them floating.
    let zoneName: String?

    func trigger() throws(FieldError) -> Trigger {
        guard !input.isEmpty else { throw FieldError("at", "must not be empty; \(Self.usage).") }
        let lower = input.lowercased()
        if lower == "in" || lower.hasPrefix("in ") || lower.hasPrefix("in\t") {
            let rest = input.dropFirst(2).trimmingCharacters(in: .whitespaces)
            guard !rest.isEmpty else { throw FieldError("at", "'\(input)' needs a duration, as in 'in 20m'.") }
            return .absolute(now.addingTimeInterval(try WhenParser.duration(rest, field: "at")))
        }
        var words = input.split(whereSeparator: \.isWhitespace).map(String.init)
        // "9:30 pm" is one time; "tomorrow at 9:00" is "tomorrow 9:00".
        if words.count >= 2, ["am", "pm"].contains(words[words.count - 1].lowercased()) {
            words[words.count - 2] += words.removeLast()
        }
        if words.count == 3, words[1].lowercased() == "at" { words.remove(at: 1) }

        switch words.count {
        case 1:
            if Self.startsWithDate(words[0]) {
                let word = words[0]
                guard let t = word.firstIndex(where: { $0 == "T" || $0 == "t" }) else {
                    if word.count == 10 { throw missingTime() }
                    throw notATime()
                }
                return try dateTime(date: String(word[..<t]), time: String(word[word.index(after: t)...]))
            }
            guard let clock = try clock(words[0], allowingSuffix: false) else { throw notATime() }
            return try nextTime(clock, onDay: nil)
        case 2:
            if Self.startsWithDate(words[0]) { return try dateTime(date: words[0], time: words[1]) }
            let day = words[0].lowercased()
            guard let clock = try clock(words[1], allowingSuffix: false) else { throw notATime() }
            if day == "today" { return try onDay(offset: 0, clock) }
            if day == "tomorrow" { return try onDay(offset: 1, clock) }
            if let weekday = Self.weekdays[day] { return try nextTime(clock, onDay: weekday) }
            throw notATime()
        default:
            throw notATime()
        }
    }

    // MARK: - Forms

    private func dateTime(date: String, time: String) throws(FieldError) -> Trigger {
        guard let (year, month, day) = Self.isoDate(date) else { throw notATime() }
        if let problem = LocalDateTime(year: year, month: month, day: day).problem {
            throw FieldError("at", "'\(input)' is not a valid date: \(problem)")
        }
        guard let clock = try clock(time, allowingSuffix: true) else { throw notATime() }
        let local = LocalDateTime(year: year, month: month, day: day, hour: clock.hour, minute: clock.minute, second: clock.second)
        guard let suffix = try Self.suffix(clock.rest) else { throw notATime() }

        if let zone = suffix.zone {
            guard let known = TimeZone(identifier: zone) else { throw FieldError("at", "'\(zone)' is not a known time zone.") }
            if clock.fraction != 0 { throw FieldError("at", "'\(input)' is not a valid time: a zoned time has whole seconds.") }
            if let offset = suffix.offset {
                let instant = Date(timeIntervalSince1970: TimeInterval(local.secondsAsUTC - offset))
                let actual = known.secondsFromGMT(for: instant)
                guard actual == offset else {
                    throw FieldError(
                        "at", "'\(input)' contradicts itself: \(zone) is at \(Self.format(offset: actual)) then, not \(Self.format(offset: offset)).")
                }
            }
            return .zoned(local, zone: zone)
        }
        if let offset = suffix.offset {
            return .absolute(Date(timeIntervalSince1970: TimeInterval(local.secondsAsUTC - offset) + clock.fraction))
        }
        if clock.fraction != 0 {
            throw FieldError("at", "'\(input)' is not a valid time: fractions of a second need an offset or Z.")
        }
        return wallClock(local)
    }

    /// The clock time on the first day from today (or the first such weekday) when it is
    /// still ahead.
    private func nextTime(_ clock: Clock, onDay weekday: Int?) throws(FieldError) -> Trigger {
        let today = LocalDateTime(now, in: clockZone)
        let days = weekday.map { ($0 - today.weekday).floorModulo(7) } ?? 0
        var local = at(clock, on: today.adding(days: days))
        if local.date(in: clockZone) <= now, days == 0 { local = local.adding(days: weekday == nil ? 1 : 7) }
        return wallClock(local)
    }

    private func onDay(offset: Int, _ clock: Clock) throws(FieldError) -> Trigger {
        wallClock(at(clock, on: LocalDateTime(now, in: clockZone).adding(days: offset)))
    }

    private func at(_ clock: Clock, on day: LocalDateTime) -> LocalDateTime {
        LocalDateTime(year: day.year, month: day.month, day: day.day, hour: clock.hour, minute: clock.minute, second: clock.second)
    }

    private func wallClock(_ local: LocalDateTime) -> Trigger {
        zoneName.map { .zoned(local, zone: $0) } ?? .floating(local)
    }

    // MARK: - Pieces

    /// A time of day, and what followed it.
    private struct Clock {
        var hour, minute, second: Int
        var fraction: TimeInterval
        var rest: Substring
    }

    /// Reads `9:05`, `15:00:30`, `3pm`, `9:30pm` and, with `allowingSuffix`, an ISO time
    /// followed by a fraction, offset or zone. Nil when the word is no time at all.
    private func clock(_ word: String, allowingSuffix: Bool) throws(FieldError) -> Clock? {
        var text = Substring(word)
        func number(_ maxDigits: Int) -> Int? {
            let digits = text.prefix(while: \.isASCIIDigit).prefix(maxDigits)
            guard !digits.isEmpty else { return nil }
            text = text.dropFirst(digits.count)
            return Int(digits)
        }
        func twoDigits() -> Int? {
            let digits = text.prefix(while: \.isASCIIDigit)
            guard digits.count == 2 else { return nil }
            text = text.dropFirst(2)
            return Int(digits)
        }
        guard var hour = number(2) else { return nil }
        var minute = 0
        var second = 0
        var fraction: TimeInterval = 0
        var hasMinutes = false
        if text.first == ":" {
            text = text.dropFirst()
            guard let m = twoDigits() else { return nil }
            minute = m
            hasMinutes = true
            if text.first == ":" {
                text = text.dropFirst()
                guard let s = twoDigits() else { return nil }
                second = s
                if allowingSuffix, let mark = text.first, mark == "." || mark == "," {
                    let digits = text.dropFirst().prefix(while: \.isASCIIDigit)
                    guard !digits.isEmpty, let value = Double("0." + digits.prefix(9)) else { return nil }
                    fraction = value
                    text = text.dropFirst(1 + digits.count)
                }
            }
        }
        let meridiem = text.lowercased()
        if meridiem == "am" || meridiem == "pm" {
            guard (1...12).contains(hour) else {
                throw FieldError("at", "'\(input)' is not a valid time: hour \(hour) is out of range for am and pm.")
            }
            hour = hour % 12 + (meridiem == "pm" ? 12 : 0)
            text = text.dropFirst(2)
        } else if !hasMinutes || !(allowingSuffix || text.isEmpty) {
            return nil
        }
        if let problem = LocalDateTime(year: 2000, month: 1, day: 1, hour: hour, minute: minute, second: second).problem {
            throw FieldError("at", "'\(input)' is not a valid time: \(problem)")
        }
        return Clock(hour: hour, minute: minute, second: second, fraction: fraction, rest: text)
    }

    /// What follows an ISO time: an offset (`Z`, `+01:00`, `+0100`, `+01`), an RFC 9557
    /// zone in brackets, or both.
    private struct Suffix {
        var offset: Int?
        var zone: String?
    }

    private static func suffix(_ text: Substring) throws(FieldError) -> Suffix? {
        var rest = text
        var suffix = Suffix()
        if rest.first == "Z" || rest.first == "z" {
            suffix.offset = 0
            rest = rest.dropFirst()
        } else if let sign = rest.first, sign == "+" || sign == "-" || sign == "−" {
            rest = rest.dropFirst()
            let hours = rest.prefix(while: \.isASCIIDigit)
            guard hours.count == 2 || hours.count == 4, let h = Int(hours.prefix(2)) else { return nil }
            rest = rest.dropFirst(hours.count)
            var m = hours.count == 4 ? Int(hours.suffix(2)) ?? 60 : 0
            var s = 0
            if hours.count == 2, rest.first == ":" {
                let minutes = rest.dropFirst().prefix(while: \.isASCIIDigit)
                guard minutes.count == 2, let value = Int(minutes) else { return nil }
                m = value
                rest = rest.dropFirst(3)
                // Local mean time before standard time has offsets in seconds (ISO 8601-1:2019's ±hh:mm:ss).
                if rest.first == ":" {
                    let seconds = rest.dropFirst().prefix(while: \.isASCIIDigit)
                    guard seconds.count == 2, let value = Int(seconds) else { return nil }
                    s = value
                    rest = rest.dropFirst(3)
                }
            }
            guard h <= 23, m <= 59, s <= 59 else { return nil }
            suffix.offset = (sign == "+" ? 1 : -1) * (h * 3_600 + m * 60 + s)
        }
        while rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            var tag = rest[rest.index(after: rest.startIndex)..<close]
            rest = rest[rest.index(after: close)...]
            let critical = tag.first == "!"
            if critical { tag = tag.dropFirst() }
            if tag.contains("=") {
                // RFC 9557 lets readers ignore elective tags such as a calendar hint.
                if critical { throw FieldError("at", "the tag '[!\(tag)]' is not supported; give the calendar on its own.") }
                continue
            }
            guard suffix.zone == nil, !tag.isEmpty else { return nil }
            suffix.zone = String(tag)
        }
        return rest.isEmpty ? suffix : nil
    }

    private static func isoDate(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        return (year, month, day)
    }

    private static func startsWithDate(_ word: String) -> Bool {
        let head = Array(word.prefix(5))
        return head.count == 5 && head[..<4].allSatisfy(\.isASCIIDigit) && head[4] == "-"
    }

    private static func format(offset: Int) -> String {
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        let hh = minutes / 60 < 10 ? "0\(minutes / 60)" : "\(minutes / 60)"
        let mm = minutes % 60 < 10 ? "0\(minutes % 60)" : "\(minutes % 60)"
        let seconds = abs(offset) % 60
        return "\(sign)\(hh):\(mm)" + (seconds == 0 ? "" : seconds < 10 ? ":0\(seconds)" : ":\(seconds)")
    }

    private static let weekdays: [String: Int] = [
        "sun": 0, "sunday": 0, "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2,
        "wed": 3, "weds": 3, "wednesday": 3, "thu": 4, "thur": 4, "thurs": 4, "thursday": 4,
        "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
    ]

    // MARK: - Errors

    static let usage = "use 15:00, tomorrow 9:00, mon 8:30, 2026-12-24 18:00, in 20m or ISO 8601"

    private func notATime() -> FieldError {
        FieldError("at", "'\(input)' is not a time; \(Self.usage).")
    }

    private func missingTime() -> FieldError {
        FieldError("at", "'\(input)' has no time of day; add one, as in \(input) 09:00.")
    }
}
