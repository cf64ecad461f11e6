import DBus

/// The contract file in `dbus/`, named after the interface: the interface as chimed's
/// `Introspect` gives it, with what each method and signal does and the keys, errors
/// and limits around it. Made by `chime-api-xml` (`make api-xml`); a test keeps the
/// committed file equal to it.
public enum ContractFile {
    /// The whole file.
    public static var text: String {
        var element = interface.introspectionXML
        let members = Scheduler1.methods.map { ("method", $0.name.rawValue, $0.summary) }
            + Scheduler1.signals.map { ("signal", $0.name.rawValue, $0.summary) }
            + [("property", Scheduler1.version.name, Scheduler1.version.summary)]
        for (kind, name, summary) in members {
            // The quote after the name keeps List from matching ListJSON.
            let opening = "    <\(kind) name=\"\(name)\""
            element = element.replacing(opening, with: comment(summary) + opening)
        }
        let preface = header.map { $0.isEmpty ? "\n" : "  " + $0 + "\n" }.joined()
        return doctype + "<!--\n" + preface + "-->\n<node>\n" + element + "</node>\n"
    }

    /// The interface as the daemon exports it, minus what answers.
    static var interface: Interface {
        Interface(Scheduler1.name, methods: Scheduler1.methods.map { Method($0, handler: .immediate { _ in [] }) },
                  signals: Scheduler1.signals.map(\.signal), properties: [Scheduler1.version.property])
    }

    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// What the file says before the interface, a line each ("" between paragraphs).
    static var header: [String] {
        let keys = { (part: NotificationKey.Part) in
            Scheduler1.describe(NotificationKey.keys(of: part).map { ($0.rawValue, $0.summary) }) + "."
        }
        let paragraphs: [[String]] = [
            lines("\(Scheduler1.name): the API of chimed, at \(ChimeBus.path) on the session bus under the name "
                  + "\(ChimeBus.name)."),
            lines("This file is the contract, made from Sources/ChimeAPI by chime-api-xml: a test checks it equal (comments "
                  + "aside) to what the daemon's Introspect returns. A breaking change makes io.github.chime.Scheduler2; "
                  + "additions keep this name."),
            ["A notification is an a{sv} whose keys are:"] + lines(keys(.alert), indent: "  ")
                + ["Scheduling adds:"] + lines(keys(.schedule), indent: "  ")
                + ["Or, instead of when, a place:"] + lines(keys(.place), indent: "  ")
                + lines("Get, List and Fired describe a notification with the same keys, plus " + keys(.state))
                + lines("category names a set of buttons with handlers; built in: \"reminder\" with complete (Complete: the "
                        + "notification and its repeat series are done) and remind (Remind in 30 minutes: a one-shot copy "
                        + "fires again, the series keeps its times).")
                + lines("Bad input gets \(ChimeError.invalidArgs) with a sentence naming the key; an unknown id gets "
                        + "\(ChimeError.notFound). A change is answered only after it is on disk; a change the disk cannot "
                        + "take (it is full) gets \(ChimeError.diskFull) and nothing of it is done. PresentNow gets "
                        + "\(ChimeError.busy) while \(Limits.waitingToPresent) notifications wait for a notification server.")
                + lines("Limits (InvalidArgs naming the limit): a message of at most \(Limits.messageBytes / 1024) KiB, "
                        + "\(Limits.values) values, \(Limits.depth) levels of nested containers and "
                        + "\(Limits.stringBytes / 1024) KiB per string; a title of at most \(Limits.titleBytes / 1024) KiB; at "
                        + "most \(Limits.actions) actions, \(Limits.hints) hints and \(Limits.userInfo) userInfo entries. "
                        + "Numbers must be finite (no NaN or infinity)."),
        ]
        return Array(paragraphs.joined(separator: [""]))
    }

    // MARK: - Layout

    /// The width the file keeps to.
    static let width = 92

    /// An XML comment at member depth: on one line when it fits.
    private static func comment(_ text: String) -> String {
        precondition(!text.contains("--"), "an XML comment cannot hold '--': \(text)")
        let line = "    <!-- \(text) -->"
        if line.count <= width { return line + "\n" }
        return "    <!--\n" + lines(text, indent: "      ").map { $0 + "\n" }.joined() + "    -->\n"
    }

    /// `text` in lines of at most ``width`` columns, each after `indent`, inside the
    /// header comment's own two spaces.
    static func lines(_ text: String, indent: String = "") -> [String] {
        let room = width - 2 - indent.count
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > room {
                lines.append(indent + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(indent + line) }
        return lines
    }
}
