import Foundation
import Testing
import TestSupport

/// `chime import` and `chime export` through the real chimed, with .ics files written
/// in the style of Thunderbird, GNOME Calendar and Google Calendar (Tests/ics).
@Suite(.timeLimit(.minutes(10)))
struct ICalendarTests {
    func sample(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/ics/\(name).ics").path
    }

    func notification(_ list: [[String: Any]], titled title: String) throws -> [String: Any] {
        try #require(list.first { $0["title"] as? String == title }, "no \(title) in \(list)")
    }

    /// The ids `chime import` printed: the first word of each line.
    func ids(_ result: ProcessResult) -> [String] {
        result.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test func thunderbirdEventsFireAtTheirAlarmsInTheirZone() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "import", sample("thunderbird")])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        #expect(ids(result).count == 2, "\(result)")
        #expect(result.stdout.contains("Dentist") && result.stdout.contains("2030"), "the echo says what was understood: \(result)")
        let list = try session.listedJSON()
        let dentist = try notification(list, titled: "Dentist")
        // TRIGGER -PT15M before DTSTART 09:30 in Berlin, kept as a Berlin wall-clock time.
        #expect(dentist["when"] as? String == "2030-12-03T09:15:00[Europe/Berlin]")
        #expect(dentist["body"] as? String == "Dr. Weber, Hauptstraße 5\nBring the insurance card")
        #expect(ids(result).first == dentist["id"] as? String, "the id comes first")
        // Thunderbird's old /mozilla.org/ TZID prefix, and RELATED=END: 5 min after DTEND.
        let garage = try notification(list, titled: "Call the garage")
        #expect(garage["when"] as? String == "2031-01-15T14:35:00[Europe/Berlin]")
    }

    /// The popup of a reminder rung ahead of its event says when the event starts and where,
    /// and the list keeps both.
    @Test func anImportedReminderSaysWhenAndWhereItsEventIs() throws {
        let session = try TestSession()
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        let start = formatter.string(from: Date().addingTimeInterval(15 * 60 + 3))
        let text = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:soon@example.org", "SUMMARY:Dentist",
                    "LOCATION:Hauptstraße 5", "DTSTART:\(start)", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x",
                    "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
        let result = try session.run(["chime", "import", "-"], stdin: text)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let dentist = try notification(try session.listedJSON(), titled: "Dentist")
        #expect(dentist["location"] as? String == "Hauptstraße 5" && dentist["leadTime"] as? Double == 900, "\(dentist)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'Starts in 15 min. · Hauptstraße 5'"), "\(call)")
    }

    /// A daily 03:10 New York event's 15-minute alarm rings 15 minutes before each
    /// occurrence: at 01:55 EST on 14 March 2027, when 02:55 does not exist, not at 03:55
    /// EDT, 45 minutes after the event began (RFC 5545 3.8.6.3).
    @Test func anAlarmOnADailyEventRingsAheadOfEachOccurrenceAcrossTheSpringChange() throws {
        let session = try TestSession()
        let text = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:night@example.org", "SUMMARY:Night shift",
                    "DTSTART;TZID=America/New_York:20270312T031000", "RRULE:FREQ=DAILY", "BEGIN:VALARM", "ACTION:DISPLAY",
                    "DESCRIPTION:x", "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
        let result = try session.run(["chime", "import", "-"], stdin: text)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let id = try #require(ids(result).first)
        let next = try session.run(["chime", "next", id, "-n", "4", "--json"])
        let times = try #require(try JSONSerialization.jsonObject(with: Data(next.stdout.utf8)) as? [[String: Any]], "\(next)")
        // 02:55 EST (07:55 UTC) on the 12th and 13th, 01:55 EST (06:55 UTC) on the 14th, 02:55 EDT on the 15th.
        #expect(times.compactMap { $0["timestamp"] as? Int } == [1_804_838_100, 1_804_924_500, 1_805_007_300, 1_805_093_700], "\(next)")
        let night = try notification(try session.listedJSON(), titled: "Night shift")
        #expect(night["when"] as? String == "2027-03-12T02:55:00[America/New_York]" && night["leadTime"] as? Double == 900, "\(night)")
    }

    @Test func gnomeCalendarAllDayAndFloatingRepeat() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "import", sample("gnome-calendar")])
        #expect(result.status == 0, "\(result)")
        let list = try session.listedJSON()
        // An all-day event's alarm counts from the start of its day: 15 h before is 09:00 the day before.
        #expect(try notification(list, titled: "Christmas Eve")["when"] as? String == "2030-12-23T09:00:00")
        let plants = try notification(list, titled: "Water the plants")
        #expect(plants["when"] as? String == "2030-06-01T07:30:00", "floating: no zone, no offset")
        #expect(plants["repeat"] as? String == "day" && plants["every"] as? Int == 3, "\(plants)")
        #expect(plants["body"] as? String == "The fern first")
    }

    /// An event on the last work day of each month (RFC 5545's BYSETPOS example) imports with
    /// its rule as it is, and fires on those days.
    @Test func anEventOnTheLastWorkDayOfTheMonthImports() throws {
        let session = try TestSession()
        let file = session.directory.appendingPathComponent("timesheet.ics")
        try ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chime tests//EN", "BEGIN:VEVENT", "UID:timesheet@example.org",
             "DTSTAMP:20261120T093000Z", "SUMMARY:Timesheet", "DTSTART;TZID=Europe/Berlin:20300101T160000",
             "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Timesheet",
             "TRIGGER:PT0S", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let result = try session.run(["chime", "import", file.path])
        #expect(result.status == 0, "\(result)")
        let imported = try notification(try session.listedJSON(), titled: "Timesheet")
        let id = try #require(imported["id"] as? String)
        let next = try session.run(["chime", "next", id, "-n", "3", "--json"])
        let times = next.stdout.components(separatedBy: "\"time\": \"").dropFirst().map { String($0.prefix(19)) }
        #expect(times == ["2030-01-31T16:00:00", "2030-02-28T16:00:00", "2030-03-29T16:00:00"], "\(next)")
    }

    @Test func googleExportInUTCWithRepeatsAndTwoAlarms() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "import", sample("google")])
        // Google's empty DESCRIPTION and LOCATION lines are no error; its EMAIL alarm is named.
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.split(separator: "\n").map(String.init)
            == ["chime: VEVENT \"Quarterly review\" (UID 9z8y7x6w5v4u@google.com, line 28): skipped: its EMAIL alarms are not ones Chime shows."],
            "\(result)")
        let list = try session.listedJSON()
        let standup = try notification(list, titled: "Team standup")
        #expect(standup["when"] as? String == "2030-01-08T08:50:00+01:00", "an instant: 08:00Z less 10 minutes")
        #expect(standup["repeat"] as? String == "week" && standup["every"] as? Int == 1, "BYDAY=TU is its own weekday")
        let reviews = list.filter { $0["title"] as? String == "Quarterly review" }.compactMap { $0["when"] as? String }.sorted()
        #expect(reviews == ["2030-03-15T16:30:00+01:00"], "one per DISPLAY VALARM")
        #expect(list.filter { $0["title"] as? String == "Quarterly review" }.allSatisfy { $0["every"] as? Int == 3 })
    }

    @Test func tasksRemindAtDueOrTheirAlarm() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "import", sample("tasks")])
        #expect(result.status == 0, "a completed task is skipped, not refused: \(result)")
        #expect(result.stderr.contains("Buy a new kettle") && result.stderr.contains("skipped"), "\(result)")
        let list = try session.listedJSON()
        #expect(try notification(list, titled: "File the tax return")["when"] as? String == "2031-05-30T09:00:00+02:00")
        #expect(try notification(list, titled: "Renew the passport")["when"] as? String == "2030-09-01T09:00:00")
        #expect(list.count == 2)
    }

    /// With the line ends of the sample, and with RFC 5545's CRLF, which a Swift String
    /// counts as one Character: the lines named are the same.
    @Test(arguments: ["\n", "\r\n"])
    func malformedComponentsAreRefusedOneByOneAndTheRestImported(lineEnd: String) throws {
        let session = try TestSession()
        let file = session.directory.appendingPathComponent("malformed.ics")
        try String(contentsOfFile: sample("malformed"), encoding: .utf8).replacingOccurrences(of: "\n", with: lineEnd)
            .write(to: file, atomically: true, encoding: .utf8)
        let result = try session.run(["chime", "import", file.path])
        #expect(result.status == 1, "\(result)")
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 6, "one line per bad component: \(result)")
        for (uid, line) in [("byday", 10), ("nostart", 17), ("zone", 22), ("badbadge", 28), ("past", 45), ("garbage", 51)] {
            #expect(errors.contains { $0.contains("UID \(uid)@example.org, line \(line))") }, "\(uid): \(result)")
        }
        #expect(result.stderr.contains("rrule: BYSETPOS needs another BY part"), "chimed's own reason: \(result)")
        #expect(result.stderr.contains("badge"), "chimed's reason is passed on: \(result)")
        let titles = try session.listedJSON().compactMap { $0["title"] as? String }
        #expect(titles == ["Still imported"], "nothing of a refused component is stored")
    }

    /// Birthdays kept since 1960 have missed nothing: each starts at its next anniversary,
    /// nothing fires at the import, and there is no summary of reminders "while you were away".
    @Test func importedBirthdaysStartAtTheirNextAnniversaryAndFireNothingNow() throws {
        let session = try TestSession()
        let days = ["19600412", "19710201", "19851224", "19900730"]
        let events = days.enumerated().map { index, day in
            "BEGIN:VEVENT\nUID:birthday\(index)@example.org\nSUMMARY:Birthday \(index)\nDTSTART;VALUE=DATE:\(day)\n"
                + "RRULE:FREQ=YEARLY\nEND:VEVENT\n"
        }
        let result = try session.run(["chime", "import", "-"], stdin: "BEGIN:VCALENDAR\nVERSION:2.0\n" + events.joined() + "END:VCALENDAR\n")
        #expect(result.status == 0 && result.stderr.isEmpty && ids(result).count == 4, "\(result)")

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: session.timeZone))
        let list = try session.listedJSON()
        for (index, day) in days.enumerated() {
            let birthday = try notification(list, titled: "Birthday \(index)")
            let date = DateComponents(month: Int(day.dropFirst(4).prefix(2)), day: Int(day.suffix(2)), hour: 0, minute: 0, second: 0)
            let next = try #require(calendar.nextDate(after: Date(), matching: date, matchingPolicy: .strict))
            #expect(birthday["nextFire"] as? Int == Int(next.timeIntervalSince1970), "the next anniversary at midnight: \(birthday)")
        }
        let calls = try session.notifyCallsUpToAMarker()
        #expect(calls.count == 1 && !calls.contains { $0.contains("while you were away") }, "only the marker was shown: \(calls)")
        let log = try session.run(["chime", "log", "--json"]).stdout
        #expect(!log.contains("\"late\"") && !log.contains("Birthday"), "\(log)")
    }

    @Test func unreadableFilesHaveTheirOwnExitStatus() throws {
        let session = try TestSession()
        let missing = try session.run(["chime", "import", session.directory.appendingPathComponent("none.ics").path])
        #expect(missing.status == 66 && missing.stderr.split(separator: "\n").count == 1, "\(missing)")
        let notes = session.directory.appendingPathComponent("notes.ics")
        try "Just some notes\n".write(to: notes, atomically: true, encoding: .utf8)
        let garbage = try session.run(["chime", "import", notes.path])
        #expect(garbage.status == 65 && garbage.stderr.contains("not an iCalendar file"), "\(garbage)")
        let stdin = try session.run(["chime", "import", "-"], stdin: try String(contentsOfFile: sample("tasks"), encoding: .utf8))
        #expect(stdin.status == 0 && ids(stdin).count == 2, "- reads standard input: \(stdin)")
    }

    @Test func importEndsWhenChimedCannotBeReached() throws {
        // A bus that cannot start chimed: no activation file.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("chime-no-services-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let session = try TestSession(serviceDirectory: empty)
        let result = try session.run(["chime", "import", sample("tasks")])
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("not reachable"), "\(result)")
    }

    /// python-dbusmock posing as chimed, and the call that gives it an ImportICalendarPart;
    /// the caller adds the reply's signature and the Python that answers.
    static let impostor = ["/usr/bin/python3", "-m", "dbusmock", "--session", "io.github.chime.Chime",
                           "/io/github/chime/Chime", "io.github.chime.Scheduler1"]
    static let addImportICalendarPart = ["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                         "/io/github/chime/Chime", "--method", "org.freedesktop.DBus.Mock.AddMethod", "",
                                         "ImportICalendarPart", "sau"]

    /// A chimed that answers ImportICalendarPart with something its interface does not say
    /// (python-dbusmock posing as it): chime says so in one sentence, and claims nothing.
    @Test func aReplyThatIsNotTheInterfacesIsSaidAndNothingClaimed() throws {
        let session = try TestSession()
        let impostor = try session.spawn(Self.impostor)
        defer { impostor.stop() }
        try session.waitForName("io.github.chime.Chime")
        let added = try session.run(Self.addImportICalendarPart + ["s", "ret = 'imported, honestly'"])
        #expect(added.status == 0, "\(added)")
        let result = try session.run(["chime", "import", sample("tasks")])
        #expect(result.status == 1 && result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("ImportICalendarPart"), "\(result)")
    }

    /// A chimed that refuses one part of a large file as InvalidArgs (python-dbusmock posing
    /// as it, as libical reading a broken part otherwise than chime's cut would): that
    /// part's components are named by their lines, and the other parts are imported.
    @Test func aPartRefusedAsInvalidIsNamedByItsLinesAndTheRestImported() throws {
        let session = try TestSession()
        let impostor = try session.spawn(Self.impostor)
        defer { impostor.stop() }
        try session.waitForName("io.github.chime.Chime")
        let added = try session.run(Self.addImportICalendarPart + ["asasasasaa{sv}", """
                                     self.parts = getattr(self, 'parts', 0) + 1
                                     if self.parts == 2: raise dbus.exceptions.DBusException('lines: 9 given for 8 VEVENT and VTODO components.', name='org.freedesktop.DBus.Error.InvalidArgs')
                                     ret = (['part%d' % self.parts], [], [], [], [{'title': 'Part'}])
                                     """])
        #expect(added.status == 0, "\(added)")
        let events = (0..<200).map { "BEGIN:VEVENT\nUID:\($0)@example.org\nSUMMARY:\(String(repeating: "x", count: 100))\nDTSTART:20300401T100000Z\nEND:VEVENT\n" }
        let file = session.directory.appendingPathComponent("large.ics")
        try ("BEGIN:VCALENDAR\n" + events.joined() + "END:VCALENDAR\n").write(to: file, atomically: true, encoding: .utf8)
        let result = try session.run(["chime", "import", file.path])
        #expect(result.status == 1 && ids(result).count >= 2 && !ids(result).contains("part2"), "\(result)")
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 1 && errors[0].contains("the components at lines ") && errors[0].contains("not imported: lines: 9 given"),
                "\(result)")
    }

    /// A file larger than one D-Bus string, with the line ends RFC 5545 prescribes: chime
    /// sends it in parts, each event with the VTIMEZONE its Outlook-style TZID needs, and
    /// every sentence names the file's own line.
    @Test func aLargeFileImportsInPartsAndItsSentencesNameTheFilesLines() throws {
        let session = try TestSession()
        var lines = ["BEGIN:VCALENDAR", "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN", "VERSION:2.0",
                     "BEGIN:VTIMEZONE", "TZID:W. Europe Standard Time", "BEGIN:STANDARD", "DTSTART:16011028T030000",
                     "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
                     "BEGIN:DAYLIGHT", "DTSTART:16010325T020000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "TZOFFSETFROM:+0100",
                     "TZOFFSETTO:+0200", "END:DAYLIGHT", "END:VTIMEZONE"]
        var expected: [String: Int] = [:]
        for n in 1...150 {
            let uid = n == 70 ? "nostart" : n == 120 ? "huge" : "e\(n)"
            expected[uid] = lines.count + 1
            lines += ["BEGIN:VEVENT", "UID:\(uid)@example.org", "SUMMARY:Meeting \(n)"]
            if n != 70 { lines.append("DTSTART;TZID=W. Europe Standard Time:20300401T100000") }
            if n == 120 { lines.append("DESCRIPTION:" + String(repeating: "agenda ", count: 3_000)) }
            lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT"]
        }
        let text = (lines + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
        #expect(text.utf8.count > 2 * 16_384)
        let file = session.directory.appendingPathComponent("outlook.ics")
        try text.write(to: file, atomically: true, encoding: .utf8)

        let result = try session.run(["chime", "import", file.path])
        #expect(result.status == 1, "two events are refused: \(result)")
        #expect(ids(result).count == 148, "\(result.stderr)")
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 2, "\(result.stderr)")
        #expect(errors.contains { $0.contains("UID nostart@example.org, line \(expected["nostart"] ?? 0))") && $0.contains("DTSTART") },
                "chimed's sentence names the file's line: \(result.stderr)")
        #expect(errors.contains { $0.contains("VEVENT (line \(expected["huge"] ?? 0))") && $0.contains("16384") }, "\(result.stderr)")
        let list = try session.listedJSON()
        #expect(list.count == 148)
        // 10:00 in Outlook's zone (CEST on 1 April) less 15 minutes, read through the VTIMEZONE as an instant.
        // 2030-04-01T07:45:00Z.
        #expect(list.allSatisfy { $0["nextFire"] as? Int == 1_901_259_900 && $0["when"] as? String == "2030-04-01T09:45:00+02:00" },
                "\(list.prefix(2))")
    }

    /// Files broken by hand or cut short, larger than one part: no event is lost without a
    /// sentence. A stray END closes nothing; an event whose END is missing holds the rest
    /// and is refused by name; an event cut off at the end is judged as it stands.
    @Test func aBrokenLargeFileLosesNoEventWithoutASentence() throws {
        let session = try TestSession()
        func event(_ n: Int, end: Bool = true) -> String {
            "BEGIN:VEVENT\nUID:\(n)@example.org\nSUMMARY:E\(n)\nDTSTART:20300401T100000Z\nDESCRIPTION:\(String(repeating: "x", count: 200))\n"
                + (end ? "END:VEVENT\n" : "")
        }
        let files = [
            ("stray", (0..<100).map { event($0) + ($0 == 50 ? "END:VEVENT\n" : "") }.joined() + "END:VCALENDAR\n", 100, [String]()),
            ("missing", (0..<100).map { event($0, end: $0 != 50) }.joined() + "END:VCALENDAR\n", 50, ["UID 50@example.org"]),
            ("unended", (0..<100).map { event($0) }.joined() + "BEGIN:VEVENT\nUID:cut@example.org\nSUMMARY:cut\n", 100,
             ["UID cut@example.org", "has no END:VCALENDAR, so it may be cut short"]),
        ]
        for (name, body, imported, refused) in files {
            let file = session.directory.appendingPathComponent("\(name).ics")
            try ("BEGIN:VCALENDAR\n" + body).write(to: file, atomically: true, encoding: .utf8)
            let result = try session.run(["chime", "import", file.path])
            #expect(ids(result).count == imported, "\(name): \(result.stderr)")
            let errors = result.stderr.split(separator: "\n")
            if !refused.isEmpty {
                #expect(result.status == 1 && errors.count == refused.count, "\(name): \(result)")
                for (error, fragment) in zip(errors, refused) { #expect(error.contains(fragment), "\(name): \(result)") }
            } else {
                #expect(result.status == 0 && errors.isEmpty, "\(name): \(result)")
            }
            #expect(try session.run(["chime", "cancel", "--all", "--yes"]).status == 0)
        }
        #expect(try session.listedJSON().isEmpty)
    }

    @Test func exportThenImportKeepsEveryField() throws {
        let session = try TestSession()
        _ = try session.add(
            "Tea, then: more; tea", "Line one\nline two, with \\ backslash", "--at", "2030-05-01 10:00", "--repeat", "week",
            "--every", "2", "--sound", "bell", "--badge", "3", "--desktop-entry", "org.gnome.Calendar", "--category", "reminder",
            "-u", "critical", "-A", "done=Done", "-A", "later=Later, maybe", "--user-info", "plant=fern; big", "--late-limit",
            "10m", "-t", "5000", "--default-action", "Open", "-i", "dialog-information", "-a", "Garden", "--text-domain", "garden")
        _ = try session.add("Zoned", "--at", "2030-05-01T10:00:00[America/New_York]")
        _ = try session.add("Lunar", "--at", "2030-05-01 10:00", "--calendar", "hebrew", "--repeat", "month")
        // The second Tuesday, ten times, its first left out: once exported as a bare FREQ=MONTHLY.
        let club = try session.add("Book club", "--at", "2030-05-14 19:00", "--repeat", "month", "--on", "2nd tue", "--count", "10")
        #expect(try session.run(["chime", "skip", club]).status == 0)
        // Typed userInfo and button options only come over the bus.
        let typed = try session.run([
            "gdbus", "call", "--session", "-d", "io.github.chime.Chime", "-o", "/io/github/chime/Chime",
            "-m", "io.github.chime.Scheduler1.Schedule",
            "{'title': <'Typed'>, 'when': <'2030-05-01T10:00:00+02:00'>, 'repeat': <'hour'>, "
                + "'userInfo': <{'n': <int64 5>, 'f': <2.5>, 'b': <true>, 's': <'a\\nb,c;d\\\\e:f'>}>, "
                + "'actions': <[('k', 'Line\\nTwo')]>, "
                + "'actionOptions': <{'k': {'destructive': <true>, 'activationMode': <'foreground'>}}>}",
        ])
        #expect(typed.status == 0, "\(typed)")
        for name in ["thunderbird", "gnome-calendar", "google", "tasks"] {
            #expect(try session.run(["chime", "import", sample(name)]).status == 0)
        }
        let before = try session.listedJSON()

        let exported = try session.run(["chime", "export", "--all"])
        #expect(exported.status == 0 && exported.stderr.isEmpty, "\(exported)")
        #expect(exported.stdout.contains("TZID:America/New_York\r\n"), "a VTIMEZONE under the plain IANA name")
        #expect(exported.stdout.contains("X-CHIME-ACTION;X-CHIME-KEY=done:Done\r\n"), "\(exported.stdout)")
        #expect(exported.stdout.contains("RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=2TU\r\n"), "\(exported.stdout)")
        #expect(exported.stdout.contains("EXDATE:20300514T190000"), "\(exported.stdout)")
        let file = session.directory.appendingPathComponent("all.ics")
        try exported.stdout.write(to: file, atomically: true, encoding: .utf8)
        #expect(try session.run(["chime", "cancel", "--all", "--yes"]).status == 0)
        let imported = try session.run(["chime", "import", file.path])
        #expect(imported.status == 0 && imported.stderr.isEmpty, "\(imported)")

        func comparable(_ list: [[String: Any]]) -> [NSDictionary] {
            let sorted = list.sorted { "\($0["title"] ?? "")|\($0["when"] ?? "")" < "\($1["title"] ?? "")|\($1["when"] ?? "")" }
            return sorted.map { NSDictionary(dictionary: $0.filter { !["id", "created"].contains($0.key) }) }
        }
        let after = try session.listedJSON()
        #expect(after.count == before.count)
        for (old, new) in zip(comparable(before), comparable(after)) {
            #expect(old == new, "\(old)\nbecame\n\(new)")
        }
    }

    /// Whatever its size, a file with a byte-order mark and CR, CRLF or LF line ends imports
    /// the same, and the sentence of a bad component names its line.
    @Test(arguments: ["\r", "\r\n", "\n"])
    func aByteOrderMarkAndAnyLineEndImportAtAnySize(lineEnd: String) throws {
        let session = try TestSession()
        for count in [3, 400] {
            let events = (0..<count).map { n in
                ["BEGIN:VEVENT", "UID:\(count)-\(n)@example.org", "SUMMARY:Event \(n) " + String(repeating: "x", count: 100),
                 n == 1 ? "DTSTART:2030XX" : "DTSTART:20300401T100000Z", "END:VEVENT"]
            }
            let lines = ["BEGIN:VCALENDAR", "VERSION:2.0"] + events.flatMap { $0 } + ["END:VCALENDAR"]
            let file = session.directory.appendingPathComponent("bom-\(count).ics")
            try ("\u{FEFF}" + lines.joined(separator: lineEnd) + lineEnd).write(to: file, atomically: true, encoding: .utf8)
            let result = try session.run(["chime", "import", file.path])
            #expect(result.status == 1 && ids(result).count == count - 1, "\(count): \(result.stderr)")
            // The bad one, the second event, begins on line 3 + 5.
            #expect(result.stderr.contains("UID \(count)-1@example.org, line 8)"), "\(count): \(result.stderr)")
        }
    }

    /// A file imported again is the same reminders, updated in place under their ids, and
    /// chime says so; the README's `chime export ID | chime import -` updates its reminder.
    @Test func aFileImportedAgainUpdatesItsRemindersInPlaceAndSaysSo() throws {
        let session = try TestSession()
        let first = try session.run(["chime", "import", sample("thunderbird")])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first)")
        let before = try session.listedJSON()

        let again = try session.run(["chime", "import", sample("thunderbird")])
        #expect(again.status == 0, "\(again)")
        #expect(again.stderr == "chime: \(before.count) updated in place, 0 new.\n", "\(again)")
        #expect(ids(again) == ids(first))
        #expect(try session.listedJSON().count == before.count, "a second copy of each")

        let dentist = try session.add("Dentist", "--at", "2030-03-14 10:00")
        let exported = try session.run(["chime", "export", dentist])
        let round = try session.run(["chime", "import", "-", "--json"], stdin: exported.stdout)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(round.stdout.utf8)) as? [[String: Any]], "\(round)")
        #expect(objects.count == 1 && objects.first?["id"] as? String == dentist && objects.first?["updated"] as? Bool == true, "\(round)")
        #expect(round.stderr == "chime: 1 updated in place, 0 new.\n", "\(round)")
        #expect(try session.listedJSON().count == before.count + 1)
    }

    /// libical, ICU and libstdc++ cost every command some 3 ms at start-up: only import and
    /// export open it.
    @Test func chimeIsNotLinkedWithLibical() throws {
        let libraries = try Spawned(["ldd", binDirectory.appendingPathComponent("chime").path],
                                    environment: ProcessInfo.processInfo.environment).finish()
        // The build make test runs is linked shared (but for libdbus's archive): ldd lists its libraries.
        #expect(libraries.status == 0 && libraries.stdout.contains("libc.so"), "\(libraries)")
        #expect(!libraries.stdout.contains("libical"), "\(libraries)")
    }

    @Test func exportNamesWhatItCannotSay() throws {
        let session = try TestSession()
        let usage = try session.run(["chime", "export"])
        #expect(usage.status == 64, "\(usage)")
        let place = try session.add("Milk", "--on-network", "Office Wi-Fi")
        let clock = try session.add("Stretch", "--in", "1h")
        let result = try session.run(["chime", "export", place, clock])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains(place) && result.stderr.contains("place"), "\(result)")
        #expect(result.stdout.contains("SUMMARY:Stretch") && !result.stdout.contains("Milk"), "\(result)")
    }

    /// A reminder at a place is exported as RFC 9074 and Apple Reminders write one (a task
    /// whose alarms ring on arriving or leaving), and imports back the same.
    @Test func aPlaceReminderExportsAsALocationAlarmAndImportsTheSame() throws {
        let session = try TestSession()
        let id = try session.add("Buy bread", "--near", "52.52,13.405", "--radius", "250m", "--on-exit", "--every-time")
        let exported = try session.run(["chime", "export", "--all"])
        #expect(exported.status == 0 && exported.stderr.isEmpty, "\(exported)")
        let lines = exported.stdout.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
        for line in ["BEGIN:VTODO", "PROXIMITY:DEPART", "X-APPLE-PROXIMITY:DEPART", "BEGIN:VLOCATION", "URL:geo:52.52,13.405;u=250",
                     "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-APPLE-RADIUS=250:geo:52.52,13.405", "X-CHIME-REGION-TRIGGERS-ONCE:FALSE"] {
            #expect(lines.contains(line), "\(line) in \(exported.stdout)")
        }
        #expect(!lines.contains("PROXIMITY:ARRIVE"), "\(exported.stdout)")
        let before = try session.listedJSON()
        #expect(try session.run(["chime", "cancel", id]).status == 0)
        let imported = try session.run(["chime", "import", "-"], stdin: exported.stdout)
        #expect(imported.status == 0, "\(imported)")
        func comparable(_ list: [[String: Any]]) -> [NSDictionary] {
            list.map { item in NSDictionary(dictionary: item.filter { !["id", "created", "createdLocal"].contains($0.key) }) }
        }
        let after = try session.listedJSON()
        #expect(comparable(after) == comparable(before), "\(after)\n\(before)")
    }
}
