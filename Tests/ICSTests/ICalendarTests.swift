import DBus
import ICS
import Testing

/// Texts as libical reads them: what is no calendar and why, how each component is named,
/// and input broken, cut short or oversized answered with a sentence, never a crash.
struct ICalendarTests {
    @Test(arguments: [
        ("Just some notes\n", "it has no BEGIN:VCALENDAR."),
        ("", "it has no BEGIN:VCALENDAR."),
        (String(repeating: "x", count: 20_000), "it has no BEGIN:VCALENDAR."),
        ("BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:x\nDTSTART:20300101T000000Z\nEND:VEVENT\n",
         "it has no END:VCALENDAR, so it may be cut short."),
        ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:x\r\nDTSTART:2030010", "it has no END:VCALENDAR, so it may be cut short."),
        (String(repeating: "BEGIN:VCALENDAR\n", count: 2), "it has no END:VCALENDAR, so it may be cut short."),
    ])
    func aTextThatIsNoCalendarIsSaidWhy(_ text: String, _ why: String) throws {
        try #require(CalendarText.loadFailure() == nil)
        #expect(CalendarText.components(of: text) == nil)
        #expect(CalendarText.whyNotCalendar(text) == why)
    }

    /// An event whose END is missing, with nothing after it to hold, ends with its
    /// calendar, as chime import's cut reads it: libical alone read no calendar at all.
    @Test func anEventWhoseEndIsMissingAtTheEndOfItsCalendarIsRead() throws {
        let found = try components("BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:a\nDTSTART:20300101T100000Z\nEND:VCALENDAR\n")
        #expect(found.map(\.label) == [#"VEVENT "a" (line 2)"#])
        #expect(found.map { outcome($0) } == ["scheduled"])
    }

