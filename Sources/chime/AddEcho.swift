import ChimeAPI
import DBus
import Glibc
import JSON
import Localization

/// What `chime add` prints: the id first, then when it will fire as chimed understood it.
extension Add {
    /// `17  Wed 24 Dec 18:00 (in 3 days)`, or `{"id": …, "nextFire": …, "nextFireLocal": …}`;
    /// the bare id when chimed tells no fire time (a place, or one that fired already).
    ///
    /// The time comes from chimed's own description of what it stored, so a misread shows
    /// at once; scripts read the id as the first word.
    static func echo(id: String, described entries: [(key: String, value: Value)], json: Bool,
                     now: Int64 = Int64(time(nil))) -> String {
        let fields = HumanText.fields(entries)
        let next = fields[.nextFire]?.integerValue
        if json {
            var object: [(String, JSONText)] = [("id", .string(id))]
            if let next {
                object.append((NotificationKey.nextFire.rawValue, .integer(next)))
                object.append((NotificationKey.nextFireLocal.rawValue, .string(HumanText.isoTime(next))))
            }
            return JSONText.object(object).rendered()
        }
        guard let next else { return id }
        return id + "  " + HumanText.date(next, zone: HumanText.zone(fields), distance: true, now: now)
    }
}

extension HumanText {
    /// `Wed 24 Dec 18:00`, with the year when it is not this one, in the C locale; the
    /// weekday and the locale's date and time elsewhere (`Mi 24.12.2026 18:00`).
    static func dayAndTime(_ seconds: Int64, now: Int64) -> String {
        guard let parts = localParts(seconds) else { return localTime(seconds) }
        let format: String
        if timeFormat.hasPrefix("%x") {
            format = "%a " + timeFormat
        } else {
            let thisYear = localParts(now)?.tm_year == parts.tm_year
            format = thisYear ? "%a %-d %b %H:%M" : "%a %-d %b %Y %H:%M"
        }
        return formatted(parts, format) ?? localTime(seconds)
    }

    /// `in 3 days`, `in 2 h 5 min`, `in 45 seconds`: how far `seconds` is from
    /// `now`, in whole calendar days once it is a day or more away.
    static func relative(_ seconds: Int64, from now: Int64) -> String {
        let ahead = Int(seconds - now)
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
        let days = calendarDays(from: now, to: seconds) ?? ahead / 86_400
        return pluralized("in %1$d day", "in %1$d days", count: days, days)
    }

    /// How many midnights lie between two instants on the local clock.
    private static func calendarDays(from start: Int64, to end: Int64) -> Int? {
        guard var first = localParts(start), var last = localParts(end) else { return nil }
        func midnightAsUTC(_ parts: inout tm) -> Int {
            (parts.tm_hour, parts.tm_min, parts.tm_sec) = (0, 0, 0)
            return timegm(&parts)
        }
        return (midnightAsUTC(&last) - midnightAsUTC(&first)) / 86_400
    }

    private static func formatted(_ parts: tm, _ format: String) -> String? {
        var parts = parts
        var buffer = [CChar](repeating: 0, count: 256)
        let count = strftime(&buffer, buffer.count, format, &parts)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
