/// The refusal of a one-shot whose `when` is in the past (InvalidArgs naming `when`), as
/// chimed words it and chime finds it again to say it with the option its user typed.
public enum PastWhen {
    /// What a bus caller can do instead: the end of the sentence.
    public static let advice = "set late to true to schedule it anyway (it fires at once, marked late), or call PresentNow to "
        + "show it now."

    /// The reason given with `when`: `2020-01-01 10:00 is 6 years ago; set late …`.
    public static func reason(when: String, ago: String) -> String {
        "\(when) is \(ago) ago; " + advice
    }

    /// The `when` and how long ago of an error message that is this refusal; nil for any other.
    public static func parse(_ message: String) -> (when: String, ago: String)? {
        let prefix = NotificationKey.when.rawValue + ": ", suffix = " ago; " + advice
        guard message.hasPrefix(prefix), message.hasSuffix(suffix), message.count > prefix.count + suffix.count else { return nil }
        let middle = message.dropFirst(prefix.count).dropLast(suffix.count)
        // The time may hold " is " itself; the span after the last one cannot.
        guard let split = middle.ranges(of: " is ").last else { return nil }
        return (String(middle[..<split.lowerBound]), String(middle[split.upperBound...]))
    }
}
