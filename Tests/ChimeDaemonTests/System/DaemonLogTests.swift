import Glibc
import Logging
import Testing
@testable import ChimeDaemon

struct DaemonLogTests {
    @Test func levelsMapToSyslogPriorities() {
        let levels: [Logger.Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]
        #expect(levels.map(JournalLogHandler.priority(of:)) == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test func everyLineOfARecordCarriesThePriority() {
        #expect(JournalLogHandler.text(level: .warning, message: "one", metadata: [:]) == "<4>one\n")
        #expect(JournalLogHandler.text(level: .error, message: "first\nsecond\n", metadata: ["id": "n1", "a": "b"])
                == "<3>first a=b id=n1\n<3>second\n<3>\n")
    }

    @Test func theLevelComesFromItsName() {
        #expect(DaemonLog.level(named: "debug") == .debug)
        #expect(DaemonLog.level(named: "loud") == .info)
        #expect(DaemonLog.level(named: nil) == .info)
    }

    /// JOURNAL_STREAM is believed only for the very descriptor it names.
    @Test func theJournalIsTheStreamJournalStreamNames() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        var status = stat()
        #expect(fstat(ends[1], &status) == 0)
        let named = "\(status.st_dev):\(status.st_ino)"
        #expect(DaemonLog.isJournal(named, descriptor: ends[1]))
        #expect(!DaemonLog.isJournal("\(status.st_dev):\(status.st_ino + 1)", descriptor: ends[1]))
        for malformed in [nil, "", "12", "a:b", "\(named):1", ":\(status.st_ino)", " \(named)"] {
            #expect(!DaemonLog.isJournal(malformed, descriptor: ends[1]), "\(malformed ?? "nil")")
        }
        #expect(!DaemonLog.isJournal(named, descriptor: -1))
    }
}
