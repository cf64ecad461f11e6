import Foundation
import Testing
import TestSupport

/// Delivery under faults: the notification server dies, stalls, lies or refuses, and
/// chimed is killed between "due" and "shown". Nothing due may be lost without a trace.
@Suite(.timeLimit(.minutes(10)))
struct DeliveryFaultTests {
    /// The most `Notify` calls chimed has in flight at once (Presenter.maxInFlight): the
    /// duplicates a server restart may cause are those it had received and not answered.
    static let maxInFlight = 32

    /// An instant `seconds` from now, as `chime add --at` reads it.
    func instant(in seconds: TimeInterval) -> String {
        iso(Date(timeIntervalSince1970: Date().addingTimeInterval(seconds).timeIntervalSince1970.rounded(.up)))
    }

    /// Schedules `count` reminders titled R0, R1, … all due at `when`, through `chime add`.
    func scheduleMany(_ session: TestSession, count: Int, at when: String) throws {
        let chime = binDirectory.appendingPathComponent("chime").path
        let script = "i=0; while [ $i -lt \(count) ]; do \"$0\" add \"R$i\" --at \"$1\" >/dev/null || exit 1; i=$((i+1)); done"
        let result = try session.run(["sh", "-c", script, chime, when], timeout: 120)
        #expect(result.status == 0, "\(result)")
    }

    /// Waits until `predicate` holds for the titles the servers logged so far.
    func waitForTitles(_ logs: [URL], timeout: TimeInterval = 90, until predicate: ([String]) -> Bool) -> [String] {
        // The mock server has no signal for a received call; its log file is read again.
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let titles = logs.flatMap(TestSession.notifiedTitles(in:))
            if predicate(titles) || Date() > deadline { return titles }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A server killed in the middle of a stream of due reminders (a slow one, or one
    /// stalling 200 ms per call), and another started: every reminder reaches a server;
    /// the only copies are of calls the dead one had received and not answered.
    @Test(arguments: [(count: 120, secondsPerCall: 0.02, killAfter: 30), (count: 30, secondsPerCall: 0.2, killAfter: 3)])
    func aServerDyingUnderDueRemindersLosesNone(count: Int, secondsPerCall: Double, killAfter: Int) throws {
        let session = try TestSession(capabilities: nil)
        let first = session.directory.appendingPathComponent("first-server.log")
        let second = session.directory.appendingPathComponent("second-server.log")
        try session.startNotificationServer(capabilities: "body actions sound", logFile: first)
        // The server kills itself on receiving call number killAfter, so it dies mid-stream
        // however slowly a loaded machine lets this test watch it.
        try session.replaceServerMethod("Notify", inSignature: "susssasa{sv}i", outSignature: "u", code: """
            import os, signal, time
            self.received = getattr(self, 'received', 0) + 1
            if self.received >= \(killAfter):
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(\(secondsPerCall))
            ret = self.next_id
            self.next_id += 1
            """)
        _ = try SignalMonitor(session: session, startDaemon: true)
        try scheduleMany(session, count: count, at: instant(in: 4 + Double(count) / 40))

        let before = waitForTitles([first]) { $0.count >= killAfter }
        #expect(before.count == killAfter, "the server must die mid-stream, at call \(killAfter): \(before.count)")
        session.stopNotificationServer()
        try session.startNotificationServer(capabilities: "body actions sound", logFile: second)

        let expected = Set((0..<count).map { "R\($0)" })
        let titles = waitForTitles([first, second]) { expected.isSubset(of: Set($0)) }
        #expect(expected.subtracting(titles).isEmpty, "lost: \(expected.subtracting(titles).sorted())")
        #expect(titles.count - count <= Self.maxInFlight, "duplicates: \(titles.count - count)")
        // The history says what happened to the ones that had to be sent again.
        #expect(try session.run(["chime", "log", "--json", "--limit", "1000"]).stdout.contains("\"retried\""))
    }

    /// Due with no server, then chimed killed: the next chimed delivers it, and says so.
    @Test func aReminderWaitingForAServerSurvivesAKilledDaemon() throws {
        let session = try TestSession(capabilities: nil)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Waiting", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
        #expect(try session.run(["chime", "list"]).stdout.contains("pending"))
        try session.killDaemon()

        try session.startNotificationServer(capabilities: "body actions")
        #expect(try session.run(["chime", "list"]).status == 0)
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls[0].contains("<'Waiting'>"), "\(calls)")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("retried"), "\(log)")
    }

