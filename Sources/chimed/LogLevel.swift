import Glibc
import Logging

/// The log level from `CHIME_LOG_LEVEL`, default `info`.
enum ProcessInfoLevel {
    static var level: Logger.Level {
        guard let raw = getenv("CHIME_LOG_LEVEL"), let level = Logger.Level(rawValue: String(cString: raw)) else {
            return .info
        }
        return level
    }
}

/// Writes one line to standard error (Glibc's `stderr` is shared mutable state to Swift 6).
func writeError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
