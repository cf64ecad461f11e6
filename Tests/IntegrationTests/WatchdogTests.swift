import Foundation
import Testing
import TestSupport

/// systemd's watchdog: chimed pings `NOTIFY_SOCKET` only when the unit asked for it.
@Suite(.timeLimit(.minutes(10)))
struct WatchdogTests {
    func startDaemon(_ session: TestSession, _ environment: [String: String]) throws -> Spawned {
        try Spawned([binDirectory.appendingPathComponent("chimed").path], environment: session.environment.merging(environment) { $1 })
    }

    @Test(arguments: [false, true])
    func chimedPingsWhenSystemdAsks(abstractSocket: Bool) throws {
        let session = try TestSession()
        let socket = try NotifySocket(directory: session.directory, abstract: abstractSocket)
        let daemon = try startDaemon(session, ["NOTIFY_SOCKET": socket.address, "WATCHDOG_USEC": "200000"])
        #expect(socket.receive(timeout: 30) == "WATCHDOG=1", "\(daemon.stderr.text)")
        #expect(socket.receive(timeout: 30) == "WATCHDOG=1", "again, half an interval later")
        #expect(daemon.stderr.text.contains("systemd's watchdog is on: pinging every 100 ms."))
    }

    /// A ping, when there is one, goes out before the loop first waits; a call answered
    /// shows the loop has turned.
    @Test(arguments: [[:], ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"]])
    func noPingsUnlessSystemdAsksThisProcess(extra: [String: String]) throws {
        let session = try TestSession()
        let socket = try NotifySocket(directory: session.directory)
        let daemon = try startDaemon(session, extra.merging(["NOTIFY_SOCKET": socket.address]) { $1 })
        try session.waitForName("io.github.chime.Chime")
        #expect(try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                 "/io/github/chime/Chime", "--method", "org.freedesktop.DBus.Peer.Ping"]).status == 0)
        kill(daemon.process.processIdentifier, SIGTERM)
        #expect(try daemon.finish().status == 0)
        #expect(socket.receive(timeout: 0) == nil)
    }
}
