import Foundation
import Testing
import TestSupport

/// chimed stopped while a popup with buttons is on screen, started again by the next
/// call: it takes the popup over (posted again in place, silently, with the same text),
/// and a press on it acts once. Against the mock server here; ServerMatrixTests does
/// the same on every real server.
@Suite(.timeLimit(.minutes(10)))
struct TakeoverTests {
    @Test(arguments: [SIGKILL, SIGTERM])
    func aPopupOnScreenWhenChimedRestartsStillActsOnce(signal: Int32) throws {
        let session = try TestSession()
        let id = try session.add("Water the plants", "--in", "1s", "--repeat", "day", "--category", "reminder")
        let first = try #require(try session.waitForNotifyCalls(1).first)
        #expect(!first.contains("'suppress-sound'"), "\(first)")
        // On screen as chimed knows it: killed before the server's answer reached it, the
        // popup is one still to be sent, and is sent afresh (at least once), not taken over.
        try session.waitForDaemonLog(containing: "Notification \(id) is server id 1.")

        try session.killDaemon(signal: signal)
        // Any call starts chimed again, as the user's next command would.
        #expect(try session.run(["chime", "list"]).status == 0)
        let again = try #require(try session.waitForNotifyCalls(2).last)
        // Notify(app_name, replaces_id, ...): the server's id for the popup, 1 on the mock.
        #expect(again.contains("<uint32 1>"), "not posted in place: \(again)")
        #expect(again.contains("'suppress-sound': <true>"), "a second sound: \(again)")
        #expect(!again.contains("Due "), "a late note on a popup that was on time: \(again)")
        #expect(Self.text(of: again) == Self.text(of: first), "the text changed: \(again)")

        let monitor = try SignalMonitor(session: session)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'complete'>]")
        _ = try monitor.waitForLine(containing: "Completed ('\(id)',)")
        _ = try monitor.waitForLine(containing: "Closed ('\(id)', uint32 2)")
        #expect(monitor.lines.count { $0.contains("ActionInvoked ('\(id)', 'complete'") } == 1, "\(monitor.lines)")
        let shown = try session.run(["chime", "show", id]).stdout
        #expect(shown.contains("completed:"), "\(shown)")
    }

    @Test func aPopupPressedBeforeTheRestartIsNotTakenOver() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        // resident: the popup stays after the press, as the app asked.
        let reply = try session.callScheduler("Schedule", "{'when': <'in 1s'>, 'title': <'Kept'>, 'category': <'reminder'>, 'hints': <{'resident': <true>}>}")
        let id = try #require(reply.stdout.split(separator: "'").dropFirst().first.map(String.init), "\(reply)")
        try session.waitForDaemonLog(containing: "Notification \(id) is server id 1.")
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'complete'>]")
        _ = try monitor.waitForLine(containing: "Completed ('\(id)',)")
        try session.killDaemon()
        _ = try session.run(["chime", "list"])
        try session.waitForDaemonLog(containing: "Then, after the first calls")
        #expect(try session.notifyCalls().count == 1)
    }

    /// The summary, body and actions of a Notify call as gdbus prints it.
    static func text(of call: String) -> [String] {
        Array(call.components(separatedBy: ">, <").dropFirst(3).prefix(3))
    }
}
