import Glibc
import Logging

/// How chimed logs: to standard error, which a user manager sends to the journal.
///
/// When standard error is the journal's own stream, each line starts with its priority
/// (``JournalLogHandler``) and carries no time of day: the journal records both.
/// Anywhere else (a terminal, a file, the session's log) lines are swift-log's, with the
/// time first.
public enum DaemonLog {
    /// Bootstraps swift-log for this process, at the level `CHIME_LOG_LEVEL` names
    /// (trace, debug, info, notice, warning, error, critical; default info).
    public static func bootstrap() {
        let level = level(named: getenv("CHIME_LOG_LEVEL").map { String(cString: $0) })
        let journal = isJournal(getenv("JOURNAL_STREAM").map { String(cString: $0) }, descriptor: STDERR_FILENO)
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = journal ? JournalLogHandler() : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// The level called `name`; info when there is none or it names none.
    static func level(named name: String?) -> Logger.Level {
        name.flatMap(Logger.Level.init(rawValue:)) ?? .info
    }

    /// Whether `descriptor` is the stream that `JOURNAL_STREAM` names.
    ///
    /// systemd sets it to the device and inode numbers of the stream it connects to a
    /// service's standard output and error, in decimal, as `DEVICE:INODE`
    /// (systemd.exec(5)). The variable is inherited, so it is believed only while the
    /// descriptor is that very stream: redirected elsewhere, the lines need their time.
    static func isJournal(_ journalStream: String?, descriptor: Int32) -> Bool {
        guard let parts = journalStream?.split(separator: ":", omittingEmptySubsequences: false), parts.count == 2,
              let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}

/// A log handler for the journal's stream: every line of a record starts with its
/// syslog priority, `<3>` for an error to `<7>` for debug (sd-daemon(3)), so the journal
/// files it at that priority.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    /// A handler at level info.
    public init() {}

    /// Reads and sets one metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the record to standard error, whole, in one write where it fits.
    public func log(event: LogEvent) {
        StandardError.write(Self.text(level: event.level, message: "\(event.message)",
                                      metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    /// The record as the journal reads it: each line prefixed, metadata on the first.
    static func text(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        let prefix = "<\(priority(of: level))>"
        let details = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        return message.split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
            .map { prefix + $0.element + ($0.offset == 0 ? details : "") + "\n" }
            .joined()
    }

    /// The syslog priority of a swift-log level; swift-log's trace and debug are both debug.
    static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
