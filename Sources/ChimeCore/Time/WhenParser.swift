import FoundationEssentials
import Glibc
import Spelling

/// Parses the times people and scripts write.
///
/// | text | trigger |
/// |---|---|
/// | `2026-12-24T18:00:00+01:00`, `2026-12-24T17:00Z`, `20261224T1700Z` | absolute: the offset fixes the instant |
/// | `2026-12-24T18:00[Europe/Berlin]` (RFC 9557) | zoned in the bracketed zone |
/// | `2026-12-24T18:00`, `2026-12-24 18:00` | wall clock |
/// | `15:00`, `3pm`, `9:30 am`, `noon`, `midnight`, `teatime` | wall clock, today if still ahead, else tomorrow |
/// | `today 18:00`, `18:00 tomorrow`, `fri 10:00`, `next fri`, `dec 24 18:00`, `24.12.2026` | wall clock on that day |
/// | `in 2 days`, `now + 1 week`, `next week` | wall clock: the same clock time that many days later |
/// | `in 20m`, `in 1h30m`, `now + 1 hour` | absolute: now plus elapsed time, so suspend cannot delay it |
///
/// Wall-clock forms are floating, or zoned when a zone is given; "today" and "ahead" are
/// judged on that zone's clock. A day without a time takes the current time of day, as
/// at(1) does; `today` alone, which is now, is refused. Words are case-insensitive. Every
/// error names the field `at` (or `zone`).
public struct WhenParser: Sendable {
    /// The order in which a numeric date such as `12/24` gives its day and month.
    public enum DateOrder: Sendable {
        case monthFirst, dayFirst

        /// The order of the process's `LC_TIME` date format (`%m/%d/%y` in C and en_US,
        /// `%d.%m.%Y` in de_DE); nil when the format names no day and month.
        public static let locale: DateOrder? = {
            guard let locale = newlocale(LC_TIME_MASK, "", nil) ?? newlocale(LC_TIME_MASK, "C", nil) else { return nil }
            defer { freelocale(locale) }
            return order(ofFormat: String(cString: nl_langinfo_l(nl_item(D_FMT), locale)))
        }()

        /// The order of an `strftime` date format.
        public static func order(ofFormat format: String) -> DateOrder? {
            let expanded = format.replacing("%D", with: "%m/%d/%y").replacing("%F", with: "%Y-%m-%d")
            guard let month = expanded.firstRange(of: "%m")?.lowerBound,
                  let day = expanded.firstRange(of: "%d")?.lowerBound ?? expanded.firstRange(of: "%e")?.lowerBound
            else { return nil }
            return month < day ? .monthFirst : .dayFirst
        }
    }

    /// The instant relative forms (`in 20m`, `today`, `15:00`) count from.
    public var now: Date
    /// The zone whose wall clock says what "today" and "still ahead" are, when no zone is given.
    public var systemZone: Zone
    /// How `12/24` is read; nil refuses slashed dates with a suggestion.
    public var dateOrder: DateOrder?

    /// A parser that reads times as of `now` in `systemZone`, numeric dates in `dateOrder`.
    public init(now: Date, systemZone: Zone, dateOrder: DateOrder? = DateOrder.locale) {
        self.now = now
        self.systemZone = systemZone
        self.dateOrder = dateOrder
    }

    /// The trigger `text` names; with a `zone`, wall-clock forms are zoned in it instead of
    /// floating.
    public func trigger(_ text: String, zone: String? = nil) throws(FieldError) -> Trigger {
        var clockZone = systemZone
        var zoneName: String?
        if let zone {
            guard let (name, known) = Self.zone(named: zone) else { throw FieldError("zone", "'\(zone)' is not a known time zone.") }
            clockZone = known
            zoneName = name
        }
        let input = text.trimmingSpaces
        let reader = WhenReader(input: input, now: now, clockZone: clockZone, zoneName: zoneName, dateOrder: dateOrder)
        return try reader.trigger()
    }

