import Foundation
import Testing
import TestSupport

/// Chime and the notification server's comings and goings.
@Suite(.timeLimit(.minutes(10)))
struct ServerLifecycleTests {
    @Test func expiringNotificationIsClosedByChime() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let sent = try session.run(["chime", "notify", "-p", "-t", "300", "Brief"])
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The mock, like GNOME Shell, never expires anything itself: the close is Chime's.
        _ = try monitor.waitForLine(containing: "Closed ('\(id)'")
        let closes = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications",
                                      "--object-path", "/org/freedesktop/Notifications",
                                      "--method", "org.freedesktop.DBus.Mock.GetMethodCalls", "CloseNotification"])
        #expect(closes.stdout.contains("[<1>]") || closes.stdout.contains("[<uint32 1>]"), "\(closes)")
    }

    @Test func notificationsWithButtonsArePostedAgainWhenTheServerRestarts() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "notify", "-A", "done=Done", "With buttons"]).status == 0)
        #expect(try session.run(["chime", "notify", "Without"]).status == 0)
        _ = try session.waitForNotifyCalls(2)

        session.stopNotificationServer()
        try session.startNotificationServer(capabilities: "body actions")
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls[0].contains("<'With buttons'>"))
        #expect(calls[0].contains("<['done', 'Done']>"))
        // The new server's id maps to the same Chime id: a press still arrives.
        let monitor = try SignalMonitor(session: session)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'done'>]")
        _ = try monitor.waitForLine(containing: "ActionInvoked")
        // Only the one with buttons came back.
        #expect(try session.notifyCalls().count == 1)
    }

    /// A server with `persistence` (GNOME Shell, Plasma) promised to keep even a popup
    /// without buttons until the user dismissed it; its successor is a new process that
    /// holds none of them, whatever it advertises, so Chime posts them again.
    @Test func whatAPersistentServerKeptIsPostedAgainWhenItRestarts() throws {
        let session = try TestSession(capabilities: "body actions persistence")
        #expect(try session.run(["chime", "notify", "Kept by the server"]).status == 0)
        _ = try session.waitForNotifyCalls(1)

        session.stopNotificationServer()
        try session.startNotificationServer(capabilities: "body actions persistence")
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls[0].contains("<'Kept by the server'>"))
    }
}

/// What a server without buttons, or one that comes and goes, does to reminders.
@Suite(.timeLimit(.minutes(10)))
struct ServerCapabilityTests {
    @Test func withoutTheActionsCapabilityButtonsWorkThroughChimeAct() throws {
        let session = try TestSession(capabilities: "body")
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Bins out", "--in", "1h", "--category", "reminder")
        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        _ = try monitor.waitForLine(containing: "Completed ('\(id)'")
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
    }

    @Test func serverGoneBetweenFiringsLosesNothingAndDeliversOnce() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let first = try session.add("First", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(first)'")
        _ = try session.waitForNotifyCalls(1)

        session.stopNotificationServer()
        let second = try session.add("Second", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(second)'")
        // Fired with no server: it waits, visible as pending.
        #expect(try session.run(["chime", "list"]).stdout.contains("pending"))

        try session.startNotificationServer(capabilities: "body actions")
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls[0].contains("<'Second'>"))
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        // Once: the new server got exactly that one (the first had no buttons to repost).
        #expect(try session.notifyCalls().count == 1)
    }
}
