import ArgumentParser
import DBus

/// `chime show`: everything about one notification.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one notification.",
        discussion: """
            Example:
              chime show 3kq9xw2m
            """
    )

    @ArgumentParser.Argument(help: "The id chime add printed.")
    var id: String

    func run() throws {
        let reply = try SchedulerClient.connectOrFail().callOrFail("Get", [.string(id)])
        let entries = reply.first?.stringKeyedEntries ?? []
        let width = entries.map(\.key.count).max() ?? 0
        for (key, value) in entries {
            print(key + ":" + String(repeating: " ", count: width - key.count + 1) + Display.text(value))
        }
    }
}
