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

    /// The command `arguments` run, as its help is asked for: `add`, or `calendar add` for
    /// one of a group's; nil when the first word names none.
    static func typedCommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, let command = configuration.subcommands.first(where: { $0._commandName == first }) else {
            return nil
        }
        if arguments.count > 1, command.configuration.subcommands.contains(where: { $0._commandName == arguments[1] }) {
            return first + " " + arguments[1]
        }
        return first
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
