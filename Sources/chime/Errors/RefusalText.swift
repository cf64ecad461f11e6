import ChimeAPI
import Localization

/// chimed's refusal of a value, said in the words the user typed.
///
/// chimed names the key at fault as its D-Bus callers write it (`lateLimit: 'soon' is not
/// a duration`), and that stays its API. chime knows which option each key came from, and
/// says the option and the value as they were typed instead (`--late-limit 'soon' is not a
/// duration`). chimed's reason stays English; the few reasons that name another key, and
/// so would send the user to a key they never typed, are said anew in the session's
/// language.
enum RefusalText {
    /// Where a key of chimed's comes from on chime's command lines: the options that give
    /// it, or the argument (as the usage names it) when none of them was typed.
    struct Source {
        var names: [String] = []
        var argument: String?
        /// A flag: it has no value to quote.
        var isFlag = false
    }

    /// Every key chime sends in a request's `a{ss}` or as an argument of its own, with the
    /// options of every command that sends it (`add`, `edit`, `next`, `notify`, `snooze`,
    /// `skip`, `badge`, `calendar add`).
    static let sources: [String: Source] = [
        "when": Source(names: ["--at", "--in"]),
        "repeat": Source(names: ["--repeat"]), "every": Source(names: ["--every"]), "on": Source(names: ["--on"]),
        "until": Source(names: ["--until"]), "count": Source(names: ["--count"]), "rrule": Source(names: ["--rrule"]),
        "zone": Source(names: ["--zone"]), "floating": Source(names: ["--floating"], isFlag: true),
        "calendar": Source(names: ["--calendar"]), "lateLimit": Source(names: ["--late-limit"]),
        "title": Source(names: ["--title"], argument: "TITLE"), "body": Source(names: ["--body"], argument: "BODY"),
        "sound": Source(names: ["--sound"]), "appName": Source(names: ["-a", "--app-name"]), "image": Source(names: ["-i", "--icon"]),
        "expires": Source(names: ["-t", "--expire-time"]), "defaultAction": Source(names: ["--default-action"]),
        "badge": Source(names: ["--badge"]), "desktopEntry": Source(names: ["--desktop-entry", "--app"]),
        "category": Source(names: ["-c", "--category"]), "urgency": Source(names: ["-u", "--urgency"]),
        "textDomain": Source(names: ["--text-domain"]), "replaces": Source(names: ["-r", "--replace-id"]),
        "region": Source(names: ["--near"]), "region.latitude": Source(names: ["--near"]), "region.longitude": Source(names: ["--near"]),
        "region.radius": Source(names: ["--radius"]),
        "region.notifyOnEntry": Source(names: ["--on-entry"], isFlag: true), "region.notifyOnExit": Source(names: ["--on-exit"], isFlag: true),
        "network": Source(names: ["--on-network"]), "regionTriggersOnce": Source(names: ["--every-time"], isFlag: true),
        "id": Source(), "occurrence": Source(),
        "location": Source(names: ["--vdir"], argument: "URL"), "name": Source(names: ["--name"]),
        "user": Source(names: ["--user"]), "passwordCommand": Source(names: ["--password-command"]), "ca": Source(names: ["--ca"]),
        "interval": Source(names: ["--interval"]), "shareDismissals": Source(names: ["--keep-dismissals-local"], isFlag: true),
    ]

    /// `message`, chimed's `key: reason`, with the option and value the user typed in
    /// place of the key; nil when it names no key chime sends, or none the user typed.
    static func sentence(_ message: String, typed: TypedWords) -> String? {
        if let past = PastTimeText.sentence(message, option: typed.spelling(of: ["--at", "--in"])) { return past }
        guard let colon = message.firstRange(of: ": ") else { return nil }
        let key = String(message[..<colon.lowerBound]), reason = String(message[colon.upperBound...])
        guard let (source, use) = origin(of: key, typed) else { return nil }
        let value = source.isFlag ? nil : use?.value
        if let spelling = use?.spelling, let said = saidAnew(key, reason, spelling: spelling, value: value) { return said }
        // A reason that opens with the value quoted names the word already; an argument's
        // needs no name before it.
        if reason.hasPrefix("'") { return use.map { $0.spelling + " " + reason } ?? reason }
        guard let spelling = use?.spelling ?? source.argument else { return nil }
        let quoted = use == nil ? spelling : value.map { "\(spelling) '\($0)'" } ?? spelling
        // "must be …", "needs …": the option is the subject of chimed's reason.
        let predicate = ["must", "is", "are", "has", "needs", "cannot", "ends", "applies"].contains { reason.hasPrefix($0 + " ") }
        return quoted + (predicate ? " " : ": ") + reason
    }

