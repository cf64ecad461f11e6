import ArgumentParser
import ChimeAPI
import DBus
import Localization

/// `chime export`: scheduled notifications as an iCalendar file, for a calendar app or
/// for chime import on another machine.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print notifications as an iCalendar (.ics) file.",
        discussion: """
            Each notification becomes a VEVENT: SUMMARY its title, DESCRIPTION its body, \
            DTSTART its time (in UTC for an instant, with TZID and a VTIMEZONE for a zoned \
            time, floating otherwise), an RRULE its repeat, and a VALARM that fires at \
            DTSTART. Buttons, sound, badge, user info, category and the other fields \
            iCalendar has no property for are X-CHIME-* properties, so chime import of the \
            file schedules the same notifications again. One that fires at a place on a map \
            is a VTODO whose alarms ring on arriving or leaving (RFC 9074 PROXIMITY with a \
            VLOCATION, and Apple Reminders' X-APPLE-PROXIMITY); one that fires on a network \
            is left out with a note on stderr (exit status 1).

            Examples:
              chime export --all > reminders.ics
              chime export 3kq9xw2m > dentist.ics
            """
    )

    @Flag(help: "Export everything scheduled.")
    var all = false

    @ArgumentParser.Argument(help: "The ids to export (chime list shows them).")
    var ids: [String] = []

    func validate() throws {
        guard all != !ids.isEmpty else { throw ValidationError(localized("give --all or the ids to export, not both.")) }
    }

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        let reply: [Value]
        do throws(DBusError) {
            reply = try client.call(Scheduler1.exportICalendar, [.stringArray(all ? [] : ids)])
        } catch {
            // The contract's own sentence tells which id chimed did not find.
            let unknown = ids.first { error.name == ChimeError.notFound && error.message == ChimeError.notFound($0).message }
            throw client.failure(error, calling: Scheduler1.exportICalendar, about: unknown)
        }
        guard reply.count == 2, let calendar = reply[0].stringValue else {
            throw fail(localized("chimed answered %1$s with something other than its interface says.", "ExportICalendar"), ExitStatus.failure)
        }
        let leftOut = (reply[1].arrayElements ?? []).compactMap(\.stringValue)
        for sentence in leftOut { writeError(sentence) }
        print(calendar, terminator: "")
        if !leftOut.isEmpty { throw ExitStatus.failure }
    }
}
