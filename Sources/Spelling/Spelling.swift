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

    /// The name among `candidates` a user most likely meant by an unknown `word`, for a
    /// "did you mean" after a name (a category, a button): besides a slip of the keyboard,
    /// the wrong case (`Reminder`), a plural (`reminders`) or a word cut short (`remind`
    /// for `reminder`), tried in that order; only a guess close enough to be the same word
    /// is offered, since a wrong suggestion misleads more than none. nil when none is close.
    public static func nearest(to word: String, among candidates: some Sequence<String>) -> String? {
        let sorted = Set(candidates).filter { $0 != word }.sorted()
        guard !word.isEmpty, !sorted.isEmpty else { return nil }
        let lower = word.lowercased()
        if let same = sorted.first(where: { $0.lowercased() == lower }) { return same }
        if let plural = sorted.first(where: { lower == $0.lowercased() + "s" || lower + "s" == $0.lowercased() }) { return plural }
        // A cut-short word names one candidate only when no other starts the same way.
        let extended = sorted.filter { $0.lowercased().hasPrefix(lower) }
        if lower.count >= 3, extended.count == 1 { return extended[0] }
        let limit = max(1, lower.count / 3)
        let scored = sorted.map { (candidate: $0, distance: distance(Array(lower), Array($0.lowercased()))) }.filter { $0.distance <= limit }
        return scored.min { $0.distance < $1.distance }?.candidate
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
