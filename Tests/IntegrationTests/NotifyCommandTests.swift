import Foundation
import TestSupport
import Testing

/// `chime notify` run as a user would, against a private bus, the built chimed (started
/// by bus activation) and python-dbusmock's notification server.
@Suite(.timeLimit(.minutes(10)))
struct NotifyCommandTests {
    @Test func notificationReachesServerWithTypedHintsAndActions() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "notify", "-u", "critical", "-A", "done=Done", "T", "B"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty)

        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'T'>, <'B'>"))
        #expect(call.contains("<['done', 'Done']>"))
        // The specification types urgency as a byte; servers ignore it otherwise.
        #expect(call.contains("'urgency': <byte 0x02>"))
    }

    @Test func optionsBecomeNotifyArgumentsAndHints() throws {
        let session = try TestSession()
        let result = try session.run([
            "chime", "notify", "-p", "-a", "Backup", "-i", "dialog-warning", "-c", "device.error", "-t", "5000",
            "-h", "int:value:42", "-h", "string:x-origin:tests", "-e", "-A", "Open", "-A", "later=Later", "Disk", "Almost full",
        ])
        #expect(result.status == 0, "\(result)")
        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 8)

        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("[<'Backup'>, <uint32 0>, <'dialog-warning'>, <'Disk'>, <'Almost full'>"))
        // Without KEY=, the key is the action's index, as in notify-send.
        #expect(call.contains("<['0', 'Open', 'later', 'Later']>"))
        #expect(call.contains("'category': <'device.error'>"))
        #expect(call.contains("'image-path': <'dialog-warning'>"))
        #expect(call.contains("'value': <42>"))
        #expect(call.contains("'x-origin': <'tests'>"))
        #expect(call.contains("'transient': <true>"))
        #expect(call.contains("<5000>]"))
    }

    @Test func waitPrintsThePressedActionAndExits() throws {
        let session = try TestSession()
        let waiting = try session.spawn(["chime", "notify", "--wait", "-p", "-A", "done=Done", "T", "B"])
        // The id is printed once chimed has accepted the notification; chime subscribed before.
        #expect(waiting.stdout.wait(timeout: 60) { $0.contains("\n") })
        _ = try session.waitForNotifyCalls(1)

        // The mock numbers its notifications from 1.
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'done'>]")
        let result = try waiting.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.split(separator: "\n").last == "done")
    }

    @Test func waitEndsWhenClosedWithoutAction() throws {
        let session = try TestSession()
        let waiting = try session.spawn(["chime", "notify", "--wait", "-p", "T"])
        #expect(waiting.stdout.wait(timeout: 60) { $0.contains("\n") })
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 1>, <uint32 2>]")
        let result = try waiting.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.split(separator: "\n").count == 1, "only the id: \(result.stdout)")
    }

    @Test func buttonsStillHeardAfterChimeExits() throws {
        let session = try TestSession()
        let sent = try session.run(["chime", "notify", "-p", "-A", "done=Done", "T"])
        #expect(sent.status == 0, "\(sent)")
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)

        let monitor = try SignalMonitor(session: session)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'done'>]")
        let line = try monitor.waitForLine(containing: "ActionInvoked")
        #expect(line.contains("('\(id)', 'done',"))
    }

    @Test(arguments: [
        (["notify", "--no-such-option", "T"], "no-such-option"),
        (["notify", "-h", "int:value", "T"], "malformed hint"),
        (["notify", "-u", "urgent", "T"], "urgent"),
        (["notify", "-A", "=Done", "T"], "malformed action"),
        (["notify"], "title"),
    ])
    func badUsageIsOneClearErrorWithExit64(arguments: [String], mention: String) throws {
        let session = try TestSession(capabilities: nil)
        let result = try session.run(["chime"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(mention), "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func valueChimedRejectsIsExit64WithItsSentence() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "notify", "-h", "int:value:many", "T"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "chime: -h 'many' is not a 32-bit integer.\n")
    }

    @Test func noReachableBusIsExit69() throws {
        let session = try TestSession(capabilities: nil)
        var env = session.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(session.directory.path)/no-such-socket"
        let result = try Spawned([binDirectory.appendingPathComponent("chime").path, "notify", "T"], environment: env).finish()
        #expect(result.status == 69, "\(result)")
        // What chime doctor says of a bus address that leads nowhere.
        #expect(result.stderr.hasPrefix("chime: No session bus answers at unix:path=\(session.directory.path)/no-such-socket, "
            + "the address in DBUS_SESSION_BUS_ADDRESS"), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
