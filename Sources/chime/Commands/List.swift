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
            One line per notification: its id, title, when it fires next and how it \
            repeats. Times read "today 09:00", "tomorrow 09:00", "Tue 1 Dec 09:00", with \
            the year when it is another, in the locale's date and time format (LC_TIME); a \
            notification pinned to a time zone shows that zone's time, then the local one. \
            Due notifications that wait for a notification server show as pending, among \
            the others by the time they came due; those that fire at a place name it, and \
            say when they wait for a location source (GeoClue or NetworkManager).

            A title too long for the terminal's width (COLUMNS, or the terminal's own) is \
            cut with an ellipsis, to no fewer than 10 columns; into a pipe or a file every \
            title is printed whole, as with --json. A place, or a time in two zones, may make \
            its own line longer.

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
        let client = try ChimedClient.connectOrFail()
        if json {
            print(JSONText.indented(try client.listJSON()))
            return
        }
        let now = HumanText.currentTime
        // chimed sends them in order of time, pending ones among the rest.
        let rows = try client.list().map { entries -> [String] in
            let fields = HumanText.fields(entries)
            return [fields[.id]?.stringValue ?? "", fields[.title]?.stringValue ?? "", HumanText.next(fields, now: now),
                    HumanText.repeats(fields)]
        }
        guard !rows.isEmpty else {
            print(localized("Nothing scheduled."))
            return
        }
        // TRANSLATORS: the column headings of chime list, written in capitals as ps and ls write theirs.
        let header = [localized("ID"), localized("TITLE"), localized("NEXT"), localized("REPEAT")]
        // The title comes before the long columns, so it is seen, and gives way when a line is
        // too wide; a NEXT longer than any date ("pending since today 09:00") is a place or a
        // time in two zones, and pushes only its own row.
        print(HumanText.table(header: header, rows: rows, width: HumanText.terminalWidth(), shrinking: 1, caps: [2: 25]))
    }
}
