/// Chime's own notification ids: short, random, and never reused by a server.
enum NotificationID {
    /// Eight characters of Crockford's base 32 (no i, l, o, u): 40 bits from one draw.
    static func random() -> String {
        let digits = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var generator = SystemRandomNumberGenerator()
        var bits = generator.next()
        var id = ""
        for _ in 0..<8 {
            id.append(digits[Int(bits & 31)])
            bits >>= 5
        }
        return id
    }

    /// Whether `text` has the form ``random()`` gives.
    static func isWellFormed(_ text: String) -> Bool {
        text.count == 8 && text.allSatisfy { digits.contains($0) }
    }

    private static let digits = Set("0123456789abcdefghjkmnpqrstvwxyz")
}
