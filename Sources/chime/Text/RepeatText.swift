import Glibc
import Localization

/// How a notification repeats, in words: what `list`, `show` and `import` say instead of
/// the RRULE chimed stores.
extension HumanText {
    /// `every day`, `every 2 weeks`, `every weekday until 30 Jun 2030`, `2nd Tuesday, 10
    /// times`, in the session's language; "-" for a one-shot.
    ///
    /// Read from `rrule` (chimed sends it for every repeat): FREQ, INTERVAL, BYDAY and
    /// BYMONTHDAY=-1 as `--on` gives them, COUNT and UNTIL. A rule with other BY parts
    /// (BYSETPOS, BYMONTH, BYHOUR, …) is shown as its RRULE, which says it exactly; a part
    /// that is no BY part, such as an X- one, is left out of the words.
    static func repetition(_ unit: String?, every: Int64?, rrule: String? = nil, formats: TimeFormats = HumanText.formats) -> String {
        guard let unit else { return "-" }
        let rule = RepeatRule(rrule ?? "", formats: formats)
        if let rrule, rule.saysMoreThanWords(unit: rule.unit ?? unit) {
            return rrule.uppercased().hasPrefix("RRULE:") ? String(rrule.dropFirst(6)) : rrule
        }
        let interval = rule.interval ?? Int(clamping: every ?? 1)
        var text = rule.dayPhrase(unit: rule.unit ?? unit, interval: interval) ?? unitPhrase(rule.unit ?? unit, interval)
        if let count = rule.count {
            // TRANSLATORS: %1$s is how it repeats, such as "every day".
            text = count == 1 ? localized("%1$s, once", text)
                // TRANSLATORS: %1$s is how it repeats, such as "every day"; %2$d how many times it fires in all.
                : pluralized("%1$s, %2$d time", "%1$s, %2$d times", count: count, text, count)
        }
        if let until = rule.until {
            // TRANSLATORS: %1$s is how it repeats, such as "every weekday"; %2$s its last day, such as 30 Jun 2030.
            text = localized("%1$s until %2$s", text, until)
        }
        return text
    }

    /// "every day", "every 2 weeks": a unit and a step.
    static func unitPhrase(_ unit: String, _ interval: Int) -> String {
        // One message per unit, since a unit's gender and plural differ by language.
        switch unit {
        case "minute": return pluralized("every minute", "every %1$d minutes", count: interval, interval)
        case "hour": return pluralized("every hour", "every %1$d hours", count: interval, interval)
        case "day": return pluralized("every day", "every %1$d days", count: interval, interval)
        case "week": return pluralized("every week", "every %1$d weeks", count: interval, interval)
        case "month": return pluralized("every month", "every %1$d months", count: interval, interval)
        case "year": return pluralized("every year", "every %1$d years", count: interval, interval)
        default: return interval == 1 ? "every \(unit)" : "every \(interval) \(unit)s"
        }
    }

    /// A weekday's name in the locale's `LC_TIME`: `Tue` (`abbreviated`) or `Tuesday`;
    /// 0 is Monday, as in RRULE's MO…SU.
    static func weekdayName(_ monday0: Int, abbreviated: Bool, formats: TimeFormats = HumanText.formats) -> String {
        var parts = tm()
        // 1 Jan 2024 was a Monday; the date makes strftime's other fields sane too.
        (parts.tm_year, parts.tm_mon, parts.tm_mday, parts.tm_wday) = (124, 0, Int32(1 + monday0), Int32((monday0 + 1) % 7))
        let name = formattedTime(parts, abbreviated ? "%a" : "%A", english: formats.english)
        return name.isEmpty ? RepeatRule.codes[monday0] : name
    }
}

/// The parts of an RRULE that the words say.
struct RepeatRule {
    static let codes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    var unit: String?
    var interval: Int?
    var count: Int?
    /// The last day, in words: `30 Jun 2030`, with its time when that is not the day's end.
    var until: String?
    /// Weekdays of a weekly rule (0 is Monday), in the rule's order.
    var weekdays: [Int] = []
    /// The n-th weekdays of a monthly rule: (1…4 or -1, weekday).
    var nthWeekdays: [(Int, Int)] = []
    var lastDayOfMonth = false
    /// Whether it has a BY part that no words here say: BYSETPOS, BYMONTH, BYHOUR, any BYMONTHDAY but -1, …
    var otherParts = false
    /// How dates and weekdays are written.
    let formats: HumanText.TimeFormats

