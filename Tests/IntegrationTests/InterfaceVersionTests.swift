import Foundation
import Testing
import TestSupport

/// A chimed of another interface version still running after an upgrade: python-dbusmock
/// stands in for it under chimed's bus name.
@Suite(.timeLimit(.minutes(10)))
struct InterfaceVersionTests {
    /// Starts a mock that owns io.github.chime.Chime and serves `interface` (no methods yet).
    func oldDaemon(_ session: TestSession, interface: String) throws -> Spawned {
        let mock = try session.spawn(["/usr/bin/python3", "-m", "dbusmock", "--session", "io.github.chime.Chime",
                                      "/io/github/chime/Chime", interface])
        try session.waitForName("io.github.chime.Chime")
        return mock
    }

    /// Calls one of python-dbusmock's methods on the stand-in.
    func mock(_ session: TestSession, _ method: String, _ arguments: [String]) throws {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                      "/io/github/chime/Chime", "--method", "org.freedesktop.DBus.Mock." + method] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("\(method): \(result)") }
    }

    /// One line on standard error, with the fix and without libdbus's wording.
    func expectOneSentenceWithTheFix(_ result: ProcessResult) {
        #expect(result.status == 69, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("chime: The running chimed"), "\(result)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result)")
        #expect(result.stderr.contains("'systemctl --user restart chimed.service'"), "\(result)")
        #expect(result.stderr.contains("'pkill -x chimed'"), "\(result)")
        #expect(!result.stderr.contains("org.freedesktop.DBus.Error"), "\(result)")
        #expect(!result.stderr.contains("doesn't exist"), "\(result)")
    }

    @Test func daemonOfAnotherInterfaceIsNamedWithTheFix() throws {
        let session = try TestSession()
        let old = try oldDaemon(session, interface: "io.github.chime.Scheduler0")
        defer { old.stop() }
        let result = try session.run(["chime", "list"])
        expectOneSentenceWithTheFix(result)
        #expect(result.stderr.contains("of unknown version (it has no Version property)"), "\(result)")
        #expect(result.stderr.contains("does not implement io.github.chime.Scheduler1"), "\(result)")
        #expect(result.stderr.contains("(it offers io.github.chime.Scheduler0)"), "\(result)")
    }

    @Test func daemonWithoutAMethodSaysItsVersion() throws {
        let session = try TestSession()
        let old = try oldDaemon(session, interface: "io.github.chime.Scheduler1")
        defer { old.stop() }
        try mock(session, "AddProperty", ["io.github.chime.Scheduler1", "Version", "<'0.1.0'>"])
        let version = try session.run(["chime", "--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try session.run(["chime", "list"])
        expectOneSentenceWithTheFix(result)
        #expect(result.stderr.contains("The running chimed 0.1.0 (pid "), "\(result)")
        #expect(result.stderr.contains("speaks another version of io.github.chime.Scheduler1 than this chime \(version) (it has no method List)"),
                "\(result)")
        // chime notify takes its own path to the daemon; it says the same.
        let notify = try session.run(["chime", "notify", "Hello"])
        expectOneSentenceWithTheFix(notify)
        #expect(notify.stderr.contains("(it has no method PresentNowSimple)"), "\(notify)")
    }

    @Test func methodWithOtherArgumentTypesIsAMismatch() throws {
        let session = try TestSession()
        let old = try oldDaemon(session, interface: "io.github.chime.Scheduler1")
        defer { old.stop() }
        try mock(session, "AddMethod", ["io.github.chime.Scheduler1", "ScheduleSimple", "s", "s", "ret = 'x'"])
        let result = try session.run(["chime", "add", "Tea", "--in", "5m"])
        expectOneSentenceWithTheFix(result)
        #expect(result.stderr.contains("(its ScheduleSimple takes (s), this chime sends (sssa{ss}))"), "\(result)")
    }

    @Test func badInputToTheCurrentDaemonIsStillAUsageError() throws {
        let session = try TestSession()
        let bad = try session.run(["chime", "add", "Tea", "--at", "half past never"])
        #expect(bad.status == 64, "\(bad)")
        #expect(!bad.stderr.contains("another version"), "\(bad)")
        let unknown = try session.run(["chime", "show", "nosuchid"])
        #expect(unknown.status == 1, "\(unknown)")
        #expect(!unknown.stderr.contains("another version"), "\(unknown)")
    }
}
