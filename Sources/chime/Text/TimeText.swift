import ChimeAPI
import DBus
import Glibc
import Localization

// MARK: - Times for people

/// Instants, which chimed passes as Unix seconds, written the one way every command
/// writes them for people, in this process's time zone (the one `TZ` or `/etc/localtime`
/// names, as chimed's own) and the locale's `LC_TIME`.
extension HumanText {
    /// The time now, as Unix seconds.
    static var currentTime: Int64 { Int64(time(nil)) }

    /// An instant as every command shows it to people: `today 09:00`, `tomorrow 09:00`,
    /// `yesterday 18:30`, `Tue 1 Dec 09:00`, and `Tue 1 Dec 2031 09:00` in another year
    /// (the C locale's words; another locale's `LC_TIME` writes its own date and time, and
    /// the session's language its own "today").
    ///
    /// `zone`, the IANA zone of a reminder pinned to one, puts that zone's wall clock first
    /// and the local one after it, `today 09:00 New York, 15:00 here`, since the zone's is
    /// the time the user asked for. `distance` adds how far away it is, for a confirmation:
    /// `Tue 1 Dec 2031 09:00 (in 3 years)`.
    ///
    /// The one format of `add`'s confirmation, `list`, `show`, `skip`, `log`, `import` and
    /// `doctor`: a command that prints a time for people calls this (`next` alone prints
    /// ``calendarTime(_:)``, a column of full dates).
    static func date(_ seconds: Int64, zone: String? = nil, distance: Bool = false, now: Int64 = currentTime) -> String {
        guard let local = localParts(seconds) else { return String(seconds) }
        let today = localParts(now)
        var text = dayText(local, today: today)
        if let zone, let there = localParts(seconds, inZone: zone) {
            text = zonedText(there, today: localParts(now, inZone: zone), zone: zone, local: local, localToday: today)
        }
        // TRANSLATORS: a time, then how far away it is: "tomorrow 09:00 (in 20 hours)".
        return distance ? localized("%1$s (%2$s)", text, self.distance(to: seconds, from: now)) : text
    }

    /// `today 09:00 New York, 15:00 here`: `there` on the wall clock of `zone`, `local` the
    /// same instant on this machine's; `today` and `localToday` are now on each.
    static func zonedText(_ there: tm, today: tm?, zone: String, local: tm, localToday: tm?, formats: TimeFormats = HumanText.formats) -> String {
        let thereText = dayText(there, today: today, formats: formats) + " " + placeName(ofZone: zone)
        guard there.tm_gmtoff != local.tm_gmtoff else { return thereText }
        // The local day is said again only where it is another date than the zone's.
        let sameDay = (there.tm_year, there.tm_yday) == (local.tm_year, local.tm_yday)
        let here = sameDay ? formattedTime(local, formats.time, english: formats.english) : dayText(local, today: localToday, formats: formats)
        // TRANSLATORS: a time pinned to a zone, then the same instant on this machine's clock:
        // "today 09:00 New York, 15:00 here".
        return localized("%1$s, %2$s here", thereText, here)
    }

    /// `today 09:00`, `Tue 1 Dec 09:00` or `Tue 1 Dec 2031 09:00`: `parts` against the day
    /// `today` (nil: no day words, the date in full).
    static func dayText(_ parts: tm, today: tm?, formats: TimeFormats = HumanText.formats) -> String {
        let time = formattedTime(parts, formats.time, english: formats.english)
        switch today.map({ days(from: $0, to: parts) }) {
        // TRANSLATORS: %1$s is a time of day, such as 09:00.
        case 0: return localized("today %1$s", time)
        // TRANSLATORS: %1$s is a time of day, such as 09:00.
        case 1: return localized("tomorrow %1$s", time)
        // TRANSLATORS: %1$s is a time of day, such as 09:00.
        case -1: return localized("yesterday %1$s", time)
        default:
            let format = today?.tm_year == parts.tm_year ? formats.day : formats.dayWithYear
            return formattedTime(parts, format + " " + formats.time, english: formats.english)
        }
    }

    /// A day without its time, always with its year: `30 Jun 2030` in the C locale, the
    /// locale's date (`%x`) elsewhere. For the last day of a repeat.
    static func day(_ parts: tm, formats: TimeFormats = HumanText.formats) -> String {
        formattedTime(parts, formats.date, english: formats.english)
    }