    /// Sent, never answered, then chimed killed: the next chimed sends it again.
    @Test func aReminderSentButNeverAnsweredSurvivesAKilledDaemon() throws {
        let session = try TestSession(capabilities: nil)
        let stalled = session.directory.appendingPathComponent("stalled-server.log")
        try session.startNotificationServer(capabilities: "body actions", logFile: stalled)
        try session.makeNotifySlow(seconds: 120)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Unanswered", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
        // The stalled server cannot answer GetMethodCalls: its log says it got the call.
        #expect(waitForTitles([stalled]) { $0.contains("Unanswered") } == ["Unanswered"])
        try session.killDaemon()

        session.stopNotificationServer()
        try session.startNotificationServer(capabilities: "body actions")
        #expect(try session.run(["chime", "list"]).status == 0)
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls[0].contains("<'Unanswered'>"), "\(calls)")
    }

    /// A server that refuses twice, then takes it: shown, with the two tries in the log.
    @Test func anErrorFromTheServerIsTriedAgainUntilItIsShown() throws {
        let session = try TestSession()
        try session.replaceServerMethod("Notify", inSignature: "susssasa{sv}i", outSignature: "u", code: """
            self.refusals = getattr(self, 'refusals', 0) + 1
            if self.refusals <= 2:
                raise dbus.exceptions.DBusException('Too busy to draw.', name='org.freedesktop.DBus.Error.Failed')
            ret = self.next_id
            self.next_id += 1
            """)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Flaky", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
        #expect(try session.waitForNotifyCalls(3).count == 3)
        try session.waitForDaemonLog(containing: "Notification \(id) is server id 1.")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.components(separatedBy: "retried").count - 1 == 2, "\(log)")
        #expect(!log.contains("gave up"), "\(log)")
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
    }

    /// A server that always refuses: a bounded number of tries, then "gave up" in the log.
    @Test func aServerThatAlwaysRefusesIsGivenUpAndTheLogSaysWhy() throws {
        let session = try TestSession()
        try session.replaceServerMethod("Notify", inSignature: "susssasa{sv}i", outSignature: "u", code: """
            raise dbus.exceptions.DBusException('No more room.', name='org.freedesktop.DBus.Error.LimitsExceeded')
            """)
        _ = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Refused", "--in", "1s")
        try session.waitForDaemonLog(containing: "Gave up on \(id)")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("gave up") && log.components(separatedBy: "retried").count - 1 == 5, "\(log)")
        let json = try session.run(["chime", "log", "--json", "--id", id]).stdout
        #expect(json.contains("No more room"), "the reason is kept: \(json)")
        #expect(try session.notifyCalls().count == 6)
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
    }

    /// A server stalling on every call faces at most a bounded number of calls at once;
    /// the rest wait in chimed instead of piling up on the bus.
    @Test func aStalledServerGetsABoundedNumberOfCalls() throws {
        let session = try TestSession()
        try session.makeNotifySlow(seconds: 120)
        _ = try SignalMonitor(session: session, startDaemon: true)
        let monitor = try session.spawn(["dbus-monitor", "--session", "type='method_call',member='Notify'"])
        // All due at once after the last is added (about 10 s for 50 on a loaded machine):
        // one that comes due earlier would reach chimed's 10 s Notify timeout, and its
        // retry, within the test.
        try scheduleMany(session, count: 50, at: instant(in: 20))
        #expect(monitor.stdout.wait(timeout: 60) { $0.components(separatedBy: "member=Notify").count - 1 >= Self.maxInFlight })
        // Nothing to await for "no more calls": give chimed time to send more, if it would.
        Thread.sleep(forTimeInterval: 3)
        // chimed stops waiting for a reply after 10 s (NotificationClient) and tries again, so
        // on a loaded machine later calls may be retries of calls already given up: count the
        // calls in flight together, each from when it was seen for 8 s (2 s for the monitor's
        // own delay).
        let times = Self.notifyCallTimes(monitor.stdout.text)
        let atOnce = times.map { start in times.filter { $0 >= start && $0 < start + 8 }.count }.max() ?? 0
        #expect(atOnce <= Self.maxInFlight, "\(atOnce) Notify calls in flight: \(times.map { $0 - times[0] })")
        if times.count == Self.maxInFlight {
            #expect(try session.run(["chime", "list"]).stdout.components(separatedBy: "pending").count - 1 == 50 - Self.maxInFlight)
        }
    }

    /// When dbus-monitor saw each Notify call (its `time=`, seconds since the epoch).
    static func notifyCallTimes(_ monitorOutput: String) -> [Double] {
        monitorOutput.split(separator: "\n").filter { $0.contains("member=Notify") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("time=") }.flatMap { Double($0.dropFirst("time=".count)) }
        }
    }

    /// GNOME Shell owns the name before it answers GetCapabilities: chimed still delivers
    /// (plain text), keeps asking, and `chime doctor` says the capabilities are unknown.
    @Test func capabilitiesAreAskedAgainUntilTheServerAnswers() throws {
        let session = try TestSession(capabilities: "body body-markup actions")
        try session.replaceServerMethod("GetCapabilities", inSignature: "", outSignature: "as", code: """
            raise dbus.exceptions.DBusException('Not exported yet.', name='org.freedesktop.DBus.Error.UnknownMethod')
            """)
        _ = try SignalMonitor(session: session, startDaemon: true)
        #expect(try session.run(["chime", "notify", "Early", "a <b> c"]).status == 0)
        let early = try session.waitForNotifyCalls(1)
        #expect(early[0].contains("<'a <b> c'>"), "sent as plain text while capabilities are unknown: \(early)")
        let unknown = try session.run(["chime", "doctor"])
        #expect(unknown.status == 1 && unknown.stdout.contains("capabilities unknown"), "\(unknown)")

        try session.replaceServerMethod("GetCapabilities", inSignature: "", outSignature: "as",
                                        code: "ret = ['body', 'body-markup', 'actions']")
        try session.waitForDaemonLog(containing: "Server capabilities: ")
        #expect(try session.run(["chime", "notify", "Later", "a <b> c"]).status == 0)
        let later = try session.waitForNotifyCalls(2)
        #expect(later[1].contains("<'a &lt;b&gt; c'>"), "escaped for a server that parses markup: \(later)")
        #expect(!(try session.run(["chime", "doctor"]).stdout.contains("capabilities unknown")))
    }

    /// mako and lxqt-notificationd keep the popup after a button: Remind pressed after
    /// Complete must not bring the reminder back, nor may `chime act` on it.
    @Test func aPressAfterCompleteIsIgnored() throws {
        let session = try TestSession()
        // Like those servers: the popup stays, whatever CloseNotification asks.
        try session.replaceServerMethod("CloseNotification", inSignature: "u", outSignature: "", code: "pass")
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Bins out", "--in", "1s", "--category", "reminder")
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'complete'>]")
        _ = try monitor.waitForLine(containing: "Completed ('\(id)'")
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'remind'>]")
        try session.waitForDaemonLog(containing: "Ignored 'remind' on \(id)")
        #expect(try session.run(["chime", "act", id, "remind"]).status == 0)
        try session.waitForDaemonLog(containing: "Ignored 'remind' on \(id): it was completed")
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(!log.contains("snoozed"), "\(log)")
        #expect(log.contains("ignored, it was already completed"), "\(log)")
        #expect(!monitor.lines.contains { $0.contains("ActionInvoked ('\(id)', 'remind'") })
    }

    /// Chime enforces `expires` itself (GNOME Shell ignores expire_timeout); a real server
    /// reports Chime's CloseNotification as reason 3, but it expired: log and signal say so.
    @Test func anExpiryChimeEnforcesIsLoggedAsExpiredWithReason1() throws {
        let session = try TestSession()
        try session.replaceServerMethod("CloseNotification", inSignature: "u", outSignature: "", code: """
            self.EmitSignal('org.freedesktop.Notifications', 'NotificationClosed', 'uu', [args[0], 3])
            """)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Brief", "--in", "1s", "-t", "300")
        let closed = try monitor.waitForLine(containing: "Closed ('\(id)'")
        #expect(closed.contains("uint32 1"), "\(closed)")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("expired"), "\(log)")
    }

    /// A fractional instant before 1970 once made the kernel refuse the timer and stopped
    /// all firing; asked for (late), it fires at once, and what comes after still fires.
    @Test func anInstantBefore1970DoesNotStopLaterReminders() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let past = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                    "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.ScheduleSimple",
                                    "1969-12-31T23:59:59.5Z", "Ancient", "", "{'late': 'true'}"])
        #expect(past.status == 0, "\(past)")
        let id = try session.add("After", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")
    }
}
