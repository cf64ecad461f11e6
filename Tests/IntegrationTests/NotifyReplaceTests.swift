import Foundation
import TestSupport
import Testing

/// `chime notify -r` and `-p` as scripts use notify-send's to update a progress
/// notification in place.
@Suite(.timeLimit(.minutes(10)))
struct NotifyReplaceTests {
    func notify(_ session: TestSession, _ arguments: String...) throws -> String {
        let result = try session.run(["chime", "notify"] + arguments)
        #expect(result.status == 0, "\(result)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theIDPrintedOnceReplacesAgainAndAgain() throws {
        let session = try TestSession()
        let id = try notify(session, "-p", "-h", "int:value:10", "Copying", "10%")
        #expect(try session.waitForNotifyCalls(1)[0].contains("<uint32 0>"))
        // The mock gives the first notification server id 1; each update replaces it.
        #expect(try notify(session, "-p", "-r", id, "-h", "int:value:60", "Copying", "60%") == id)
        let second = try session.waitForNotifyCalls(2)[1]
        #expect(second.contains("[<'Chime'>, <uint32 1>, <''>, <'Copying'>, <'60%'>"), "\(second)")
        #expect(try notify(session, "--replace-id", id, "Copying", "done").isEmpty)
        let third = try session.waitForNotifyCalls(3)[2]
        #expect(third.contains("<uint32 1>, <''>, <'Copying'>, <'done'>"), "\(third)")

        // Its buttons and signals still speak of the same id.
        let monitor = try SignalMonitor(session: session)
        try session.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 1>, <uint32 2>]")
        let closed = try monitor.waitForLine(containing: "Closed")
        #expect(closed.contains("('\(id)', uint32 2)"), "\(closed)")
    }

    @Test func aServerIDIsReplacedAsNotifySendDoes() throws {
        let session = try TestSession()
        // Not one of Chime's: passed on as it is.
        _ = try notify(session, "-r", "4242", "Elsewhere")
        #expect(try session.waitForNotifyCalls(1)[0].contains("<uint32 4242>, <''>, <'Elsewhere'>"))
        // One of Chime's, by its server id: the new one takes its place and its id.
        let id = try notify(session, "-p", "Mine")
        _ = try session.waitForNotifyCalls(2)
        #expect(try notify(session, "-p", "-r", "1", "Mine again") == id)
        #expect(try session.waitForNotifyCalls(3)[2].contains("<uint32 1>, <''>, <'Mine again'>"))
    }

    @Test func aClosedOneLeavesItsIDToTheNext() throws {
        let session = try TestSession()
        let id = try notify(session, "-p", "Step 1")
        _ = try session.waitForNotifyCalls(1)
        let monitor = try SignalMonitor(session: session)
        try session.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 1>, <uint32 2>]")
        _ = try monitor.waitForLine(containing: "Closed")
        // The user closed it: the next update is a new notification, still under the same id.
        #expect(try notify(session, "-p", "-r", id, "Step 2") == id)
        #expect(try session.waitForNotifyCalls(2)[1].contains("<uint32 0>, <''>, <'Step 2'>"))
    }

    @Test func aMalformedIDIsAUsageError() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "notify", "-r", "not an id", "T"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "chime: -r 'not an id' is neither an id chime notify -p printed nor a server id (a whole number). "
            + "See 'chime notify --help'.\n", "\(result)")
        let typed = try session.callScheduler("PresentNow", "{'title': <'T'>, 'replaces': <true>}")
        #expect(typed.stderr.contains("InvalidArgs") && typed.stderr.contains("replaces: must be a Chime id"), "\(typed)")
        #expect(try session.notifyCalls().isEmpty)
    }
}