    /// The zone `name` names, found case-insensitively (`europe/paris`), with its usual spelling.
    static func zone(named name: String) -> (String, Zone)? {
        // Spelled as the zone's file is, the usual case: the list of every zone (tzdata.zi,
        // some 600 names) is read only to match another spelling. Read for each zoned time,
        // it was most of the time a 5,000-event import took.
        if let zone = Zone(identifier: name) { return (name, zone) }
        let known = Zone.knownIdentifiers
        let spelled = known.contains(name) ? name : known.first { $0.lowercased() == name.lowercased() } ?? name
        guard !spelled.isEmpty, let zone = Zone(identifier: spelled) else { return nil }
        return (spelled, zone)
    }
}

/// One parse: the input, and the clock its wall-clock forms are read on.
struct WhenReader {
    let input: String
    let now: Date
    let clockZone: Zone
    /// The zone wall-clock forms are pinned to; nil leaves them floating.
    let zoneName: String?
    let dateOrder: WhenParser.DateOrder?
    /// Whether an error suggests a phrase that reads; off while such a phrase is tried.
    var suggests = true

    func trigger() throws(FieldError) -> Trigger {
        guard !input.isEmpty else { throw FieldError("when", "must not be empty; \(Self.usage).") }
        let lower = input.lowercased()
        if lower == "in" || lower.hasPrefix("in ") || lower.hasPrefix("in\t") {
            let rest = input.dropFirst(2).trimmingSpaces
            guard !rest.isEmpty else { throw FieldError("when", "'\(input)' needs a duration, as in 'in 20m'.") }
            return try later(from: nil, by: rest)
        }
        var words = input.split(whereSeparator: \.isWhitespace).map(String.init)
        if let first = words.first, let basic = Self.extendedFromBasic(first) { words[0] = basic }
        if let first = words.first, first.prefix(while: \.isASCIIDigit).count > 4, first.dropFirst(4).contains("-") {
            throw FieldError("when", "'\(input)' has a year of more than four digits; write it as in 2026-12-24 18:00.")
        }
        if let first = words.first, Self.startsWithDate(first) {
            if words.count == 1, let t = first.firstIndex(where: { $0 == "T" || $0 == "t" }) {
                return try dateTime(date: String(first[..<t]), time: String(first[first.index(after: t)...]))
            }
            if words.count == 2, words[1].first?.isASCIIDigit == true, words[1].contains(":") {
                return try dateTime(date: words[0], time: words[1])
            }
        }
        // Today at the current time of day is now, which nobody means by a reminder for
        // "today"; as the start of "today + 2 hours" it is what it says.
        if words.count == 1, words[0].lowercased() == "today" {
            throw FieldError("when", "'\(input)' needs a time of day, as in 'today 18:00' (today alone would be now).")
        }
        return try spoken(words)
    }

    // MARK: - ISO 8601

    private func dateTime(date: String, time: String) throws(FieldError) -> Trigger {
        guard let (year, month, day) = Self.isoDate(date) else { throw notATime() }
        if let problem = LocalDateTime(year: year, month: month, day: day).problem {
            throw FieldError("when", "'\(input)' is not a valid date: \(problem)")
        }
        guard let clock = try clock(time, allowingSuffix: true) else { throw notATime() }
        let local = LocalDateTime(year: year, month: month, day: day, hour: clock.hour, minute: clock.minute, second: clock.second)
        let suffix = try suffix(clock.rest)

        if let zone = suffix.zone {
            guard let (name, known) = WhenParser.zone(named: zone) else { throw FieldError("when", "'\(zone)' is not a known time zone.") }
            if clock.fraction != 0 { throw FieldError("when", "'\(input)' is not a valid time: a zoned time has whole seconds.") }
            if let offset = suffix.offset {
                let instant = Date(timeIntervalSince1970: TimeInterval(local.secondsAsUTC - offset))
                let actual = known.secondsFromGMT(for: instant)
                guard actual == offset else {
                    throw FieldError(
                        "when", "'\(input)' contradicts itself: \(name) is at \(Self.format(offset: actual)) then, not \(Self.format(offset: offset)).")
                }
                // A time shown twice (clocks fall back) reads as the first; the offset names
                // the second, which only the instant itself can keep.
                if local.date(in: known) != instant { return .absolute(instant) }
            }
            return .zoned(local, zone: name)
        }
        if let offset = suffix.offset {
            return .absolute(Date(timeIntervalSince1970: TimeInterval(local.secondsAsUTC - offset) + clock.fraction))
        }
        if clock.fraction != 0 {
            throw FieldError("when", "'\(input)' is not a valid time: fractions of a second need an offset or Z.")
        }
        return wallClock(local)
    }

