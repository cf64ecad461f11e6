import ArgumentParser
import ChimeAPI
import DBus
import Glibc
import JSON
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
            the system zone. An RRULE of FREQ and INTERVAL becomes --repeat and --every \
            (a monthly or yearly one stays an RRULE, whose months without the day are left \
            out), any other is read as --rrule reads it; EXDATE skips occurrences; each \
            RDATE adds one, rung once. An alarm on a repeating item rings ahead of each occurrence. \
            X-CHIME-* properties (as chime export writes them) give the fields iCalendar \
            has no property for.

            An item imported before (the same UID, RECURRENCE-ID and alarm, or one chime \
            export wrote) is updated in place and keeps its id; one completed since stays \
            completed. Importing a file again says how many were updated.

            Prints, per notification scheduled, its id, its next time, its repeat and its \
            title (--json: an array of {"id", "nextFire", "nextFireLocal", "title", \
            "updated"}). A component that cannot be imported gets one sentence on stderr and \
            nothing of it is scheduled; the others are imported. Past one-time events and \
            cancelled or completed ones are skipped with a note; a repeating event that \
            began in the past starts at its next time. FILE - reads standard input.

            EXIT STATUS
              0   every component was imported or skipped
              1   some were refused (each named on stderr), or the file has no END:VCALENDAR
              65  the file is not iCalendar
              66  the file cannot be read

            Examples:
              chime import ~/Downloads/calendar.ics
              chime export --all > reminders.ics && chime import reminders.ics
            """
    )

    @ArgumentParser.Argument(help: "The .ics file, or - for standard input.")
    var file: String

    @Flag(help: "Print JSON, an array of {\"id\", \"nextFire\", \"nextFireLocal\", \"title\", \"updated\"}, one per notification scheduled.")
    var json = false

    func run() throws {
        guard let text = Self.read(file) else {
            throw fail(localized("cannot read '%1$s': %2$s", file, String(cString: strerror(errno))), ExitCode(66))
        }
        // No iCalendar text has a NUL, and no D-Bus string can carry one.
        let cut = CalendarParts(text.utf8.contains(0) ? String(text.unicodeScalars.filter { $0 != "\0" }) : text)
        guard cut.isCalendar else { throw notICalendar(text) }
        let client = try ChimedClient.connectOrFail()
        var refused = 0, answered = false, new = 0, updated = 0
        var scheduled: [JSONText] = []
        for oversized in cut.oversized {
            refused += 1
            writeError(localized("%1$s (line %2$d): not imported: it is larger than the %3$d bytes chimed reads in one request.",
                                 oversized.kind, oversized.line, Limits.stringBytes))
        }
        for part in cut.parts {
            let reply: [Value]
            do throws(DBusError) {
                reply = try client.call(Scheduler1.importICalendarPart, [.string(part.text), .array(element: "u", part.lines.map { .uint32(UInt32(clamping: $0)) })])
            } catch where error.name == DBusError.invalidArgsName && cut.parts.count > 1 {
                // chimed read this part of a broken file otherwise than the cut did: its
                // components are not imported, and the other parts are.
                refused += part.lines.count
                writeError(localized("the components at lines %1$s: not imported: %2$s",
                                     part.lines.map(String.init).joined(separator: ", "), error.message))
                continue
            } catch where error.name == DBusError.invalidArgsName && error.message.hasPrefix("text: not iCalendar") {
                throw notICalendar(text)
            } catch where [ChimeError.failed, ChimeError.diskFull, ChimeError.busy].contains(error.name) {
                // Nothing of this part is stored, and what kept it out (no libical, a full
                // disk) would keep the next parts out too; those printed above are stored.
                throw fail(error.message, ExitStatus.failure)
            } catch {
                throw client.failure(error, calling: Scheduler1.importICalendarPart)
            }
            let lists = reply.map { ($0.arrayElements ?? []).compactMap(\.stringValue) }
            let described = reply.count == 5 ? (reply[4].arrayElements ?? []).compactMap(\.stringKeyedEntries) : []
            guard lists.count == 5, described.count == lists[0].count else {
                throw fail(localized("chimed answered %1$s with something other than its interface says.", "ImportICalendarPart"), ExitStatus.failure)
            }
            let again = Set(lists[3])
            for (id, entries) in zip(lists[0], described) {
                if json { scheduled.append(Self.json(id, entries, updated: again.contains(id))) } else { print(Self.echo(id, entries)) }
            }
            updated += again.count
            new += lists[0].count - again.count
            for sentence in lists[1] + lists[2] { writeError(sentence) }
            refused += lists[1].count
            answered = answered || lists.contains { !$0.isEmpty }
        }
        if json { print(JSONText.array(scheduled).rendered()) }
        // Read again: what was there is said, so a second import is not taken for a copy.
        if updated > 0 { writeError(localized("%1$d updated in place, %2$d new.", updated, new)) }
        if !answered && cut.oversized.isEmpty { writeError(localized("'%1$s' has no VEVENT or VTODO to import.", file)) }
        if cut.isCutShort {
            refused += 1
            writeError(localized("'%1$s' has no END:VCALENDAR, so it may be cut short; what came before its end was read.", file))
        }
        if refused > 0 { throw ExitStatus.failure }
    }

    /// Says which line that frames a calendar `text` lacks, as chimed does: a file whose
    /// END:VCALENDAR is missing was cut short, and has its BEGIN.
    private func notICalendar(_ text: String) -> ExitCode {
        let lines = Set(text.split(whereSeparator: \.isNewline).map { String($0.filter { !$0.isWhitespace && $0 != "\u{FEFF}" }).uppercased() })
        if !lines.contains("BEGIN:VCALENDAR") {
            return fail(localized("'%1$s' is not an iCalendar file: it has no BEGIN:VCALENDAR.", file), ExitCode(65))
        }
        if !lines.contains("END:VCALENDAR") {
            return fail(localized("'%1$s' is not an iCalendar file: it has no END:VCALENDAR, so it may be cut short.", file), ExitCode(65))
        }
        return fail(localized("'%1$s' is not an iCalendar file that libical can read.", file), ExitCode(65))
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

extension Import {
    /// `3kq9xw2m  2030-03-14 09:30  -  Dentist`: the id, the next time, the repeat and the
    /// title, as chimed stored them.
    static func echo(_ id: String, _ entries: [(key: String, value: Value)]) -> String {
        let fields = HumanText.fields(entries)
        return [
            id, HumanText.localTime(fields[.nextFire]?.integerValue),
            HumanText.repetition(fields[.repeat]?.stringValue, every: fields[.every]?.integerValue, rrule: fields[.rrule]?.stringValue),
            fields[.title]?.stringValue ?? "",
        ].joined(separator: "  ")
    }

    /// The same as JSON: `{"id", "nextFire", "nextFireLocal", "title", "updated"}`.
    static func json(_ id: String, _ entries: [(key: String, value: Value)], updated: Bool) -> JSONText {
        let fields = HumanText.fields(entries)
        var object: [(String, JSONText)] = [("id", .string(id))]
        if let next = fields[.nextFire]?.integerValue {
            object.append((NotificationKey.nextFire.rawValue, .integer(next)))
            object.append((NotificationKey.nextFireLocal.rawValue, .string(HumanText.isoTime(next))))
        }
        if let title = fields[.title]?.stringValue { object.append((NotificationKey.title.rawValue, .string(title))) }
        object.append(("updated", .bool(updated)))
        return .object(object)
    }
}
