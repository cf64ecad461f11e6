import ChimeAPI
import DBus
import JSON
import Localization

/// One CalDAV calendar's sync, as chimed reports it (``ChimeAPI/SyncReportKey``), for
/// `chime calendar sync` and `chime calendar password`.
struct SyncReportText {
    let entries: [(key: String, value: Value)]

    init(_ entries: [(key: String, value: Value)]) {
        self.entries = entries.map { ($0.key, $0.value.unwrapped) }
    }

    private func value(_ key: SyncReportKey) -> Value? { entries.first { $0.key == key.rawValue }?.value }
    private func count(_ key: SyncReportKey) -> Int { Int(value(key)?.integerValue ?? 0) }

    var name: String { value(.name)?.stringValue ?? "" }
    var new: Int { count(.new) }
    var updated: Int { count(.updated) }
    var removed: Int { count(.removed) }
    var sent: Int { count(.sent) }
    /// Why the sync did not end well; nil when it did.
    var error: String? { value(.error)?.stringValue }

    /// `personal: 2 new, 1 updated, 0 removed, 1 press sent.`
    var line: String {
        // TRANSLATORS: a calendar's sync: %1$s its name; reminders %2$d new, %3$d updated, %4$d removed; %5$d presses written to the server.
        pluralized("%1$s: %2$d new, %3$d updated, %4$d removed, %5$d press sent.", "%1$s: %2$d new, %3$d updated, %4$d removed, %5$d presses sent.",
                   count: sent, name, new, updated, removed, sent)
    }

    /// chimed's sentence of why it failed, with the calendar's name before it unless the
    /// sentence names it already.
    var errorSentence: String? {
        guard let error else { return nil }
        return error.contains(name) ? error : localized("%1$s: %2$s", name, error)
    }

    /// The object `--json` prints: every key of the report, in the order ``ChimeAPI/SyncReportKey`` lists them.
    var json: JSONText {
        var object: [(String, JSONText)] = [(SyncReportKey.name.rawValue, .string(name))]
        for key in [SyncReportKey.new, .updated, .removed, .sent] { object.append((key.rawValue, .integer(count(key)))) }
        if let error { object.append((SyncReportKey.error.rawValue, .string(error))) }
        return .object(object)
    }
}