    @Test func randomBytesAreNoCalendarInsideOrOutsideOne() throws {
        try #require(CalendarText.loadFailure() == nil)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let junk = String(decoding: (0..<4_000).map { _ in UInt8.random(in: 1...255, using: &generator) }, as: UTF8.self)
            #expect(CalendarText.components(of: junk) == nil)
            // Whatever libical makes of it, each component it finds has an outcome.
            for found in CalendarText.components(of: "BEGIN:VCALENDAR\n" + junk + "\nEND:VCALENDAR\n") ?? [] { _ = outcome(found) }
        }
    }

    // MARK: - Broken and oversized

    /// An event whose END is missing holds those after it: it is refused by name rather
    /// than they be lost without a word.
    @Test(arguments: [("BEGIN:VEVENT", "END:VEVENT", "VEVENT"), ("BEGIN:VTODO", "END:VTODO", "VTODO")])
    func anEventWhoseEndIsMissingIsRefusedForWhatItHolds(_ begin: String, _ end: String, _ kind: String) throws {
        let text = calendar(["BEGIN:VEVENT", "UID:open", "SUMMARY:Open", "DTSTART:20300101T100000Z",
                             begin, "UID:inner", "SUMMARY:Inner", "DTSTART:20300101T100000Z", "DUE:20300101T100000Z", end,
                             "END:VEVENT"])
        let found = try components(text)
        #expect(found.map(\.label) == [#"VEVENT "Open" (UID open, line 4)"#], "the outer one's line: the inner one is in it")
        #expect(outcome(found[0]) == "refused: it holds a \(kind) of its own: its END is missing")
    }

    @Test func deepNestingCutShortIsNoCalendar() throws {
        try #require(CalendarText.loadFailure() == nil)
        let deep = "BEGIN:VCALENDAR\n" + String(repeating: "BEGIN:VEVENT\n", count: 1_000) + String(repeating: "END:VEVENT\n", count: 1_000)
        #expect(CalendarText.components(of: deep) == nil)
        #expect(CalendarText.whyNotCalendar(deep) == "it has no END:VCALENDAR, so it may be cut short.")
        let closed = deep + "END:VCALENDAR\n"
        let found = CalendarText.components(of: closed)
        #expect(found?.count ?? 0 <= 1)
        #expect(found?.allSatisfy { outcome($0).hasPrefix("refused: ") } ?? true)
    }

    @Test func manyAlarmsMakeOneRequestEach() throws {
        let alarms = (0..<300).flatMap { ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT\($0 + 1)M", "END:VALARM"] }
        let found = try component(calendar(event("many", "Many", ["DTSTART:20300101T100000Z"] + alarms)))
        let whens = try whens(found)
        #expect(whens.count == 300)
        #expect(whens.first == "2030-01-01T09:59:00+00:00" && whens.last == "2030-01-01T05:00:00+00:00")
    }

    /// Far larger than the 16 KiB a D-Bus string of chimed's may hold, which chime import
    /// cuts files to: the module itself reads texts of any size.
    @Test func oversizedPropertiesAndComponentsAreReadWhole() throws {
        let description = String(repeating: "agenda ", count: 300_000) + "end"
        let summary = String(repeating: "é", count: 200_000)
        let text = calendar(event("big", summary, ["DTSTART:20300101T100000Z", "DESCRIPTION:" + description]
                                      + Array(repeating: "X-OTHER-APP;A=1;B=2:y", count: 20_000)))
        let request = try #require(try requests(try component(text)).first)
        // Counted, not compared: a failure would print megabytes.
        let body = request["body"]?.stringValue ?? ""
        #expect(body.utf8.count == description.utf8.count && body.hasSuffix("agenda end"))
        #expect(request["title"]?.stringValue?.count == 200_000)
    }

    @Test func aThousandEventsAreReadInTheirOrder() throws {
        let lines = (0..<1_000).flatMap { event("e\($0)", "Event \($0)", ["DTSTART:20300101T100000Z"]) }
        let found = try components(calendar(lines))
        #expect(found.count == 1_000)
        #expect(found.last?.label == #"VEVENT "Event 999" (UID e999, line 4999)"#)
    }

    /// An END that closes nothing open would end the VCALENDAR for libical, and the
    /// components after it land outside any calendar: read through chime import's cut,
    /// each is still imported, and named by its line.
    @Test func componentsAfterAStrayEndAreNotLost() throws {
        let text = calendar(event("first", "First", ["DTSTART:20300101T100000Z"]) + ["END:VEVENT"]
                                + event("second", "Second", ["DTSTART:20300101T100000Z"]))
        let found = try components(text)
        #expect(found.map(\.label) == [#"VEVENT "First" (UID first, line 4)"#, #"VEVENT "Second" (UID second, line 10)"#])
        #expect(found.allSatisfy { outcome($0) == "scheduled" })
    }

    // MARK: - Labels and lines

    /// With the line ends RFC 5545 prescribes and with bare newlines, which a Swift String
    /// counts differently ("\r\n" is one Character): the same lines are named.
    @Test(arguments: ["\r\n", "\n"])
    func eachComponentIsNamedByItsKindTitleUIDAndLine(_ lineEnd: String) throws {
        let text = calendar(event("a@example.org", "Dentist", ["DTSTART:20300101T100000Z"])
                                + ["BEGIN:VTODO", "SUMMARY:Taxes", "DUE:20300101T100000Z", "END:VTODO"]
                                + ["BEGIN:VJOURNAL", "SUMMARY:Diary", "END:VJOURNAL"]
                                + ["BEGIN:VEVENT", "UID:b", "DTSTART:20300101T100000Z", "END:VEVENT"], lineEnd: lineEnd)
        #expect(try components(text).map(\.label) == [
            #"VEVENT "Dentist" (UID a@example.org, line 4)"#, #"VTODO "Taxes" (line 9)"#, "VEVENT (UID b, line 16)",
        ])
    }

    /// A part of a larger file names the file's lines, when it gives one per component.
    @Test func theLinesGivenAreNamedWhenThereIsOnePerComponent() throws {
        let text = calendar(event("a", "A", ["DTSTART:20300101T100000Z"]) + event("b", "B", ["DTSTART:20300101T100000Z"]))
        #expect(try components(text, lines: [1004, 1010]).map(\.label) == [#"VEVENT "A" (UID a, line 1004)"#, #"VEVENT "B" (UID b, line 1010)"#])
        #expect(try components(text, lines: [1004]).map(\.label) == [#"VEVENT "A" (UID a, line 4)"#, #"VEVENT "B" (UID b, line 9)"#])
    }

    @Test func theComponentsOfSeveralCalendarsInOneTextAreReadInOrder() throws {
        let text = calendar(event("a", "A", ["DTSTART:20300101T100000Z"]))
            + calendar(["BEGIN:VTODO", "UID:b", "SUMMARY:B", "DUE:20300101T100000Z", "END:VTODO"])
        let found = try components(text)
        #expect(found.map(\.label) == [#"VEVENT "A" (UID a, line 4)"#, #"VTODO "B" (UID b, line 13)"#])
        #expect(found.map { outcome($0) } == ["scheduled", "scheduled"])
    }

    @Test func aCalendarWithoutEventsOrTasksHasNoComponents() throws {
        #expect(try components(calendar(["BEGIN:VJOURNAL", "SUMMARY:Diary", "END:VJOURNAL"])).isEmpty)
        #expect(try components(calendar([])).isEmpty)
    }
}
