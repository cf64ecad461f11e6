/// The command line as the user typed it, so that an error names an option as it was
/// written (`-n` or `--number`) with the value that followed it.
///
/// ArgumentParser hands over the values, not which of an option's names gave them; the
/// arguments themselves still say it.
struct TypedWords {
    /// What followed `chime`.
    let arguments: [String]

    init(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.arguments = arguments
    }

    /// The last use of one of `names`, the spellings of one option, as ArgumentParser takes
    /// the last: the spelling typed and what followed it (`--at 9:00`, `--at=9:00`, `-n5`).
    /// Nil when none of them was typed.
    func lastUse(of names: [String]) -> (spelling: String, value: String?)? {
        uses(of: names).last
    }

    /// Every value typed after one of `names`, in order: a repeatable option such as `-A`.
    func values(of names: [String]) -> [String] {
        uses(of: names).compactMap(\.value)
    }

    /// Which of `names` was typed last; the last of them (the long one) when none was.
    func spelling(of names: [String]) -> String {
        lastUse(of: names)?.spelling ?? names.last ?? ""
    }

    private func uses(of names: [String]) -> [(spelling: String, value: String?)] {
        var found: [(spelling: String, value: String?)] = []
        // After `--` every word is an argument, even one spelled as an option.
        for (index, word) in arguments.prefix(while: { $0 != "--" }).enumerated() {
            for name in names {
                if word == name {
                    found.append((name, index + 1 < arguments.count ? arguments[index + 1] : nil))
                } else if name.hasPrefix("--"), word.hasPrefix(name + "=") {
                    found.append((name, String(word.dropFirst(name.count + 1))))
                } else if !name.hasPrefix("--"), name.count == 2, !word.hasPrefix("--"), word.hasPrefix(name), word.count > 2 {
                    found.append((name, String(word.dropFirst(2))))
                }
            }
        }
        return found
    }
}
