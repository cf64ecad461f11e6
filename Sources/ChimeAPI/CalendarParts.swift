/// An iCalendar file cut, at component boundaries, into texts that chimed takes in one
/// `ImportICalendarPart` call each: one D-Bus string holds at most ``Limits/stringBytes``.
/// Every file is read so, whatever its size: a byte-order mark, CRLF, LF or CR line ends,
/// a missing or a stray END mean the same in a file of 1 KiB and one of 1 MiB.
///
/// chime reads no iCalendar itself (chimed does, with libical). It only finds where each
/// calendar's VEVENTs and VTODOs begin and end, and which VTIMEZONEs they name, so that
/// each text is a calendar of its own that says what the same lines said in the file,
/// and chimed's sentences name the file's lines. Each call is one short job for chimed's
/// loop, between which it fires what is due; a file of any size imports part by part.
/// chimed reads every text it is given through the same cut, so a bus caller's text means
/// what the same file means to chime import.
public struct CalendarParts {
    public struct Part: Equatable, Sendable {
        public var text: String
        /// The file's line of each VEVENT's and VTODO's BEGIN in `text`, in order; empty
        /// when `text` is the whole file.
        public var lines: [Int]
    }

    /// A component that does not fit in one text with the calendar's lines it needs.
    public struct Oversized: Equatable, Sendable {
        public var kind: String
        public var line: Int
    }

    public private(set) var parts: [Part] = []
    public private(set) var oversized: [Oversized] = []
    /// False when the file has no calendar at all.
    public private(set) var isCalendar = true
    /// True when the file ends inside a calendar (no END:VCALENDAR): it may have been cut
    /// short, and what came before is read, as it would be in a file of any size.
    public private(set) var isCutShort = false

    public init(_ text: String, limit: Int = Limits.stringBytes) {
        let (calendars, cutShort) = Self.calendars(Self.unfolded(text))
        isCalendar = !calendars.isEmpty
        isCutShort = cutShort
        for calendar in calendars { cut(calendar, limit: limit) }
    }

    // MARK: - Content lines

    /// The content lines of `text`, their folds undone (RFC 5545 3.1), as a file of any size
    /// and line end is read here.
    public static func contentLines(_ text: String) -> [Substring] {
        unfolded(text).map(\.text)
    }

    /// A content line read into its name (upper-cased), parameters (names upper-cased,
    /// quotes taken off) and value: what follows the first colon outside a quoted parameter
    /// (RFC 5545 3.1), so that `X-TITLE="a:b"` does not end the name.
    public struct ContentLine: Sendable {
        public let name: String
        public let parameters: [String: String]
        public let value: String

        public init(_ line: Substring) {
            var quoted = false
            var colon = line.endIndex
            for index in line.indices {
                if line[index] == "\"" { quoted.toggle() }
                if line[index] == ":", !quoted {
                    colon = index
                    break
                }
            }
            value = colon < line.endIndex ? String(line[line.index(after: colon)...]) : ""
            let pieces = line[..<colon].split(separator: ";", omittingEmptySubsequences: false)
            var parameters: [String: String] = [:]
            for piece in pieces.dropFirst() {
                let pair = piece.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                var text = pair[1]
                if text.first == "\"", text.last == "\"", text.count >= 2 { text = text.dropFirst().dropLast() }
                parameters[pair[0].uppercased()] = String(text)
            }
            (name, self.parameters) = (String(pieces.first ?? "").uppercased(), parameters)
        }
    }

    /// A content line folded at 75 octets, never inside a UTF-8 sequence (RFC 5545 3.1):
    /// the first line, then each further one with the space that marks it.
    public static func fold(_ line: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var octets = 0
        for character in line {
            let size = String(character).utf8.count
            if octets + size > (parts.isEmpty ? 75 : 74) {
                parts.append(current)
                (current, octets) = ("", 0)
            }
            current.append(character)
            octets += size
        }
        parts.append(current)
        return parts.enumerated().map { $0.offset == 0 ? $0.element : " " + $0.element }
    }

    // MARK: - Reading the structure

    /// A content line with its folds undone (RFC 5545 3.1), and the file line it starts on.
    private struct Line {
        var text: Substring
        var number: Int
    }

    private struct Component {
        var name: String
        var line: Int
        var lines: [Substring] = []
        var bytes: Int { lines.reduce(0) { $0 + $1.utf8.count + 2 } }
    }

    private struct Calendar {
        var properties: [Substring] = []
        var timeZones: [(id: String, component: Component)] = []
        var reminders: [Component] = []
    }

