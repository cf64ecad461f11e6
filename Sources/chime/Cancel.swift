import ArgumentParser
import DBus

/// `chime cancel`: unschedule by id, all, or by a userInfo entry.
struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel scheduled notifications.",
        discussion: """
            Examples:
              chime cancel 3kq9xw2m
              chime cancel --match plant=fern
              chime cancel --all
            """
    )

    @ArgumentParser.Argument(help: "Ids to cancel.")
    var ids: [String] = []

    @Flag(help: "Cancel everything scheduled.")
    var all = false

    @Option(help: ArgumentHelp("Cancel those whose userInfo has KEY equal to VALUE.", valueName: "KEY=VALUE"))
    var match: String?

    func validate() throws {
        let forms = [!ids.isEmpty, all, match != nil].filter { $0 }.count
        guard forms == 1 else { throw ValidationError("give ids, --all or --match KEY=VALUE (one of them).") }
        if let match, !match.contains("=") || match.hasPrefix("=") {
            throw ValidationError("malformed --match '\(match)': expected KEY=VALUE.")
        }
    }

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        if all {
            print("Cancelled \(try client.callOrFail("CancelAll", []).first?.integerValue ?? 0).")
        } else if let match {
            let parts = match.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let count = try client.callOrFail("CancelMatching", [.string(String(parts[0])), .string(String(parts[1]))])
            print("Cancelled \(count.first?.integerValue ?? 0).")
        } else {
            for id in ids { _ = try client.callOrFail("Cancel", [.string(id)]) }
        }
    }
}
