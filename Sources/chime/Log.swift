import JSON
import ArgumentParser
import DBus

/// `chime log`: what happened to notifications, newest first.
struct Log: ParsableCommand {
    /// The most events chimed keeps, and so the most one can ask for.
    static let maximumLimit = 10_000

    static let configuration = CommandConfiguration(
        abstract: "Show what happened to notifications, newest first.",
        discussion: """
            Events: fired; late (shown after a missed time, as when the machine was off); \
            dropped (missed by more than its --late-limit); pressed (ACTION is the button's \
            key); completed; snoozed (ACTION names the new one-shot copy); cancelled; \
            expired; closed. Scheduling is not an event: chime list shows what is to come. \
            chimed keeps the newest \(maximumLimit) events; a bulk cancel of more than 100 is one \
            event with no id. Times are local, in the locale's format.

            --json prints an array of objects, newest first, with the keys time (ISO 8601 \
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
            throw ValidationError("--limit must be between 1 and \(Self.maximumLimit), not \(limit).")
        }
    }

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        // 0 lets chimed choose its default.
        let count = Value.uint32(UInt32(limit ?? 0))
        let reply = try id.map { try client.callOrFail("HistoryOf", [.string($0), count]) } ?? client.callOrFail("History", [count])
        let events = (reply.first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).map(Display.fields)
        if json {
            print(JSONText.array(events.map(Self.object)).rendered())
            return
        }
        guard !events.isEmpty else {
            print(id == nil ? "Nothing has happened yet." : "Nothing has happened to \(id ?? "") yet.")
            return
        }
        let rows = events.map { event -> [String] in
            let text = { (key: String) in event[key]?.stringValue ?? "" }
            let action = event["action"]?.stringValue ?? event["copy"]?.stringValue.map { "as " + $0 } ?? "-"
            let detail = text("detail")
            return [Display.localTime(event["timestamp"]?.integerValue), text("event"), text("id").isEmpty ? "-" : text("id"),
                    action, text("title") + (detail.isEmpty ? "" : " (" + detail + ")")]
        }
        print(Display.table(header: ["TIME", "EVENT", "ID", "ACTION", "TITLE"], rows: rows))
    }

    /// One event as JSON: every key present, null where it does not apply.
    static func object(_ event: [String: Value]) -> JSONText {
        .object([
            ("time", .string(event["time"]?.stringValue)),
            ("timestamp", .integer(event["timestamp"]?.integerValue)),
            ("id", .string(event["id"]?.stringValue)),
            ("event", .string(event["event"]?.stringValue)),
            ("title", .string(event["title"]?.stringValue)),
            ("detail", .string(event["detail"]?.stringValue)),
            ("action", .string(event["action"]?.stringValue)),
            ("copy", .string(event["copy"]?.stringValue)),
        ])
    }
}