    /// The source of `key` and, when the user typed one of its options, which and its value.
    private static func origin(of key: String, _ typed: TypedWords) -> (Source, (spelling: String, value: String?)?)? {
        if let source = sources[key] { return (source, typed.lastUse(of: source.names)) }
        // Keyed entries of repeatable options: the value typed for that key.
        guard let dot = key.firstIndex(of: "."), key[key.index(after: dot)...].count > 0 else { return nil }
        let name = String(key[key.index(after: dot)...])
        let names: [String], matches: (String) -> Bool
        switch key[..<dot] {
        case "userInfo": (names, matches) = (["--user-info"], { $0.hasPrefix(name + "=") })
        case "action": (names, matches) = (["-A", "--action"], { $0.hasPrefix(name + "=") })
        case "hint": (names, matches) = (["-h", "--hint"], { $0.split(separator: ":", maxSplits: 2).dropFirst().first.map(String.init) == name })
        default: return nil
        }
        let source = Source(names: names)
        guard let spelling = typed.lastUse(of: names)?.spelling else { return (source, nil) }
        let values = typed.values(of: names)
        // A button without a key is keyed by its place among the buttons.
        let value = values.last(where: matches) ?? Int(name).flatMap { values.indices.contains($0) ? values[$0] : nil }
        return (source, (spelling, value))
    }

    /// The reasons that name another key, or have a likely fix in options, in full.
    private static func saidAnew(_ key: String, _ reason: String, spelling: String, value: String?) -> String? {
        if reason.hasPrefix("needs repeat:") {
            if key == "every", let value {
                // TRANSLATORS: %1$s is the option as typed (--every), %2$s the number typed after it.
                return localized("%1$s %2$s needs --repeat to say every %2$s of what, as in --repeat day --every %2$s.", spelling, value)
            }
            return localized("%1$s needs --repeat to say how it repeats, as in --repeat week.", spelling)
        }
        if reason.hasPrefix("cannot be combined with rrule") {
            return localized("%1$s cannot be combined with --rrule, which says how it repeats by itself.", spelling)
        }
        if let v = UsageErrorText.match(reason, ["cannot be combined with repeat '", "', which has a count of its own."]) {
            return localized("%1$s cannot be combined with --repeat '%2$s', which has a count of its own.", spelling, v[0])
        }
        if let v = UsageErrorText.match(reason, ["cannot be combined with repeat '", "', which ends the repeat."]) {
            return localized("%1$s cannot be combined with --repeat %2$s, which ends the repeat.", spelling, v[0])
        }
        if reason.hasPrefix("needs when:") {
            return localized("%1$s needs --at: give the time again with the clock it is read on.", spelling)
        }
        if let v = UsageErrorText.match(reason, ["and ", " cannot both be given: a notification fires at a date or at a place, never both."]) {
            return localized("%1$s and %2$s cannot both be given: a notification fires at a time or at a place, never both.",
                             spelling, v[0] == "network" ? "--on-network" : "--near")
        }
        if key == "repeat", let value, reason.hasPrefix("'\(value)' is not a repeat interval"),
           let meant = RepeatSuggestion.options(for: value) {
            // TRANSLATORS: %3$s is chime's options for what was meant, such as --repeat week --on weekdays.
            return localized("%1$s '%2$s' is not a unit of time; did you mean %3$s?", spelling, value, meant)
        }
        return nil
    }
}
