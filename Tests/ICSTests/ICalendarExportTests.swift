import DBus
import ICS
import Testing

/// Notifications, as `Get` describes them, written as a VCALENDAR that calendars and
/// chimed read back: one VEVENT each, at its time in its own kind of time, with an alarm then.
struct ICalendarExportTests {
    typealias Notification = [(key: String, value: Value)]

    /// A notification as `Get` describes one, with `more` in place of its defaults.
    func notification(_ id: String, _ title: String = "Tea", when: String = "2030-05-01T10:00:00[Europe/Berlin]",
                      with more: Notification = []) -> Notification {
        let defaults: Notification = [
            ("id", .string(id)), ("title", .string(title)), ("body", .string("")), ("urgency", .byte(1)), ("appName", .string("")),
            ("when", .string(when)), ("calendar", .string("gregorian")), ("state", .string("scheduled")),
        ]
        return defaults.filter { entry in !more.contains { $0.key == entry.key } } + more
    }

    func exported(_ notifications: [Notification]) throws -> (lines: [String], leftOut: [String]) {
        try #require(CalendarText.loadFailure() == nil)
        let (text, leftOut) = CalendarText.export(notifications, systemZone: "Europe/Berlin")
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends CRLF, as RFC 5545 asks")
        return (text.components(separatedBy: "\r\n").dropLast().map { $0 }, leftOut)
    }

    /// The lines of the first VEVENT.
    func firstEvent(_ lines: [String]) -> [String] {
        Array(lines.drop { $0 != "BEGIN:VEVENT" }.prefix { $0 != "END:VEVENT" })
    }

    @Test func aNotificationBecomesAnEventWithAnAlarmAtItsStart() throws {
        let body = "Line one\nline two, with \\ backslash; and more"
        let (lines, leftOut) = try exported([notification("n1", "Tea, then: more", with: [("body", .string(body))])])
        #expect(leftOut.isEmpty)
        #expect(Array(lines.prefix(3)) == ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chime//chime export//EN"])
        let event = firstEvent(lines)
        #expect(event.contains("UID:n1@chime"))
        #expect(event.contains { $0.hasPrefix("DTSTAMP:") && $0.hasSuffix("Z") })
        #expect(event.contains("SUMMARY:Tea\\, then: more"))
        #expect(event.contains("DESCRIPTION:Line one\\nline two\\, with \\\\ backslash\\; and more"))
        #expect(Array(event.suffix(5)) == ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Tea\\, then: more", "TRIGGER:PT0S", "END:VALARM"])
        #expect(!event.contains { $0.hasPrefix("RRULE") || $0.hasPrefix("X-CHIME") }, "nothing but what was given: \(event)")
    }

    @Test(arguments: [
        ("2030-05-01T10:00:00[Europe/Berlin]", "DTSTART;TZID=Europe/Berlin:20300501T100000"),
        ("2030-05-01T10:00:00+02:00", "DTSTART:20300501T080000Z"),
        ("2030-05-01T10:00:00-05:30", "DTSTART:20300501T153000Z"),
        ("2030-05-01T10:00:00Z", "DTSTART:20300501T100000Z"),
        ("2030-05-01T10:00:00", "DTSTART:20300501T100000"),
    ])
    func eachKindOfTimeKeepsItsForm(_ when: String, _ start: String) throws {
        let event = firstEvent(try exported([notification("n", when: when)]).lines)
        #expect(event.filter { $0.hasPrefix("DTSTART") } == [start])
    }

