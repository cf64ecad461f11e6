import ArgumentParser
import Glibc

// ArgumentParser's own error output spans several lines with the usage; chime says one
// sentence on stderr and leaves the usage to --help.
do {
    var command = try Chime.parseAsRoot()
    try command.run()
} catch {
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
    let trimmed = text.hasPrefix("Error: ") ? String(text.dropFirst(7)) : text
    let stop = trimmed.hasSuffix(".") ? "" : "."
    return trimmed + stop + " See 'chime --help'."
}
