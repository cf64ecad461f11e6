import ArgumentParser
import DBus

/// `chime badge`: read or set an app's icon badge.
struct Badge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print or set an app's icon badge (0 hides it).",
        discussion: """
            Docks that follow the Unity LauncherEntry protocol (Dash to Dock, Plank, KDE's \
            task manager) show it on the app's icon.

            Examples:
              chime badge --app org.example.Todo 3
              chime badge --app org.example.Todo
            """
    )

    @Option(help: "The app's desktop entry id.")
    var app: String = "io.github.chime.Chime"

    @ArgumentParser.Argument(help: "The number to show; without it, print the current one.")
    var count: UInt32?

    func run() throws {
        let client = try SchedulerClient.connectOrFail()
        if let count {
            _ = try client.callOrFail("SetBadge", [.string(app), .uint32(count)])
        } else {
            print(try client.callOrFail("GetBadge", [.string(app)]).first?.integerValue ?? 0)
        }
    }
}