    private static func unfolded(_ text: String) -> [Line] {
        var lines: [Line] = []
        // By bytes: a String's "\r\n" is one Character, which "\n" does not match. A line
        // ends at CRLF (RFC 5545 3.1), LF or a lone CR (old Mac exports), as an editor
        // counts them; a UTF-8 byte-order mark before the first is no part of it.
        let bytes = Array(text.utf8)
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var physicalLines: [Substring] = []
        var index = start
        while index < bytes.count {
            if bytes[index] == 10 || bytes[index] == 13 {
                physicalLines.append(Substring(decoding: bytes[start..<index], as: UTF8.self))
                index += bytes[index] == 13 && index + 1 < bytes.count && bytes[index + 1] == 10 ? 2 : 1
                start = index
            } else {
                index += 1
            }
        }
        if start < bytes.count { physicalLines.append(Substring(decoding: bytes[start...], as: UTF8.self)) }
        for (index, content) in physicalLines.enumerated() {
            if let first = content.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1].text += content.dropFirst()
            } else if !content.isEmpty {
                lines.append(Line(text: content, number: index + 1))
            }
        }
        return lines
    }

    /// The VCALENDARs of the file, each with its own properties, VTIMEZONEs, VEVENTs and
    /// VTODOs. Anything else (VJOURNAL, lines outside a calendar) chimed would not import
    /// either. A hand-edited or truncated file must lose nothing here, so the cut follows
    /// the names: an END closes the innermost open component of its name and those
    /// opened inside it, writing the ENDs they lack; an END that names nothing open is
    /// left out, as libical ignores it; what is open at the end of the file is closed.
    /// chimed then judges what each component says.
    private static func calendars(_ lines: [Line]) -> (calendars: [Calendar], cutShort: Bool) {
        var calendars: [Calendar] = []
        var calendar: Calendar?
        var open: [String] = []
        var component: Component?
        // Closes the open components down to `depth` open, innermost first.
        func close(down depth: Int) {
            while open.count > depth {
                let name = open.removeLast()
                component?.lines.append(Substring("END:" + name))
                if open.count == 1 { finish() }
                if open.isEmpty, let done = calendar {
                    calendars.append(done)
                    calendar = nil
                }
            }
        }
        func finish() {
            guard let done = component else { return }
            component = nil
            switch done.name {
            case "VEVENT", "VTODO":
                calendar?.reminders.append(done)
            case "VTIMEZONE":
                if let id = done.lines.lazy.compactMap(timeZoneID).first { calendar?.timeZones.append((id, done)) }
            default:
                break
            }
        }
        for line in lines {
            if let name = componentName(line.text, "BEGIN:") {
                open.append(name)
                if open.count == 1 {
                    calendar = name == "VCALENDAR" ? Calendar() : nil
                } else if open.count == 2, calendar != nil {
                    component = Component(name: name, line: line.number)
                }
                component?.lines.append(line.text)
            } else if let name = componentName(line.text, "END:") {
                if let index = open.lastIndex(of: name) { close(down: index) }
            } else if open.count == 1 {
                calendar?.properties.append(line.text)
            } else {
                component?.lines.append(line.text)
            }
        }
        let cutShort = open.first == "VCALENDAR"
        close(down: 0)
        return (calendars, cutShort)
    }

    /// `VEVENT` for `BEGIN:VEVENT` when `prefix` is `BEGIN:`; nil for any other line.
    private static func componentName(_ line: Substring, _ prefix: String) -> String? {
        guard line.count > prefix.count, line.prefix(prefix.count).uppercased() == prefix else { return nil }
        return line.dropFirst(prefix.count).withoutSpaces.uppercased()
    }

    /// The value of a VTIMEZONE's `TZID:` line.
    private static func timeZoneID(_ line: Substring) -> String? {
        guard line.prefix(5).uppercased() == "TZID:" else { return nil }
        return String(line.dropFirst(5))
    }

    /// Whether `component` names the time zone `id` in a TZID parameter.
    private static func names(_ component: Component, zone id: String) -> Bool {
        component.lines.contains { line in
            guard line.contains(id) else { return false }
            let upper = line.uppercased()
            return upper.contains(";TZID=" + id.uppercased()) || upper.contains(";TZID=\"" + id.uppercased() + "\"")
        }
    }

    // MARK: - Cutting

    /// Packs `calendar`'s reminders, in order, into as few texts as fit `limit`, each with
    /// the calendar's properties and the VTIMEZONEs its reminders name.
    private mutating func cut(_ calendar: Calendar, limit: Int) {
        let frame = ["BEGIN:VCALENDAR"] + calendar.properties.map(String.init)
        let frameBytes = frame.reduce(0) { $0 + $1.utf8.count + 2 } + "END:VCALENDAR\r\n".utf8.count
        var chosen: [Component] = [], zones: Set<String> = [], bytes = frameBytes
        func flush() {
            guard !chosen.isEmpty else { return }
            let zoneLines = calendar.timeZones.filter { zones.contains($0.id) }.flatMap(\.component.lines)
            let lines = frame + zoneLines.map(String.init) + chosen.flatMap(\.lines).map(String.init) + ["END:VCALENDAR", ""]
            parts.append(Part(text: lines.joined(separator: "\r\n"), lines: chosen.map(\.line)))
            chosen = []
            zones = []
            bytes = frameBytes
        }
        for reminder in calendar.reminders {
            for attempt in 0..<2 {
                let needed = calendar.timeZones.filter { !zones.contains($0.id) && Self.names(reminder, zone: $0.id) }
                let added = reminder.bytes + needed.reduce(0) { $0 + $1.component.bytes }
                if bytes + added <= limit {
                    chosen.append(reminder)
                    zones.formUnion(needed.map(\.id))
                    bytes += added
                    break
                }
                if attempt == 0, !chosen.isEmpty {
                    flush()
                } else {
                    oversized.append(Oversized(kind: reminder.name, line: reminder.line))
                    break
                }
            }
        }
        flush()
    }
}

extension Substring {
    /// Without leading and trailing white space. (ChimeCore and chime have their own: this
    /// module depends on neither.)
    fileprivate var withoutSpaces: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
