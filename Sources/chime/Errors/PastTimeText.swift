import ChimeAPI
import DBus
import Localization

/// chimed's refusal of a time in the past (``ChimeAPI/PastWhen``), said with the option
/// its user typed and in the session's language.
enum PastTimeText {
    /// Why `--allow-past` without `--at` is a usage error (add and edit): a duration is never past.
    static var allowPastNeedsAt: String { localized("--allow-past goes with --at: it lets that time be in the past.") }

    /// chimed's `message` said anew when it refuses a time in the past: `--at 2020-01-01
    /// 10:00 is 6 years ago; to show it now use chime notify.`, with `option` as typed;
    /// nil for any other message.
    static func sentence(_ message: String, option: String) -> String? {
        guard let (when, ago) = PastWhen.parse(message) else { return nil }
        // TRANSLATORS: %1$s is the option typed (--at), %2$s the time as typed, %3$s how long ago, as in "Due %1$s ago.".
        return localized("%1$s %2$s is %3$s ago; to show it now use chime notify.", option, when, spoken(ago))
    }

    /// A span as chimed says it in English ("6 years", "2 h 5 min") in the session's
    /// language, in the words of the late mark on a notification; as it is when it is no such span.
    static func spoken(_ english: String) -> String {
        let words = english.split(separator: " ")
        let numbers = words.compactMap { Int($0) }
        guard words.count == 2 * numbers.count, let count = numbers.first else { return english }
        switch words.count == 4 ? "h min" : String(words[1]) {
        case "h min" where words[1] == "h" && words[3] == "min": return localized("%1$d h %2$d min", count, numbers[1])
        case "s": return localized("%1$d s", count)
        case "min": return localized("%1$d min", count)
        case "h": return localized("%1$d h", count)
        case "day", "days": return pluralized("%1$d day", "%1$d days", count: count, count)
        case "week", "weeks": return pluralized("%1$d week", "%1$d weeks", count: count, count)
        case "month", "months": return pluralized("%1$d month", "%1$d months", count: count, count)
        case "year", "years": return pluralized("%1$d year", "%1$d years", count: count, count)
        default: return english
        }
    }
}
