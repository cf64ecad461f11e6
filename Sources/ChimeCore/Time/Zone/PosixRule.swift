import Glibc
import Synchronization

/// A POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3`, with the RFC 8536 §3.3.1
/// extensions (transition hours from -167 to 167).
struct PosixRule: Sendable, Hashable {
    /// Seconds east of UTC; note POSIX writes offsets west-positive.
    let standardOffset: Int
    let daylight: DaylightRule?

    struct DaylightRule: Sendable, Hashable {
        let offset: Int
        let start: RuleDate
        /// Seconds after local midnight, in standard time.
        let startTime: Int
        let end: RuleDate
        /// Seconds after local midnight, in daylight time.
        let endTime: Int
    }

    enum RuleDate: Sendable, Hashable {
        /// `Jn`: 1...365, February 29 never counted.
        case julianSkippingLeapDay(Int)
        /// `n`: 0...365, February 29 counted.
        case zeroBasedDay(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    init(standardOffset: Int, daylight: DaylightRule?) {
        self.standardOffset = standardOffset
        self.daylight = daylight
    }

    init?(_ text: String) {
        var parser = PosixRuleParser(text)
        guard let rule = parser.parseRule() else { return nil }
        self = rule
    }

    func secondsFromGMT(at instant: Int) -> Int {
        guard let daylight else { return standardOffset }
        return isDaylightTime(at: instant, daylight) ? daylight.offset : standardOffset
    }

    private func isDaylightTime(at instant: Int, _ daylight: DaylightRule) -> Bool {
        // The Gregorian calendar repeats every 400 years, weekdays included, so the
        // rule's answer does too; folding keeps the arithmetic far from overflow.
        let folded = Calendar400.fold(instant)
        let year = Calendar400.year(ofDay: (folded + standardOffset).floorDivided(by: 86_400))
        // Rule times may reach ±167 h, so a neighbouring year's change can land in this one.
        // Among equal instants the later-listed change wins, so when one year's end meets
        // the next year's start (all-year DST) daylight time stays, as zic's output does.
        var latest: (instant: Int, isDaylight: Bool)?
        var earliest: (instant: Int, isDaylight: Bool)?
        func consider(_ instant: Int, isDaylight: Bool) {
            if instant <= folded, instant >= (latest?.instant ?? Int.min) { latest = (instant, isDaylight) }
            if instant < (earliest?.instant ?? Int.max) { earliest = (instant, isDaylight) }
        }
        for candidate in (year - 1)...(year + 1) {
            let newYear = LocalDateTime.daysFromCivil(year: candidate, month: 1, day: 1)
            let start = Calendar400.day(of: daylight.start, year: candidate, newYear: newYear)
            let end = Calendar400.day(of: daylight.end, year: candidate, newYear: newYear)
            consider(start * 86_400 + daylight.startTime - standardOffset, isDaylight: true)
            consider(end * 86_400 + daylight.endTime - daylight.offset, isDaylight: false)
        }
        if let latest { return latest.isDaylight }
        return !(earliest?.isDaylight ?? false)
    }
}

/// Proleptic Gregorian day arithmetic (days since 1970-01-01).
private enum Calendar400 {
    static let daysPerCycle = 146_097
    static let secondsPerCycle = daysPerCycle * 86_400

    /// Maps any instant into 1970..<2370 at the same calendar position.
    static func fold(_ instant: Int) -> Int {
        let remainder = instant % secondsPerCycle
        return remainder < 0 ? remainder + secondsPerCycle : remainder
    }

    /// Days before the first of `month` in a common year.
    private static let daysBeforeMonth = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]

    static func year(ofDay days: Int) -> Int { LocalDateTime.civilFromDays(days).year }

    /// The day a rule date falls on; `newYear` is the day of January 1 of `year`.
    static func day(of date: PosixRule.RuleDate, year: Int, newYear: Int) -> Int {
        switch date {
        case .julianSkippingLeapDay(let number):
            let leapDay = LocalDateTime.isLeap(year) && number >= 60 ? 1 : 0
            return newYear + number - 1 + leapDay
        case .zeroBasedDay(let number):
            return newYear + number
        case .monthWeekDay(let month, let week, let weekday):
            let leapDay = month > 2 && LocalDateTime.isLeap(year) ? 1 : 0
            let first = newYear + daysBeforeMonth[month - 1] + leapDay
            let firstWeekday = (first + 4).floorModulo(7)  // 1970-01-01 was a Thursday.
            var dayOfMonth = (weekday - firstWeekday).floorModulo(7) + 7 * (week - 1)
            while dayOfMonth >= LocalDateTime.daysIn(month: month, year: year) { dayOfMonth -= 7 }
            return first + dayOfMonth
        }
    }
}


/// Parses `std offset [dst [offset] [,start[/time],end[/time]]]`.
private struct PosixRuleParser {
    private let characters: [UInt8]
    private var position = 0

