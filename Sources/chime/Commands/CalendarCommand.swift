import ArgumentParser
import ChimeAPI
import DBus
import Glibc
import JSON
import Localization

/// `chime calendar`: the calendars chimed follows, whose items ring as reminders.
struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Follow calendar folders: their events' and tasks' alarms ring as reminders.",
        discussion: """
            A calendar is a vdir folder: one .ics file per event or task, as vdirsyncer \
            syncs them from a CalDAV server and khal and todoman keep them. chimed reads it \
            when it is added and whenever a file in it changes, as the change happens: a new \
            or edited item rings at its alarms (at its start or due time when it has none), \
            and an item deleted takes its reminders with it.

            Examples:
              chime calendar add --vdir ~/.calendars/personal
              chime calendar list
              chime calendar remove personal
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    /// `chime calendar add --vdir DIR`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a vdir folder; says how many reminders its items made.",
            discussion: """
                Files that cannot be read (larger than \(Limits.calendarFileBytes >> 20) MiB, not \
                iCalendar, a link out of the folder) and items Chime cannot schedule are named \
                on stderr; the rest is followed all the same (exit status 0). A folder that holds \
                calendar folders rather than items is refused with their names: add each.

                Examples:
                  chime calendar add --vdir ~/.calendars/personal
                  chime calendar add --vdir ~/.local/share/todo --name tasks
                """
        )

        @Option(help: ArgumentHelp("The folder of .ics files.", valueName: "DIR"))
        var vdir: String

        @Option(help: "The name to know it by (default: the folder's name).")
        var name: String?

        @Flag(help: "Print the calendar as JSON, as an element of chime calendar list --json.")
        var json = false

        func run() throws {
            let client = try ChimedClient.connectOrFail()
            var options: [(String, Value)] = []
            if let name { options.append((CalendarKey.name.rawValue, .string(name))) }
            let reply = try client.callOrFail(Scheduler1.addCalendar, [.string(absolutePath(vdir)), .variantDictionary(options)])
            guard let entries = reply.first?.stringKeyedEntries else {
                throw fail(localized("chimed answered %1$s with something other than its interface says.", "AddCalendar"), ExitStatus.failure)
            }
            let calendar = CalendarText(entries)
            for problem in calendar.problems { writeError(problem) }
            if json { return print(calendar.json.rendered()) }
            // TRANSLATORS: %1$s is the calendar's name, %2$s its folder, %3$d how many reminders its items made.
            print(pluralized("Following %1$s (%2$s): %3$d reminder to come.", "Following %1$s (%2$s): %3$d reminders to come.",
                             count: calendar.reminders, calendar.name, calendar.location, calendar.reminders))
        }
    }

    /// `chime calendar list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the calendars followed: name, state, reminders to come, folder.",
            discussion: """
                The state is watching (read, and followed as it changes), reading, missing (the \
                folder is gone: its reminders are kept until it is back or the calendar is \
                removed) or why it cannot be read. Under each, one line per file not read or \
                read in part.

                --json prints an array of objects with the keys \
                \(CalendarKey.allCases.map(\.rawValue).joined(separator: ", ")).
                """
        )

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let client = try ChimedClient.connectOrFail()
            let reply = try client.callOrFail(Scheduler1.calendars, [])
            let calendars = (reply.first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).map(CalendarText.init)
            if json { return print(JSONText.array(calendars.map(\.json)).rendered()) }
            guard !calendars.isEmpty else {
                return print(localized("No calendar is followed; chime calendar add --vdir DIR follows one."))
            }
            let width = calendars.map(\.name.count).max() ?? 0
            for calendar in calendars {
                let padded = calendar.name + String(repeating: " ", count: width - calendar.name.count)
                // TRANSLATORS: %1$s is the calendar's name, %2$s its state, %3$d reminders to come, %4$s its folder.
                print(pluralized("%1$s  %2$s, %3$d reminder to come  %4$s", "%1$s  %2$s, %3$d reminders to come  %4$s",
                                 count: calendar.reminders, padded, calendar.stateText, calendar.reminders, calendar.location))
                for problem in calendar.problems { print("  " + HumanText.escaped(problem)) }
            }
        }
    }

    /// `chime calendar remove NAME`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop following a calendar; its reminders are cancelled, its files left as they are.",
            discussion: """
                Example:
                  chime calendar remove personal
                """
        )

        @ArgumentParser.Argument(help: "The calendar's name, as chime calendar list shows it.")
        var name: String

        func run() throws {
            let client = try ChimedClient.connectOrFail()
            let reply = try client.callOrFail(Scheduler1.removeCalendar, [.string(name)])
            let count = reply.first?.integerValue ?? 0
            // TRANSLATORS: %1$s is the calendar's name, %2$d how many reminders went with it.
            print(pluralized("No longer following %1$s; %2$d reminder cancelled. Its files are left as they are.",
                             "No longer following %1$s; %2$d reminders cancelled. Its files are left as they are.",
                             count: Int(count), name, Int(count)))
        }
    }
}

/// One calendar as chimed describes it (``ChimeAPI/CalendarKey``).
struct CalendarText {
    let entries: [(key: String, value: Value)]

    init(_ entries: [(key: String, value: Value)]) {
        self.entries = entries.map { ($0.key, $0.value.unwrapped) }
    }

    private func value(_ key: CalendarKey) -> Value? { entries.first { $0.key == key.rawValue }?.value }

    var name: String { value(.name)?.stringValue ?? "" }
    var location: String { value(.location)?.stringValue ?? "" }
    var state: String { value(.state)?.stringValue ?? "" }
    var reminders: Int { Int(value(.reminders)?.integerValue ?? 0) }
    var problems: [String] { (value(.problems)?.arrayElements ?? []).compactMap(\.stringValue) }

    /// The state in the session's language.
    var stateText: String {
        switch state {
        case "watching": localized("watching")
        case "reading": localized("reading")
        case "missing": localized("its folder is missing")
        default: state
        }
    }

    var json: JSONText {
        var object: [(String, JSONText)] = [
            (CalendarKey.name.rawValue, .string(name)), (CalendarKey.kind.rawValue, .string(value(.kind)?.stringValue ?? "")),
            (CalendarKey.location.rawValue, .string(location)), (CalendarKey.state.rawValue, .string(state)),
            (CalendarKey.reminders.rawValue, .integer(reminders)), (CalendarKey.problems.rawValue, .strings(problems)),
        ]
        if let read = value(.lastReadTimestamp)?.integerValue {
            object += [(CalendarKey.lastRead.rawValue, .string(value(.lastRead)?.stringValue)),
                       (CalendarKey.lastReadTimestamp.rawValue, .integer(read))]
        }
        return .object(object)
    }
}