    // MARK: - How far away

    /// `in 45 seconds`, `in 2 h 5 min`, `in 3 days`, `in 5 weeks`, `in 14 months`,
    /// `in 3 years`: how far `seconds` is from `now`, in the largest unit that still says
    /// it well. From a day on, days, months and years are counted on the local calendar
    /// (midnights passed, not 24-hour blocks), and a date years ahead is never "in 1281 days".
    static func distance(to seconds: Int64, from now: Int64) -> String {
        distance(ahead: seconds - now, from: localParts(now), to: localParts(seconds))
    }

    /// The same for `ahead` seconds from local time `start` to local time `end`.
    static func distance(ahead: Int64, from start: tm?, to end: tm?) -> String {
        let ahead = Int(clamping: ahead)
        guard ahead >= 1 else { return localized("due now") }
        guard ahead >= 60 else { return pluralized("in %1$d second", "in %1$d seconds", count: ahead, ahead) }
        let minutes = (ahead + 30) / 60
        if minutes < 60 { return pluralized("in %1$d minute", "in %1$d minutes", count: minutes, minutes) }
        if ahead < 86_400 {
            let hours = minutes / 60
            guard minutes % 60 == 0 else {
                // TRANSLATORS: "in 2 h 5 min", how far away a reminder is.
                return localized("in %1$d h %2$d min", hours, minutes % 60)
            }
            return pluralized("in %1$d hour", "in %1$d hours", count: hours, hours)
        }
        guard let start, let end else { return pluralized("in %1$d day", "in %1$d days", count: ahead / 86_400, ahead / 86_400) }
        let days = max(1, days(from: start, to: end))
        if days < 14 { return pluralized("in %1$d day", "in %1$d days", count: days, days) }
        let months = months(from: start, to: end)
        if months < 2 { return pluralized("in %1$d week", "in %1$d weeks", count: days / 7, days / 7) }
        if months < 24 { return pluralized("in %1$d month", "in %1$d months", count: months, months) }
        return pluralized("in %1$d year", "in %1$d years", count: months / 12, months / 12)
    }

    /// How many midnights lie between two local times of one zone.
    static func days(from start: tm, to end: tm) -> Int {
        func midnightAsUTC(_ parts: tm) -> Int {
            var parts = parts
            (parts.tm_hour, parts.tm_min, parts.tm_sec) = (0, 0, 0)
            return timegm(&parts)
        }
        return (midnightAsUTC(end) - midnightAsUTC(start)).floorDivided(by: 86_400)
    }

    /// Whole calendar months from `start` to `end` (local times of one zone): the most that
    /// can be added to `start` without passing `end`.
    static func months(from start: tm, to end: tm) -> Int {
        var months = Int(end.tm_year - start.tm_year) * 12 + Int(end.tm_mon - start.tm_mon)
        let startInMonth = ((Int(start.tm_mday) * 24 + Int(start.tm_hour)) * 60 + Int(start.tm_min)) * 60 + Int(start.tm_sec)
        let endInMonth = ((Int(end.tm_mday) * 24 + Int(end.tm_hour)) * 60 + Int(end.tm_min)) * 60 + Int(end.tm_sec)
        if endInMonth < startInMonth { months -= 1 }
        return months
    }

    // MARK: - Zones

    /// The IANA zone a zoned notification is pinned to, read from its `when`
    /// (`2030-06-01T09:00[America/New_York]`); nil for a floating time or an instant.
    static func zone(_ fields: [NotificationKey: Value]) -> String? {
        guard let when = fields[.when]?.stringValue, when.hasSuffix("]"), let open = when.lastIndex(of: "[") else { return nil }
        let name = String(when[when.index(after: open)..<when.index(before: when.endIndex)])
        return name.isEmpty ? nil : name
    }

    /// `New York` for `America/New_York`: the zone's city, as people name it.
    static func placeName(ofZone zone: String) -> String {
        String(zone.split(separator: "/").last ?? Substring(zone)).replacing("_", with: " ")
    }

