import ChimeAPI
import JSON
import ArgumentParser
import Localization

/// `chime add`: schedule a notification (UILocalNotification's scheduleLocalNotification).
struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Schedule a notification; prints its id and when it fires.",
        discussion: """
            TIME is 15:00, 3pm, noon, tomorrow, "fri 10:00", "next fri", "dec 24 18:00", \
            "18:00 tomorrow", 24.12.2026, "now + 1 hour", "2026-12-24 18:00" or ISO 8601 \
            (with an offset it is an instant; with [Zone/Name] it is zoned); a day without a \
            time keeps the current time of day. Wall-clock times float: 9:00 stays 9:00 when \
            the system moves to another time zone, unless --zone pins them. --in takes a \
            duration (20m, 1h30m, 2d): hours and minutes make an instant, days and longer keep \
            the clock time across a DST change, as at(1) does.

            A time in the past is refused (status 64), as at(1) refuses it: a wrong year is \
            the likeliest typo. --allow-past schedules it anyway: it fires at once, marked \
            late. A repeat whose first time is past starts at its next time from now.

            Instead of a time, a place: --near LAT,LON fires on \
            entering or leaving a circle of --radius (default \(Int(PlaceText.defaultRadius))m; m or km, at most \
            100km) located through GeoClue; --on-network NAME when a NetworkManager connection \
            of that id or Wi-Fi SSID comes up or goes. --on-entry and --on-exit choose the \
            crossing (neither means both for --near, entry for --on-network); --every-time \
            fires at every such crossing instead of once. Without GeoClue or NetworkManager it \
            waits: chime list shows it as waiting for a location source.

            Prints the id, then when it fires as chimed understood it: "k3x9m2qa  Wed 24 Dec 18:00 \
            (in 3 days)"; a script reads the id as the first word (read -r id _). --json prints \
            {"id": ID, "nextFire": Unix seconds, "nextFireLocal": ISO 8601} instead.

            Examples:
              chime add "Stand up" --in 45m
              chime add "Standup meeting" "Room 4" --at "mon 9:30" --repeat week
              chime add "Water the plants" --at 8:00 --repeat day --every 3 --user-info plant=fern
              chime add "Tea" --in 4m --json
              chime add "Buy milk" --near 52.5200,13.4050 --radius 150m
              chime add "Stand-up notes" --on-network "Office Wi-Fi"
            """
    )

    @ArgumentParser.Argument(help: "The summary line.")
    var title: String

    @ArgumentParser.Argument(help: "The body text.")
    var body: String = ""

    @Option(help: "When to fire: a time or date and time.")
    var at: String?

    @Option(name: .customLong("in"), help: "When to fire: a duration from now, such as 20m or 1h30m.")
    var after: String?

    @OptionGroup var rule: RuleOptions

    @Option(help: "A sound-theme name, a sound file, default, or none.")
    var sound: String?

    @Option(name: [.customShort("a"), .customLong("app-name")], help: "The application the notification speaks for.")
    var appName: String?

    @Option(name: [.customShort("i"), .long], help: "An icon name or an image file.")
    var icon: String?

    @Option(name: [.customShort("t"), .customLong("expire-time")], help: ArgumentHelp("Milliseconds until it leaves the screen.", valueName: "MS"))
    var expireTime: Int32?

    @Option(name: .customLong("default-action"),
            help: ArgumentHelp("The label of a click on the notification itself (it opens --desktop-entry); \"\" for none.", valueName: "LABEL"))
    var defaultAction: String?

    @Option(help: "The app icon badge to set when it fires (with --desktop-entry).")
    var badge: Int?

    @Option(name: .customLong("desktop-entry"), help: "The app the notification speaks for, by desktop entry id.")
    var desktopEntry: String?

    @Option(help: "A category: a set of buttons, built in (reminder: Complete, Remind in 30 minutes) or from the config, or a standard one such as email.arrived; any other is refused (status 64).")
    var category: String?

    @Option(name: [.customShort("u"), .long], help: "low, normal or critical.")
    var urgency: String?

    @Option(name: [.customShort("A"), .customLong("action")], help: ArgumentHelp("A button. Repeatable.", valueName: "[KEY=]LABEL"))
    var actions: [String] = []

    @Option(name: .customLong("user-info"), help: ArgumentHelp("Data handed back with every action. Repeatable.", valueName: "KEY=VALUE"))
    var userInfo: [String] = []

    @Option(name: .customLong("late-limit"), help: "Drop it instead if it would fire later than this, such as 10m.")
    var lateLimit: String?

    @Option(name: .customLong("text-domain"),
            help: ArgumentHelp("The app's gettext domain: TITLE, BODY and labels are its msgids, translated when shown.", valueName: "DOMAIN"))
    var textDomain: String?

    @OptionGroup var place: PlaceOptions

    @Flag(name: .customLong("allow-past"), help: "Schedule a time in the past anyway: it fires at once, marked late.")
    var allowPast = false

    @Flag(help: "Print JSON, {\"id\", \"nextFire\", \"nextFireLocal\"}, instead of the id and time.")
    var json = false

    func validate() throws {
        if place.isGiven {
            guard at == nil, after == nil else {
                throw ValidationError(localized("give a time (--at, --in) or a place (--near, --on-network), not both: a notification fires at one."))
            }
        } else {
            guard (at == nil) != (after == nil) else { throw ValidationError(localized("give exactly one of --at TIME or --in DURATION.")) }
        }
        try EntryOptions.validate(actions: actions, userInfo: userInfo)
        if allowPast, at == nil { throw ValidationError(PastTimeText.allowPastNeedsAt) }
    }

    var when: String { place.isGiven ? "" : at ?? "in " + (after ?? "") }

    var options: [(String, String)] {
        var options = rule.options + place.options
        if let sound { options.append(("sound", sound)) }
        if let appName { options.append(("appName", appName)) }
        if let icon { options.append(("image", icon)) }
        if let expireTime { options.append(("expires", String(expireTime))) }
        if let defaultAction { options.append(("defaultAction", defaultAction)) }
        if let badge { options.append(("badge", String(badge))) }
        if let desktopEntry { options.append(("desktopEntry", desktopEntry)) }
        if let category { options.append(("category", category)) }
        if let urgency { options.append(("urgency", urgency)) }
        if let lateLimit { options.append(("lateLimit", lateLimit)) }
        if let textDomain { options.append(("textDomain", textDomain)) }
        if allowPast { options.append(("late", "true")) }
        return options + EntryOptions.entries(actions: actions, userInfo: userInfo)
    }

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        let id = try client.scheduleSimple(when: when, title: title, body: body, options: options)
        // A place has no fire time to echo: the bare id, then whether its service is there.
        let described = place.isGiven ? nil : client.described(id)
        print(Self.echo(id: id, described: described ?? [], json: json))
        if place.isGiven { place.tellIfWaiting(id, client) }
    }
}
