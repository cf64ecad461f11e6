import Foundation
import Glibc
import Testing
import TestSupport

/// The store under faults, with real processes: a store chimed may not read, a full disk
/// at start and while running, a damaged page, a destroyed header, a loose folder mode.
/// What cannot be opened now is left exactly as it is; what is damaged is salvaged and
/// the user is told once.
@Suite(.timeLimit(.minutes(10)))
struct StoreFaultTests {
    /// Names a store file kept or moved aside would have.
    static func setAside(_ files: [String]) -> [String] {
        files.filter { $0.contains("damaged") || $0.contains("unreadable") || $0.contains("recovering") }
    }

    /// The store, or the history beside it (attached after chimed's first answers), when
    /// chimed may not read it: named, chimed exits with 75, nothing is set aside or
    /// changed, and all of it is there once it is readable again.
    @Test(arguments: ["store", "history"])
    func anUnreadableFileIsNamedLeftInPlaceAndReadOnceReadableAgain(which: String) throws {
        let session = try TestSession()
        try session.addReminders(5)
        let added = try session.run(["chime", "add", "Cancelled before", "--in", "1h"]).stdout
        #expect(try session.run(["chime", "cancel", String(added.prefix { !$0.isWhitespace })]).status == 0)
        try session.stopDaemon()
        let file = which == "store" ? session.storeFile : session.stateDirectory.appendingPathComponent("history.sqlite")
        let original = try Data(contentsOf: file)
        chmod(file.path, 0)
        defer { chmod(file.path, 0o600) }

        let refused = try session.spawnDaemon(after: withoutFileCapabilities).finish()
        #expect(refused.status == 75, "\(refused)")
        #expect(refused.stderr.contains("Cannot open the store \(file.path): permission denied"), "\(refused)")
        #expect(Self.setAside(try session.dataFiles()).isEmpty)
        #expect(Self.setAside(try FileManager.default.contentsOfDirectory(atPath: session.stateDirectory.path)).isEmpty)
        #expect(try Data(contentsOf: file) == original)

        chmod(file.path, 0o600)
        #expect(try session.listedTitles().count == 5)
        let log = try session.run(["chime", "log"])
        #expect(log.status == 0 && log.stdout.contains("Cancelled before"), "\(log)")
    }

    /// A store whose files are all there needs no space to open (SQLite keeps its WAL
    /// files between starts): chimed starts on a full disk, shows what it has and refuses
    /// changes by name. One that must make its WAL files first (as an older chimed left
    /// it) cannot start: that is named, and the store is left as it was. Once there is
    /// space again, everything is back.
    @Test func aFullDiskAtStartIsNamedAndEverythingIsBackOnceThereIsSpace() throws {
        let session = try TestSession()
        let disk = try SmallDisk(over: session.dataDirectory)
        let first = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        try session.addReminders(30)
        try session.stopDaemon()
        _ = try first.finish()
        try disk.fill()
        let checksum = "sha256sum \"$0/chime.sqlite\""
        let before = try disk.shell(checksum).stdout

        let full = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        #expect(try session.listedTitles().count == 30)
        let refused = try session.run(["chime", "add", "Refused", "--in", "1h"])
        #expect(refused.status != 0 && refused.stderr.contains("is full"), "\(refused)")
        try session.stopDaemon()
        _ = try full.finish()
        #expect(try disk.shell(checksum).stdout == before)

        // Filled again after: their removal gave back the room they took.
        try disk.shell("rm \"$0/chime.sqlite-wal\" \"$0/chime.sqlite-shm\"")
        try disk.fill()
        let cannot = try session.spawnDaemon(after: disk.prefix).finish()
        #expect(cannot.status == 75, "\(cannot)")
        #expect(cannot.stderr.contains("Cannot open the store \(session.storeFile.path): the disk is full"), "\(cannot)")
        let after = try disk.files()
        #expect(Self.setAside(after).isEmpty, "\(after)")
        #expect(try disk.shell(checksum).stdout == before)

        try disk.free()
        let again = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        #expect(try session.listedTitles().count == 30)
        try session.stopDaemon()
        _ = try again.finish()
    }

