import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// `chime snooze` and `Snooze`: a notification on screen put off until later; and the
/// snooze buttons a category offers from the config, by duration or by time of day.
@Suite(.timeLimit(.minutes(10)))
struct SnoozeTests {
    /// The ids of the CloseNotification calls the mock server received.
    func closeCalls(_ session: TestSession) throws -> [String] {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications",
                                      "--object-path", "/org/freedesktop/Notifications",
                                      "--method", "org.freedesktop.DBus.Mock.GetMethodCalls", "CloseNotification"])
        return result.stdout.components(separatedBy: ", [<").dropFirst().map { $0.prefix { $0 != ">" }.replacingOccurrences(of: "uint32 ", with: "") }
    }

    /// Tomorrow at `time` on the session's clock (its TZ, not this process's: near midnight
    /// they disagree on the day), as `chime show --json` writes a wall-clock time.
    func tomorrow(at time: String, _ session: TestSession) throws -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: session.timeZone))
        let day = try #require(calendar.date(byAdding: .day, value: 1, to: Date()))
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02dT%@:00", parts.year!, parts.month!, parts.day!, time)
    }

    @Test func snoozeClosesItAndBringsItBackAfterTheDuration() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.run(["chime", "notify", "-p", "Kettle", "Boiled"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)

        let snoozed = try session.run(["chime", "snooze", id, "2s"])
        #expect(snoozed.status == 0, "\(snoozed)")
        let copy = String(snoozed.stdout.split(separator: " ").first ?? "")
        #expect(copy.count == 8 && copy != id, "\(snoozed)")
        // The popup goes at once, as after a press: dismissed by the user.
        #expect(try closeCalls(session) == ["1"])
        try session.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 1>, <uint32 3>]")
        _ = try monitor.waitForLine(containing: "Closed ('\(id)', uint32 2)")

        // And it comes back, the same notification, as the copy.
        let fired = try monitor.waitForLine(containing: "Fired ('\(copy)'")
        #expect(fired.contains("'origin': <'\(id)'>"), "\(fired)")
        let calls = try session.waitForNotifyCalls(2)
        #expect(calls[1].hasPrefix("[<'Chime'>, <uint32 0>, <''>, <'Kettle'>, <'Boiled'>"), "\(calls[1])")
    }

    @Test func aRepeatIsSnoozedUntilATimeOfDayAndKeepsItsOwnTimes() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Stretch", "--in", "1s", "--repeat", "hour", "--user-info", "task=7")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
        _ = try session.waitForNotifyCalls(1)
        let before = try session.shownJSON(id)

        let json = try session.run(["chime", "snooze", "--json", id, "tomorrow 9:00"])
        #expect(json.status == 0, "\(json)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        let copy = try session.shownJSON(try #require(answer["id"] as? String))
        #expect(copy["origin"] as? String == id && copy["title"] as? String == "Stretch", "\(copy)")
        let nine = try tomorrow(at: "09:00", session)
        #expect(copy["when"] as? String == nine && copy["repeat"] == nil, "\(copy)")
        #expect(copy["userInfo"] as? [String: String] == ["task": "7"], "\(copy)")
        #expect(try session.shownJSON(id)["nextFire"] as? Int == before["nextFire"] as? Int)

        let log = try session.run(["chime", "log", "--id", id])
        #expect(log.stdout.contains("Again at tomorrow 9:00."), "\(log)")
    }

    @Test func onlyOneOnScreenCanBeSnoozed() throws {
        let session = try TestSession()
        let unknown = try session.run(["chime", "snooze", "nosuchid", "10m"])
        #expect(unknown.status == 1 && unknown.stderr.contains("No notification has the id 'nosuchid'."), "\(unknown)")

        let waiting = try session.add("Later", "--in", "2h")
        let notShown = try session.run(["chime", "snooze", waiting, "10m"])
        #expect(notShown.status == 1 && notShown.stderr.contains("is not on screen"), "\(notShown)")
        let typed = try session.callScheduler("Snooze", waiting, "10m")
        #expect(typed.stderr.contains("io.github.chime.Error.NotShown"), "\(typed)")
        #expect(try session.run(["chime", "list"]).stdout.components(separatedBy: "\n").filter { $0.contains("Later") }.count == 1)
    }

    /// A Snooze call to chimed, as `chime snooze` sends it.
    static func snoozeCall(_ id: String, _ when: String) throws -> Message {
        try Message.methodCall(destination: HostileRequestTests.chime, path: HostileRequestTests.path,
                               interface: try InterfaceName("io.github.chime.Scheduler1"), member: try MemberName("Snooze"),
                               arguments: [.string(id), .string(when)])
    }

    /// The copies `chime list --json` holds of `id`.
    func copies(of id: String, _ session: TestSession) throws -> [[String: Any]] {
        try session.listedJSON().filter { $0["origin"] as? String == id }
    }

    /// Two snoozes of one popup reach chimed in one batch, before the first copy is
    /// stored: one copy, and the second caller hears why not.
    @Test func twoSnoozesAtOnceMakeOneCopy() throws {
        let session = try TestSession()
        let id = try session.run(["chime", "notify", "-p", "Kettle"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        let pid = try session.daemonPID()
        let client = try Connection.bus(address: session.address)
        var first: Result<Message, DBusError>?, second: Result<Message, DBusError>?
        // Stopped, chimed reads nothing: both calls wait in its socket and are read at once.
        kill(pid, SIGSTOP)
        client.call(try Self.snoozeCall(id, "10m")) { first = $0 }
        client.call(try Self.snoozeCall(id, "1h")) { second = $0 }
        try HostileRequestTests.fence(client)
        kill(pid, SIGCONT)
        try HostileRequestTests.dispatch([client]) { first != nil && second != nil }

        let copy = try #require(try first?.get().arguments().first?.stringValue, "\(String(describing: first))")
        guard case .failure(let error) = second else { Issue.record("snoozed twice: \(String(describing: second))"); return }
        #expect(error.name == "io.github.chime.Error.NotShown" && error.message.contains("was already pressed or snoozed"), "\(error)")
        #expect(try copies(of: id, session).compactMap { $0["id"] as? String } == [copy])
        #expect(try closeCalls(session) == ["1"])
    }

    /// A snooze button pressed and `chime snooze` in the same batch: the press wins, and
    /// makes the one copy.
    @Test func aSnoozeBehindAPressOfRemindMakesNoSecondCopy() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.run(["chime", "notify", "-p", "-c", "reminder", "Call back"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        let pid = try session.daemonPID()
        let client = try Connection.bus(address: session.address)
        var snoozed: Result<Message, DBusError>?
        kill(pid, SIGSTOP)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'remind'>]")
        client.call(try Self.snoozeCall(id, "10m")) { snoozed = $0 }
        try HostileRequestTests.fence(client)
        kill(pid, SIGCONT)
        try HostileRequestTests.dispatch([client]) { snoozed != nil }
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'remind'")

        guard case .failure(let error) = snoozed else { Issue.record("snoozed after the press: \(String(describing: snoozed))"); return }
        #expect(error.name == "io.github.chime.Error.NotShown", "\(error)")
        // The press's copy was committed before chimed read anything more.
        #expect(try copies(of: id, session).count == 1)
    }

    @Test(arguments: [
        ("soonish", "chime: 'soonish' is neither a duration (10m, 1h30m, 2d) nor a time"),
        ("-5m", "chime: '-5m' is neither a duration"),
        ("2000-01-01 09:00", "is not ahead: a snoozed notification comes back later."),
    ])
    func aBadTimeIsAUsageErrorAndLeavesItOnScreen(when: String, sentence: String) throws {
        let session = try TestSession()
        let id = try session.run(["chime", "notify", "-p", "Kettle"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        let result = try session.run(["chime", "snooze", id, "--", when])
        #expect(result.status == 64 && result.stderr.contains(sentence), "\(result)")
        #expect(try closeCalls(session).isEmpty)
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
    }

    /// Several Remind buttons, as KAlarm and GNOME offer: 10 min, 1 hour, tomorrow morning.
    @Test func aCategoryOffersSeveralSnoozeChoices() throws {
        let session = try TestSession()
        try session.writeConfig("""
            [Category later]
            Actions=ten;hour;morning;

            [Action ten]
            Label=10 min
            Snooze=10m

            [Action hour]
            Label=1 hour
            Snooze=1h

            [Action morning]
            Label=Tomorrow morning
            Snooze=tomorrow 8:30
            """)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let first = try session.run(["chime", "notify", "-p", "-c", "later", "Call back"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let second = try session.run(["chime", "notify", "-p", "-c", "later", "Water"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let calls = try session.waitForNotifyCalls(2)
        #expect(calls[0].contains("<['ten', '10 min', 'hour', '1 hour', 'morning', 'Tomorrow morning']>"), "\(calls[0])")

        let pressed = Date()
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'hour'>]")
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(first)', 'hour'")
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 2>, <'morning'>]")
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(second)', 'morning'")

        let copies = try session.listedJSON()
        let inAnHour = try #require(copies.first { $0["origin"] as? String == first }, "\(copies)")
        let due = try #require(inAnHour["nextFire"] as? Int)
        #expect(abs(Double(due) - pressed.addingTimeInterval(3600).timeIntervalSince1970) < 10, "\(inAnHour)")
        let morning = try #require(copies.first { $0["origin"] as? String == second }, "\(copies)")
        let morningTime = try tomorrow(at: "08:30", session)
        #expect(morning["when"] as? String == morningTime, "\(morning)")
    }
}
