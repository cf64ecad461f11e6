import ArgumentParser
import ChimeAPI
import DBus
import ICS
import Glibc
import Localization

/// `chime import`: schedules the reminders of an iCalendar file (Thunderbird, GNOME
/// Calendar, a web calendar's export, or chime export).
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Schedule the events and tasks of an iCalendar (.ics) file.",
        discussion: """
            Each VEVENT fires at DTSTART, or at each of its VALARMs' TRIGGERs (relative to \
            DTSTART, or to DTEND with RELATED=END, or absolute); each VTODO at DUE or its \
            VALARMs. SUMMARY is the title, DESCRIPTION the body. A DTSTART in UTC is an \
            instant, one with a TZID a wall-clock time in that zone, a floating one follows \
            the system zone. An RRULE of FREQ and INTERVAL becomes --repeat and --every; \
            other rules, RDATE and EXDATE are refused. X-CHIME-* properties (as chime export \
            writes them) give the fields iCalendar has no property for.

            Prints, per notification scheduled, its id, its next time, its repeat and its \
            title. A component that cannot be imported gets one sentence on stderr and \
            nothing of it is scheduled; the others are imported. Past one-time events and \
            cancelled or completed ones are skipped with a note. FILE - reads standard input.

            EXIT STATUS
              0   every component was imported or skipped
              1   some were refused (each named on stderr)
              65  the file is not iCalendar
              66  the file cannot be read

            Examples:
              chime import ~/Downloads/calendar.ics
              chime export --all > reminders.ics && chime import reminders.ics
            """
    )

    @ArgumentParser.Argument(help: "The .ics file, or - for standard input.")
    var file: String

    func run() throws {
        if let failure = CalendarText.loadFailure() { throw fail(failure, ExitStatus.unavailable) }
        guard let text = Self.read(file) else {
            throw fail(localized("cannot read '%1$s': %2$s", file, String(cString: strerror(errno))), ExitCode(66))
        }
        guard let components = CalendarText.components(of: text) else {
            throw fail(localized("'%1$s' is not an iCalendar file: it has no BEGIN:VCALENDAR.", file), ExitCode(65))
        }
        let client = try SchedulerClient.connectOrFail()
        var refused = 0
        for component in components {
            do {
                try client.importPlan(try component.plan.get())
            } catch let refusal as ImportRefusal {
                if case .refused = refusal { refused += 1 }
                writeError(refusal.sentence(component.label))
            }
        }
        if components.isEmpty { writeError(localized("'%1$s' has no VEVENT or VTODO to import.", file)) }
        if refused > 0 { throw ExitStatus.failure }
    }

    /// The whole file, or standard input for `-`; nil when it cannot be read.
    static func read(_ path: String) -> String? {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { if descriptor != 0 { close(descriptor) } }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SchedulerClient {
    /// Schedules every alarm of `plan`, or none: an alarm chimed refuses cancels those
    /// already scheduled. Prints each id with what chimed understood. Throws
    /// ``ImportRefusal`` for the component, an exit status when chimed is out of reach.
    func importPlan(_ plan: ImportPlan) throws {
        let requests = try plan.requests { when, options in
            do throws(DBusError) {
                let reply = try call(Scheduler1.nextFireTimestamps, [.string(when), .stringDictionary(options), .uint32(1)])
                return (reply.first?.arrayElements ?? []).compactMap(\.integerValue).first
            } catch { throw refusal(error, Scheduler1.nextFireTimestamps) }
        }
        var scheduled: [String] = [], echoes: [String] = []
        for (request, next) in requests {
            do throws(DBusError) {
                let id = try call(Scheduler1.schedule, [.variantDictionary(request)]).first?.stringValue ?? ""
                scheduled.append(id)
                let unit = request.first { $0.0 == "repeat" }?.1.stringValue
                let every = request.first { $0.0 == "every" }?.1.integerValue
                echoes.append([id, HumanText.localTime(next), HumanText.repetition(unit, every: every), plan.title].joined(separator: "  "))
            } catch {
                for id in scheduled { _ = try? call(Scheduler1.cancel, [.string(id)]) }
                throw refusal(error, Scheduler1.schedule)
            }
        }
        for echo in echoes { print(echo) }
    }

    /// chimed's answer to a bad request refuses the component; a chimed out of reach ends
    /// the import, as it ends every command (exit status 69).
    private func refusal(_ error: DBusError, _ method: MethodDeclaration) -> any Error {
        let refusals = [DBusError.invalidArgsName, ChimeError.failed, ChimeError.diskFull, ChimeError.busy]
        return refusals.contains(error.name) ? ImportRefusal.refused(error.message) : failure(error, calling: method)
    }
}
