import Foundation
import Testing
import TestSupport

/// chimed's log lines: journal priorities when its standard error is the journal's
/// stream (`JOURNAL_STREAM` names it), swift-log's timestamped lines anywhere else.
@Suite(.timeLimit(.minutes(10)))
struct JournalTests {
    /// Starts chimed with a watchdog whose socket does not exist: it logs that the
    /// watchdog is on (info) and that systemd cannot be reached (warning), then SIGTERM.
    /// `journalStream` is a shell word for `JOURNAL_STREAM`, or nil to leave it unset.
    func daemonLog(_ session: TestSession, journalStream: String?) throws -> String {
        let chimed = binDirectory.appendingPathComponent("chimed").path
        let setting = journalStream.map { "JOURNAL_STREAM=\($0) " } ?? ""
        var environment = session.environment.merging([
            "NOTIFY_SOCKET": session.directory.appendingPathComponent("no-such-socket").path,
            "WATCHDOG_USEC": "60000000",
        ]) { $1 }
        environment["JOURNAL_STREAM"] = nil
        let daemon = try Spawned(["/bin/sh", "-c", "\(setting)exec \"$0\"", chimed], environment: environment)
        let logged = daemon.stderr.wait(timeout: 60) { $0.contains("Cannot reach systemd") }
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try daemon.finish()
        #expect(logged, "\(result)")
        #expect(result.status == 0, "\(result)")
        return result.stderr
    }

    func line(_ log: String, containing text: String) throws -> String {
        try #require(log.split(separator: "\n").first { $0.contains(text) }.map(String.init), "\(log)")
    }

    @Test func underTheJournalLinesStartWithTheirPriority() throws {
        let session = try TestSession()
        // The device and inode of chimed's own standard error, as systemd writes them.
        let log = try daemonLog(session, journalStream: "$(stat -L -c %d:%i /proc/self/fd/2)")
        #expect(try line(log, containing: "systemd's watchdog is on") == "<6>systemd's watchdog is on: pinging every 30000 ms.")
        #expect(try line(log, containing: "Cannot reach systemd").hasPrefix("<4>Cannot reach systemd at "))
        // Every line is a journal line: a priority, no time of day.
        for line in log.split(separator: "\n") {
            #expect(line.wholeMatch(of: /<[0-7]>.+/) != nil, "\(line)")
        }
    }

    @Test(arguments: [nil, "1:1", "$(stat -L -c %d:%i /proc/self/fd/1)"])
    func elsewhereLinesStartWithTheTime(journalStream: String?) throws {
        let session = try TestSession()
        let log = try daemonLog(session, journalStream: journalStream)
        let warning = try line(log, containing: "Cannot reach systemd")
        #expect(warning.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} warning chimed: \[ChimeDaemon\] Cannot reach systemd at .+/) != nil,
                "\(warning)")
        #expect(!log.contains("<6>"), "\(log)")
    }
}
