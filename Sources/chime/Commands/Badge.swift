import JSON
import ArgumentParser
import ChimeAPI

/// `chime badge`: read or set an app's icon badge.
struct Badge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print or set an app's icon badge (0 hides it).",
        discussion: """
            Docks that follow the Unity LauncherEntry protocol (Dash to Dock, Plank, KDE's \
            task manager) show it on the app's icon.

            --json prints {"app": DESKTOP-ENTRY, "count": N}, after setting it when a count is given.

            Examples:
              chime badge --app org.example.Todo 3
              chime badge --app org.example.Todo
              chime badge --app org.example.Todo --json
            """
    )

    @Option(help: "The app's desktop entry id.")
    var app: String = ChimeBus.name.rawValue

    @ArgumentParser.Argument(help: "The number to show; without it, print the current one.")
    var count: UInt32?

    @Flag(help: "Print JSON, {\"app\": DESKTOP-ENTRY, \"count\": N}.")
    var json = false

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        let current: Int64
        if let count {
            try client.setBadge(app, count)
            guard json else { return }
            current = Int64(count)
        } else {
            current = try client.badge(of: app)
        }
        print(json ? JSONText.object([("app", .string(app)), ("count", .integer(current))]).rendered() : String(current))
    }
}
