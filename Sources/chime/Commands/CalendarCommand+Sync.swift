import ArgumentParser
import ChimeAPI
import DBus
import JSON
import Localization

extension CalendarCommand {
    /// `chime calendar sync [NAME]`.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync CalDAV calendars now: what changed on the server, and what was pressed here.",
            discussion: """
                Each CalDAV calendar syncs by itself every few minutes (--interval of chime \
                calendar add); this syncs one, or every one, now and says for each how many \
                reminders came new, changed or went with their items, and how many presses were \
                written to the server. A calendar whose sync failed is named on stderr with the \
                reason, and the exit status is then 75. A folder needs no sync: it is read as \
                its files change.

                --json prints an array of objects with the keys \
                \(SyncReportKey.allCases.map(\.rawValue).joined(separator: ", ")) (error only for \
                a sync that failed).

                Examples:
                  chime calendar sync
                  chime calendar sync personal --json
                """
        )

        @ArgumentParser.Argument(help: "The calendar's name, as chime calendar list shows it (default: every CalDAV calendar).")
        var name: String?

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let client = try ChimedClient.connectOrFail()
            let reply: [Value]
            do {
                reply = try client.call(Scheduler1.syncCalendar, [.string(name ?? "")], timeoutMilliseconds: ChimedClient.serverTimeoutMilliseconds)
            } catch {
                if error.name == ChimeError.notFound, let name {
                    throw fail(CalendarCommand.unknownCalDAVCalendar(name, among: try client.calendars()), ExitStatus.failure)
                }
                throw client.failure(error, calling: Scheduler1.syncCalendar)
            }
            let reports = (reply.first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).map(SyncReportText.init)
            try Self.print(reports, json: json)
        }

        /// Prints each report, its error on stderr; exit status 75 when one failed.
        static func print(_ reports: [SyncReportText], json: Bool) throws {
            if json {
                Swift.print(JSONText.array(reports.map(\.json)).rendered())
            } else {
                for report in reports where report.error == nil { Swift.print(report.line) }
            }
            flushStandardOutput()
            for report in reports { if let sentence = report.errorSentence { writeError(sentence) } }
            if reports.contains(where: { $0.error != nil }) { throw ExitStatus.notSynced }
        }
    }

    /// `chime calendar password NAME`.
    struct Password: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a CalDAV calendar's user a new password, then sync it.",
            discussion: """
                The password is asked on the terminal without echo, or read from the first line \
                of standard input (--password-stdin, or when that is not a terminal). chimed \
                stores it in the Secret Service keyring for that user on that server, where \
                every calendar of theirs there finds it, and syncs the calendar at once; the \
                sync is reported as chime calendar sync reports it (exit status 75 when it \
                failed, the password refused among other reasons). A calendar added with \
                --password-command takes no password here: change what that command prints.

                Examples:
                  chime calendar password personal
                  pass show dav | chime calendar password personal --password-stdin
                """
        )

        @ArgumentParser.Argument(help: "The calendar's name, as chime calendar list shows it.")
        var name: String

        @OptionGroup var password: PasswordOptions

        @Flag(help: "Print JSON: the sync's report, as an element of chime calendar sync --json.")
        var json = false

        func run() throws {
            let client = try ChimedClient.connectOrFail()
            let calendars = try client.calendars()
            guard let calendar = calendars.first(where: { $0.isCalDAV && $0.name == name }) else {
                if calendars.contains(where: { $0.name == name }) {
                    throw fail(localized("Calendar %1$s is a folder of files, read as they are; only a CalDAV calendar has a password.", name),
                               ExitStatus.failure)
                }
                throw fail(CalendarCommand.unknownCalDAVCalendar(name, among: calendars), ExitStatus.failure)
            }
            // TRANSLATORS: %1$s is the user, %2$s the server, as cloud.example.org.
            let prompt = localized("New password for %1$s at %2$s: ", calendar.user ?? "", CalDAVAddress.host(calendar.location))
            let typed = try password.read(prompt: prompt)
            let reply = try client.callOrFail(Scheduler1.setCalendarPassword, [.string(name), .string(typed)],
                                              timeoutMilliseconds: ChimedClient.serverTimeoutMilliseconds)
            let report = SyncReportText(reply.first?.stringKeyedEntries ?? [(SyncReportKey.name.rawValue, .string(name))])
            if json {
                Swift.print(report.json.rendered())
                flushStandardOutput()
                if let sentence = report.errorSentence { writeError(sentence) }
                if report.error != nil { throw ExitStatus.notSynced }
                return
            }
            try Sync.print([report], json: false)
        }
    }
}
