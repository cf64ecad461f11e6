import ArgumentParser
import ChimeAPI
import Glibc
import JSON
import Localization

/// `chime skip`: leave out one occurrence of a repeat without ending it (RFC 5545 EXDATE).
struct Skip: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Skip one occurrence of a repeating notification; says which, and the next.",
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

    @Flag(help: "Print JSON, {\"skipped\": T, \"skippedLocal\": …, \"nextFire\": …, \"nextFireLocal\": …}.")
    var json = false

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        let reply = try client.callOrFail(Scheduler1.skip, [.string(id), .string(occurrence.joined(separator: " "))], about: id)
        let skipped = reply.first?.integerValue ?? 0
        let next = client.described(id)
            .flatMap { HumanText.fields($0)[.nextFire]?.integerValue }
        print(Self.echo(skipped: skipped, next: next, json: json))
    }

    /// `Skipped Wed 24 Dec 18:00; next Wed 31 Dec 18:00 (in 9 days).`: what went, and
    /// when the series rings now.
    static func echo(skipped: Int64, next: Int64?, json: Bool, now: Int64 = Int64(time(nil))) -> String {
        if json {
            var object: [(String, JSONText)] = [("skipped", .integer(skipped)), ("skippedLocal", .string(HumanText.isoTime(skipped)))]
            if let next {
                object.append((NotificationKey.nextFire.rawValue, .integer(next)))
                object.append((NotificationKey.nextFireLocal.rawValue, .string(HumanText.isoTime(next))))
            }
            return JSONText.object(object).rendered()
        }
        let gone = HumanText.date(skipped, now: now)
        guard let next else { return localized("Skipped %1$s; no occurrence is left after it.", gone) }
        // TRANSLATORS: %1$s is the occurrence skipped, %2$s the next one with how far away it is: "Fri 4 Dec 18:00 (in 5 days)".
        return localized("Skipped %1$s; next %2$s.", gone, HumanText.date(next, distance: true, now: now))
    }
}