    @Test func aFullDiskWhileRunningRefusesChangesByNameAndLosesNothing() throws {
        let session = try TestSession()
        let disk = try SmallDisk(over: session.dataDirectory)
        let daemon = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        try session.addReminders(5)
        let kept = try session.add("Kept", "--in", "2h")
        let before = try session.run(["chime", "list"]).stdout
        try disk.fill()

        let call = ["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                    "--method"]
        let schedule = try session.run(call + ["io.github.chime.Scheduler1.ScheduleSimple", "in 1h", "Refused", "", "{}"])
        #expect(schedule.status != 0)
        #expect(schedule.stderr.contains("io.github.chime.Error.DiskFull: Not scheduled: the disk holding \(session.dataDirectory.path) is full."),
                "\(schedule)")
        let cancel = try session.run(call + ["io.github.chime.Scheduler1.Cancel", kept])
        #expect(cancel.stderr.contains("io.github.chime.Error.DiskFull: Nothing cancelled: the disk holding"), "\(cancel)")
        // SetBadge once answered success when its change was not stored.
        let badge = try session.run(call + ["io.github.chime.Scheduler1.SetBadge", "org.example.Mail", "3"])
        #expect(badge.stderr.contains("io.github.chime.Error.DiskFull: The badge of org.example.Mail was not set: the disk holding"),
                "\(badge)")
        let added = try session.run(["chime", "add", "Refused too", "--in", "1h"])
        #expect(added.status != 0 && added.stderr.contains("is full"), "\(added)")
        // Memory and disk agree: nothing was half done.
        #expect(try session.run(["chime", "list"]).stdout == before)

