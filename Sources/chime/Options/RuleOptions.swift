import ArgumentParser
import Localization

/// How a rule repeats and which clock it follows: shared by `add`, `edit` and `next`.
struct RuleOptions: ParsableArguments {
    @Option(name: .customLong("repeat"), help: "Repeat every minute, hour, day, week, month or year.")
    var repeatUnit: String?

    @Option(help: "Repeat every N units (with --repeat).")
    var every: Int?

    @Option(help: ArgumentHelp("With --repeat week: mon,wed,fri, weekdays or weekends; with --repeat month: \"2nd tue\", "
                               + "\"last fri\" or last-day.", valueName: "DAYS"))
    var on: String?

    @Option(help: ArgumentHelp("With --repeat: the last date (all of that day) or time it fires.", valueName: "DATE"))
    var until: String?

    @Option(help: "With --repeat: how many times it fires in all, skipped ones included.")
    var count: Int?

    @Option(help: ArgumentHelp(
        "How it repeats, as an RFC 5545 RRULE (FREQ=MINUTELY to YEARLY, any BY part, BYSETPOS, WKST), instead of --repeat and the options above.",
        valueName: "RRULE"))
    var rrule: String?

    @Option(help: "Pin wall-clock times to an IANA time zone, such as America/New_York.")
    var zone: String?

    @Flag(help: "Follow the system's time zone (the default for wall-clock times).")
    var floating = false

    @Option(help: "The calendar for repeats, such as gregorian, hebrew or islamic.")
    var calendar: String?

    func validate() throws {
        if floating && zone != nil { throw ValidationError(localized("--floating and --zone exclude each other.")) }
    }

    /// The scheduling keys of the `a{ss}` options.
    var options: [(String, String)] {
        var options: [(String, String)] = []
        if let repeatUnit { options.append(("repeat", repeatUnit)) }
        if let every { options.append(("every", String(every))) }
        if let on { options.append(("on", on)) }
        if let until { options.append(("until", until)) }
        if let count { options.append(("count", String(count))) }
        if let rrule { options.append(("rrule", rrule)) }
        if let zone { options.append(("zone", zone)) }
        if floating { options.append(("floating", "true")) }
        if let calendar { options.append(("calendar", calendar)) }
        return options
    }
}
