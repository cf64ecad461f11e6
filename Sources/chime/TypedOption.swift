/// An option the user gave whose value chimed checks under a key of its own: chimed's
/// sentence names the key (`category: 'reminders' is …`), and chime says it with the
/// option as typed (`-c reminders is …`), since that is what the user can find and fix.
struct TypedOption {
    /// The D-Bus key the value travels under.
    let key: String
    /// The option's spellings; the long one last, said when the command line does not tell.
    let names: [String]
    let value: String

    /// `message` with its leading key in the user's words; unchanged when it names another key.
    func inUsersWords(_ message: String, arguments: [String] = CommandLine.arguments) -> String {
        let spelling = typed(in: arguments)
        if message.hasPrefix("\(key): '\(value)' ") {
            return "\(spelling) \(value) " + message.dropFirst("\(key): '\(value)' ".count)
        }
        if message.hasPrefix("\(key): ") { return "\(spelling) \(value): " + message.dropFirst("\(key): ".count) }
        return message
    }

    /// The spelling of the last of `names` on the command line (`-c`, `--category`, or
    /// `--category=…`); the long name when none is there as a word of its own.
    func typed(in arguments: [String]) -> String {
        let given = arguments.last { argument in
            names.contains(argument) || names.contains { $0.hasPrefix("--") && argument.hasPrefix($0 + "=") }
        }
        return given.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? $0 } ?? names[names.count - 1]
    }
}

extension [TypedOption] {
    /// The message of chimed's error in the words of the first of these options it names.
    func inUsersWords(_ message: String) -> String {
        for option in self {
            let said = option.inUsersWords(message)
            if said != message { return said }
        }
        return message
    }
}
