import ArgumentParser
import DBus

/// `chime list`: what is scheduled, soonest first.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List scheduled notifications, soonest first.",
        discussion: """
            Example:
              chime list
              chime list --json
            """
    )

    @Flag(help: "Print JSON (an array of objects with the keys of Schedule) instead of a table.")
    var json = false

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        if json {
            print(try client.callOrFail("ListJSON", []).first?.stringValue ?? "[]")
            return
        }
        let notifications = try client.callOrFail("List", []).first?.arrayElements ?? []
        let rows = notifications.compactMap(\.stringKeyedEntries).map { entries -> [String] in
            let fields = Dictionary(entries.map { ($0.key, $0.value.unwrapped) }, uniquingKeysWith: { first, _ in first })
            return [
                fields["id"]?.stringValue ?? "",
                fields["state"]?.stringValue == "pending" ? "pending" : Display.localTime(fields["nextFireLocal"]?.stringValue),
                Display.repetition(fields["repeat"]?.stringValue, every: fields["every"]?.integerValue),
                fields["title"]?.stringValue ?? "",
            ]
        }
        guard !rows.isEmpty else {
            print("Nothing scheduled.")
            return
        }
        print(Display.table(header: ["ID", "NEXT", "REPEAT", "TITLE"], rows: rows))
    }
}

/// Text for people, without Foundation (chime starts faster without it).
enum Display {
    /// "2026-12-24T18:00:00+01:00" → "2026-12-24 18:00" (the daemon gives local time).
    static func localTime(_ iso: String?) -> String {
        guard let iso, iso.count >= 16 else { return "-" }
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(5)
    }

    static func repetition(_ unit: String?, every: Int64?) -> String {
        guard let unit else { return "-" }
        let count = every ?? 1
        return count == 1 ? "every \(unit)" : "every \(count) \(unit)s"
    }

    /// Left-aligned columns, two spaces apart.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// A value as a person reads it.
    static func text(_ value: Value) -> String {
        switch value.unwrapped {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .double(let d): return String(d)
        case .array(_, let elements): return elements.map(text).joined(separator: ", ")
        case .structure(let fields): return fields.map(text).joined(separator: "=")
        case .dictionary(_, _, let entries):
            return entries.map { text($0.key) + "=" + text($0.value) }.joined(separator: ", ")
        case let other: return other.integerValue.map(String.init) ?? "\(other)"
        }
    }
}
