import ArgumentParser
import Localization
import Spelling

/// A first word that names no command (`chime lsit`), said as such.
///
/// ArgumentParser calls such a word an unexpected argument, and shows the whole help for
/// `chime help nosuch` with status 0, as if the user had asked for it.
extension Chime {
    /// The commands as they are typed, and ArgumentParser's `help`.
    static var commandNames: [String] {
        configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// The usage error for `arguments` (what followed `chime`) when their first word, or
    /// the word after `help`, is a command that does not exist; nil otherwise.
    static func unknownCommand(in arguments: [String]) -> String? {
        guard var word = arguments.first, !word.hasPrefix("-") else { return nil }
        if word == "help" {
            guard arguments.count > 1, !arguments[1].hasPrefix("-") else { return nil }
            word = arguments[1]
        }
        guard !commandNames.contains(word) else { return nil }
        if let meant = Spelling.suggestion(for: word, among: commandNames) {
            return localized("Unknown command '%1$s'. Did you mean '%2$s'?", word, meant)
        }
        return localized("Unknown command '%1$s'", word)
    }
}
