import ArgumentParser
import ChimeAPI
import JSON

/// `chime snooze`: put a notification on screen off until later (D-Bus `Snooze`).
struct Snooze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Close a notification on screen and show it again later; prints the new id and when.",
        discussion: """
            As a snooze button does: the popup closes and a one-shot copy (whose origin \
            is ID) fires at WHEN, a duration (10m, 1h30m, 2d) or a time (18:00, \
            "tomorrow 9:00") read now; a repeat keeps its own times. chime prints the \
            copy's id, then when it fires, as chime add does. An id that is not on screen is refused (status 1): chime edit \
            --in moves a scheduled one.

            --json prints {"id": COPY, "nextFire": …, "nextFireLocal": …}, as chime add --json.

            Examples:
              chime snooze 3kq9xw2m 10m
              chime snooze 3kq9xw2m "tomorrow 9:00"
            """
    )

    @ArgumentParser.Argument(help: "The id of a notification on screen.")
    var id: String

    @ArgumentParser.Argument(help: ArgumentHelp("A duration or a time.", valueName: "when"))
    var when: String

    @Flag(help: "Print JSON, {\"id\": COPY, \"nextFire\": …}.")
    var json = false

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        let copy = try client.snooze(id, until: when)
        let described = client.described(copy)
        print(Add.echo(id: copy, described: described ?? [], json: json))
    }
}
