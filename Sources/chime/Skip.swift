import ArgumentParser
import ChimeAPI
import Localization

/// `chime skip`: leave out one occurrence of a repeat without ending it (RFC 5545 EXDATE).
struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Skip one occurrence of a repeating notification; prints the time skipped.",
        discussion: """
            Without OCCURRENCE the next one is skipped; N skips the N-th that chime next ID \
            lists, a date (2026-12-24) the first on that day, and a time (as chime add --at \
            takes it) the one at that time. The series goes on after it; a skipped \
            occurrence still counts towards --count.

            Examples:
              chime skip 3kq9xw2m
              chime skip 3kq9xw2m 2
              chime skip 3kq9xw2m 2026-12-24
            """
    )

    @ArgumentParser.Argument(help: "The id chime add printed.")
    var id: String

    @ArgumentParser.Argument(help: "Which occurrence: N, a date or a time (default: the next).")
    var occurrence: [String] = []

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        let reply = try client.callOrFail(Scheduler1.skip, [.string(id), .string(occurrence.joined(separator: " "))], about: id)
        print(HumanText.localTime(reply.first?.integerValue))
    }
}
