import ArgumentParser
import ChimeAPI
import DBus

/// `chime notify`: notify-send's options, with buttons that outlive the command.
struct Notify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a notification now (options as in notify-send).",
        discussion: """
            Unlike notify-send, buttons keep working after chime exits: chimed hears the \
            press and announces it on the bus as \(Scheduler1.name).\(Scheduler1.actionInvoked.name). \
            -A does not imply --wait. -r replaces a notification on screen, as notify-send -r does: \
            give it the id -p printed (the new one keeps it, so the same -r works again), or a \
            server id.

            --json prints one object when chime is done: {"id": ID, "action": KEY}, where \
            action is the pressed button's key with --wait, and null otherwise.

            Examples:
              chime notify -u critical -A done=Done -A later="Remind me" "Backup" "Disk almost full"
              chime notify --wait --json -A yes=Yes -A no=No "Deploy?"
              id=$(chime notify -p -h int:value:10 "Copying"); chime notify -r "$id" -h int:value:60 "Copying"
            """,
        // notify-send uses -h for --hint; help stays on --help (and -?).
        helpNames: [.long, .customShort("?")]
    )

    enum UrgencyLevel: String, ExpressibleByArgument, CaseIterable {
        case low, normal, critical
    }

    @Option(name: [.customShort("u"), .long], help: "low, normal or critical.")
    var urgency: UrgencyLevel?

    @Option(name: [.customShort("a"), .customLong("app-name")], help: "The application the notification speaks for.")
    var appName: String?

    @Option(name: [.customShort("i"), .long], help: "An icon name or image file.")
    var icon: String?

    @Option(name: [.customShort("c"), .long], help: "A category: a set of buttons such as reminder, or a standard one for the server such as email.arrived; any other is refused (status 64).")
    var category: String?

    @Option(help: "A sound-theme name, a sound file, default, or none.")
    var sound: String?

    @Option(name: [.customShort("t"), .customLong("expire-time")], help: "Milliseconds until the server closes it.")
    var expireTime: Int32?

    @Option(name: [.customShort("h"), .customLong("hint")], help: ArgumentHelp("An extra hint, TYPE:NAME:VALUE (int, double, string, byte, boolean).", valueName: "TYPE:NAME:VALUE"))
    var hints: [String] = []

    @Option(name: [.customShort("A"), .customLong("action")], help: ArgumentHelp("A button; without KEY its index is the key. Repeatable.", valueName: "[KEY=]LABEL"))
    var actions: [String] = []

    @Option(name: [.customShort("r"), .customLong("replace-id")],
            help: ArgumentHelp("Replace that notification on screen: an id -p printed, or a server id.", valueName: "ID"))
    var replaceID: String?

    @Flag(name: [.customShort("e"), .long], help: "Ask the server not to keep it in its history.")
    var transient = false

    @Flag(name: [.customShort("w"), .long], help: "Wait: print the key of the pressed button; exit when it is closed.")
    var wait = false

    @Flag(name: [.customShort("p"), .customLong("print-id")], help: "Print the notification's Chime id.")
    var printID = false

    @Flag(help: "Print JSON, {\"id\": ID, \"action\": KEY or null}, instead of plain lines.")
    var json = false

    @ArgumentParser.Argument(help: "The summary line.")
    var title: String

    @ArgumentParser.Argument(help: "The body text.")
    var body: String = ""

    func validate() throws {
        try request.validate()
    }

    /// What the options ask for, in the form the fast path produces too.
    var request: NotifyRequest {
        NotifyRequest(
            title: title, body: body, urgency: urgency?.rawValue, appName: appName, icon: icon, category: category,
            sound: sound, expireTime: expireTime, hints: hints, actions: actions, replaceID: replaceID, transient: transient, wait: wait,
            printID: printID, json: json
        )
    }

    func run() throws {
        try request.send()
    }
}
