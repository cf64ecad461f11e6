import JSON
import ArgumentParser
import Localization

/// `chime cancel`: unschedule by id, all, or by a userInfo entry.
struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel scheduled notifications.",
        discussion: """
            An id that is not there ends the command with status 1, after the ids before it \
            were cancelled.

            --json prints {"count": N}, the number cancelled, for every form.

            Examples:
              chime cancel 3kq9xw2m
              chime cancel --match plant=fern
              chime cancel --all --json
            """
    )

    @ArgumentParser.Argument(help: "Ids to cancel.")
    var ids: [String] = []

    @Flag(help: "Cancel everything scheduled.")
    var all = false

    @Option(help: ArgumentHelp("Cancel those whose userInfo has KEY equal to VALUE.", valueName: "KEY=VALUE"))
    var match: String?

    @Flag(help: "Print JSON, {\"count\": N}.")
    var json = false

    func validate() throws {
        let forms = [!ids.isEmpty, all, match != nil].filter { $0 }.count
        guard forms == 1 else { throw ValidationError(localized("give ids, --all or --match KEY=VALUE (one of them).")) }
        if let match, !match.contains("=") || match.hasPrefix("=") {
            throw ValidationError(localized("malformed --match '%1$s': expected KEY=VALUE.", match))
        }
    }

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        let count: Int64
        if all {
            count = try client.cancelAll()
        } else if let match {
            let parts = match.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            count = try client.cancelMatching(key: String(parts[0]), value: String(parts[1]))
        } else {
            for id in ids { try client.cancel(id) }
            count = Int64(ids.count)
        }
        if json {
            print(JSONText.object([("count", .integer(count))]).rendered())
        } else if ids.isEmpty {
            // By id it is silent, as rm is: the ids were given, and each one was there.
            print(pluralized("Cancelled %1$d.", "Cancelled %1$d.", count: Int(clamping: count), count))
        }
    }
}
