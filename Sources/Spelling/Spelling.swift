/// Which known word a slip of the keyboard meant: `tomorow` for `tomorrow` (chimed's
/// time words), `lsit` for `list` (chime's commands).
///
/// A slip is one edit (a letter left out, added, changed, or two neighbours swapped), or
/// two in a word of six letters or more that starts as the known one does: people rarely
/// get a long word's first letter wrong, and without that rule a made-up word such as
/// `blursday` would be taken for `thursday`.
public enum Spelling {
    /// The first of `known` that `word` is a slip of; nil when `word` is one of them, or
    /// a slip of none. Case is ignored; `known` is in the order of preference.
    public static func suggestion(for word: String, among known: some Sequence<String>) -> String? {
        let typed = Array(word.lowercased())
        guard !typed.isEmpty else { return nil }
        var best: (word: String, distance: Int)?
        for candidate in known {
            let letters = Array(candidate.lowercased())
            if letters == typed { return nil }
            let allowed = typed.count >= 6 && letters.first == typed.first ? 2 : 1
            let distance = Self.distance(typed, letters)
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.word
    }

    /// The edits between `a` and `b`, counting a swap of neighbours as one (optimal string
    /// alignment, the restricted Damerau–Levenshtein distance).
    public static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rows of the table: the one before last, the last and the one being filled.
        var older = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], older[j - 2] + 1)
                }
            }
            (older, previous, current) = (previous, current, older)
        }
        return previous[b.count]
    }
}
