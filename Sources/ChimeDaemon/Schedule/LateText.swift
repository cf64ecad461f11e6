/// How late, or how long ago, for people: "40 s", "5 min", "2 h 5 min" within a day,
/// then in the largest unit that fits, counted down: "3 days", "3 weeks", "4 months",
/// "6 years" (never "2523 days").
///
/// ``describe(_:)`` is English, for the log, the history and chimed's D-Bus sentences;
/// ``spoken(_:)`` says the same span in chimed's language, for the late mark on a
/// notification, so the popup and `chime log` state the same delay.
enum LateText {
    /// A span in the unit it is said in.
    enum Span: Equatable {
        case seconds(Int)
        case minutes(Int)
        case hours(Int, minutes: Int)
        case days(Int)
        case weeks(Int)
        case months(Int)
        case years(Int)
    }

    /// The span `seconds` (rounded to the second) is said as.
    static func span(_ seconds: Double) -> Span {
        // A span no date can give (a NaN from a broken clock, more than the 10 000 years
        // of the calendar) is no reason to trap.
        let total = seconds.isFinite ? Int(min(max(0, seconds), 1e12).rounded()) : 0
        let days = total / 86_400
        switch total {
        case ..<60: return .seconds(total)
        case ..<3600: return .minutes(total / 60)
        case ..<86_400: return .hours(total / 3600, minutes: total % 3600 / 60)
        default: break
        }
        switch days {
        case ..<14: return .days(days)
        // From 2 to 8 weeks, then from 2 months: 61 days are two months as people count them.
        case ..<61: return .weeks(days / 7)
        // The mean Gregorian month and year, in ten-thousandths of a day.
        case ..<365: return .months(days * 10_000 / 304_369)
        default: return .years(max(1, days * 10_000 / 3_652_425))
        }
    }

    /// The span in English.
    static func describe(_ seconds: Double) -> String {
        func counted(_ count: Int, _ unit: String) -> String { "\(count) \(unit)" + (count == 1 ? "" : "s") }
        switch span(seconds) {
        case .seconds(let count): return "\(count) s"
        case .minutes(let count): return "\(count) min"
        case .hours(let hours, let minutes): return minutes == 0 ? "\(hours) h" : "\(hours) h \(minutes) min"
        case .days(let count): return counted(count, "day")
        case .weeks(let count): return counted(count, "week")
        case .months(let count): return counted(count, "month")
        case .years(let count): return counted(count, "year")
        }
    }
}
