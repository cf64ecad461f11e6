import ArgumentParser
import DBus

/// `chime next`: when a rule would fire, without scheduling it (like systemd-analyze calendar).
struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the next fire times of a rule without scheduling it.",
        discussion: """
            Examples:
              chime next 9:00 --repeat day --count 3
              chime next 2026-01-31 09:00 --repeat month --count 4
            """
    )

    @ArgumentParser.Argument(help: "The time, as chime add --at takes it (several words are joined).")
    var rule: [String]

    @Option(name: .customLong("repeat"), help: "minute, hour, day, week, month or year.")
    var repeatUnit: String?

    @Option(help: "Every N units.")
    var every: Int?

    @Option(help: "An IANA time zone for wall-clock times.")
    var zone: String?

    @Option(help: "The calendar for repeats.")
    var calendar: String?

    @Option(help: "How many fire times to print.")
    var count: UInt32 = 5

    func run() throws {
        var options: [(String, String)] = []
        if let repeatUnit { options.append(("repeat", repeatUnit)) }
        if let every { options.append(("every", String(every))) }
        if let zone { options.append(("zone", zone)) }
        if let calendar { options.append(("calendar", calendar)) }
        let reply = try SchedulerClient.connectOrFail().callOrFail(
            "NextFireTimes", [.string(rule.joined(separator: " ")), .stringDictionary(options), .uint32(count)])
        for time in reply.first?.arrayElements ?? [] { print(time.stringValue ?? "") }
    }
}
