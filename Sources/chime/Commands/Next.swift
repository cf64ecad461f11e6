import ChimeAPI
import DBus
import JSON
import ArgumentParser
import Localization

/// `chime next`: when a rule would fire, without scheduling it (like systemd-analyze calendar).
struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the next fire times of a rule without scheduling it.",
        discussion: """
            Times are local, each a full date and time in the locale's format \
            (2026-12-24 18:00 in the C locale), without the day words of chime list: a \
            column of dates to check a rule against a calendar. A time that will never come \
            (a one-shot in the past) says "never: in the past" and exits with 1.

            --json prints one JSON array, indented, of objects with the keys time (ISO 8601 \
            with offset) and timestamp (Unix seconds).

            Examples:
              chime next 9:00 --repeat day --count 3
              chime next 2026-01-31 09:00 --repeat month --count 4
              chime next "mon 8:30" --repeat week --json
              chime next 9:00 --repeat week --on mon,wed,fri -n 6
              chime next 3kq9xw2m -n 10
            """
    )

    @ArgumentParser.Argument(help: "The time, as chime add --at takes it (several words are joined), or the id of a scheduled notification.")
    var time: [String]

    @OptionGroup var rule: RuleOptions

    @Option(name: [.customShort("n"), .customLong("number")],
            help: "How many fire times to print, 1 to \(Limits.nextFireCount.upperBound) (default 5, or --count when that is given).")
    var number: UInt32?

    @Flag(help: "Print JSON (an array of {\"time\", \"timestamp\"} objects) instead of lines.")
    var json = false

    func validate() throws {
        // chimed would name its own argument, count, which is --count here.
        if let number, !Limits.nextFireCount.contains(number) {
            throw ValidationError(localized("%1$s must be between 1 and %2$s, not %3$s.", TypedWords().spelling(of: ["-n", "--number"]),
                                            String(Limits.nextFireCount.upperBound), String(number)))
        }
    }

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        let count = number ?? UInt32(clamping: min(rule.count ?? 5, Int(Limits.nextFireCount.upperBound)))
        let scheduled = try NextOfScheduled.id(time, rule).flatMap { try NextOfScheduled.times(client, id: $0, count: count) }
        let times = try scheduled ?? client.nextFireTimestamps(when: time.joined(separator: " "), options: rule.options, count: count)
        guard !times.isEmpty || scheduled != nil else { throw fail(localized("never: in the past"), ExitStatus.failure) }
        if json {
            print(JSONText.array(times.map { .object([("time", .string(HumanText.isoTime($0))), ("timestamp", .integer($0))]) })
                .rendered())
        } else {
            for time in times { print(HumanText.calendarTime(time)) }
        }
    }
}

/// `chime next ID`: the fire times of a notification already scheduled.
enum NextOfScheduled {
    /// The id `words` name, when they are one word shaped as Chime's ids (eight of Crockford's
    /// base-32 digits, which no time expression is) and no rule options are given.
    static func id(_ words: [String], _ rule: RuleOptions) -> String? {
        guard words.count == 1, rule.options.isEmpty, let word = words.first, NotificationID.isWellFormed(word) else { return nil }
        return word
    }

    /// Its next `count` fire times; says so and ends with status 1 when nothing is to come.
    /// Nil for digits that name no notification: a date such as 20301231 is shaped as an id too.
    static func times(_ client: ChimedClient, id: String, count: UInt32) throws -> [Int64]? {
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
