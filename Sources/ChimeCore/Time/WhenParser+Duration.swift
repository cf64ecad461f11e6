import FoundationEssentials

extension WhenParser {
    /// Reads a length of time: `20m`, `1h30m`, `1h 30m`, `90s`, `2d`, `1w`, `20 minutes`.
    ///
    /// Whole numbers, each with a unit (s, m, h, d, w or their words); the parts add up.
    /// The result must be longer than zero and at most 100 years. Errors name `field`.
    public static func duration(_ text: String, field: String) throws(FieldError) -> TimeInterval {
        let trimmed = text.trimmingSpaces
        let usage = "use 20m, 1h30m, 90s, 2d or 1w"
        guard !trimmed.isEmpty else { throw FieldError(field, "a duration must not be empty; \(usage).") }
        if trimmed.hasPrefix("-") || trimmed.hasPrefix("−") {
            throw FieldError(field, "'\(trimmed)' is not a duration: it must be longer than zero.")
        }
        let chars = Array(trimmed.lowercased())
        var i = chars.startIndex
        var total = 0
        var parts = 0
        while i < chars.endIndex {
            while i < chars.endIndex, chars[i].isWhitespace { i += 1 }
            let numberStart = i
            while i < chars.endIndex, chars[i].isASCIIDigit { i += 1 }
            let number = String(chars[numberStart..<i])
            if i < chars.endIndex, chars[i] == "." || chars[i] == "," {
                throw FieldError(field, "'\(trimmed)' is not a duration: use whole numbers, as in 1h30m.")
            }
            guard !number.isEmpty else { throw FieldError(field, "'\(trimmed)' is not a duration; \(usage).") }
            while i < chars.endIndex, chars[i].isWhitespace { i += 1 }
            let unitStart = i
            while i < chars.endIndex, chars[i].isLetter { i += 1 }
            let unitName = String(chars[unitStart..<i])
            guard !unitName.isEmpty else {
                throw FieldError(field, "'\(trimmed)' is not a duration: \(number) has no unit; use s, m, h, d or w.")
            }
            guard let unit = TimeUnit(spelling: unitName)?.fixedSeconds else {
                throw FieldError(field, "'\(trimmed)' is not a duration: '\(unitName)' is not a unit; use s, m, h, d or w.")
            }
            guard number.count <= 12, let value = Int(number), total <= maximumDuration else {
                throw FieldError(field, "'\(trimmed)' is too long: the limit is 100 years.")
            }
            total += value * unit
            parts += 1
        }
        guard parts > 0 else { throw FieldError(field, "'\(trimmed)' is not a duration; \(usage).") }
        guard total > 0 else { throw FieldError(field, "'\(trimmed)' is not a duration: it must be longer than zero.") }
        guard total <= maximumDuration else { throw FieldError(field, "'\(trimmed)' is too long: the limit is 100 years.") }
        return TimeInterval(total)
    }

    /// A hundred years of days: a notification further away than that is a typing mistake.
    static let maximumDuration = 100 * 366 * 86_400
}