    init(_ text: String, formats: HumanText.TimeFormats) {
        self.formats = formats
        let body = text.uppercased().hasPrefix("RRULE:") ? String(text.dropFirst(6)) : text
        for part in body.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            let value = pair[1]
            switch pair[0].uppercased() {
            case "FREQ":
                let units = ["MINUTELY": "minute", "HOURLY": "hour", "DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"]
                unit = units[value.uppercased()]
            case "INTERVAL": interval = Int(value).flatMap { $0 >= 1 ? $0 : nil }
            case "COUNT": count = Int(value).flatMap { $0 >= 1 ? $0 : nil }
            case "UNTIL": until = Self.untilText(value, formats: formats)
            case "BYMONTHDAY":
                lastDayOfMonth = value == "-1"
                otherParts = otherParts || !lastDayOfMonth
            case "BYSETPOS", "BYMONTH", "BYHOUR", "BYMINUTE", "BYSECOND", "BYYEARDAY", "BYWEEKNO": otherParts = true
            case "BYDAY":
                for item in value.uppercased().split(separator: ",") {
                    guard let weekday = Self.codes.firstIndex(of: String(item.suffix(2))) else { continue }
                    let ordinal = item.dropLast(2)
                    if ordinal.isEmpty { weekdays.append(weekday) } else if let n = Int(ordinal.hasPrefix("+") ? ordinal.dropFirst() : ordinal) {
                        nthWeekdays.append((n, weekday))
                    }
                }
            default: break
            }
        }
    }

    /// Whether the words would say less than the rule: parts they do not say, or days
    /// of a kind its unit's words do not take.
    func saysMoreThanWords(unit: String) -> Bool {
        otherParts || (!weekdays.isEmpty && (unit != "week" || !nthWeekdays.isEmpty))
            || (!nthWeekdays.isEmpty && (unit != "month" || !nthWeekdays.allSatisfy { [1, 2, 3, 4, -1].contains($0.0) }))
            || (lastDayOfMonth && (!weekdays.isEmpty || !nthWeekdays.isEmpty))
    }

    /// The phrase of a rule with days: `every weekday`, `every Mon, Wed`, `every 2 weeks on
    /// Tue`, `2nd Tuesday`, `last day of the month`; nil for a rule without days.
    func dayPhrase(unit: String, interval: Int) -> String? {
        if unit == "week", !weekdays.isEmpty {
            let set = Set(weekdays)
            if set == [0, 1, 2, 3, 4] {
                return interval == 1 ? localized("every weekday")
                    : pluralized("every week on weekdays", "every %1$d weeks on weekdays", count: interval, interval)
            }
            if set == [5, 6] {
                return interval == 1 ? localized("every weekend")
                    : pluralized("every week at weekends", "every %1$d weeks at weekends", count: interval, interval)
            }
            let names = weekdays.sorted().map { HumanText.weekdayName($0, abbreviated: true, formats: formats) }.joined(separator: ", ")
            // TRANSLATORS: %1$s names weekdays, such as "Mon, Wed, Fri".
            return interval == 1 ? localized("every %1$s", names)
                // TRANSLATORS: %2$s names weekdays, such as "Mon, Wed, Fri".
                : pluralized("every week on %2$s", "every %1$d weeks on %2$s", count: interval, interval, names)
        }
        guard unit == "month" else { return nil }
        let days: String
        if lastDayOfMonth {
            days = localized("last day of the month")
        } else if !nthWeekdays.isEmpty {
            days = nthWeekdays.map { Self.ordinal($0.0, HumanText.weekdayName($0.1, abbreviated: false, formats: formats)) }.joined(separator: ", ")
        } else {
            return nil
        }
        // TRANSLATORS: %2$s is a day of the month, such as "2nd Tuesday" or "last day of the month".
        return interval == 1 ? days : pluralized("%2$s every month", "%2$s every %1$d months", count: interval, interval, days)
    }

    /// `2nd Tuesday`, `last Friday`: one whole message per ordinal, since languages put
    /// and inflect them differently.
    static func ordinal(_ n: Int, _ weekday: String) -> String {
        switch n {
        // TRANSLATORS: %1$s is a weekday, such as Tuesday: the first of the month.
        case 1: return localized("1st %1$s", weekday)
        // TRANSLATORS: %1$s is a weekday, such as Tuesday: the second of the month.
        case 2: return localized("2nd %1$s", weekday)
        // TRANSLATORS: %1$s is a weekday, such as Tuesday: the third of the month.
        case 3: return localized("3rd %1$s", weekday)
        // TRANSLATORS: %1$s is a weekday, such as Tuesday: the fourth of the month.
        case 4: return localized("4th %1$s", weekday)
        // TRANSLATORS: %1$s is a weekday, such as Friday: the last of the month.
        case -1: return localized("last %1$s", weekday)
        default: return "\(n) \(weekday)"
        }
    }

    /// UNTIL's day in words: `20300630T235959` (a wall-clock time of the rule's own clock,
    /// shown as it is) or `20300630T215959Z` (UTC, shown on the local clock).
    static func untilText(_ value: String, formats: HumanText.TimeFormats) -> String? {
        let utc = value.hasSuffix("Z")
        let digits = Array(utc ? value.dropLast() : Substring(value))
        let full = digits.count == 8 ? digits + Array("T235959") : digits
        guard full.count == 15, full[8] == "T" else { return nil }
        func number(_ range: Range<Int>) -> Int32? { Int32(String(full[range])) }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
              let minute = number(11..<13), let second = number(13..<15) else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec) =
            (year - 1900, month - 1, day, hour, minute, second)
        // timegm fills in the weekday and day of the year, and reads UTC's seconds.
        let seconds = timegm(&parts)
        if utc, let local = HumanText.localParts(Int64(seconds)) { parts = local }
        let endOfDay = (parts.tm_hour, parts.tm_min) == (23, 59)
        let date = HumanText.day(parts, formats: formats)
        return endOfDay ? date : date + " " + HumanText.formattedTime(parts, formats.time, english: formats.english)
    }
}
