import Glibc

/// Instants, which chimed passes as Unix seconds, written as ISO 8601 in this process's
/// time zone: the one `TZ` or `/etc/localtime` names, as chimed's own.
extension HumanText {
    /// `2026-12-24T18:00:00+01:00`, as the `--json` outputs write times.
    static func isoTime(_ seconds: Int64) -> String {
        localParts(seconds).map { isoText($0) } ?? String(seconds)
    }

    /// `2026-12-24 18:00:00 +01:00`: the same for people, as `chime doctor` writes it.
    static func spacedISOTime(_ seconds: Int64) -> String {
        localParts(seconds).map { isoText($0, separator: " ", offsetSeparator: " ") } ?? String(seconds)
    }

    /// The broken-down local time of `seconds`, nil when the C library cannot say it.
    static func localParts(_ seconds: Int64) -> tm? {
        var time = time_t(seconds)
        var parts = tm()
        return localtime_r(&time, &parts) == nil ? nil : parts
    }

    /// `parts` as ISO 8601 to the second, with its offset from UTC (`tm_gmtoff`), its seconds
    /// too when it has any (ISO 8601-1:2019's `±hh:mm:ss`).
    static func isoText(_ parts: tm, separator: String = "T", offsetSeparator: String = "") -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let offset = parts.tm_gmtoff
        let minutes = abs(offset) / 60
        // Local mean time before standard time has offsets in seconds (New York −04:56:02).
        let seconds = abs(offset) % 60 == 0 ? "" : ":" + pad(abs(offset) % 60, 2)
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + separator + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + offsetSeparator + (offset < 0 ? "-" : "+") + pad(minutes / 60, 2) + ":" + pad(minutes % 60, 2) + seconds
    }
}
