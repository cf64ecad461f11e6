/// Chime's own notification ids: short, random, and never reused by a server. chimed
/// makes them; chime tells one from a time by their form.
public enum NotificationID {
    /// Crockford's base 32: no i, l, o, u, so an id read aloud or retyped stays one.
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
    private static let digits = Set(alphabet)

    /// Eight characters of ``alphabet``: 40 bits from one draw.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var bits = generator.next()
        var id = ""
        for _ in 0..<8 {
            id.append(alphabet[Int(bits & 31)])
            bits >>= 5
        }
        return id
    }

    /// Whether `text` has the form ``random()`` gives.
    public static func isWellFormed(_ text: String) -> Bool {
        text.count == 8 && text.allSatisfy { digits.contains($0) }
    }
}
