import ArgumentParser
import ChimeAPI
import DBus
import JSON
import Localization

/// `chime list`: what is scheduled, soonest first.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List scheduled notifications, soonest first.",
        discussion: """
            Times read "today 09:00", "tomorrow 09:00", "Tue 1 Dec 09:00", with the year \
            when it is another, in the locale's date and time format (LC_TIME). Notifications that are due but wait for a \
            notification server show as pending; those that fire at a place show it, or \
            waiting for a location source while GeoClue or NetworkManager is missing.

            --json prints one JSON array, indented, of objects with the keys of Schedule \
            (title, body, when, repeat, every, rrule, userInfo, ...) plus id, state, \
            nextFire (Unix seconds), nextFireLocal (ISO 8601 with offset), lastFired, \
            fireCount, created, origin and completed; keys without a value are left out.

            Examples:
              chime list
              chime list --json
            """
    )

    @Flag(help: "Print JSON (an array of objects with the keys of Schedule) instead of a table.")
    var json = false

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        if json {
            print(JSONText.indented(try client.listJSON()))
            return
        }
        let rows = try client.list().map { entries -> [String] in
            let fields = HumanText.fields(entries)
            return [
                fields[.id]?.stringValue ?? "",
                fields[.state]?.stringValue == "pending" ? localized("pending")
                    : PlaceOptions.describe(fields) ?? HumanText.localTime(fields[.nextFire]?.integerValue),
                HumanText.repetition(fields[.repeat]?.stringValue, every: fields[.every]?.integerValue, rrule: fields[.rrule]?.stringValue),
                fields[.title]?.stringValue ?? "",
            ]
        }
        guard !rows.isEmpty else {
            print(localized("Nothing scheduled."))
            return
        }
        // TRANSLATORS: the column headings of chime list, written in capitals as ps and ls write theirs.
        let header = [localized("ID"), localized("NEXT"), localized("REPEAT"), localized("TITLE")]
        print(HumanText.table(header: header, rows: rows))
    }
}
