import ArgumentParser
import DBus

/// `chime notify`: notify-send's options, with buttons that outlive the command.
struct Notify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a notification now (options as in notify-send).",
        discussion: """
            Unlike notify-send, buttons keep working after chime exits: chimed hears the \
            press and announces it on the bus as io.github.chime.Scheduler1.ActionInvoked. \
            -A does not imply --wait.

            Example:
              chime notify -u critical -A done=Done -A later="Remind me" "Backup" "Disk almost full"
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

    @Option(name: [.customShort("c"), .long], help: "A notification category, such as email.arrived.")
    var category: String?

    @Option(name: [.customShort("t"), .customLong("expire-time")], help: "Milliseconds until the server closes it.")
    var expireTime: Int32?

    @Option(name: [.customShort("h"), .customLong("hint")], help: ArgumentHelp("An extra hint, TYPE:NAME:VALUE (int, double, string, byte, boolean).", valueName: "TYPE:NAME:VALUE"))
    var hints: [String] = []

    @Option(name: [.customShort("A"), .customLong("action")], help: ArgumentHelp("A button; without KEY its index is the key. Repeatable.", valueName: "[KEY=]LABEL"))
    var actions: [String] = []

    @Flag(name: [.customShort("e"), .long], help: "Ask the server not to keep it in its history.")
    var transient = false

    @Flag(name: [.customShort("w"), .long], help: "Wait: print the key of the pressed button; exit when it is closed.")
    var wait = false

    @Flag(name: [.customShort("p"), .customLong("print-id")], help: "Print the notification's Chime id.")
    var printID = false

    @ArgumentParser.Argument(help: "The summary line.")
    var title: String

    @ArgumentParser.Argument(help: "The body text.")
    var body: String = ""

    func validate() throws {
        for hint in hints where hint.split(separator: ":", maxSplits: 2).count < 3 {
            throw ValidationError("malformed hint '\(hint)': expected TYPE:NAME:VALUE, as in int:value:42.")
        }
        for action in actions where action.isEmpty || action.hasPrefix("=") || action.hasSuffix("=") {
            throw ValidationError("malformed action '\(action)': expected [KEY=]LABEL, as in done=Done.")
        }
    }

    /// The `a{ss}` options of `PresentNowSimple`; chimed validates the values.
    var options: [(String, String)] {
        var options: [(String, String)] = []
        if let urgency { options.append(("urgency", urgency.rawValue)) }
        if let appName { options.append(("appName", appName)) }
        if let icon { options.append(("image", icon)) }
        if let category { options.append(("category", category)) }
        if let expireTime { options.append(("expires", String(expireTime))) }
        for hint in hints {
            let parts = hint.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            options.append(("hint." + parts[1], parts[0] + ":" + parts[2]))
        }
        if transient { options.append(("hint.transient", "boolean:true")) }
        for (index, action) in actions.enumerated() {
            if let equals = action.firstIndex(of: "=") {
                options.append(("action." + action[..<equals], String(action[action.index(after: equals)...])))
            } else {
                options.append(("action.\(index)", action))
            }
        }
        return options
    }

    func run() throws {
        let client: SchedulerClient
        do { client = try SchedulerClient.connect() } catch { throw fail(error.message, ExitStatus.unavailable) }

        var outcome: ExitCode?
        var id: String?
        var subscriptions: [Subscription] = []
        if wait {
            // Subscribe before the call, so a press that comes at once is not missed.
            do {
                subscriptions.append(try client.subscribe("ActionInvoked") { message in
                    guard let args = try? message.arguments(), args.count >= 2, args[0].stringValue == id,
                          let key = args[1].stringValue else { return }
                    print(key)
                    outcome = .success
                })
                subscriptions.append(try client.subscribe("Closed") { message in
                    guard let args = try? message.arguments(), args.first?.stringValue == id else { return }
                    outcome = .success
                })
                subscriptions.append(try client.whenDaemonExits {
                    outcome = fail("chimed stopped before the notification was closed.", ExitStatus.unavailable)
                })
            } catch {
                throw fail(error)
            }
        }

        do {
            let reply = try client.call("PresentNowSimple", [.string(title), .string(body), .stringDictionary(options)])
            id = reply.first?.stringValue
        } catch {
            throw fail(error)
        }
        if printID, let id { print(id) }
        guard wait else { return }

        flushStandardOutput()
        while outcome == nil {
            guard client.connection.readWriteDispatch(timeoutMilliseconds: -1) else {
                throw fail("The session bus closed while waiting.", ExitStatus.unavailable)
            }
        }
        withExtendedLifetime(subscriptions) {}
        if let outcome, outcome != .success { throw outcome }
    }
}
