import Foundation
import Testing
import TestSupport

/// `chime calendar` and chimed following vdir folders: files written, replaced, removed and
/// broken while it runs, and while it does not.
@Suite(.timeLimit(.minutes(10)))
struct CalendarFolderTests {
    /// One event at `start` with an alarm 15 minutes before, as khal writes one.
    static func event(_ uid: String, _ title: String, start: String = "20301201T100000Z") -> String {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//PIMUTILS.ORG//NONSGML khal / icalendar //EN", "BEGIN:VEVENT",
         "UID:\(uid)", "DTSTAMP:20261120T093000Z", "DTSTART:\(start)", "SUMMARY:\(title)", "BEGIN:VALARM", "ACTION:DISPLAY",
         "TRIGGER:-PT15M", "DESCRIPTION:\(title)", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
    }

    /// A folder `name` in the session's directory holding `files`.
    func folder(_ session: TestSession, _ name: String, _ files: [String: String] = [:]) throws -> URL {
        let folder = session.directory.appendingPathComponent("calendars/\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, text) in files { try text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8) }
        return folder
    }

    /// Replaces `file` as a vdir's writers do: a hidden temporary file renamed over it.
    func replace(_ file: URL, with text: String) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).tmp")
        try text.write(to: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary.path, file.path) == 0 else { throw TestFailure.failed("rename \(temporary.path): \(errno)") }
    }

    func titles(_ session: TestSession) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try session.listedJSON().map { ($0["title"] as? String ?? "", $0["id"] as? String ?? "") })
    }

    /// Waits until the reminders chimed lists have `expected` titles: a change of the
    /// folder reaches them after inotify reports it and chimed has gathered what came with it.
    func waitForTitles(_ session: TestSession, _ expected: Set<String>, timeout: TimeInterval = 60) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Set(try titles(session).keys) != expected {
            guard Date() < deadline else { throw TestFailure.timeout("titles \(expected); chime list has \(try titles(session))") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func calendars(_ session: TestSession) throws -> [[String: Any]] {
        try session.json(["chime", "calendar", "list", "--json"])
    }

    @Test func aFolderIsReadWhenAddedAndFollowedAsItsFilesChange() throws {
        let session = try TestSession()
        let folder = try folder(session, "personal", ["dentist.ics": Self.event("dentist@example.org", "Dentist")])
        let add = try session.run(["chime", "calendar", "add", "--vdir", folder.path])
        #expect(add.status == 0 && add.stderr.isEmpty, "\(add)")
        #expect(add.stdout == "Following personal (\(folder.path)): 1 reminder to come.\n", "\(add)")
        let id = try #require(try titles(session)["Dentist"])

        // Written in place, then replaced by rename: the same reminder, changed.
        try Self.event("dentist@example.org", "Dentist, moved", start: "20301202T100000Z")
            .write(to: folder.appendingPathComponent("dentist.ics"), atomically: false, encoding: .utf8)
        try waitForTitles(session, ["Dentist, moved"])
        #expect(try titles(session) == ["Dentist, moved": id])
        try replace(folder.appendingPathComponent("barber.ics"), with: Self.event("barber@example.org", "Barber"))
        try waitForTitles(session, ["Dentist, moved", "Barber"])

        // A file removed takes its reminder with it.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("dentist.ics"))
        try waitForTitles(session, ["Barber"])
        try session.waitForLog("0 new, 0 updated, 1 removed")
        let history = try session.run(["chime", "log", "--json"]).stdout
        #expect(history.contains("Removed from its calendar."), "\(history)")

        let listed = try #require(try calendars(session).first)
        #expect(listed["name"] as? String == "personal" && listed["state"] as? String == "watching", "\(listed)")
        #expect(listed["reminders"] as? Int == 1 && (listed["problems"] as? [String])?.isEmpty == true, "\(listed)")

        let remove = try session.run(["chime", "calendar", "remove", "personal"])
        #expect(remove.stdout == "No longer following personal; 1 reminder cancelled. Its files are left as they are.\n", "\(remove)")
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("barber.ics").path))
        #expect(try session.run(["chime", "calendar", "list"]).stdout == "No calendar is followed; chime calendar add URL --user NAME, or --vdir DIR, follows one.\n")
    }

    /// One bad file costs only itself: it is named, and what it made before stays.
    @Test func aBrokenFileIsNamedAndKeepsWhatItMadeBefore() throws {
        let session = try TestSession()
        let folder = try folder(session, "work", ["a.ics": Self.event("a@example.org", "Standup")])
        #expect(try session.run(["chime", "calendar", "add", "--vdir", folder.path]).status == 0)
        let id = try #require(try titles(session)["Standup"])

        // An editor's half-written save (no END:VCALENDAR), then a typo in a date.
        let event = Self.event("a@example.org", "Standup")
        try String(event.prefix(event.count / 2)).write(to: folder.appendingPathComponent("a.ics"), atomically: false, encoding: .utf8)
        try session.waitForLog("Calendar work: read 1 files: 0 new, 0 updated, 0 removed, 1 with problems")
        #expect(try titles(session) == ["Standup": id])
        try event.replacingOccurrences(of: "DTSTART:20301201T100000Z", with: "DTSTART:20301301T100000Z")
            .write(to: folder.appendingPathComponent("a.ics"), atomically: false, encoding: .utf8)
        try session.waitForLog("Calendar work: read 1 files: 0 new, 0 updated, 0 removed, 1 with problems", times: 2)
        #expect(try titles(session) == ["Standup": id])
        let problems = try #require(try calendars(session).first?["problems"] as? [String])
        #expect(problems.count == 1 && problems[0].hasPrefix("a.ics: VEVENT \"Standup\""), "\(problems)")
        let doctor = try session.run(["chime", "doctor"])
        #expect(doctor.stdout.contains("  - Calendar work: " + problems[0]) && doctor.status == 0, "\(doctor)")
        let status = try session.callScheduler("Status").stdout
        #expect(status.contains("'calendars': <uint32 1>") && status.contains("'calendarProblems': <uint32 1>"), "\(status)")

        // Mended, it is read as it is now.
        try Self.event("a@example.org", "Standup, mended").write(to: folder.appendingPathComponent("a.ics"), atomically: false, encoding: .utf8)
        try session.waitForLog("Calendar work: read 1 files: 0 new, 1 updated, 0 removed, 0 with problems")
        #expect(try titles(session) == ["Standup, mended": id])
        #expect((try calendars(session).first?["problems"] as? [String])?.isEmpty == true)
    }

    /// Files that are not a vdir's items are named and never read: a link out of the folder,
    /// a FIFO (whose open would block), a file over the size limit, and text that is not
    /// iCalendar. Hidden files and other names are a writer's own and pass in silence.
    @Test func whatIsNotAnItemIsNamedAndNeverRead() throws {
        let session = try TestSession()
        let folder = try folder(session, "odd", ["ok.ics": Self.event("ok@example.org", "Fine"), "notes.txt": "not an item",
                                                 ".hidden.ics": "BEGIN:VCALENDAR", "junk.ics": "hello\n"])
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("passwd.ics").path, withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("same.ics").path, withDestinationPath: "ok.ics")
        #expect(mkfifo(folder.appendingPathComponent("pipe.ics").path, 0o600) == 0)
        let big = "BEGIN:VCALENDAR\r\n" + String(repeating: "X-FILLER:" + String(repeating: "x", count: 60) + "\r\n", count: 20_000)
        try big.write(to: folder.appendingPathComponent("big.ics"), atomically: true, encoding: .utf8)

        let add = try session.run(["chime", "calendar", "add", "--vdir", folder.path])
        #expect(add.status == 0, "\(add)")
        #expect(add.stderr == """
            chime: big.ics has 1420017 bytes, more than the 1048576 (1 MiB) Chime reads, so it was not read.
            chime: junk.ics is not iCalendar: it has no BEGIN:VCALENDAR.
            chime: passwd.ics is a link out of the folder, so it was not read.
            chime: pipe.ics is a FIFO, not a regular file, so it was not read.
            chime: same.ics: VEVENT "Fine" (UID ok@example.org, line 4): not imported: ok.ics holds the same item (its UID); each item is read from one file.

            """, "\(add)")
        // The link inside the folder is one more file with the same item: one reminder.
        #expect(Array(try titles(session).keys) == ["Fine"])
        #expect(try session.pingDaemon())
    }

    @Test func foldersThatCannotBeFollowedAreRefusedByName() throws {
        let session = try TestSession()
        let parent = session.directory.appendingPathComponent("calendars")
        _ = try folder(session, "home", ["a.ics": Self.event("a@example.org", "A")])
        _ = try folder(session, "work", ["b.ics": Self.event("b@example.org", "B")])
        let cases: [([String], Int32, String)] = [
            (["--vdir", parent.path], 64, "chime: --vdir '\(parent.path)' holds calendar folders, not items; add each of them: "
                + "\(parent.path)/home, \(parent.path)/work.\n"),
            (["--vdir", parent.path + "/nowhere"], 64, "chime: --vdir '\(parent.path)/nowhere' does not exist.\n"),
            (["--vdir", parent.path + "/home/a.ics"], 64,
             "chime: --vdir '\(parent.path)/home/a.ics' is not a folder; a vdir calendar is a folder of .ics files.\n"),
        ]
        for (arguments, status, stderr) in cases {
            let result = try session.run(["chime", "calendar", "add"] + arguments)
            #expect(result.status == status && result.stderr == stderr, "\(result)")
        }
        #expect(try session.run(["chime", "calendar", "add", "--vdir", parent.path + "/home"]).status == 0)
        let twice = try session.run(["chime", "calendar", "add", "--vdir", parent.path + "/home/", "--name", "again"])
        #expect(twice.status == 64 && twice.stderr == "chime: --vdir '\(parent.path)/home' is followed already, as home.\n", "\(twice)")
        let taken = try session.run(["chime", "calendar", "add", "--vdir", parent.path + "/work", "--name", "home"])
        #expect(taken.status == 64, "\(taken)")
        #expect(taken.stderr == "chime: --name 'home' is the name of a calendar followed already; give this one another.\n", "\(taken)")
        let unknown = try session.run(["chime", "calendar", "remove", "nope"])
        #expect(unknown.status == 1 && unknown.stderr == "chime: No calendar is named 'nope'; those followed are home.\n", "\(unknown)")
        #expect(Array(try titles(session).keys) == ["A"])
    }

    /// A `[Calendar NAME]` group of the config is followed as `chime calendar add` follows a
    /// folder; the config, not the command, removes it; a group broken by an edit keeps its
    /// calendar as it was.
    @Test func aCalendarTheConfigNamesIsFollowedUntilTheConfigNoLongerNamesIt() throws {
        let session = try TestSession()
        let folder = try folder(session, "work", ["standup.ics": Self.event("standup@example.org", "Standup")])
        try session.writeConfig("[Calendar work]\nFolder=\(folder.path)\n")
        #expect(try session.pingDaemon())
        try session.waitForLog("Calendar work: watching")
        #expect(Array(try titles(session).keys) == ["Standup"])
        let remove = try session.run(["chime", "calendar", "remove", "work"])
        #expect(remove.status == 1 && remove.stderr.contains("is named in the config file") && remove.stderr.contains("[Calendar work]"), "\(remove)")

        // A typo in the group: the calendar goes on, and the error is named.
        try session.writeConfig("[Calendar work]\nFolder=calendars/work\n")
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForLog("Folder is 'calendars/work': write an absolute path, or one under ~/.")
        #expect(Array(try titles(session).keys) == ["Standup"])
        #expect(try calendars(session).first?["state"] as? String == "watching")

        // The group gone: no longer followed, its reminders with it.
        try session.writeConfig("")
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForLog("No longer following calendar work: the config no longer names it.")
        try waitForTitles(session, [])
        #expect(try calendars(session).isEmpty)
    }

    /// A calendar removed while its first reading is under way (it reads 500 files a turn)
    /// reads no more: what the rest of the folder holds does not come back.
    @Test func aCalendarRemovedWhileItIsReadReadsNoMore() throws {
        let session = try TestSession()
        let folder = try folder(session, "big")
        for n in 0..<2_000 {
            try Self.event("item\(n)@example.org", "Item \(n)").write(to: folder.appendingPathComponent("\(n).ics"), atomically: false, encoding: .utf8)
        }
        try session.writeConfig("[Calendar big]\nFolder=\(folder.path)\n")
        #expect(try session.pingDaemon())
        try session.waitForLog("Calendar big: read 500 files")
        try session.writeConfig("")
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForLog("No longer following calendar big: the config no longer names it.")
        // Each call is a turn of chimed's loop, as each batch of the reading would be.
        for _ in 0..<5 { _ = try session.run(["chime", "list"]) }
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        let after = session.daemonLog.components(separatedBy: "No longer following calendar big").last ?? ""
        #expect(!after.contains("Calendar big: read"), "\(after)")
    }

    /// A folder that goes (an unmounted disk, a sync tool's rename) keeps its reminders until
    /// it is back; what changed while chimed was not running is read at its start.
    @Test func aFolderThatGoesKeepsItsRemindersAndChangesWhileStoppedAreRead() throws {
        let session = try TestSession()
        let folder = try folder(session, "moving", ["a.ics": Self.event("a@example.org", "Kept"),
                                                    "b.ics": Self.event("b@example.org", "Dropped later")])
        #expect(try session.run(["chime", "calendar", "add", "--vdir", folder.path]).status == 0)
        let aside = session.directory.appendingPathComponent("aside")
        try FileManager.default.moveItem(at: folder, to: aside)
        try session.waitForLog("Calendar moving: the folder \(folder.path) is gone; its reminders are kept.")
        #expect(try calendars(session).first?["state"] as? String == "missing")
        #expect(Set(try titles(session).keys) == ["Kept", "Dropped later"])
        let doctor = try session.run(["chime", "doctor"])
        #expect(doctor.stdout.contains("  moving: ") && doctor.stdout.contains("its folder is missing, 2 reminders to come, \(folder.path)"), "\(doctor)")
        #expect(doctor.stdout.contains("Calendar moving: its folder \(folder.path) is gone; its reminders are kept until it is back, or until 'chime calendar remove moving'."), "\(doctor)")

        try FileManager.default.moveItem(at: aside, to: folder)
        try session.waitForLog("Calendar moving: read 2 files: 0 new, 2 updated, 0 removed")
        #expect(try calendars(session).first?["state"] as? String == "watching")

        try session.stopDaemon()
        try FileManager.default.removeItem(at: folder.appendingPathComponent("b.ics"))
        try Self.event("c@example.org", "New while stopped").write(to: folder.appendingPathComponent("c.ics"), atomically: true, encoding: .utf8)
        // Any call starts chimed again; it reads the folder once it has answered.
        #expect(try session.pingDaemon())
        try session.waitForLog("Calendar moving: watching", times: 3)
        #expect(Set(try titles(session).keys) == ["Kept", "New while stopped"])
    }
}