    /// The broken-down time of `seconds` on the wall clock of IANA zone `zone`; nil for a
    /// zone the system's time-zone database does not have.
    ///
    /// glibc reads a zone only from `TZ`, so `TZ` is set for the call and put back: chime
    /// has one thread, and nothing else reads the environment meanwhile.
    static func localParts(_ seconds: Int64, inZone zone: String) -> tm? {
        guard isKnownZone(zone) else { return nil }
        let saved = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1)
        tzset()
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        return localParts(seconds)
    }

    /// Whether `zone` names a file of the time-zone database: glibc takes any other name for
    /// UTC without a word, which would show a wrong time.
    static func isKnownZone(_ zone: String) -> Bool {
        guard !zone.isEmpty, !zone.hasPrefix("/"), !zone.split(separator: "/").contains(".."),
              zone.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/_+-".contains($0)) }) else { return false }
        let folder = getenv("TZDIR").map { String(cString: $0) } ?? "/usr/share/zoneinfo"
        return access(folder + "/" + zone, R_OK) == 0
    }

    // MARK: - ISO 8601

    /// `2026-12-24T18:00:00+01:00`, as the `--json` outputs write times.
    static func isoTime(_ seconds: Int64) -> String {
        localParts(seconds).map { isoText($0) } ?? String(seconds)
    }

    /// The broken-down local time of `seconds`, nil when the C library cannot say it.
    static func localParts(_ seconds: Int64) -> tm? {
        var time = time_t(seconds)
        var parts = tm()
        return localtime_r(&time, &parts) == nil ? nil : parts
    }

    /// `parts` as ISO 8601 to the second, with its offset from UTC (`tm_gmtoff`), its seconds
    /// too when it has any (ISO 8601-1:2019's `±hh:mm:ss`).
    static func isoText(_ parts: tm) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let offset = parts.tm_gmtoff
        let minutes = abs(offset) / 60
        // Local mean time before standard time has offsets in seconds (New York −04:56:02).
        let seconds = abs(offset) % 60 == 0 ? "" : ":" + pad(abs(offset) % 60, 2)
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + (offset < 0 ? "-" : "+") + pad(minutes / 60, 2) + ":" + pad(minutes % 60, 2) + seconds
    }

    /// `parts` in `format`: by `strftime` in the locale's words, or by ``englishTime(_:_:)``.
    static func formattedTime(_ parts: tm, _ format: String, english: Bool = HumanText.formats.english) -> String {
        if english { return englishTime(parts, format) }
        var parts = parts
        var buffer = [CChar](repeating: 0, count: 256)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The C locale's names, by `tm_wday` and `tm_mon`.
    static let englishWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let englishMonths = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                "October", "November", "December"]

    /// `format`'s `%a %A %b %B %d %-d %m %Y %H %M %%` in English, without the C library: what
    /// the C locale says, whichever locale the process has set for `LC_TIME`.
    static func englishTime(_ parts: tm, _ format: String) -> String {
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = englishWeekdays[Int(parts.tm_wday).clamped(0, 6)], month = englishMonths[Int(parts.tm_mon).clamped(0, 11)]
        var result = ""
        var characters = Substring(format)
        while let character = characters.popFirst() {
            guard character == "%", let next = characters.popFirst() else {
                result.append(character)
                continue
            }
            switch next {
            case "a": result += weekday.prefix(3)
            case "A": result += weekday
            case "b": result += month.prefix(3)
            case "B": result += month
            case "d": result += two(parts.tm_mday)
            // glibc's "no padding" flag, which the C formats use for the day only.
            case "-":
                if characters.popFirst() == "d" { result += "\(parts.tm_mday)" }
            case "m": result += two(parts.tm_mon + 1)
            case "Y": result += "\(parts.tm_year + 1900)"
            case "H": result += two(parts.tm_hour)
            case "M": result += two(parts.tm_min)
            case "%": result += "%"
            default: result += "%" + String(next)
            }
        }
        return result
    }
}

extension Int {
    /// The value within `lower...upper`: a `tm` from outside is not trusted as an index.
    fileprivate func clamped(_ lower: Int, _ upper: Int) -> Int { Swift.min(Swift.max(self, lower), upper) }

    /// The quotient rounded towards minus infinity: days before 1970 count as whole days too.
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
