import ArgumentParser
import Glibc
import Localization

Localization.start()
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == "notify", let request = NotifyRequest(fastParsing: Array(arguments.dropFirst())) {
        try request.send()
    } else {
        var command = try Chime.parseAsRoot(arguments)
        try command.run()
    }
} catch {
    // ArgumentParser's own error output spans several lines with the usage; chime says
    // one sentence on stderr and leaves the usage to --help.
    let status = Chime.exitCode(for: error)
    if status == .success {
        print(Chime.fullMessage(for: error))
    } else {
        let message = Chime.message(for: error)
        if !message.isEmpty {
            writeError(message.split(separator: "\n").first.map(String.init).map(sentence) ?? message)
        }
    }
    exit(status.rawValue)
}

/// Ends a message with a full stop, and points to --help for usage errors.
func sentence(_ text: String) -> String {
    let stop = text.hasSuffix(".") ? "" : "."
    return text + stop + " See 'chime --help'."
}
