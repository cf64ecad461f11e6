extension StringProtocol {
    /// The text without white space (line breaks too) at either end, as people type
    /// around a word.
    public var trimmingSpaces: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
