import ArgumentParser
import ChimeAPI
import DBus
import Glibc
import JSON
import Localization
import Spelling

/// `chime calendar`: the calendars chimed follows, whose items ring as reminders.
struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Follow calendars on a CalDAV server or in folders: their events' and tasks' alarms ring as reminders.",
        discussion: """
            A calendar is a collection on a CalDAV server (Nextcloud, Radicale, Fastmail, \
            iCloud…), which chimed syncs when it is added and every few minutes after, or a \
            vdir folder: one .ics file per event or task, as vdirsyncer, khal and todoman keep \
            them, which chimed reads whenever a file in it changes. A new or edited item rings \
            at its alarms (at its start or due time when it has none), an item deleted takes \
            its reminders with it, and what is pressed on a reminder (Complete, Remind, a \
            dismissal) is written back into the item, where every other device reads it.

            Examples:
              chime calendar add https://cloud.example.org/ --user alice
              chime calendar add http://127.0.0.1:5232/ --user alice --all
              chime calendar add https://cloud.example.org/ --user alice --password-command "pass show dav"
              chime calendar add --vdir ~/.calendars/personal
              chime calendar list
              chime calendar sync
              chime calendar password personal
              chime calendar remove personal
            """,
        subcommands: [Add.self, List.self, Sync.self, Password.self, Remove.self]
    )

    /// `chime calendar add URL --user NAME` or `chime calendar add --vdir DIR`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow the calendars of a CalDAV account, or a vdir folder; says how many reminders each made.",
            discussion: """
                URL is the server's address, as its web page or app shows it (https://, or \
                http:// to this machine), or one calendar's. chimed finds the account's \
                calendars there (RFC 6764), chime lists them, and follows those chosen: \
                --calendar NAME (once for each), --all, or on a terminal the numbers typed at \
                its question; a single calendar found is followed without asking.

                The password is asked on the terminal without echo, or read from the first \
                line of standard input (--password-stdin, or when that is not a terminal), \
                never from an argument; chimed keeps it in the Secret Service keyring (GNOME \
                Keyring, KWallet, KeePassXC), never in its own files. With --password-command \
                chimed runs that command instead at each sync that needs the password, and \
                stores nothing.

                Each calendar syncs at once, then every --interval seconds (default \
                \(CalDAVDefaults.interval)). A dismissal is written to the server, so every \
                device stops ringing that alarm; --keep-dismissals-local keeps dismissals on \
                this machine. A calendar whose first sync failed (the server refused the \
                password, say) is followed all the same and named on stderr with the reason, \
                and the exit status is 75: chime calendar password NAME gives another password, \
                chime calendar sync NAME tries again.

                With --vdir, files that cannot be read (larger than \(Limits.calendarFileBytes >> 20) \
                MiB, not iCalendar, a link out of the folder) and items Chime cannot schedule are \
                named on stderr; the rest is followed all the same (exit status 0). A folder \
                that holds calendar folders rather than items is refused with their names: add each.

                Examples:
                  chime calendar add https://cloud.example.org/ --user alice
                  chime calendar add http://127.0.0.1:5232/ --user alice --all
                  chime calendar add https://cloud.example.org/ --user alice --calendar Personal --password-command "pass show dav"
                  pass show dav | chime calendar add https://cloud.example.org/ --user alice --all --password-stdin
                  chime calendar add --vdir ~/.calendars/personal
                  chime calendar add --vdir ~/.local/share/todo --name tasks
                """
        )

        @ArgumentParser.Argument(help: ArgumentHelp("The CalDAV server's address, or one calendar's.", valueName: "URL"))
        var url: String?

        @Option(help: ArgumentHelp("A folder of .ics files to follow instead.", valueName: "DIR"))
        var vdir: String?

        @Option(help: "The name to know it by (default: the calendar's display name, or the folder's name).")
        var name: String?

        @Option(help: ArgumentHelp("The user to sign in to the server as.", valueName: "NAME"))
        var user: String?

        @Option(name: .customLong("password-command"),
                help: ArgumentHelp("A command (/bin/sh -c) that prints the password, run by chimed at each sync that needs it.", valueName: "CMD"))
        var passwordCommand: String?

        @OptionGroup var password: PasswordOptions

        @Option(help: ArgumentHelp("A PEM file of the certificate authorities to trust for this server.", valueName: "FILE"))
        var ca: String?

        @Option(name: .customLong("calendar"),
                help: ArgumentHelp("Follow the calendar of this name (its display name or the last part of its URL); repeatable.", valueName: "NAME"))
        var calendars: [String] = []

        @Flag(help: "Follow every calendar of the account that holds events or tasks.")
        var all = false

        @Flag(name: .customLong("keep-dismissals-local"), help: "Keep dismissals on this machine instead of writing them to the server.")
        var keepDismissalsLocal = false

        @Option(help: ArgumentHelp("Seconds between syncs (default \(CalDAVDefaults.interval), at least \(CalDAVDefaults.shortestInterval)).",
                                   valueName: "SECONDS"))
        var interval: Int?

        @Flag(help: "Print JSON: the calendars added from a URL as an array, as chime calendar list --json prints it; with --vdir the one calendar, as an element of it.")
        var json = false

        /// The longest interval chimed takes: a week.
        static let longestInterval = 7 * 86_400

        func validate() throws {
            guard (url == nil) != (vdir == nil) else {
                throw ValidationError(url == nil ? localized("give the CalDAV server's address (chime calendar add URL --user NAME) or --vdir DIR.")
                                                 : localized("give a CalDAV address or --vdir DIR, not both."))
            }
            if vdir != nil {
                let caldav = [("--user", user != nil), ("--password-command", passwordCommand != nil), ("--password-stdin", password.passwordStdin),
                              ("--ca", ca != nil), ("--calendar", !calendars.isEmpty), ("--all", all),
                              ("--keep-dismissals-local", keepDismissalsLocal), ("--interval", interval != nil)]
                if let (option, _) = caldav.first(where: \.1) {
                    throw ValidationError(localized("%1$s applies to a CalDAV address, not to --vdir.", option))
                }
                return
            }
            if let url, let problem = CalDAVAddress.problem(url) { throw ValidationError(problem) }
            guard let user, !user.isEmpty else { throw ValidationError(localized("a CalDAV address needs --user NAME, the user to sign in as.")) }
            if !calendars.isEmpty && all { throw ValidationError(localized("give --calendar NAME or --all, not both.")) }
            if passwordCommand != nil && password.passwordStdin {
                throw ValidationError(localized("give --password-command or --password-stdin, not both."))
            }
            if let passwordCommand, passwordCommand.allSatisfy(\.isWhitespace) {
                throw ValidationError(localized("--password-command is empty; give the command that prints the password."))
            }
            if let interval, !(CalDAVDefaults.shortestInterval...Self.longestInterval).contains(interval) {
                throw ValidationError(localized("--interval %1$d is not from %2$d to %3$d seconds.", interval, CalDAVDefaults.shortestInterval,
                                                Self.longestInterval))
            }
            if let ca, access(absolutePath(ca), R_OK) != 0 {
                throw ValidationError(localized("--ca '%1$s' cannot be read: %2$s.", ca, String(cString: strerror(errno))))
            }
        }

        func run() throws {
            if let vdir { return try followFolder(vdir) }
            try CalDAVAdd(self).run()
        }

        private func followFolder(_ vdir: String) throws {
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
            print(calendar.followingLine)
        }
    }

    /// `chime calendar list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the calendars followed: name, state, reminders to come, address or folder.",
            discussion: """
                A CalDAV calendar is syncing (its first sync is under way), synced (with when it \
                last was), offline (its server cannot be reached now; chimed asks again soon) or \
                not syncing (the server refused the password, the calendar is gone: the line \
                below says why, and it waits for you). Presses still to be written to its server \
                are counted, and a calendar added with --keep-dismissals-local says that its \
                dismissals are kept here. A folder is watching (read, and followed as it \
                changes), reading, missing (the folder is gone: its reminders are kept until it \
                is back or the calendar is removed) or why it cannot be read. Under each, one \
                line per item or file not read or read in part.

                --json prints an array of objects with the keys \
                \(CalendarKey.allCases.map(\.rawValue).joined(separator: ", ")) (the CalDAV ones \
                for a CalDAV calendar; lastRead, lastSync and error once they apply).

                Examples:
                  chime calendar list
                  chime calendar list --json
                """
        )

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let calendars = try ChimedClient.connectOrFail().calendars()
            if json { return print(JSONText.array(calendars.map(\.json)).rendered()) }
            guard !calendars.isEmpty else {
                return print(localized("No calendar is followed; chime calendar add URL --user NAME, or --vdir DIR, follows one."))
            }
            let width = calendars.map(\.name.count).max() ?? 0
            for calendar in calendars {
                let padded = calendar.name + String(repeating: " ", count: width - calendar.name.count)
                // TRANSLATORS: %1$s is the calendar's name, %2$s its state, %3$d reminders to come, %4$s its folder or address.
                print(pluralized("%1$s  %2$s, %3$d reminder to come  %4$s", "%1$s  %2$s, %3$d reminders to come  %4$s",
                                 count: calendar.reminders, padded, calendar.stateText, calendar.reminders, calendar.location))
                if calendar.isCalDAV, let error = calendar.error { print("  " + HumanText.escaped(error)) }
                for problem in calendar.problems { print("  " + HumanText.escaped(problem)) }
            }
        }
    }

    /// `chime calendar remove NAME`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop following a calendar; its reminders are cancelled, its items left as they are.",
            discussion: """
                The files of a folder, and the items on a CalDAV server, are not touched. The \
                password chimed stored for a CalDAV calendar leaves the keyring once no other \
                calendar of that user on that server needs it.

                Example:
                  chime calendar remove personal
                """
        )

        @ArgumentParser.Argument(help: "The calendar's name, as chime calendar list shows it.")
        var name: String

        func run() throws {
            let client = try ChimedClient.connectOrFail()
            let isCalDAV = try client.calendars().first { $0.name == name }?.isCalDAV == true
            let reply = try client.callOrFail(Scheduler1.removeCalendar, [.string(name)])
            let count = Int(reply.first?.integerValue ?? 0)
            if isCalDAV {
                // TRANSLATORS: %1$s is the calendar's name, %2$d how many reminders went with it.
                print(pluralized("No longer following %1$s; %2$d reminder cancelled. Its items on the server are left as they are.",
                                 "No longer following %1$s; %2$d reminders cancelled. Its items on the server are left as they are.",
                                 count: count, name, count))
            } else {
                // TRANSLATORS: %1$s is the calendar's name, %2$d how many reminders went with it.
                print(pluralized("No longer following %1$s; %2$d reminder cancelled. Its files are left as they are.",
                                 "No longer following %1$s; %2$d reminders cancelled. Its files are left as they are.",
                                 count: count, name, count))
            }
        }
    }

    /// The sentence for a `NAME` that is no CalDAV calendar: those there are, or the one
    /// likely meant.
    static func unknownCalDAVCalendar(_ name: String, among calendars: [CalendarText]) -> String {
        let names = calendars.filter(\.isCalDAV).map(\.name)
        guard !names.isEmpty else {
            return localized("No CalDAV calendar is followed; chime calendar add URL --user NAME follows one.")
        }
        if let meant = Spelling.nearest(to: name, among: names) {
            return localized("No CalDAV calendar is named '%1$s'. Did you mean '%2$s'?", name, meant)
        }
        // TRANSLATORS: %2$s lists the names of the CalDAV calendars followed.
        return localized("No CalDAV calendar is named '%1$s'; those followed are %2$s.", name, names.joined(separator: ", "))
    }
}

extension CalendarText {
    /// `Following personal (https://…/personal): 3 reminders to come.`
    var followingLine: String {
        // TRANSLATORS: %1$s is the calendar's name, %2$s its folder or address, %3$d how many reminders its items made.
        pluralized("Following %1$s (%2$s): %3$d reminder to come.", "Following %1$s (%2$s): %3$d reminders to come.",
                   count: reminders, name, location, reminders)
    }
}
