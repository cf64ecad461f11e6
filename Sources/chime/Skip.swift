import ArgumentParser
import ChimeAPI
import DBus
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

/// `chime next ID`: the fire times of a notification already scheduled.
enum NextOfScheduled {
    /// The id `words` name, when they are one word shaped as Chime's ids (eight of Crockford's
    /// base-32 digits, which no time expression is) and no rule options are given.
    static func id(_ words: [String], _ rule: RuleOptions) -> String? {
        guard words.count == 1, rule.options.isEmpty, let word = words.first, word.count == 8,
              word.allSatisfy({ "0123456789abcdefghjkmnpqrstvwxyz".contains($0) }) else { return nil }
        return word
    }

    /// Its next `count` fire times; says so and ends with status 1 when nothing is to come.
    /// Nil for digits that name no notification: a date such as 20301231 is shaped as an id too.
    static func times(_ client: SchedulerClient, id: String, count: UInt32) throws -> [Int64]? {
        let reply: [Value]
        do { reply = try client.call(Scheduler1.occurrences, [.string(id), .uint32(count)]) } catch {
            if error.name == ChimeError.notFound, id.allSatisfy(\.isNumber) { return nil }
            throw client.failure(error, calling: Scheduler1.occurrences, about: id)
        }
        let times = (reply.first?.arrayElements ?? []).compactMap(\.integerValue)
        if times.isEmpty { throw fail(localized("never: nothing of '%1$s' is to come.", id), ExitStatus.failure) }
        return times
    }
}
