import ArgumentParser
import ChimeAPI
import Glibc
import JSON
import Localization

/// `chime cancel`: unschedule by id, all, or by a userInfo entry.
struct Cancel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel scheduled notifications.",
        discussion: """
            Each form says what it cancelled in one line. An id that is not there ends the \
            command with status 1, after the ids before it were cancelled.

            --all asks first when run from a terminal; --yes answers for it, and a script \
            (no terminal to ask on) must give --yes, or nothing is cancelled (status 64).

            --json prints {"count": N}, the number cancelled, for every form.

            Examples:
              chime cancel 3kq9xw2m
              chime cancel --match plant=fern
              chime cancel --all --yes
            """
    )

    @ArgumentParser.Argument(help: "Ids to cancel.")
    var ids: [String] = []

    @Flag(help: "Cancel everything scheduled.")
    var all = false

    @Flag(name: [.customShort("y"), .long], help: "With --all: do not ask first.")
    var yes = false

    @Option(help: ArgumentHelp("Cancel those given --user-info KEY=VALUE.", valueName: "KEY=VALUE"))
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
        let client = try ChimedClient.connectOrFail()
        let count: Int64
        var titles: [String] = []
        if all {
            try confirmAll(client)
            count = try client.cancelAll()
        } else if let match {
            let parts = match.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            count = try client.cancelMatching(key: String(parts[0]), value: String(parts[1]))
        } else {
            for id in ids {
                // Its title, read before it goes, so the line says which one it was.
                let title = client.described(id)
                    .flatMap { HumanText.fields($0)[.title]?.stringValue }
                try client.cancel(id)
                titles.append(title.map { "\(id) \"\($0)\"" } ?? id)
            }
            count = Int64(ids.count)
        }
        if json {
            print(JSONText.object([("count", .integer(count))]).rendered())
        } else if ids.count == 1 {
            print(localized("Cancelled %1$s.", titles[0]))
        } else if !ids.isEmpty {
            print(localized("Cancelled %1$d: %2$s.", ids.count, titles.joined(separator: ", ")))
        } else {
            print(pluralized("Cancelled %1$d.", "Cancelled %1$d.", count: Int(clamping: count), count))
        }
    }

    /// Asks on the terminal before everything goes; a pasted tour or a slip of the
    /// history key must not wipe a user's reminders unseen.
    private func confirmAll(_ client: ChimedClient) throws {
        guard !yes else { return }
        guard isatty(0) != 0 else {
            throw fail(localized("chime cancel --all cancels every reminder; give --yes as well to do it without a terminal to ask on."),
                       ExitStatus.usage)
        }
        let scheduled = try client.list().count
        guard scheduled > 0 else { return }
        var prompt = pluralized("Cancel %1$d scheduled notification? [y/N] ", "Cancel all %1$d scheduled notifications? [y/N] ",
                                count: scheduled, scheduled)
        prompt.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        let answer = String((readLine() ?? "").filter { !$0.isWhitespace }).lowercased()
        guard Self.isYes(answer) else {
            throw fail(localized("Nothing cancelled."), ExitStatus.failure)
        }
    }

    /// y or yes, and the locale's own yes (rpmatch's YESEXPR).
    static func isYes(_ answer: String) -> Bool {
        if answer == "y" || answer == "yes" { return true }
        return !answer.isEmpty && rpmatch(answer) == 1
    }
}