    init(_ text: String) {
        characters = Array(text.utf8)
    }

    mutating func parseRule() -> PosixRule? {
        guard parseName(), let standardWest = parseSignedTime(maximumHours: 24) else { return nil }
        let standardOffset = -standardWest
        guard TZifParser.validOffsets.contains(standardOffset) else { return nil }
        if atEnd { return PosixRule(standardOffset: standardOffset, daylight: nil) }

        guard parseName() else { return nil }
        var daylightOffset = standardOffset + 3600
        if let next = peek, next != UInt8(ascii: ",") {
            guard let daylightWest = parseSignedTime(maximumHours: 24) else { return nil }
            daylightOffset = -daylightWest
        }
        guard TZifParser.validOffsets.contains(daylightOffset) else { return nil }

        // POSIX leaves a missing rule to the implementation; glibc and zic assume US rules.
        var start = PosixRule.RuleDate.monthWeekDay(month: 3, week: 2, weekday: 0)
        var end = PosixRule.RuleDate.monthWeekDay(month: 11, week: 1, weekday: 0)
        var startTime = 7200
        var endTime = 7200
        if !atEnd {
            guard consume(","), let parsedStart = parseDate() else { return nil }
            start = parsedStart
            if consume("/") {
                guard let time = parseSignedTime(maximumHours: 167) else { return nil }
                startTime = time
            }
            guard consume(","), let parsedEnd = parseDate() else { return nil }
            end = parsedEnd
            if consume("/") {
                guard let time = parseSignedTime(maximumHours: 167) else { return nil }
                endTime = time
            }
        }
        guard atEnd else { return nil }
        let daylight = PosixRule.DaylightRule(offset: daylightOffset, start: start, startTime: startTime,
                                              end: end, endTime: endTime)
        return PosixRule(standardOffset: standardOffset, daylight: daylight)
    }

    private var atEnd: Bool { position >= characters.count }

    private var peek: UInt8? { atEnd ? nil : characters[position] }

    private mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    /// Either three or more letters, or `<` letters, digits and signs `>`.
    private mutating func parseName() -> Bool {
        if consume("<") {
            let start = position
            while let character = peek, character.isASCIIAlphanumeric
                    || character == UInt8(ascii: "+") || character == UInt8(ascii: "-") {
                position += 1
            }
            return position - start >= 3 && consume(">")
        }
        let start = position
        while let character = peek, character.isASCIILetter { position += 1 }
        return position - start >= 3
    }

    /// `[+-]hh[:mm[:ss]]`, in seconds.
    private mutating func parseSignedTime(maximumHours: Int) -> Int? {
        var sign = 1
        if consume("-") { sign = -1 } else { _ = consume("+") }
        guard let hours = parseNumber(maximumDigits: 3), hours <= maximumHours else { return nil }
        var seconds = hours * 3600
        if consume(":") {
            guard let minutes = parseNumber(maximumDigits: 2), minutes <= 59 else { return nil }
            seconds += minutes * 60
            if consume(":") {
                guard let extra = parseNumber(maximumDigits: 2), extra <= 59 else { return nil }
                seconds += extra
            }
        }
        return sign * seconds
    }

    private mutating func parseDate() -> PosixRule.RuleDate? {
        if consume("J") {
            guard let day = parseNumber(maximumDigits: 3), (1...365).contains(day) else { return nil }
            return .julianSkippingLeapDay(day)
        }
        if consume("M") {
            guard let month = parseNumber(maximumDigits: 2), (1...12).contains(month), consume("."),
                  let week = parseNumber(maximumDigits: 1), (1...5).contains(week), consume("."),
                  let weekday = parseNumber(maximumDigits: 1), (0...6).contains(weekday)
            else { return nil }
            return .monthWeekDay(month: month, week: week, weekday: weekday)
        }
        guard let day = parseNumber(maximumDigits: 3), (0...365).contains(day) else { return nil }
        return .zeroBasedDay(day)
    }

    private mutating func parseNumber(maximumDigits: Int) -> Int? {
        var value = 0
        var digits = 0
        while digits < maximumDigits, let character = peek, character.isASCIIDigit {
            value = value * 10 + Int(character - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        return digits > 0 ? value : nil
    }
}

extension UInt8 {
    var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    var isASCIILetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
    var isASCIIAlphanumeric: Bool { isASCIIDigit || isASCIILetter }
}
