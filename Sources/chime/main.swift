import ArgumentParser
import Glibc
import Localization

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == "notify", let request = NotifyRequest(fastParsing: Array(arguments.dropFirst())) {
        try request.send()
    } else {
        if let unknown = Chime.unknownCommand(in: arguments) { throw ValidationError(unknown) }
        var command = try Chime.parseAsRoot(arguments)
        try command.run()
    }
} catch {
    // ArgumentParser's own error output spans several lines with the usage; chime says
    // one sentence on stderr and leaves the usage to --help.
    let status = Chime.exitCode(for: error)
    if status == .success {
        print(HelpScreen.text(for: error))
    } else {
        let message = Chime.message(for: error)
        if !message.isEmpty {
            writeError(sentence(UsageErrorText.translated(message.split(separator: "\n").first.map(String.init) ?? message)))
        }
    }
    exit(status.rawValue)
}

/// Ends a message with a full stop (a question keeps its mark), and points to the help
/// of the command typed (`chime add --help`), or to chime's own for a word that is none.
func sentence(_ text: String, arguments: [String] = arguments) -> String {
    let ended = text.hasSuffix(".") || text.hasSuffix("?") ? text : text + "."
    if arguments.first != "help", let command = Chime.typedCommand(in: arguments) {
        // TRANSLATORS: %1$s is a sentence saying what is wrong with the command line, %2$s the command (add).
        return localized("%1$s See 'chime %2$s --help'.", ended, command)
    }
    // TRANSLATORS: %1$s is a sentence saying what is wrong with the command line.
    return localized("%1$s See 'chime --help'.", ended)
}
