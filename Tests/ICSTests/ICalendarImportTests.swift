import DBus
import ICS
import Testing

/// VEVENTs and VTODOs read as Schedule requests: one per alarm, at the alarm's time in the
/// component's own zone, floating or as an instant; and each component that cannot be
/// imported refused with the reason, one by one.
struct ICalendarImportTests {
    // MARK: - What calendars write

    @Test func thunderbirdAlarmsFireInTheEventsOwnZone() throws {
        let found = try components(try sample("thunderbird"))
        #expect(found.map(\.label) == [
            #"VEVENT "Dentist" (UID 6f1c2d3e-1111-4a5b-9c8d-0123456789ab, line 22)"#,
            #"VEVENT "Call the garage" (UID 7a2b3c4d-2222-4a5b-9c8d-0123456789ab, line 40)"#,
        ])
        let dentist = try requests(found[0])
        // TRIGGER -PT15M before DTSTART 09:30 in Berlin, kept as Berlin wall-clock time.
        #expect(dentist.map { $0["when"] } == [.string("2030-12-03T09:15:00[Europe/Berlin]")])
        #expect(dentist.first?["title"] == .string("Dentist"))
        #expect(dentist.first?["body"] == .string("Dr. Weber, Hauptstraße 5\nBring the insurance card"), "RFC 5545 escapes undone")
        // Thunderbird's old /mozilla.org/ TZID prefix, and RELATED=END: 5 minutes after DTEND.
        #expect(try whens(found[1]) == ["2031-01-15T14:35:00[Europe/Berlin]"])
    }

    @Test func anAllDayEventsAlarmCountsFromTheStartOfItsDayAndAFloatingTimeStaysFloating() throws {
        let found = try components(try sample("gnome-calendar"))
        // 15 hours before the day of Christmas Eve: 09:00 the day before, floating as the date is.
        #expect(try whens(found[0]) == ["2030-12-23T09:00:00"])
        let plants = try requests(found[1])
        #expect(plants.count == 1)
        #expect(plants.first?["when"] == .string("2030-06-01T07:30:00"), "no zone, no offset")
        #expect(plants.first?["body"] == .string("The fern first"))
        #expect(plants.first?["repeat"] == .string("day"))
        #expect(plants.first?["every"] == .uint32(3))
    }

    @Test func googlesUTCTimesBecomeInstantsWithOneRequestPerAlarm() throws {
        let found = try components(try sample("google"))
        // 08:00Z less 10 minutes; Google's empty DESCRIPTION and LOCATION lines are no error.
        #expect(try whens(found[0]) == ["2030-01-08T07:50:00+00:00"])
        #expect(try requests(found[0]).first?["body"] == .string(""))
        // The DISPLAY alarm; the EMAIL one is Google's to send, and is named.
        #expect(try whens(found[1]) == ["2030-03-15T15:30:00+00:00"])
        #expect(try found[1].plan.get().notes == ["its EMAIL alarms are not ones Chime shows"])
        #expect(try requests(found[1]).allSatisfy { $0["title"] == .string("Quarterly review") })
    }

    @Test func tasksRemindAtTheirAlarmOrElseAtTheirDue() throws {
        let found = try components(try sample("tasks"))
        #expect(found.count == 3 && found.allSatisfy { $0.label.hasPrefix("VTODO \"") })
        // An absolute TRIGGER is an instant, whatever the DUE's zone.
        #expect(try whens(found[0]) == ["2031-05-30T07:00:00+00:00"])
        #expect(try whens(found[1]) == ["2030-09-01T09:00:00"])
        #expect(outcome(found[2]) == "skipped: it is cancelled or completed")
    }

    /// Outlook names its zones itself ("W. Europe Standard Time"): a time in a zone only the
    /// file's VTIMEZONE defines is read through it, as an instant.
    @Test func aZoneOnlyTheFilesVTIMEZONEDefinesMakesAnInstant() throws {
        let text = calendar([
            "BEGIN:VTIMEZONE", "TZID:W. Europe Standard Time",
            "BEGIN:STANDARD", "DTSTART:16011028T030000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
            "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:16010325T020000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
            "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "END:DAYLIGHT", "END:VTIMEZONE",
        ] + event("outlook", "Meeting", [
            "DTSTART;TZID=W. Europe Standard Time:20300401T100000",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "END:VALARM",
        ]) + event("winter", "Winter meeting", ["DTSTART;TZID=W. Europe Standard Time:20301201T100000"]))
        let found = try components(text)
        // 10:00 CEST on 1 April less 15 minutes.
        #expect(try whens(found[0]) == ["2030-04-01T07:45:00+00:00"])
        // In winter time: an hour more to UTC.
        #expect(try whens(found[1]) == ["2030-12-01T09:00:00+00:00"])
    }

    @Test(arguments: [
        // (DTSTART, the when asked for).
        ("DTSTART;TZID=America/New_York:20300704T090000", "2030-07-04T09:00:00[America/New_York]"),
        ("DTSTART;TZID=/freeassociation.sourceforge.net/Tzfile/Asia/Tokyo:20300101T100000", "2030-01-01T10:00:00[Asia/Tokyo]"),
        ("DTSTART;TZID=UTC:20300101T100000", "2030-01-01T10:00:00+00:00"),
        ("DTSTART:20300101T100000Z", "2030-01-01T10:00:00+00:00"),
        ("DTSTART:20300101T100000", "2030-01-01T10:00:00"),
        ("DTSTART;VALUE=DATE:20300101", "2030-01-01T00:00:00"),
    ])
    func eachFormOfStartIsKeptAsItsKindOfTime(_ start: String, _ when: String) throws {
        #expect(try whens(try component(calendar(event("e", "E", [start])))) == [when])
    }

    @Test(arguments: [
        // (the event's times, the TRIGGER line, the when asked for).
        ("DTSTART:20300101T100000Z", "TRIGGER:-PT1H30M", "2030-01-01T08:30:00+00:00"),
        ("DTSTART:20300101T100000Z", "TRIGGER:P1D", "2030-01-02T10:00:00+00:00"),
        ("DTSTART:20300101T100000Z", "TRIGGER;VALUE=DATE-TIME:20291231T120000Z", "2029-12-31T12:00:00+00:00"),
        ("DTSTART:20300101T100000Z\r\nDTEND:20300101T120000Z", "TRIGGER;RELATED=END:-PT10M", "2030-01-01T11:50:00+00:00"),
        // Without DTEND an alarm related to the end counts from the start.
        ("DTSTART:20300101T100000Z", "TRIGGER;RELATED=END:-PT1H", "2030-01-01T09:00:00+00:00"),
        // An all-day event ends at the start of its DTEND day.
        ("DTSTART;VALUE=DATE:20300101\r\nDTEND;VALUE=DATE:20300103", "TRIGGER;RELATED=END:-PT1H", "2030-01-02T23:00:00"),
        ("DTSTART;TZID=Europe/Berlin:20300330T010000", "TRIGGER:P1D", "2030-03-31T01:00:00[Europe/Berlin]"),
    ])
    func anAlarmsTriggerMovesItsTime(_ times: String, _ trigger: String, _ when: String) throws {
        let text = calendar(event("e", "E", [times, "BEGIN:VALARM", "ACTION:DISPLAY", trigger, "END:VALARM"]))
        #expect(try whens(try component(text)) == [when])
    }

    // MARK: - What is refused

    @Test(arguments: [
        (event("nostart", "No start", []), "refused: it has no DTSTART"),
        (["BEGIN:VTODO", "UID:t", "SUMMARY:Task", "END:VTODO"], "refused: it has no DUE or DTSTART, so no time to remind at"),
        (["BEGIN:VEVENT", "UID:u", "DTSTART:20300101T100000Z", "END:VEVENT"], "refused: it has no SUMMARY to show as the title"),
        (event("z", "Zone", ["DTSTART;TZID=Mars/Olympus_Mons:20300101T100000"]),
         "refused: TZID 'Mars/Olympus_Mons' is no known time zone and the file has no VTIMEZONE for it"),
        (event("a", "Alarm", ["DTSTART:20300101T100000Z", "BEGIN:VALARM", "ACTION:DISPLAY", "END:VALARM"]),
         "refused: a VALARM has no TRIGGER"),
        (event("two", "Two rules", ["DTSTART:20300101T100000Z", "RRULE:FREQ=DAILY", "RRULE:FREQ=WEEKLY"]),
         "refused: it has more than one RRULE"),
        (event("c", "Cancelled", ["DTSTART:20300101T100000Z", "STATUS:CANCELLED"]), "skipped: it is cancelled or completed"),
        (event("u", "Unknown", ["DTSTART:20300101T100000Z", "X-CHIME-COLOUR:red"]),
         "refused: X-CHIME-COLOUR is not a Chime property this version reads"),
        (event("b", "Badge", ["DTSTART:20300101T100000Z", "X-CHIME-BADGE:many"]), "refused: X-CHIME-BADGE 'many' is not a number"),
        (event("d", "Data", ["DTSTART:20300101T100000Z", "X-CHIME-DATA:string:fern"]),
         "refused: X-CHIME-DATA has no X-CHIME-KEY parameter to name its key"),
        (event("d", "Data", ["DTSTART:20300101T100000Z", "X-CHIME-DATA;X-CHIME-KEY=plant:fern"]),
         "refused: X-CHIME-DATA 'fern' is not TYPE:VALUE, with TYPE string, int, double or bool"),
        (event("o", "Option", ["DTSTART:20300101T100000Z", "X-CHIME-ACTION-OPTION;X-CHIME-KEY=done:bool:true"]),
         "refused: X-CHIME-ACTION-OPTION has no X-CHIME-NAME parameter to name its option"),
    ])
    func aComponentThatCannotBeImportedSaysWhy(_ lines: [String], _ expected: String) throws {
        #expect(outcome(try component(calendar(lines))) == expected)
    }

    /// libical drops a property it cannot read and notes why: the component is refused with
    /// that note rather than imported without its start, rule or alarm.
    @Test(arguments: [
        ("DTSTART:tomorrow", "DTSTART"), ("DTSTART:20300101T100000Z\r\nRRULE:FREQ=SOMETIMES", "RRULE"),
        ("DTSTART:20300101T100000Z\r\nBEGIN:VALARM\r\nTRIGGER:soon\r\nEND:VALARM", "TRIGGER"),
        ("DTSTART:20300101T100000Z\r\nBEGIN:VALARM\r\nTRIGGER;VALUE=DATE-TIME:2030XX\r\nEND:VALARM", "TRIGGER"),
    ])
    func whatLibicalCannotReadRefusesTheComponent(_ lines: String, _ property: String) throws {
        let result = outcome(try component(calendar(event("g", "Garbled", [lines]))))
        #expect(result.hasPrefix("refused: libical could not read it: ") && result.contains(property), "\(result)")
    }

    // MARK: - Which alarms ring

    static func alarm(_ trigger: String, action: String = "DISPLAY", _ more: [String] = []) -> [String] {
        ["BEGIN:VALARM", "ACTION:\(action)", "DESCRIPTION:x", "TRIGGER:\(trigger)"] + more + ["END:VALARM"]
    }

    /// Where the item is, and how long after each alarm it starts: before its start, after
    /// its end (RELATED=END), at a time of its own; an alarm at the start adds nothing.
    @Test func eachAlarmKnowsHowLongBeforeItsItemStartsAndWhere() throws {
        let found = try component(calendar(event("l", "Dentist", ["DTSTART:20300101T100000Z", "DTEND:20300101T110000Z",
                                                                 "LOCATION:Hauptstraße 5"]
            + Self.alarm("-PT15M") + Self.alarm("PT5M")
            + ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER;VALUE=DATE-TIME:20291231T100000Z", "END:VALARM"]
            + Self.alarm("PT0S"))))
        let asked = try requests(found)
        #expect(asked.map { $0["leadTime"] } == [.double(900), .double(-300), .double(86_400), nil])
        #expect(asked.allSatisfy { $0["location"] == .string("Hauptstraße 5") })
        let ended = try component(calendar(event("e", "Ended", ["DTSTART:20300101T100000Z", "DTEND:20300101T110000Z",
                                                               "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x",
                                                               "TRIGGER;RELATED=END:PT5M", "END:VALARM"])))
        #expect(try requests(ended).map { $0["leadTime"] } == [.double(-3_900)])
    }

    @Test func aTaskWithOnlyAStartIsRemindedAtItsStart() throws {
        let task = ["BEGIN:VTODO", "UID:t", "SUMMARY:Task", "DTSTART:20300101T100000Z", "END:VTODO"]
        #expect(try whens(try component(calendar(task))) == ["2030-01-01T10:00:00+00:00"])
    }

    /// DISPLAY and AUDIO alarms ring; an EMAIL or PROCEDURE one is for someone else, and is
    /// named, not rung as a popup.
    @Test func onlyDisplayAndAudioAlarmsRingAndTheOthersAreNamed() throws {
        let mixed = try component(calendar(event("m", "Mixed", ["DTSTART:20300101T100000Z"] + Self.alarm("-PT10M", action: "EMAIL")
            + Self.alarm("-PT5M", action: "AUDIO") + Self.alarm("-PT1M"))))
        #expect(try whens(mixed) == ["2030-01-01T09:55:00+00:00", "2030-01-01T09:59:00+00:00"])
        #expect(try mixed.plan.get().notes == ["its EMAIL alarms are not ones Chime shows"])
        let mail = try component(calendar(event("e", "Mail", ["DTSTART:20300101T100000Z"] + Self.alarm("-PT10M", action: "EMAIL"))))
        #expect(outcome(mail) == "skipped: its EMAIL alarms are not ones Chime shows")
    }

    /// RFC 9074's ACKNOWLEDGED and Thunderbird's X-MOZ-LASTACK: a one-time alarm seen is
    /// over; Thunderbird's X-MOZ-SNOOZE-TIME rings once more. A repeat's alarms go on.
    @Test func acknowledgedAlarmsAreOverAndASnoozeRingsOnce() throws {
        let start = "DTSTART:20300101T100000Z"
        let acked = try component(calendar(event("a", "Acked", [start] + Self.alarm("-PT10M", ["ACKNOWLEDGED:20300101T095100Z"])
            + Self.alarm("-PT1M", ["ACKNOWLEDGED:20300101T090000Z"]))))
        #expect(try whens(acked) == ["2030-01-01T09:59:00+00:00"], "acknowledged before its time, the second is still to come")
        let thunderbird = try component(calendar(event("t", "Thunderbird", [start, "X-MOZ-LASTACK:20300101T095000Z",
                                                                             "X-MOZ-SNOOZE-TIME:20300101T101500Z"] + Self.alarm("-PT10M"))))
        #expect(try whens(thunderbird) == ["2030-01-01T10:15:00+00:00"])
        let seen = try component(calendar(event("s", "Seen", [start, "X-MOZ-LASTACK:20300101T095000Z"] + Self.alarm("-PT10M"))))
        #expect(outcome(seen) == "skipped: its alarms were acknowledged")
        let weekly = try component(calendar(event("w", "Weekly", [start, "RRULE:FREQ=WEEKLY", "X-MOZ-LASTACK:20300101T095000Z"]
            + Self.alarm("-PT10M"))))
        #expect(try whens(weekly) == ["2030-01-01T09:50:00+00:00"])
    }

    /// A property Chime does not read is no reason to refuse an item, whether libical knows
    /// it or not: RFC 9253's LINK and RELATED-TO;VALUE=UID, RFC 7986's IMAGE, a misspelt one.
    @Test(arguments: [
        "LINK;LINKREL=latest-version;VALUE=URI:https://example.org/e.ics", "RELATED-TO;VALUE=UID:parent@example.org",
        "RELATED-TO;RELTYPE=SNOOZE;VALUE=UID:x", "IMAGE;VALUE=URI;DISPLAY=BADGE:https://example.org/i.png",
        "CONFERENCE;VALUE=URI:https://example.org/call", "GEO:not;numbers", "ATTACH;FMTTYPE=text/plain;VALUE=BINARY;ENCODING=BASE64:!!!",
        "DTSTAMP:garbage", "CLASS:SECRET-ISH", "PRIORITY:high", "X-EVOLUTION-ALARM-UID:abc", "FOO-BAR:baz",
    ])
    func aPropertyChimeDoesNotReadNeverRefusesTheItem(_ line: String) throws {
        let result = outcome(try component(calendar(event("u", "Unknown", ["DTSTART:20300101T100000Z", line]))))
        #expect(result == "scheduled", "\(result)")
    }

    @Test func eachMalformedComponentIsRefusedAloneAndNamedByItsLine() throws {
        let chimed = FirstFire()
        chimed.past = ["2020-01-01T10:00:00+00:00"]
        let found = try components(try sample("malformed"))
        let outcomes = found.map { "\($0.label): \(outcome($0, chimed))" }
        #expect(outcomes == [
            #"VEVENT "Still imported" (UID good@example.org, line 4): scheduled"#,
            #"VEVENT "Gym" (UID byday@example.org, line 10): scheduled"#,
            #"VEVENT "No start" (UID nostart@example.org, line 17): refused: it has no DTSTART"#,
            #"VEVENT "Outlook zone" (UID zone@example.org, line 22): refused: TZID 'W. Europe Standard Time' is no known time zone "#
                + "and the file has no VTIMEZONE for it",
            // The ICS module passes the number on; chimed refuses a negative badge.
            #"VEVENT "Two alarms and a bad badge" (UID badbadge@example.org, line 28): scheduled"#,
            #"VEVENT "Long ago" (UID past@example.org, line 45): skipped: its time is past"#,
            #"VEVENT "Garbled trigger" (UID garbage@example.org, line 51): refused: libical could not read it: "#
                + "Can't parse as DURATION value in TRIGGER property. Removing entire property: soon",
        ])
        #expect(try requests(found[4], chimed).map { $0["badge"] } == [.int64(-4), .int64(-4)])
    }

    // MARK: - Chime's own properties

    @Test func chimesPropertiesBecomeTheirScheduleKeys() throws {
        let text = calendar(event("chime", "Tea", [
            "DTSTART:20300101T100000Z", "X-CHIME-URGENCY:critical", "X-CHIME-APP-NAME:Garden", "X-CHIME-DESKTOP-ENTRY:org.example.Garden",
            "X-CHIME-IMAGE:dialog-information", "X-CHIME-SOUND:bell", "X-CHIME-CATEGORY:reminder", "X-CHIME-DEFAULT-ACTION:Open",
            "X-CHIME-TEXT-DOMAIN:garden", "X-CHIME-CALENDAR:hebrew", "X-CHIME-BADGE:3", "X-CHIME-EXPIRES:5000",
            "X-CHIME-LATE-LIMIT:600", "X-CHIME-ACTION;X-CHIME-KEY=later:Later\\, maybe", "X-CHIME-ACTION;X-CHIME-KEY=done:Done",
            "X-CHIME-ACTION-OPTION;X-CHIME-KEY=done;X-CHIME-NAME=destructive:bool:true",
            "X-CHIME-ACTION-OPTION;X-CHIME-KEY=done;X-CHIME-NAME=activationMode:string:foreground",
            "X-CHIME-DATA;X-CHIME-KEY=plant:string:fern\\; big", "X-CHIME-DATA;X-CHIME-KEY=n:int:-5",
            "X-CHIME-DATA;X-CHIME-KEY=f:double:2.5", "X-CHIME-DATA;X-CHIME-KEY=b:bool:false",
            // Other programs' X- properties are theirs.
            "X-MOZ-GENERATION:2",
        ]))
        let request = try #require(try requests(try component(text)).first)
        let expected: [String: Value] = [
            "when": .string("2030-01-01T10:00:00+00:00"), "title": .string("Tea"), "body": .string(""),
            "urgency": .string("critical"), "appName": .string("Garden"), "desktopEntry": .string("org.example.Garden"),
            "image": .string("dialog-information"), "sound": .string("bell"), "category": .string("reminder"),
            "defaultAction": .string("Open"), "textDomain": .string("garden"), "calendar": .string("hebrew"),
            "badge": .int64(3), "expires": .int64(5000), "lateLimit": .double(600),
            "actions": .array(element: "(ss)", [.structure([.string("later"), .string("Later, maybe")]),
                                                .structure([.string("done"), .string("Done")])]),
            "actionOptions": .dictionary(key: "s", value: "a{sv}", [
                DictionaryEntry(key: .string("done"), value: .variantDictionary([
                    ("destructive", .bool(true)), ("activationMode", .string("foreground")),
                ])),
            ]),
            "userInfo": .variantDictionary([("plant", .string("fern; big")), ("n", .int64(-5)), ("f", .double(2.5)), ("b", .bool(false))]),
        ]
        #expect(Set(request.keys) == Set(expected.keys))
        for (key, value) in expected { #expect(request[key] == value, "\(key)") }
    }

    @Test(arguments: ["X-CHIME-DATA;X-CHIME-KEY=n:integer:5", "X-CHIME-DATA;X-CHIME-KEY=b:bool:yes", "X-CHIME-DATA:string:keyless"])
    func aUserInfoEntryThatIsNotTypedTextIsRefused(_ line: String) throws {
        let result = outcome(try component(calendar(event("d", "Data", ["DTSTART:20300101T100000Z", line]))))
        #expect(result.hasPrefix("refused: ") && result.contains("X-CHIME-DATA"), "\(result)")
    }
}
