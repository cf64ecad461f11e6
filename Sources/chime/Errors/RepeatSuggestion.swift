import Spelling

/// What a user who typed `--repeat WORD` most likely meant, in chime's options.
///
/// `--repeat` takes a unit of time (`week`, `2 weeks`, `weekly`); people also type the days
/// (`weekdays`, `mondays`) and the adverbs calendars offer (`biweekly`), which chime says
/// with `--on` and `--every`.
enum RepeatSuggestion {
    /// The options for `value`; nil when it is no slip chime knows.
    static func options(for value: String) -> String? {
        var text = value.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if text.hasPrefix("every ") { text = String(text.dropFirst(6)) }
        if let options = phrases[text] { return options }
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " }).filter { $0 != "and" }
        let days = items.compactMap { weekdays[String($0)] }
        if !days.isEmpty, days.count == items.count {
            return "--repeat week --on " + days.joined(separator: ",")
        }
        // A count before a unit that is a slip: "2 wekks".
        let digits = text.prefix(while: \.isNumber)
        let word = text.dropFirst(digits.count).trimmingPrefix(" ")
        guard let unit = Spelling.suggestion(for: String(word), among: units) else { return nil }
        if digits.isEmpty { return "--repeat " + unit }
        return "--every \(digits) --repeat " + (unit.hasSuffix("s") ? String(unit.dropLast()) : unit)
    }

    private static let phrases = [
        "weekdays": "--repeat week --on weekdays", "weekday": "--repeat week --on weekdays",
        "workdays": "--repeat week --on weekdays", "workday": "--repeat week --on weekdays",
        "weekends": "--repeat week --on weekends", "weekend": "--repeat week --on weekends",
        "biweekly": "--every 2 --repeat week", "fortnightly": "--every 2 --repeat week", "fortnight": "--every 2 --repeat week",
        "other week": "--every 2 --repeat week", "other day": "--every 2 --repeat day", "other month": "--every 2 --repeat month",
        "quarterly": "--every 3 --repeat month", "biennially": "--every 2 --repeat year", "biyearly": "--every 2 --repeat year",
    ]

    /// Each weekday as people write it, singular or plural, to its `--on` name.
    private static let weekdays: [String: String] = {
        var names: [String: String] = [:]
        for (short, long) in [("mon", "monday"), ("tue", "tuesday"), ("wed", "wednesday"), ("thu", "thursday"), ("fri", "friday"),
                              ("sat", "saturday"), ("sun", "sunday")] {
            for spelling in [short, long, long + "s"] { names[spelling] = short }
        }
        return names
    }()

    /// The units `--repeat` takes, the likeliest first.
    private static let units = ["day", "week", "month", "year", "hour", "minute", "daily", "weekly", "monthly", "yearly", "hourly",
                                "days", "weeks", "months", "years", "hours", "minutes"]
}
