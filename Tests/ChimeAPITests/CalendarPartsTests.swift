@testable import ChimeAPI
import Testing

/// Cutting an iCalendar file into texts chimed takes in one call each.
struct CalendarPartsTests {
    static func event(_ n: Int, zone: String? = nil, description: String = "") -> String {
        let start = zone.map { "DTSTART;TZID=\($0):20300401T100000" } ?? "DTSTART:20300401T100000Z"
        return "BEGIN:VEVENT\nUID:\(n)@example.org\nSUMMARY:Event \(n)\n\(start)\n"
            + (description.isEmpty ? "" : "DESCRIPTION:\(description)\n")
            + "BEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-PT5M\nEND:VALARM\nEND:VEVENT\n"
    }

    static func zone(_ id: String) -> String {
        "BEGIN:VTIMEZONE\nTZID:\(id)\nBEGIN:STANDARD\nDTSTART:16010101T030000\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nEND:STANDARD\nEND:VTIMEZONE\n"
    }

    /// The line of each `BEGIN:VEVENT` of `text`, counted as an editor does.
    static func beginLines(_ text: String) -> [Int] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { $0.element == "BEGIN:VEVENT" ? $0.offset + 1 : nil }
    }

    @Test func aSmallFileIsReadAsALargeOneIs() {
        let cut = CalendarParts("BEGIN:VCALENDAR\n" + Self.event(1) + "END:VCALENDAR\n")
        #expect(cut.isCalendar && cut.oversized.isEmpty)
        #expect(cut.parts.map(\.lines) == [[2]])
        #expect(cut.parts.first?.text.hasPrefix("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1@example.org\r\n") == true)
        for text in ["Just some notes", ""] { #expect(!CalendarParts(text).isCalendar) }
    }

    /// A byte-order mark, and lines ended by CR (old Mac exports), CRLF or LF in one file:
    /// each line counts once, as an editor counts it, in a small file as in a large one.
    @Test(arguments: [100_000, 1024])
    func aByteOrderMarkAndEveryKindOfLineEndAreRead(limit: Int) {
        let events = (1...20).map { n in Self.event(n).replacingOccurrences(of: "\n", with: ["\r", "\r\n", "\n"][n % 3]) }
        let text = "\u{FEFF}BEGIN:VCALENDAR\r" + events.joined() + "END:VCALENDAR\r\n"
        let cut = CalendarParts(text, limit: limit)
        #expect(cut.isCalendar && cut.oversized.isEmpty)
        #expect(cut.parts.flatMap(\.lines) == Array(stride(from: 2, through: 2 + 19 * 9, by: 9)))
        #expect(cut.parts.allSatisfy { !$0.text.contains("\u{FEFF}") && !$0.text.replacingOccurrences(of: "\r\n", with: "").contains("\r") })
    }

    /// Only END:VCALENDAR is missing (a file cut short after its last event): what is there
    /// is read, and the cut says the file may be cut short.
    @Test func aCalendarWithoutItsEndIsReadToTheEndAndSaidToBeCutShort() {
        let cut = CalendarParts("BEGIN:VCALENDAR\n" + Self.event(1) + Self.event(2))
        #expect(cut.isCalendar && cut.isCutShort)
        #expect(cut.parts.flatMap(\.lines) == [2, 11])
        #expect(!CalendarParts("BEGIN:VCALENDAR\n" + Self.event(1) + "END:VCALENDAR\n").isCutShort)
    }

    @Test func aLargeFileIsCutAtComponentsWithTheirFileLines() throws {
        let header = "BEGIN:VCALENDAR\nPRODID:-//Example//EN\nVERSION:2.0\n"
        let text = header + Self.zone("W. Europe Standard Time") + Self.zone("Unused Zone")
            + (1...300).map { Self.event($0, zone: $0 % 2 == 0 ? "W. Europe Standard Time" : nil) }.joined()
            + "BEGIN:VJOURNAL\nSUMMARY:not a reminder\nEND:VJOURNAL\nEND:VCALENDAR\n"
        let cut = CalendarParts(text, limit: 4096)
        #expect(cut.isCalendar && cut.oversized.isEmpty)
        #expect(cut.parts.count > 1)
        #expect(cut.parts.flatMap(\.lines) == Self.beginLines(text), "every event once, in order, at its file line")
        for part in cut.parts {
            #expect(part.text.utf8.count <= 4096)
            #expect(part.text.hasPrefix("BEGIN:VCALENDAR\r\nPRODID:-//Example//EN\r\nVERSION:2.0\r\n"))
            #expect(part.text.hasSuffix("END:VCALENDAR\r\n"))
            #expect(part.lines.count == part.text.components(separatedBy: "BEGIN:VEVENT").count - 1)
            #expect(part.text.contains("TZID:W. Europe Standard Time"), "the zone its events name goes with them")
            #expect(!part.text.contains("Unused Zone") && !part.text.contains("VJOURNAL"))
        }
    }

    @Test func foldsAreUndoneAndLineEndingsKept() throws {
        let folded = "BEGIN:VCALENDAR\r\n" + (1...40).map { n in
            "BEGIN:VEVENT\r\nSUMMARY:A long\r\n  title \(n)\r\nDTSTART;\r\n TZID=Europe/Berlin:20300401T100000\r\nEND:VEVENT\r\n"
        }.joined() + "END:VCALENDAR\r\n"
        let cut = CalendarParts(folded, limit: 1024)
        #expect(cut.parts.count > 1)
        #expect(cut.parts.flatMap(\.lines) == Array(stride(from: 2, through: 2 + 39 * 6, by: 6)))
        #expect(cut.parts[0].text.contains("SUMMARY:A long title 1\r\nDTSTART;TZID=Europe/Berlin:20300401T100000\r\n"))
    }

    @Test func aComponentTooLargeForOneTextIsNamedByItsLine() {
        let text = "BEGIN:VCALENDAR\n" + Self.event(1) + Self.event(2, description: String(repeating: "x", count: 5000))
            + Self.event(3) + "END:VCALENDAR\n"
        let cut = CalendarParts(text, limit: 4096)
        let lines = Self.beginLines(text)
        #expect(cut.oversized == [CalendarParts.Oversized(kind: "VEVENT", line: lines[1])])
        #expect(cut.parts.flatMap(\.lines) == [lines[0], lines[2]])
    }

    @Test func severalCalendarsAreCutApartAndTextThatIsNoCalendarIsSaid() {
        let calendars = (1...2).map { c in
            "BEGIN:VCALENDAR\nX-WR-CALNAME:Calendar \(c)\n" + (1...20).map { Self.event(c * 100 + $0) }.joined() + "END:VCALENDAR\n"
        }.joined()
        let cut = CalendarParts(calendars, limit: 4096)
        #expect(cut.parts.flatMap(\.lines) == Self.beginLines(calendars))
        #expect(cut.parts.allSatisfy { $0.text.components(separatedBy: "X-WR-CALNAME").count == 2 }, "each part has one calendar's properties")

        let notes = CalendarParts(String(repeating: "Just some notes\n", count: 500), limit: 4096)
        #expect(!notes.isCalendar && notes.parts.isEmpty)
    }

    @Test func brokenStructureNeitherLosesNorInventsComponents() {
        // Unended components and stray ENDs: chimed judges what each says.
        let unended = "BEGIN:VCALENDAR\n" + (1...30).map { Self.event($0) }.joined() + "BEGIN:VEVENT\nSUMMARY:cut off\n"
        let cut = CalendarParts(unended, limit: 2048)
        #expect(cut.parts.flatMap(\.lines) == Self.beginLines(unended))
        let stray = String(repeating: "END:VEVENT\nEND:VCALENDAR\n", count: 200) + "BEGIN:VCALENDAR\n" + Self.event(1) + "END:VCALENDAR\n"
        let strayCut = CalendarParts(stray, limit: 1024)
        #expect(strayCut.parts.flatMap(\.lines) == Self.beginLines(stray))

        // A stray END in the middle of a calendar closes nothing: the events after it are cut too.
        let strayInside = "BEGIN:VCALENDAR\n" + (1...30).map { Self.event($0) + ($0 == 10 ? "END:VEVENT\nEND:VTODO\n" : "") }.joined()
            + "END:VCALENDAR\n"
        #expect(CalendarParts(strayInside, limit: 2048).parts.flatMap(\.lines) == Self.beginLines(strayInside))

        // An END missing in the middle: that event holds the rest, as libical reads it too,
        // and chimed says so; it is closed where the calendar ends.
        let missing = "BEGIN:VCALENDAR\n" + (1...30).map { $0 == 25 ? Self.event($0).replacingOccurrences(of: "END:VEVENT\n", with: "") : Self.event($0) }
            .joined() + "END:VCALENDAR\n"
        let missingCut = CalendarParts(missing, limit: 2048)
        #expect(missingCut.oversized.isEmpty && missingCut.parts.flatMap(\.lines) == Array(Self.beginLines(missing).prefix(25)))

        for part in cut.parts + strayCut.parts + missingCut.parts {
            let lines = part.text.components(separatedBy: "\r\n")
            #expect(lines.count { $0.hasPrefix("BEGIN:") } == lines.count { $0.hasPrefix("END:") }, "every part is whole: \(part.text)")
        }
    }
}