    /// `20261224T1800Z` (ISO 8601's basic format) in the extended format; nil for anything else.
    static func extendedFromBasic(_ word: String) -> String? {
        let chars = Array(word)
        guard chars.count >= 13, chars[0..<8].allSatisfy(\.isASCIIDigit), chars[8] == "T" || chars[8] == "t" else { return nil }
        let digits = chars[9...].prefix(while: \.isASCIIDigit)
        guard digits.count == 4 || digits.count == 6 else { return nil }
        let d = chars[0..<8].map(String.init).joined(), t = Array(digits).map(String.init).joined()
        var text = "\(d.prefix(4))-\(d.dropFirst(4).prefix(2))-\(d.suffix(2))T\(t.prefix(2)):\(t.dropFirst(2).prefix(2))"
        if digits.count == 6 { text += ":" + t.suffix(2) }
        return text + String(chars[(9 + digits.count)...])
    }

    // MARK: - Pieces

    /// A time of day, and what followed it.
    struct Clock {
        var hour, minute, second: Int
        var fraction: TimeInterval = 0
        var rest: Substring = ""
    }

    /// Reads `9:05`, `15:00:30`, `3pm`, `9:30pm` and, with `allowingSuffix`, an ISO time
    /// followed by a fraction, offset or zone. Nil when the word is no time at all.
    func clock(_ word: String, allowingSuffix: Bool) throws(FieldError) -> Clock? {
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
                throw FieldError("when", "'\(input)' is not a valid time: hour \(hour) is out of range for am and pm.")
            }
            hour = hour % 12 + (meridiem == "pm" ? 12 : 0)
            text = text.dropFirst(2)
        } else if !hasMinutes || !(allowingSuffix || text.isEmpty) {
            return nil
        }
        if let problem = LocalDateTime(year: 2000, month: 1, day: 1, hour: hour, minute: minute, second: second).problem {
            throw FieldError("when", "'\(input)' is not a valid time: \(problem)")
        }
        return Clock(hour: hour, minute: minute, second: second, fraction: fraction, rest: text)
    }

    /// What follows an ISO time: an offset (`Z`, `+01:00`, `+0100`, `+01`), an RFC 9557
    /// zone in brackets, or both.
    private struct Suffix {
        var offset: Int?
        var zone: String?
    }

    private func suffix(_ text: Substring) throws(FieldError) -> Suffix {
        var rest = text
        var suffix = Suffix()
        if rest.first == "Z" || rest.first == "z" {
            suffix.offset = 0
            rest = rest.dropFirst()
        } else if let sign = rest.first, sign == "+" || sign == "-" || sign == "−" {
            let written = rest.prefix { $0 != "[" }
            rest = rest.dropFirst()
            let hours = rest.prefix(while: \.isASCIIDigit)
            guard hours.count == 2 || hours.count == 4, let h = Int(hours.prefix(2)) else { throw badOffset(written) }
            rest = rest.dropFirst(hours.count)
            var m = hours.count == 4 ? Int(hours.suffix(2)) ?? 60 : 0
            var s = 0
            if hours.count == 2, rest.first == ":" {
                let minutes = rest.dropFirst().prefix(while: \.isASCIIDigit)
                guard minutes.count == 2, let value = Int(minutes) else { throw badOffset(written) }
                m = value
                rest = rest.dropFirst(3)
                // Local mean time before standard time has offsets in seconds (ISO 8601-1:2019's ±hh:mm:ss).
                if rest.first == ":" {
                    let seconds = rest.dropFirst().prefix(while: \.isASCIIDigit)
                    guard seconds.count == 2, let value = Int(seconds) else { throw badOffset(written) }
                    s = value
                    rest = rest.dropFirst(3)
                }
            }
            // RFC 3339 offsets stop at ±23:59.
            guard h <= 23, m <= 59, s <= 59 else { throw badOffset(written) }
            suffix.offset = (sign == "+" ? 1 : -1) * (h * 3_600 + m * 60 + s)
        }
        while rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw FieldError("when", "'\(input)' has a '[' without its ']'.") }
            var tag = rest[rest.index(after: rest.startIndex)..<close]
            rest = rest[rest.index(after: close)...]
            let critical = tag.first == "!"
            if critical { tag = tag.dropFirst() }
            if tag.contains("=") {
                // RFC 9557 lets readers ignore elective tags such as a calendar hint.
                if critical { throw FieldError("when", "the tag '[!\(tag)]' is not supported; give the calendar on its own.") }
                continue
            }
            guard suffix.zone == nil, !tag.isEmpty else { throw FieldError("when", "'\(input)' names no zone or two zones in brackets.") }
            suffix.zone = String(tag)
        }
        guard rest.isEmpty else { throw FieldError("when", "'\(input)' is not a time: '\(rest)' after the time is not understood; \(Self.usage).") }
        return suffix
    }

    private func badOffset(_ written: Substring) -> FieldError {
        FieldError("when", "'\(input)' has the offset '\(written)', which is not one: use Z or ±HH:MM from -23:59 to +23:59.")
    }

    private static func isoDate(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        return (year, month, day)
    }

    static func startsWithDate(_ word: String) -> Bool {
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

    func wallClock(_ local: LocalDateTime) -> Trigger {
        zoneName.map { .zoned(local, zone: $0) } ?? .floating(local)
    }

    // MARK: - Errors

    static let usage = "use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601"

    func notATime() -> FieldError {
        FieldError("when", "'\(input)' is not a time; \(Self.usage).")
    }

    /// `word` (lower case) is what the parser could not read in `input`. A part of the day
    /// gets a clock time in its place and a slip the word it was meant to be, each only
    /// when the phrase then reads; anything else gets the forms that work.
    func notUnderstood(_ word: String) -> FieldError {
        let start = "'\(input)' is not a time: '\(word)' is not understood; "
        if suggests, let time = Self.partsOfDay[word], let phrase = reads(replacing: word, with: time) {
            return FieldError("when", start + "give a clock time, as in '\(phrase)'.")
        }
        if suggests, let meant = Spelling.suggestion(for: word, among: Self.vocabulary), let phrase = reads(replacing: word, with: meant) {
            return FieldError("when", start + "did you mean '\(phrase)'?")
        }
        return FieldError("when", start + "\(Self.usage).")
    }

    /// The first of `words` that is no word of the parser's, nor a number, date or time
    /// (which the parser reads by their shape); nil when each is one.
    func unknownWord(in words: some Sequence<String>) -> String? {
        words.first { word in
            guard let first = word.first, !first.isASCIIDigit, first != "+" else { return false }
            return !Self.knownWords.contains(word) && Self.weekdays[word] == nil && Self.months[word] == nil
                && TimeUnit(spelling: word) == nil
        }
    }

    /// `input` with `word` replaced by `replacement`, when that reads as a time.
    private func reads(replacing word: String, with replacement: String) -> String? {
        let phrase = input.split(whereSeparator: \.isWhitespace)
            .map { $0.lowercased().trimmingSuffix(",") == word ? replacement : String($0) }
            .joined(separator: " ")
        var reader = WhenReader(input: phrase, now: now, clockZone: clockZone, zoneName: zoneName, dateOrder: dateOrder)
        reader.suggests = false
        return (try? reader.trigger()) == nil ? nil : phrase
    }

    /// The words of the spoken forms that are not weekdays, months or units.
    static let knownWords: Set<String> = ["today", "tomorrow", "next", "now", "noon", "midnight", "teatime", "am", "pm", "at", "in"]

    /// What a slip is matched against, the likeliest first.
    static let vocabulary = ["today", "tomorrow", "now", "noon", "midnight", "teatime", "next"]
        + weekdayNames.map { $0.lowercased() }
        + monthNames.map { $0.lowercased() } + ["day", "week", "month", "year"]
        + weekdays.keys.sorted() + months.keys.sorted()

    /// A clock time for each part of the day people name: Chime does not guess what
    /// "morning" means to someone, but shows the form that says it.
    static let partsOfDay = ["morning": "9:00", "afternoon": "15:00", "evening": "18:00", "night": "21:00", "tonight": "21:00"]
}

extension String {
    /// The text without one trailing `suffix`.
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
