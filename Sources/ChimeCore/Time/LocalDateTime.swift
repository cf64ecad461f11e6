import FoundationEssentials

/// Wall-clock date and time without a zone.
///
/// Dates are proleptic Gregorian, as in ISO 8601. The arithmetic on the civil day count is
/// done here rather than through `Calendar`, so that reading a wall-clock time never depends
/// on Foundation's policies for skipped and repeated times (see `date(in:)`).
public struct LocalDateTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The fields as written: month and day from 1, hour from 0 to 23.
    public var year, month, day, hour, minute, second: Int

    /// The fields as given, unchecked (see `problem`).
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Reads `2026-12-24T18:00` or `2026-12-24T18:00:05` (a space may stand for the `T`).
    ///
    /// Nil when the text is malformed or names a time that no calendar has, such as
    /// February 30 or 25:00.
    public init?(iso: String) {
        let chars = Array(iso.utf8)
        guard chars.count == 16 || chars.count == 19,
              chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"),
              chars[10] == UInt8(ascii: "T") || chars[10] == UInt8(ascii: "t") || chars[10] == UInt8(ascii: " "),
              chars[13] == UInt8(ascii: ":"),
              let year = Self.digits(chars, 0, 4), let month = Self.digits(chars, 5, 2), let day = Self.digits(chars, 8, 2),
              let hour = Self.digits(chars, 11, 2), let minute = Self.digits(chars, 14, 2)
        else { return nil }
        var second = 0
        if chars.count == 19 {
            guard chars[16] == UInt8(ascii: ":"), let s = Self.digits(chars, 17, 2) else { return nil }
            second = s
        }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard problem == nil else { return nil }
    }

    /// `2026-12-24T18:00:00`, always with seconds.
    public var description: String {
        "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))"
    }

    /// Earlier on the wall clock, field by field.
    public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool {
        (a.year, a.month, a.day, a.hour, a.minute, a.second) < (b.year, b.month, b.day, b.hour, b.minute, b.second)
    }

    // MARK: - Validity

    /// Why these fields name no real date and time, as the end of a sentence; nil when they do.
    ///
    /// Years are limited to 1…9999, the range ISO 8601 writes with four digits.
    public var problem: String? {
        if !(1...9999).contains(year) { return "year \(year) is out of range." }
        if !(1...12).contains(month) { return "month \(month) is out of range." }
        let days = Self.daysIn(month: month, year: year)
        if day < 1 || day > days {
            if day < 1 { return "day \(day) is out of range." }
            return "\(Self.monthNames[month - 1]) \(year) has \(days) days."
        }
        if !(0...23).contains(hour) { return "hour \(hour) is out of range." }
        if !(0...59).contains(minute) { return "minute \(minute) is out of range." }
        if !(0...59).contains(second) { return "second \(second) is out of range." }
        return nil
    }

    /// The number of days in a Gregorian month.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    // MARK: - Wall clock as if UTC

    /// Seconds from 1970-01-01T00:00:00 to this wall-clock time, reading both in the same
    /// zone-less frame; fields out of range carry over (February 30 is March 2).
    public var secondsAsUTC: Int {
        Self.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// The wall-clock time `seconds` after 1970-01-01T00:00:00 in a zone-less frame.
    public init(secondsAsUTC seconds: Int) {
        let days = seconds.floorDivided(by: 86_400)
        let rest = seconds - days * 86_400
        let (y, m, d) = Self.civilFromDays(days)
        self.init(year: y, month: m, day: d, hour: rest / 3_600, minute: rest % 3_600 / 60, second: rest % 60)
    }

    /// The same wall-clock time `days` later (or earlier).
    public func adding(days: Int) -> LocalDateTime {
        LocalDateTime(secondsAsUTC: secondsAsUTC + days * 86_400)
    }

    /// 0 for Sunday through 6 for Saturday.
    public var weekday: Int {
        (Self.daysFromCivil(year: year, month: month, day: day) + 4).floorModulo(7)
    }

    // Howard Hinnant's civil-calendar algorithms: exact for the proleptic Gregorian calendar.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        // Normalising months first lets out-of-range months carry over like days do.
        let y0 = year + (month - 1).floorDivided(by: 12)
        let m = (month - 1).floorModulo(12) + 1
        let y = m <= 2 ? y0 - 1 : y0
        let era = y.floorDivided(by: 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    // MARK: - Zones

    /// The wall-clock time an instant shows in `zone` (fractions of a second are dropped).
    public init(_ date: Date, in zone: Zone) {
        self.init(secondsAsUTC: Self.wholeSeconds(date) + zone.secondsFromGMT(for: date))
    }

    /// An instant's whole seconds since 1970, held within ±3 million years so that no
    /// instant, however odd, traps on the way to an integer.
    static func wholeSeconds(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return 0 }
        return Int(min(max(seconds.rounded(.down), -1e14), 1e14))
    }

    /// The instant this wall-clock time names in `zone`.
    ///
    /// A time shown twice (clocks fall back) is the earlier instant; a time never shown
    /// (clocks spring forward) is read with the offset in force before the jump, so it lands
    /// as far after the jump as it was meant to be after the last time before it: 02:30 on a
    /// one-hour gap is 03:30, 02:15 in Lord Howe's half-hour gap is 02:45, and 09:00 on
    /// Samoa's skipped 30 December 2011 is 09:00 on the 31st (RFC 5545, section 3.3.5).
    ///
    /// `Calendar.date(from:)` is not used: its repeated-time policy is ignored in some
    /// Foundation versions.
    public func date(in zone: Zone) -> Date {
        Date(timeIntervalSince1970: TimeInterval(resolve(in: zone).instant))
    }

    /// Where this wall-clock time falls in `zone`: its instant, and, inside a gap, the
    /// instant at which the clocks jumped.
    func resolve(in zone: Zone) -> (instant: Int, gapEnd: Int?) {
        let local = secondsAsUTC
        let before = Self.offset(zone, local - 86_400)
        let after = Self.offset(zone, local + 86_400)
        let here = Self.offset(zone, local)
        var valid: [Int] = []
        for offset in [before, here, after] where Self.offset(zone, local - offset) == offset {
            valid.append(local - offset)
        }
        if let earliest = valid.min() { return (earliest, nil) }
        // A gap: the clocks jumped from `before` to a larger offset somewhere in
        // (local - after, local - before]. Find the jump to the second.
        var low = local - after
        var high = local - before
        guard after > before, Self.offset(zone, low) == before else { return (local - before, nil) }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if Self.offset(zone, middle) == before { low = middle } else { high = middle }
        }
        return (local - before, high)
    }

    static func offset(_ zone: Zone, _ seconds: Int) -> Int {
        zone.secondsFromGMT(at: seconds)
    }

    // MARK: - Text

    private static func digits(_ chars: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for c in chars[start..<start + count] {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(c - UInt8(ascii: "0"))
        }
        return value
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension Int {
    func floorDivided(by divisor: Int) -> Int {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }

    func floorModulo(_ divisor: Int) -> Int {
        self - floorDivided(by: divisor) * divisor
    }
}

extension Zone {
    /// The offset from UTC in force at `date` (fractions of a second are dropped).
    public func secondsFromGMT(for date: Date) -> Int {
        secondsFromGMT(at: LocalDateTime.wholeSeconds(date))
    }
}
