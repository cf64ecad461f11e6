/// The word a user most likely meant, for a "did you mean" after a name that is not known.
///
/// People slip in a few ways: the wrong case (`Reminder`), a plural (`reminders`), a word
/// cut short (`remind` for `reminder`), or a letter or two wrong, missing, extra or swapped
/// (`reminedr`). Each is tried in that order, and only a guess close enough to be the same
/// word is offered: a wrong suggestion misleads more than none.
public enum NearMiss {
    /// The candidate `word` most likely stands for; nil when none is close.
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
        let scored = sorted.map { (candidate: $0, distance: distance(lower, $0.lowercased())) }.filter { $0.distance <= limit }
        return scored.min { $0.distance < $1.distance }?.candidate
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and
    /// swaps of two neighbours each count one.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
