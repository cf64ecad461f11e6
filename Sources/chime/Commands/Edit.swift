import ArgumentParser
import ChimeAPI
import Localization

/// `chime edit`: change a scheduled notification in place (D-Bus `UpdateSimple`).
struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change a scheduled notification, keeping its id and history.",
        discussion: """
            Only what is given changes; chime prints the id and when it fires now, as \
            chime add does, and chime log shows an edited event naming it. A new \
            --at or --in keeps the repeat; a new --repeat keeps the first time and goes on \
            from now; --repeat never makes it fire once more. Buttons given (-A) replace \
            the old ones; --user-info adds or replaces entries. --zone and --floating need \
            --at. A new time in the past is refused, as chime add refuses it, unless \
            --allow-past is given. A value chimed refuses changes nothing (status 64); an id \
            that is done or was cancelled is refused (status 1).

            Examples:
              chime edit 3kq9xw2m --at "tomorrow 9:00"
              chime edit 3kq9xw2m --title "Stand up, really" --repeat never
              chime edit 3kq9xw2m --repeat week --every 2
            """
    )

    @ArgumentParser.Argument(help: "The id of a scheduled notification.")
    var id: String

    @Option(help: "A new summary line.")
    var title: String?

    @Option(help: "A new body text.")
    var body: String?

    @Option(help: "A new time: a time or date and time.")
    var at: String?

    @Option(name: .customLong("in"), help: "A new time: a duration from now, such as 20m or 1h30m.")
    var after: String?

    @OptionGroup var rule: RuleOptions

    @Flag(name: .customLong("allow-past"), help: "Take a new time in the past anyway: it fires at once, marked late.")
    var allowPast = false

    @Option(help: "A sound-theme name, a sound file, default, or none.")
    var sound: String?

    @Option(name: [.customShort("i"), .long], help: "An icon name or an image file.")
    var icon: String?

    @Option(name: [.customShort("u"), .long], help: "low, normal or critical.")
    var urgency: String?

    @Option(help: "A category: a set of buttons, such as reminder; one neither built in, in the config nor standard is refused (status 64).")
    var category: String?

    @Option(name: .customLong("late-limit"), help: "Drop it instead if it would fire later than this, such as 10m.")
    var lateLimit: String?

    @Option(name: [.customShort("A"), .customLong("action")], help: ArgumentHelp("A button, replacing the old ones. Repeatable.", valueName: "[KEY=]LABEL"))
    var actions: [String] = []

    @Option(name: .customLong("user-info"), help: ArgumentHelp("Add or replace a --user-info entry. Repeatable.", valueName: "KEY=VALUE"))
    var userInfo: [String] = []

    func validate() throws {
        if at != nil, after != nil { throw ValidationError(localized("give at most one of --at TIME or --in DURATION.")) }
        try EntryOptions.validate(actions: actions, userInfo: userInfo)
        if allowPast, at == nil { throw ValidationError(PastTimeText.allowPastNeedsAt) }
        if changes.isEmpty { throw ValidationError(localized("nothing to change: give --at, --title or another option.")) }
    }

    /// The `a{ss}` changes of `UpdateSimple`: the options given, named as chimed names them.
    var changes: [(String, String)] {
        let named: [(String, String?)] = [
            ("title", title), ("body", body), ("when", at ?? after.map { "in " + $0 }), ("sound", sound), ("image", icon),
            ("urgency", urgency), ("category", category), ("lateLimit", lateLimit),
        ]
        return named.compactMap { key, value in value.map { (key, $0) } } + rule.options
            + EntryOptions.entries(actions: actions, userInfo: userInfo) + (allowPast ? [("late", "true")] : [])
    }

    @Flag(help: "Print JSON, {\"id\": ID, \"nextFire\": …}, as chime add --json.")
    var json = false

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        try client.updateSimple(id, changes: changes)
        let described = client.described(id)
        print(Add.echo(id: id, described: described ?? [], json: json))
    }
}