        try disk.free()
        _ = try session.add("After", "--in", "3h")
        #expect(try session.run(["chime", "cancel", kept]).status == 0)
        let titles = try session.listedTitles()
        #expect(titles.count == 6 && titles.contains("After") && !titles.contains("Kept") && !titles.contains("Refused"))
        // And the disk holds what memory holds: a new chimed reads the same.
        try session.stopDaemon()
        _ = try daemon.finish()
        let next = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        #expect(try session.listedTitles().sorted() == titles.sorted())
        try session.stopDaemon()
        _ = try next.finish()
    }

    /// Edit, skip, snooze and an import over the bus on a full disk: each is refused by
    /// name, nothing changes, and once there is room each works (a refused snooze leaves
    /// the popup on screen and snoozable).
    @Test func aFullDiskRefusesEditsSkipsSnoozesAndImportsAndLosesNothing() throws {
        let session = try TestSession()
        let disk = try SmallDisk(over: session.dataDirectory)
        let daemon = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        let series = try session.add("Series", "--at", "2030-01-01 09:00", "--repeat", "day")
        let shown = try session.run(["chime", "notify", "-p", "Kettle"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        let before = try session.run(["chime", "list", "--json"]).stdout
        try disk.fill()

        let edit = try session.run(["chime", "edit", series, "--title", "Renamed"])
        #expect(edit.status != 0 && edit.stderr.contains("Not changed: the disk holding"), "\(edit)")
        let skip = try session.run(["chime", "skip", series])
        #expect(skip.status != 0 && skip.stderr.contains("Not skipped: the disk holding"), "\(skip)")
        let snooze = try session.run(["chime", "snooze", shown, "10m"])
        #expect(snooze.status != 0 && snooze.stderr.contains("Not snoozed: the disk holding"), "\(snooze)")
        let calendar = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:1@example.org\nSUMMARY:Imported\nDTSTART:20300101T090000Z\nEND:VEVENT\nEND:VCALENDAR\n"
        let imported = try session.callScheduler("ImportICalendar", "'\(calendar.replacingOccurrences(of: "\n", with: "\\n"))'")
        #expect(imported.status != 0 && imported.stderr.contains("io.github.chime.Error.DiskFull: Nothing imported"), "\(imported)")
        #expect(try session.run(["chime", "list", "--json"]).stdout == before)

        try disk.free()
        #expect(try session.run(["chime", "edit", series, "--title", "Renamed"]).status == 0)
        #expect(try session.run(["chime", "skip", series]).status == 0)
        let again = try session.run(["chime", "snooze", shown, "10m"])
        #expect(again.status == 0, "the refused snooze gave the popup back: \(again)")
        #expect(try session.listedTitles().sorted() == ["Kettle", "Renamed"])
        try session.stopDaemon()
        _ = try daemon.finish()
    }

    @Test func aDamagedPageIsSalvagedAndTheUserToldOnce() throws {
        let session = try TestSession()
        try session.addReminders(300)
        try session.stopDaemon()
        // Some of the reminders, not most: a page holds some forty rows.
        let lost = try damageLeafPages(of: session.storeFile, containing: "Reminder", count: 2)
        #expect(lost > 0 && lost < 150, "\(lost) lost")

        let titles = try session.listedTitles()
        #expect(titles.count == 300 - lost, "\(session.daemonLog)")
        let kept = try #require(try session.dataFiles().first { $0.hasPrefix("chime.sqlite.damaged-") })
        // Said once chimed has answered the calls that started it.
        try session.waitForLog("\(300 - lost) of 300 reminders were recovered; the damaged file is kept as "
            + session.dataDirectory.appendingPathComponent(kept).path)
        let doctor = try session.run(["chime", "doctor"])
        #expect(doctor.stdout.contains("recovered:") && doctor.stdout.contains("\(300 - lost) of 300 reminders were recovered"), "\(doctor)")
        let told = try session.waitForNotifyCalls(1)
        #expect(told.first?.contains("Chime recovered \(300 - lost) of 300 reminders") == true, "\(told)")

        // Once: a restart says nothing more. A notification of its own marks the point
        // by which a repeated one would have been posted.
        try session.stopDaemon()
        #expect(try session.run(["chime", "notify", "After the restart"]).status == 0)
        let calls = try session.waitForNotifyCalls(2)
        #expect(calls.count == 2 && calls[1].contains("After the restart"), "\(calls)")
        #expect(try session.listedTitles().count == 300 - lost)
    }

    @Test func aDestroyedHeaderIsRecoveredFromTheBackup() throws {
        let session = try TestSession()
        try session.addReminders(5)
        // The backup is at most daily: the next chimed makes a new one only when it is gone.
        try session.waitForLog("Backed up the store")
        try session.stopDaemon()
        try FileManager.default.removeItem(at: session.dataDirectory.appendingPathComponent("chime.sqlite.backup"))
        #expect(try session.listedTitles().count == 5)
        try session.waitForLog("Backed up the store", times: 2)
        try session.stopDaemon()
        let backup = session.dataDirectory.appendingPathComponent("chime.sqlite.backup")
        #expect(try FileManager.default.attributesOfItem(atPath: backup.path)[.posixPermissions] as? Int == 0o600)

        let handle = try FileHandle(forWritingTo: session.storeFile)
        try handle.write(contentsOf: Data(repeating: 0, count: 100))
        try handle.close()
        #expect(try session.listedTitles().sorted() == (0..<5).map { "Reminder \($0)" })
        try session.waitForLog("5 reminders were recovered from the backup of")
        let told = try session.waitForNotifyCalls(1)
        #expect(told.first?.contains("Chime recovered 5 reminders from its backup") == true, "\(told)")
        #expect(try session.dataFiles().contains { $0.hasPrefix("chime.sqlite.damaged-") })
    }

    @Test func aLooseDataFolderIsMadePrivate() throws {
        let session = try TestSession()
        try FileManager.default.createDirectory(at: session.dataDirectory, withIntermediateDirectories: true)
        chmod(session.dataDirectory.path, 0o755)
        let stray = session.dataDirectory.appendingPathComponent("chime.sqlite")
        #expect(FileManager.default.createFile(atPath: stray.path, contents: nil))
        chmod(stray.path, 0o644)

        _ = try session.add("Private", "--in", "1h")
        #expect(try FileManager.default.attributesOfItem(atPath: session.dataDirectory.path)[.posixPermissions] as? Int == 0o700)
        #expect(try FileManager.default.attributesOfItem(atPath: stray.path)[.posixPermissions] as? Int == 0o600)
        // The line goes through the bus's stderr pipe, which the test reads on its own thread.
        try session.waitForDaemonLog(containing: "The data folder \(session.dataDirectory.path) had mode 755; it is now 700")
    }
}
