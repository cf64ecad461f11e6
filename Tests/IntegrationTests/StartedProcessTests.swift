import Foundation
import Testing
import TestSupport

/// What chimed starts for a button: the umask chimed was started with (not its own 077),
/// and, under a systemd user manager, a scope of its own instead of chimed's cgroup.
@Suite(.timeLimit(.minutes(10)))
struct StartedProcessTests {
    /// A config with one category, `record`, whose button `record` runs `command` in sh.
    func writeConfig(_ session: TestSession, command: String) throws {
        let directory = session.directory.appendingPathComponent("config/chime")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
            [Category record]
            Actions=record;

            [Action record]
            Label=Record
            Exec=/bin/sh;-c;\(command)
            """.write(to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    /// Shows a notification of category `record` and presses its button, as a server would.
    func pressRecord(_ session: TestSession) throws {
        let sent = try session.run(["chime", "notify", "-c", "record", "Record something"])
        #expect(sent.status == 0, "\(sent)")
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'record'>]")
    }

    /// Waits for the file a command writes; nothing announces it, so this looks again briefly.
    func waitForFile(_ url: URL, session: TestSession) throws -> String {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            if let content = try? String(contentsOf: url, encoding: .utf8), content.hasSuffix("\n") { return content }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure.timeout("\(url.path); chimed log: \(session.daemonLog)")
    }

    @Test func aCommandGetsTheUmaskChimedWasStartedWith() throws {
        let session = try TestSession()
        let output = session.directory.appendingPathComponent("umask")
        try writeConfig(session, command: "umask > \(output.path)")
        // 027: neither chimed's own 077 nor the usual 022, so only the real one passes.
        let daemon = try session.spawnDaemon(umask: "027")
        try session.waitForName("io.github.chime.Chime")
        try pressRecord(session)
        #expect(try waitForFile(output, session: session) == "0027\n", "\(daemon.stderr.text)")
        // The store stays private all the same.
        let attributes = try FileManager.default.attributesOfItem(atPath: session.dataDirectory.appendingPathComponent("chime.sqlite").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func aCommandIsMovedIntoAScopeOfItsOwn() throws {
        let session = try TestSession()
        let manager = try SystemdManagerMock(session: session)
        let output = session.directory.appendingPathComponent("pid")
        try writeConfig(session, command: "echo $$ > \(output.path)")
        try pressRecord(session)
        let pid = try waitForFile(output, session: session).trimmingCharacters(in: .whitespacesAndNewlines)
        let call = try #require(try manager.waitForTransientUnitCalls(1).first)
        #expect(call.contains("<'app-chime-sh-\(pid).scope'>, <'fail'>"), "\(call)")
        #expect(call.contains("('PIDs', <[uint32 \(pid)]>)"), "\(call)")
        #expect(call.contains("('CollectMode', <'inactive-or-failed'>)"), "\(call)")
    }

    @Test func withoutAUserManagerTheCommandRunsAndChimedSaysSo() throws {
        let session = try TestSession()
        let output = session.directory.appendingPathComponent("ran")
        try writeConfig(session, command: "echo ran > \(output.path)")
        try pressRecord(session)
        #expect(try waitForFile(output, session: session) == "ran\n")
        let deadline = Date(timeIntervalSinceNow: 30)
        while !session.daemonLog.contains("No systemd user manager on the session bus") && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(session.daemonLog.contains("No systemd user manager on the session bus: what Chime starts stays in chimed's cgroup."))
    }
}
