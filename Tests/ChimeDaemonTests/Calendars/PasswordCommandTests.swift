import DBus
import EventLoop
import Foundation
import Glibc
import Testing
@testable import ChimeDaemon

/// `PasswordCommand=` runs: real `/bin/sh` commands on a loop of the test's own.
struct PasswordCommandTests {
    /// Runs `command` as a calendar's `PasswordCommand=` and waits for its answer; with the
    /// loop's watch, to see that nothing held the loop meanwhile.
    static func run(_ command: String, limits: Passwords.Limits = .standard) throws -> (Result<String, PasswordFailure>, LoopWatch) {
        let loop = EventLoop()
        let watch = LoopWatch(loop)
        let running = PasswordCommand(loop: loop, limits: limits)
        var later: Source?
        let result = try watch.answer { done in
            // PasswordCommand answers a start failure at once; Passwords puts every answer off.
            running.start(command) { result in later = loop.timeout(afterMilliseconds: 0) { done(result) } }
        }
        later?.cancel()
        return (result, watch)
    }

    static func password(_ command: String, limits: Passwords.Limits = .standard) throws -> Result<String, PasswordFailure> {
        try run(command, limits: limits).0
    }

    static func sentence(_ command: String, limits: Passwords.Limits = .standard) throws -> String {
        try #require(failure(try password(command, limits: limits))).description
    }

    @Test func thePasswordIsTheFirstLineWithoutItsLineEnd() throws {
        #expect(try Self.password("printf 'hunter2\\n'") == .success("hunter2"))
        #expect(try Self.password("printf 'first line\\nsecond line\\n'") == .success("first line"))
        #expect(try Self.password("printf 'no line end'") == .success("no line end"))
        #expect(try Self.password("printf ' spaced \\n'") == .success(" spaced "))
        #expect(try Self.password("echo 'gpg: a word on stderr' >&2; echo pässword") == .success("pässword"))
    }

    @Test func itReadsNothingFromStandardInput() throws {
        // From /dev/null: read sees end of file at once instead of waiting on chimed's stdin.
        #expect(try Self.password("read line; echo \"read:$?\"") == .success("read:1"))
    }

    @Test func aFailingCommandIsASentenceWithItsStatusAndLastErrorLine() throws {
        let sentence = try Self.sentence("echo hunter2 >/dev/null; echo 'gpg: public key decryption failed' >&2; "
                                         + "echo 'gpg: decryption failed: No secret key' >&2; echo '' >&2; exit 1")
        #expect(sentence == "The PasswordCommand= failed with exit status 1: gpg: decryption failed: No secret key", "\(sentence)")
        #expect(!sentence.contains("hunter2"), "the command's text stays out of the sentence")
        #expect(try Self.sentence("exit 3") == "The PasswordCommand= failed with exit status 3, and printed no error.")
        #expect(try Self.sentence("kill -KILL $$").contains("ended by signal 9"))
    }

    @Test func printingNothingIsASentence() throws {
        #expect(try Self.sentence("true").contains("printed nothing"))
        #expect(try Self.sentence("printf '\\nsecond line\\n'").contains("printed nothing"))
        #expect(try Self.sentence("printf '\\377\\n'").contains("not UTF-8"))
        #expect(try Self.sentence("echo a\0b").contains("NUL"))
    }

    @Test func aCommandThatNeverEndsIsKilledAtItsLimit() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chime-password-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        var limits = Passwords.Limits.standard
        limits.commandMilliseconds = 1_000
        let (result, watch) = try Self.run("sleep 1000 & echo $! > '\(pidFile)'; wait", limits: limits)
        #expect(failure(result)?.description == "The PasswordCommand= did not finish within 1 s and was stopped.")
        #expect(watch.longestGap < 2, "the loop stood still for \(watch.longestGap) s")
        // Its whole process group went: the sleep it started too (gone, or a zombie nobody reaped yet).
        let pid = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let deadline = Date(timeIntervalSinceNow: 30)
        while Self.isAlive(pid), Date() < deadline { usleep(10_000) }
        #expect(!Self.isAlive(pid))
    }

    @Test func aFloodOfOutputIsReadButOnlyItsStartKept() throws {
        let (result, watch) = try Self.run("yes 'flood of lines' | head -c 10000000")
        #expect(result == .success("flood of lines"))
        #expect(watch.longestGap < 2, "the loop stood still for \(watch.longestGap) s")
        let sentence = try Self.sentence("head -c 10000000 /dev/zero | tr '\\0' x")
        #expect(sentence == "The PasswordCommand= printed more than 4096 bytes without a line end; a password is its first line.")
        // A long first line within the limit is still a password.
        #expect(try Self.password("head -c 4000 /dev/zero | tr '\\0' y; echo") == .success(String(repeating: "y", count: 4000)))
    }

    @Test func passwordsAnswerOnTheLoopAndForgetFinishedRuns() throws {
        let session = try InProcessBus()
        let connection = try Connection.bus(address: session.address)
        let loop = EventLoop()
        connection.attach(to: loop)
        let passwords = Passwords(bus: connection, loop: loop, logger: LogRecorder().logger)
        let watch = LoopWatch(loop)
        #expect(try watch.answer { passwords.run(command: "echo from-passwords", done: $0) } == .success("from-passwords"))
        let failed: Result<String, PasswordFailure> = try watch.answer { passwords.run(command: "exit 2", done: $0) }
        #expect(failure(failed) != nil)
        #expect(passwords.runningCommands == 0)
    }

    /// Whether `pid` runs (a zombie does not).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
