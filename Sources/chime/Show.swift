import ArgumentParser
import ChimeAPI
import JSON

/// `chime show`: everything about one notification.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one notification.",
        discussion: """
            Times (created, nextFire, lastFired, completed) read as in chime list.

            --json prints one JSON object, indented, with the keys of a chime list --json \
            element.

            Examples:
              chime show 3kq9xw2m
              chime show 3kq9xw2m --json
            """
    )

    /// Keys whose values are Unix seconds, shown as local times.
    static let timeKeys: Set<NotificationKey> = [.created, .nextFire, .lastFired, .completed]

    @ArgumentParser.Argument(help: "The id chime add printed.")
    var id: String

    @Flag(help: "Print JSON (one object with the keys of a chime list --json element) instead of lines.")
    var json = false

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        if json {
            print(JSONText.indented(try client.getJSON(id)))
            return
        }
        // nextFire already says it as a local time.
        let entries = try client.get(id).filter { $0.key != NotificationKey.nextFireLocal.rawValue }
        let labels = entries.map { HumanText.escaped($0.key) }
        let width = labels.map(\.count).max() ?? 0
        // A multi-line value (a body) goes on under its first line, in the value column;
        // other control characters are escaped, so a title cannot drive the terminal.
        let continuation = "\n" + String(repeating: " ", count: width + 2)
        for ((key, value), label) in zip(entries, labels) {
            let isTime = NotificationKey(rawValue: key).map(Self.timeKeys.contains) ?? false
            let text = isTime ? HumanText.localTime(value.unwrapped.integerValue)
                : key == NotificationKey.skipped.rawValue
                ? (value.unwrapped.arrayElements ?? []).map { HumanText.localTime($0.integerValue) }.joined(separator: ", ")
                : HumanText.text(value)
            let shown = HumanText.escaped(text, keepingNewlines: true).split(separator: "\n", omittingEmptySubsequences: false)
                .joined(separator: continuation)
            // An empty value (no userInfo, say) leaves no trailing blank.
            print(shown.isEmpty ? label + ":" : label + ":" + String(repeating: " ", count: width - label.count + 1) + shown)
        }
    }
}
