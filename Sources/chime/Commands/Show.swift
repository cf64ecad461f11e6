import ArgumentParser
import ChimeAPI
import DBus
import JSON
import Localization

/// `chime show`: everything about one notification.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one notification.",
        discussion: """
            One line per field, labelled in words (next, repeats, urgency, user info, ...); \
            fields without a value are left out. Its state and times read as in chime \
            list; the repeat is in words, and its RRULE on a line of its own.

            --json prints one JSON object, indented, with the keys of a chime list --json \
            element.

            Examples:
              chime show 3kq9xw2m
              chime show 3kq9xw2m --json
            """
    )

    @ArgumentParser.Argument(help: "The id chime add printed.")
    var id: String

    @Flag(help: "Print JSON (one object with the keys of a chime list --json element) instead of lines.")
    var json = false

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        if json {
            print(JSONText.indented(try client.getJSON(id)))
            return
        }
        print(Self.lines(try client.get(id)))
    }

    /// The labelled lines of a notification's description, values aligned.
    static func lines(_ entries: [(key: String, value: Value)], now: Int64 = HumanText.currentTime) -> String {
        let rows = Self.rows(entries, now: now).map { (HumanText.escaped($0.0), $0.1) }
        let width = rows.map { HumanText.columns(of: $0.0) }.max() ?? 0
        // A multi-line value (a body) goes on under its first line, in the value column;
        // other control characters are escaped, so a title cannot drive the terminal.
        let continuation = "\n" + String(repeating: " ", count: width + 2)
        return rows.map { label, value in
            let shown = HumanText.escaped(value, keepingNewlines: true).split(separator: "\n", omittingEmptySubsequences: false)
                .joined(separator: continuation)
            return label + ":" + String(repeating: " ", count: width - HumanText.columns(of: label) + 1) + shown
        }.joined(separator: "\n")
    }

    /// What `chime show` says, label and value, in the order a person asks: what it is, when,
    /// how it repeats, then how it shows. Empty values are left out; keys this chime does not
    /// know come last, under their own names.
    static func rows(_ entries: [(key: String, value: Value)], now: Int64) -> [(String, String)] {
        let fields = HumanText.fields(entries)
        func string(_ key: NotificationKey) -> String? { fields[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        // Fire times on the zone's clock first, as the user asked for them; the rest are the machine's moments.
        func time(_ key: NotificationKey, zoned: Bool = false) -> String? {
            fields[key]?.integerValue.map { HumanText.date($0, zone: zoned ? HumanText.zone(fields) : nil, now: now) }
        }
        let repeats = HumanText.repeats(fields)
        let fired = Int(clamping: fields[.fireCount]?.integerValue ?? 0)
        let last = fields[.lastFired]?.integerValue.map { HumanText.date($0, now: now) }
        let skipped = (fields[.skipped]?.arrayElements ?? []).compactMap(\.integerValue).map { HumanText.date($0, zone: HumanText.zone(fields), now: now) }
        let calendar = string(.calendar).flatMap { $0 == "gregorian" ? nil : $0 }
        // A pending one-shot's nextFire is when it came due: its state says that already.
        let next = fields[.state]?.stringValue == "pending" && (fields[.nextFire]?.integerValue ?? .max) <= now ? nil : time(.nextFire, zoned: true)

        // TRANSLATORS: the labels of chime show, one per line before a value.
        let rows: [(String, String?)] = [
            (localized("id"), string(.id)),
            (localized("title"), string(.title)),
            (localized("body"), string(.body)),
            (localized("state"), HumanText.state(fields, now: now)),
            (localized("next"), next),
            (localized("place"), PlaceOptions.describe(fields)),
            (localized("zone"), HumanText.zone(fields)),
            (localized("repeats"), repeats == "-" ? nil : repeats),
            (localized("rrule"), string(.rrule)),
            (localized("skipped"), skipped.isEmpty ? nil : skipped.joined(separator: ", ")),
            (localized("calendar"), calendar),
            (localized("fired"), fired == 0 ? nil : firedText(fired, last: last)),
            (localized("late limit"), fields[.lateLimit].flatMap(seconds).map(duration)),
            (localized("snoozed from"), string(.origin)),
            (localized("completed"), time(.completed)),
            (localized("created"), time(.created)),
            (localized("urgency"), fields[.urgency].flatMap(urgency)),
            (localized("app"), string(.appName)),
            (localized("desktop entry"), string(.desktopEntry)),
            (localized("category"), string(.category)),
            (localized("buttons"), buttons(fields[.actions])),
            (localized("button options"), fields[.actionOptions].map(HumanText.text).flatMap { $0.isEmpty ? nil : $0 }),
            (localized("default action"), fields[.defaultAction]?.stringValue.map { $0.isEmpty ? localized("none") : $0 }),
            (localized("sound"), string(.sound)),
            (localized("image"), string(.image)),
            (localized("badge"), fields[.badge]?.integerValue.map(String.init)),
            (localized("expires"), fields[.expires]?.integerValue.map { localized("after %1$s", duration(Double($0) / 1000)) }),
            (localized("text domain"), string(.textDomain)),
            (localized("user info"), fields[.userInfo].map(HumanText.text).flatMap { $0.isEmpty ? nil : $0 }),
        ]
        // Keys said above in other words, or not at all (nextFireLocal is nextFire again).
        let said: Set<NotificationKey> = [
            .id, .title, .body, .state, .nextFire, .nextFireLocal, .region, .network, .regionTriggersOnce, .when, .repeat, .every,
            .rrule, .skipped, .calendar, .fireCount, .lastFired, .lateLimit, .origin, .completed, .created, .urgency, .appName,
            .desktopEntry, .category, .actions, .actionOptions, .defaultAction, .sound, .image, .badge, .expires, .textDomain,
            .userInfo,
        ]
        let others = entries.filter { NotificationKey(rawValue: $0.key).map { !said.contains($0) } ?? true }
            .map { ($0.key, HumanText.text($0.value)) }.filter { !$0.1.isEmpty }
        return rows.compactMap { label, value in value.map { (label, $0) } } + others
    }

    /// `once, today 09:00`, `3 times, the last yesterday 18:00`.
    static func firedText(_ count: Int, last: String?) -> String {
        guard let last else { return count == 1 ? localized("once") : pluralized("%1$d time", "%1$d times", count: count, count) }
        // TRANSLATORS: fired once, at a time such as "today 09:00".
        return count == 1 ? localized("once, %1$s", last)
            // TRANSLATORS: how many times it fired, and when it last did, such as "yesterday 18:00".
            : pluralized("%1$d time, the last %2$s", "%1$d times, the last %2$s", count: count, count, last)
    }

    /// Urgency as `chime add -u` takes it.
    static func urgency(_ value: Value) -> String? {
        switch value.integerValue {
        case 0: "low"
        case 1: "normal"
        case 2: "critical"
        default: value.stringValue
        }
    }

    /// A number of seconds, from a double or an integer.
    static func seconds(_ value: Value) -> Double? {
        if case .double(let seconds) = value.unwrapped { return seconds }
        return value.integerValue.map(Double.init)
    }

    /// `2 h`, `1 h 30 min`, `45 s`, `1.5 s`: a duration in the units `--late-limit` takes.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return seconds.rounded() == seconds ? "\(Int(seconds)) s" : "\(seconds) s" }
        var rest = Int(seconds.rounded())
        var parts: [String] = []
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("min", 60), ("s", 1)] where rest >= size {
            parts.append("\(rest / size) \(unit)")
            rest %= size
        }
        return parts.isEmpty ? "0 s" : parts.joined(separator: " ")
    }

    /// `Done (done), Remind me (later)`: each button's label and, when it differs, its key.
    static func buttons(_ value: Value?) -> String? {
        let pairs = (value?.arrayElements ?? []).compactMap { $0.structureFields }.compactMap { fields -> String? in
            guard fields.count == 2, let key = fields[0].stringValue, let label = fields[1].stringValue else { return nil }
            return label == key ? label : label + " (" + key + ")"
        }
        return pairs.isEmpty ? nil : pairs.joined(separator: ", ")
    }
}
