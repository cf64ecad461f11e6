import Foundation
import Glibc
import Testing
import TestSupport

/// Files that could stall or swamp chimed: a config or a sound that is a FIFO or huge.
@Suite(.timeLimit(.minutes(5)))
struct HostileFileTests {
    @Test func aFIFOAsConfigIsRefusedAndChimedStillAnswers() throws {
        let session = try TestSession()
        // Reading a FIFO blocks until a writer comes; none ever does here.
        #expect(mkfifo(session.configFile.path, 0o600) == 0)
        #expect(try session.pingDaemon(timeout: 30))
        try session.waitForDaemonLog(
            containing: "\(session.configFile.path): The config is a FIFO, not a regular file, so it was not read. Keeping the last good config.")
        #expect(try session.run(["chime", "notify", "-c", "reminder", "Still here"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete', 'remind', 'Remind in 30 minutes']>"), "\(call)")
    }

    @Test func anOversizedConfigIsRefusedAndTheLastGoodOneKept() throws {
        let session = try TestSession()
        let good = """
            [Category todo]
            Actions=complete;
            """
        try good.write(to: session.configFile, atomically: true, encoding: .utf8)
        #expect(try session.pingDaemon())
        let comment = "# " + String(repeating: "x", count: 1_000) + "\n"
        try (good + "\n" + String(repeating: comment, count: 300)).write(to: session.configFile, atomically: true, encoding: .utf8)
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForDaemonLog(containing: "more than the 262144 (256 KiB) Chime reads, so it was not read. Keeping the last good config.")
        #expect(try session.run(["chime", "notify", "-c", "todo", "Still works"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete']>"), "\(call)")
    }

    @Test func aFIFOAsSoundFileIsRefusedAndChimedStillAnswers() throws {
        // Without the sound capability chimed plays the sound itself, through libcanberra.
        let session = try TestSession(capabilities: "body actions")
        let fifo = session.directory.appendingPathComponent("ding.oga")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let sent = try session.callScheduler("PresentNow", "{'title': <'Ding'>, 'sound': <'\(fifo.path)'>}")
        #expect(sent.status == 0, "\(sent)")
        let id = try #require(sent.stdout.split(separator: "'").dropFirst().first.map(String.init))
        try session.waitForDaemonLog(containing: "The sound file \(fifo.path) of \(id) is a FIFO, not a regular file, so it was not read; no sound.")
        #expect(try session.pingDaemon(timeout: 30))
        _ = try session.waitForNotifyCalls(1)
    }
}
