import JSON
import ArgumentParser
import ChimeAPI
import Localization

/// `chime log`: what happened to notifications, newest first.
struct Log: ParsableCommand {
    /// The most events chimed keeps, and so the most one can ask for.
    static let maximumLimit = Limits.historyKept

    static let configuration = CommandConfiguration(
        abstract: "Show what happened to notifications, newest first.",
        discussion: """
            Events: fired; late (shown after a missed time, as when the machine was off); \
            dropped (missed by more than its --late-limit); pressed (ACTION is the button's \
            key); completed; snoozed (ACTION names the new one-shot copy); cancelled; \
            expired; closed; retried (the server failed to take it, or chimed stopped first; \
            it is sent again); gave up (after the last retry, with the server's last error); \
            handled (the app in front took it, so it was not shown); withheld (Alerts=false \
            for its app in the config); edited (changed in place by chime edit or Update, \
            naming what changed). Scheduling is not an event: chime list shows what is to come. \
            chimed keeps the newest \(maximumLimit) events; a bulk cancel of more than 100 is one \
            event with no id. Times read as in chime list ("today 09:12", "Tue 1 Dec 18:00"); \
            a title too long for the terminal is cut with an ellipsis, as there.

            --json prints one JSON array, indented, of objects, newest first, with the keys time (ISO 8601 \
            with offset), timestamp (Unix seconds), id, event, title, detail (a sentence or \
            ""), action (the pressed key, or null) and copy (the snoozed copy's id, or null).

            Examples:
              chime log
              chime log --limit 5
              chime log --id 3kq9xw2m --json
            """
    )

    // Unconditional, so --limit -3 is refused for its value, not taken for an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("How many events to show, 1 to \(maximumLimit) (default 50).", valueName: "N"))
    var limit: Int?

    @Option(help: "Only this notification, the one it was snoozed from, and their snoozed copies.")
    var id: String?

    @Flag(help: "Print JSON (an array of objects; keys above) instead of a table.")
    var json = false

    func validate() throws {
        if let limit, !(1...Self.maximumLimit).contains(limit) {
            throw ValidationError(localized("--limit must be between 1 and %1$d, not %2$d.", Self.maximumLimit, limit))
        }
    }

    func run() throws {
        // 0 lets chimed choose its default.
        let events = try ChimedClient.connectOrFail().history(limit: UInt32(limit ?? 0), of: id)
        if json {
            print(JSONText.array(events.map(Self.object)).rendered())
            return
        }
        guard !events.isEmpty else {
            print(id.map { localized("Nothing has happened to %1$s yet.", $0) } ?? localized("Nothing has happened yet."))
            return
        }
        let now = HumanText.currentTime
        let rows = events.map { event -> [String] in
            // TRANSLATORS: in chime log's ACTION column: %1$s is the id of the snoozed copy.
            let action = event.action ?? event.copy.map { localized("as %1$s", $0) } ?? "-"
            return [event.timestamp.map { HumanText.date($0, now: now) } ?? "-", event.event, event.id.isEmpty ? "-" : event.id,
                    action, event.title + (event.detail.isEmpty ? "" : " (" + event.detail + ")")]
        }
        // TRANSLATORS: the column headings of chime log, written in capitals as ps and ls write theirs.
        let header = [localized("TIME"), localized("EVENT"), localized("ID"), localized("ACTION"), localized("TITLE")]
        print(HumanText.table(header: header, rows: rows, width: HumanText.terminalWidth(), shrinking: header.count - 1))
    }

    /// One event as JSON: every key present, null where it does not apply.
    static func object(_ event: HistoryEvent) -> JSONText {
        let fields: [(HistoryKey, JSONText)] = [
            (.time, .string(event.timestamp.map(HumanText.isoTime))),
            (.timestamp, .integer(event.timestamp)),
            (.id, .string(event.id)),
            (.event, .string(event.event)),
            (.title, .string(event.title)),
            (.detail, .string(event.detail)),
            (.action, .string(event.action)),
            (.copy, .string(event.copy)),
        ]
        return .object(fields.map { ($0.0.rawValue, $0.1) })
    }
}
