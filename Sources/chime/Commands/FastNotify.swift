// `chime notify` is what scripts run in loops, so it must start as fast as notify-send.
// ArgumentParser's reflection-based parse costs about 1.5 ms at start-up here, so the
// common forms of `notify` are read directly. Anything this parser is not sure of
// (help, an unknown or bundled option, a bad value) goes to ArgumentParser, which stays
// the one definition of the command line and the one source of its messages; a test
// checks that both parsers agree on a table of command lines.

extension NotifyRequest {
    private static var valued: [String: WritableKeyPath<NotifyRequest, String?>] { [
        "-u": \.urgency, "--urgency": \.urgency, "-a": \.appName, "--app-name": \.appName,
        "-i": \.icon, "--icon": \.icon, "-c": \.category, "--category": \.category, "-r": \.replaceID, "--replace-id": \.replaceID,
    ] }
    private static var repeated: [String: WritableKeyPath<NotifyRequest, [String]>] { [
        "-h": \.hints, "--hint": \.hints, "-A": \.actions, "--action": \.actions,
    ] }
    private static var flags: [String: WritableKeyPath<NotifyRequest, Bool>] { [
        "-e": \.transient, "--transient": \.transient, "-w": \.wait, "--wait": \.wait, "-p": \.printID, "--print-id": \.printID,
        "--json": \.json,
    ] }
    private static let urgencies: Set<String> = ["low", "normal", "critical"]

    /// Parses the arguments after `notify`, or returns nil to leave them to ArgumentParser.
    init?(fastParsing arguments: [String]) {
        var request = NotifyRequest(title: "")
        var positionals: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument.count > 1 else {
                positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if let flag = Self.flags[name], inlineValue == nil {
                request[keyPath: flag] = true
                continue
            }
            guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else { return nil }
            if inlineValue == nil {
                // A value that looks like an option is ArgumentParser's call to make.
                guard !value.hasPrefix("-") else { return nil }
                index += 1
            }
            if let key = Self.valued[name] {
                request[keyPath: key] = value
            } else if let key = Self.repeated[name] {
                request[keyPath: key].append(value)
            } else if name == "-t" || name == "--expire-time" {
                guard let milliseconds = Int32(value) else { return nil }
                request.expireTime = milliseconds
            } else {
                return nil
            }
        }
        guard (1...2).contains(positionals.count) else { return nil }
        if let urgency = request.urgency, !Self.urgencies.contains(urgency) { return nil }
        request.title = positionals[0]
        request.body = positionals.count > 1 ? positionals[1] : ""
        guard (try? request.validate()) != nil else { return nil }
        self = request
    }
}
