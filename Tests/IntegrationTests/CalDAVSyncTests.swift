import Foundation
import Testing
import TestSupport

/// Two machines on one CalDAV account, and a phone: two chimed, each on its own bus with its
/// own data folder, syncing one Radicale, and the PyPI caldav client as the phone.
@Suite(.timeLimit(.minutes(10)))
struct CalDAVSyncTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The phone: Tests/caldav-phone.py through the caldav client in `.build/oracle`.
    struct Phone {
        let server: Radicale
        let session: TestSession

        @discardableResult
        func run(_ arguments: [String], stdin: String? = nil) throws -> String {
            let python = CalDAVSyncTests.packageRoot.appendingPathComponent(".build/oracle/bin/python").path
            let script = CalDAVSyncTests.packageRoot.appendingPathComponent("Tests/caldav-phone.py").path
            let result = try session.run([python, script, server.url, server.user, server.password] + arguments, stdin: stdin)
            guard result.status == 0 else { throw TestFailure.failed("the phone: \(arguments): \(result)") }
            return result.stdout
        }

        /// Makes calendar `name`; its URL.
        func make(_ name: String) throws -> String {
            try run(["make", name]).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func put(_ calendar: String, _ text: String) throws { try run(["put", calendar], stdin: text) }
        func get(_ calendar: String, _ uid: String) throws -> String { try run(["get", calendar, uid]) }
        func complete(_ calendar: String, _ uid: String) throws { try run(["complete", calendar, uid]) }
        func delete(_ calendar: String, _ uid: String) throws { try run(["delete", calendar, uid]) }
    }

    static func utc(_ date: Date) -> String { CalendarWriteBackTests.utc(date) }

    /// A task due at `due` with an alarm then.
    static func task(_ uid: String, _ title: String, due: Date, rule: String? = nil) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Phone//EN", "BEGIN:VTODO", "UID:" + uid, "DTSTAMP:20261101T100000Z",
                     "SUMMARY:" + title, "DUE:" + utc(due), "STATUS:NEEDS-ACTION"]
        if let rule { lines.append("RRULE:" + rule) }
        lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + title, "TRIGGER;RELATED=END:PT0S", "END:VALARM",
                  "END:VTODO", "END:VCALENDAR", ""]
        return lines.joined(separator: "\r\n")
    }

    /// An event starting at `start` with an alarm then.
    static func event(_ uid: String, _ title: String, start: Date) -> String {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Phone//EN", "BEGIN:VEVENT", "UID:" + uid, "DTSTAMP:20261101T100000Z",
         "SUMMARY:" + title, "DTSTART:" + utc(start), "DURATION:PT30M", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + title,
         "TRIGGER:PT0S", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
    }

    /// Follows `calendar` in `session` as the server's user, its password printed by a command
    /// reading `passwordFile`; returns what AddCalendar answered.
    @discardableResult
    static func follow(_ session: TestSession, _ calendar: String, server: Radicale, passwordFile: URL,
                       shareDismissals: Bool = true, interval: Int = 5) throws -> String {
        let options = "{'user': <'\(server.user)'>, 'passwordCommand': <'cat \(passwordFile.path)'>, "
            + "'shareDismissals': <\(shareDismissals)>, 'interval': <uint32 \(interval)>}"
        let result = try session.callScheduler("AddCalendar", calendar, options)
        guard result.status == 0 else { throw TestFailure.failed("AddCalendar: \(result)") }
        return result.stdout
    }

    /// The ids of the CloseNotification calls `session`'s server received.
    static func closeCalls(_ session: TestSession) throws -> [String] {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications",
                                      "--object-path", "/org/freedesktop/Notifications",
                                      "--method", "org.freedesktop.DBus.Mock.GetMethodCalls", "CloseNotification"])
        return result.stdout.components(separatedBy: ", [<").dropFirst().map { String($0.prefix { $0 != ">" }) }
    }

    static func waitFor(_ what: String, timeout: TimeInterval = 60, _ check: () throws -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while try !check() {
            guard Date() < deadline else { throw TestFailure.timeout(what) }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    static func onlyID(_ session: TestSession) throws -> String {
        let list = try session.listedJSON()
        guard list.count == 1, let id = list[0]["id"] as? String else { throw TestFailure.failed("one reminder, not \(list)") }
        return id
    }

    @Test func madeOnThePhoneRingsOnBothCompleteOnOneClosesTheOtherAndThePhoneSeesIt() throws {
        let a = try TestSession(), b = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server: server, session: a)
        let calendar = try phone.make("tasks")
        let password = a.directory.appendingPathComponent("password")
        try "secret\n".write(to: password, atomically: true, encoding: .utf8)

        let due = Date().addingTimeInterval(12)
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: due))
        try Self.follow(a, calendar, server: server, passwordFile: password)
        try Self.follow(b, calendar, server: server, passwordFile: password)
        let idA = try Self.onlyID(a), idB = try Self.onlyID(b)
        #expect(try a.run(["chime", "calendar", "list", "--json"]).stdout.contains("\"synced\""))

        // Both ring; Complete on A goes to the server at once, and B's popup closes at its next sync.
        let rungA = try #require(try a.waitForNotifyCalls(1).first)
        #expect(rungA.contains("Buy milk") && rungA.contains("'complete', 'Complete'"), "\(rungA)")
        _ = try b.waitForNotifyCalls(1)
        #expect(try a.run(["chime", "act", idA, "complete"]).status == 0)
        try Self.waitFor("COMPLETED on the server") { try phone.get(calendar, "milk@phone").contains("STATUS:COMPLETED") }
        let stored = try phone.get(calendar, "milk@phone")
        #expect(stored.contains("PERCENT-COMPLETE:100") && stored.contains("SUMMARY:Buy milk"), "\(stored)")
        try Self.waitFor("B's popup closed", timeout: 90) { try !Self.closeCalls(b).isEmpty }
        try b.waitForLog("done on another device")
        #expect(try b.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        #expect(try b.run(["chime", "log", "--json"]).stdout.contains("Done on another device"), "\(idB)")
        // Nothing rang twice on either machine.
        #expect(try a.notifyCalls().count == 1)
        #expect(try b.notifyCalls().count == 1)
    }

    @Test func completedOnThePhoneBeforeItRingsNeverRings() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server: server, session: a)
        let calendar = try phone.make("tasks")
        let password = a.directory.appendingPathComponent("password")
        try "secret\n".write(to: password, atomically: true, encoding: .utf8)
        try phone.put(calendar, Self.task("bins@phone", "Put the bins out", due: Date().addingTimeInterval(20)))
        try Self.follow(a, calendar, server: server, passwordFile: password, interval: 300)
        _ = try Self.onlyID(a)
        try phone.complete(calendar, "bins@phone")
        // The check ahead of the alarm reads it completed, though the next sync was minutes away.
        try a.waitForLog("Calendar tasks: synced: 0 new, 0 updated, 1 removed", timeout: 60)
        #expect(try a.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        Thread.sleep(forTimeInterval: 2)
        #expect(try a.notifyCalls().isEmpty)
    }

    @Test func aDismissalKeptLocalStaysLocalAndASharedOneReachesTheServer() throws {
        let a = try TestSession(), b = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server: server, session: a)
        let calendar = try phone.make("shared")
        let password = a.directory.appendingPathComponent("password")
        try "secret\n".write(to: password, atomically: true, encoding: .utf8)
        try phone.put(calendar, Self.event("standup@phone", "Standup", start: Date().addingTimeInterval(8)))
        try Self.follow(b, calendar, server: server, passwordFile: password, shareDismissals: false)
        // The user closes it on B (the mock numbers its popups from 1): kept on B only.
        _ = try b.waitForNotifyCalls(1)
        try b.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 1>, <uint32 2>]")
        try b.waitForLog("stays on this machine")
        #expect(!(try phone.get(calendar, "standup@phone")).contains("ACKNOWLEDGED"))

        // A shares its dismissals: the same on A reaches the server.
        try Self.follow(a, calendar, server: server, passwordFile: password)
        try phone.put(calendar, Self.event("review@phone", "Review", start: Date().addingTimeInterval(10)))
        try Self.waitFor("Review on A") { try a.notifyCalls().contains { $0.contains("Review") } }
        let calls = try a.notifyCalls()
        let index = try #require(calls.firstIndex { $0.contains("Review") })
        try a.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 \(index + 1)>, <uint32 2>]")
        try Self.waitFor("ACKNOWLEDGED on the server") { try phone.get(calendar, "review@phone").contains("ACKNOWLEDGED:") }
    }
}