    /// One VTIMEZONE per zone, under the IANA name the DTSTARTs give, not libical's
    /// "/freeassociation.sourceforge.net/…" one.
    @Test func eachZoneIsDefinedOnceUnderItsIANAName() throws {
        let (lines, _) = try exported([
            notification("a"), notification("b", when: "2030-06-01T09:00:00[America/New_York]"), notification("c"),
            notification("d", when: "2030-05-01T10:00:00+02:00"),
        ])
        #expect(lines.filter { $0 == "BEGIN:VTIMEZONE" }.count == 2)
        #expect(Set(lines.filter { $0.hasPrefix("TZID:") }) == ["TZID:Europe/Berlin", "TZID:America/New_York"])
        #expect(lines.firstIndex(of: "BEGIN:VTIMEZONE") ?? .max < lines.firstIndex(of: "BEGIN:VEVENT") ?? 0, "zones come first")
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 4)
    }

    @Test(arguments: [
        ("week", 2 as UInt32, "RRULE:FREQ=WEEKLY;INTERVAL=2"), ("day", 1, "RRULE:FREQ=DAILY"), ("minute", 30, "RRULE:FREQ=MINUTELY;INTERVAL=30"),
        ("month", 1, "RRULE:FREQ=MONTHLY"), ("FREQ=MONTHLY;BYMONTHDAY=1", 1, "RRULE:FREQ=MONTHLY;BYMONTHDAY=1"),
    ])
    func aRepeatBecomesAnRRULE(_ unit: String, _ every: UInt32, _ rule: String) throws {
        let event = firstEvent(try exported([notification("r", with: [("repeat", .string(unit)), ("every", .uint32(every))])]).lines)
        #expect(event.filter { $0.hasPrefix("RRULE") } == [rule])
    }

    /// The RRULE chimed gives (COUNT, UNTIL, BYDAY …) wins over the unit, and each occurrence
    /// skipped is an EXDATE of DTSTART's kind: 6 May 2030, 10:00 in Berlin, is 08:00Z.
    @Test(arguments: [
        ("2030-05-01T10:00:00[Europe/Berlin]", "EXDATE;TZID=Europe/Berlin:20300506T100000"),
        ("2030-05-01T08:00:00Z", "EXDATE:20300506T080000Z"),
        ("2030-05-01T10:00:00", "EXDATE:20300506T100000"),
    ])
    func aRepeatKeepsEveryPartOfItsRuleAndItsSkippedOccurrences(_ when: String, _ exdate: String) throws {
        let event = firstEvent(try exported([notification("r", when: when, with: [
            ("repeat", .string("week")), ("every", .uint32(1)), ("rrule", .string("FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE")),
            ("skipped", .array(element: "x", [.int64(1_904_284_800)])),
        ])]).lines)
        #expect(event.filter { $0.hasPrefix("RRULE") } == ["RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE"])
        #expect(event.filter { $0.hasPrefix("EXDATE") } == [exdate])
    }

    @Test func aNetworkPlaceHasNoPropertyAndIsLeftOutByName() throws {
        let place: Notification = [("id", .string("milk0001")), ("title", .string("Milk")), ("network", .string("Office Wi-Fi"))]
        let (lines, leftOut) = try exported([place, notification("clock")])
        #expect(leftOut == ["milk0001 fires on joining or leaving a network, a place iCalendar has no property for (its places are "
                            + "points on a map); not exported."])
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 1 && lines.contains("UID:clock@chime"))
        #expect(!lines.contains { $0.contains("Milk") })
    }

    @Test func nothingToExportIsAnEmptyCalendar() throws {
        let (lines, leftOut) = try exported([])
        #expect(lines == ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chime//chime export//EN", "END:VCALENDAR"])
        #expect(leftOut.isEmpty)
    }

    @Test func chimesFieldsBecomeXCHIMEProperties() throws {
        let event = firstEvent(try exported([notification("x", with: [
            ("urgency", .byte(2)), ("appName", .string("Garden")), ("badge", .int32(3)), ("expires", .int32(5000)),
            ("lateLimit", .double(600)), ("calendar", .string("hebrew")), ("sound", .string("bell")),
            ("actions", .array(element: "(ss)", [.structure([.string("done"), .string("Done")])])),
            ("userInfo", .variantDictionary([("plant", .string("fern"))])),
        ])]).lines)
        for line in ["X-CHIME-URGENCY:critical", "X-CHIME-APP-NAME:Garden", "X-CHIME-BADGE:3", "X-CHIME-EXPIRES:5000",
                     "X-CHIME-LATE-LIMIT:600.0", "X-CHIME-CALENDAR:hebrew", "X-CHIME-SOUND:bell",
                     "X-CHIME-ACTION;X-CHIME-KEY=done:Done", "X-CHIME-DATA;X-CHIME-KEY=plant:string:fern"] {
            #expect(event.contains(line), "\(line) in \(event)")
        }
    }

    /// What every notification has by default says nothing: normal urgency, the Gregorian
    /// calendar, an empty body or app name.
    @Test func defaultsAreNotWritten() throws {
        let event = firstEvent(try exported([notification("d")]).lines)
        #expect(!event.contains { $0.hasPrefix("X-CHIME") || $0.hasPrefix("DESCRIPTION:") && !$0.hasPrefix("DESCRIPTION:Tea") }, "\(event)")
    }

    // MARK: - Round trip

    /// Export, then import: the requests ask for the same notification (the same instant,
    /// zone, repeat and every field, typed userInfo and button options too).
    @Test func exportThenImportAsksForTheSameNotification() throws {
        let actions: Value = .array(element: "(ss)", [.structure([.string("done"), .string("Done")]),
                                                    .structure([.string("later"), .string("Later, maybe\nor never")])])
        let options: Value = .dictionary(key: "s", value: "a{sv}", [
            DictionaryEntry(key: .string("done"), value: .variantDictionary([("destructive", .bool(true)),
                                                                              ("activationMode", .string("foreground"))])),
        ])
        let userInfo: Value = .variantDictionary([("n", .int64(5)), ("f", .double(2.5)), ("b", .bool(true)), ("s", .string("a\nb,c;d\\e:f"))])
        let full = notification("full", "Tea, then: more; tea", when: "2030-05-01T10:00:00[Europe/Berlin]", with: [
            ("body", .string("Line one\nline two, with \\ backslash")), ("repeat", .string("week")), ("every", .uint32(2)),
            ("urgency", .byte(0)), ("appName", .string("Garden")), ("desktopEntry", .string("org.example.Garden")),
            ("image", .string("/usr/share/icons/tea.png")), ("sound", .string("none")), ("category", .string("reminder")),
            ("defaultAction", .string("Open")), ("textDomain", .string("garden")), ("badge", .int32(3)), ("expires", .int32(5000)),
            ("lateLimit", .double(90.5)), ("actions", actions), ("actionOptions", options), ("userInfo", userInfo),
        ])
        let instant = notification("instant", "Instant", when: "2030-05-01T10:00:00+02:00", with: [("calendar", .string("hebrew")),
                                                                                             ("repeat", .string("month"))])
        let floating = notification("floating", "Floating", when: "2030-05-01T07:30:00")
        try #require(CalendarText.loadFailure() == nil)
        let (text, leftOut) = CalendarText.export([full, instant, floating], systemZone: "Europe/Berlin")
        #expect(leftOut.isEmpty)

        let imported = try components(text).map { try requests($0) }
        #expect(imported.map(\.count) == [1, 1, 1], "one alarm each")
        let expected: [[String: Value]] = [
            ["when": .string("2030-05-01T10:00:00[Europe/Berlin]"), "title": .string("Tea, then: more; tea"),
             "body": .string("Line one\nline two, with \\ backslash"), "repeat": .string("week"), "every": .uint32(2),
             "urgency": .string("low"), "appName": .string("Garden"), "desktopEntry": .string("org.example.Garden"),
             "image": .string("/usr/share/icons/tea.png"), "sound": .string("none"), "category": .string("reminder"),
             "defaultAction": .string("Open"), "textDomain": .string("garden"), "badge": .int64(3), "expires": .int64(5000),
             "lateLimit": .double(90.5), "actions": actions, "actionOptions": options, "userInfo": userInfo],
            // The same instant, in UTC.
            ["when": .string("2030-05-01T08:00:00+00:00"), "title": .string("Instant"), "body": .string(""),
             "calendar": .string("hebrew"), "rrule": .string("FREQ=MONTHLY")],
            ["when": .string("2030-05-01T07:30:00"), "title": .string("Floating"), "body": .string("")],
        ]
        for (got, want) in zip(imported.map { $0.first ?? [:] }, expected) {
            #expect(Set(got.keys) == Set(want.keys), "\(got.keys.sorted()) against \(want.keys.sorted())")
            for (key, value) in want { #expect(got[key] == value, "\(want["title"] ?? .string("")): \(key)") }
        }
    }
}
