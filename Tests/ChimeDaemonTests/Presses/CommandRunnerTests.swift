import ChimeCore
import CLinux
import DBus
import EventLoop
import Foundation
import Glibc
import Logging
import Synchronization
import Testing
import TestSupport
@testable import ChimeDaemon

/// Keeps what a logger was given, for tests that check a failure is logged.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    var messages: [String] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    func contains(_ text: String) -> Bool { messages.contains { $0.contains(text) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.lines.withLock { $0.append("\(event.level): \(event.message)") }
        }
    }
}

struct CommandRunnerTests {
    /// A loop, a runner on it and a scratch directory, for one test.
    final class Harness {
        let loop = EventLoop()
        let log = LogRecorder()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chime-runner-\(UUID().uuidString)")
        private(set) var runner: CommandRunner!
        private var completed = 0

        init(placement: SessionPlacement? = nil, maxRunning: Int = CommandRunner.defaultMaxRunning,
             maxWaiting: Int = CommandRunner.defaultMaxWaiting) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            runner = CommandRunner(loop: loop, logger: log.logger, placement: placement, maxRunning: maxRunning, maxWaiting: maxWaiting)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

        func read(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }

        /// Starts a command; the outcome lands in the returned box once the loop runs.
        func start(_ argv: [String], timeout: TimeInterval = 30, id: String = "n1", action: String = "act",
                   userInfoJSON: String = "{}") -> Box {
            let box = Box()
            runner.run(argv: argv, timeout: timeout, id: id, action: action, userInfoJSON: userInfoJSON) { [unowned self] outcome in
                self.completed += 1
                box.outcome = outcome
                box.order = self.completed
            }
            return box
        }

        /// Runs the loop until `done` holds (at most 30 s).
        func drive(until done: () -> Bool) throws {
            let deadline = Date(timeIntervalSinceNow: 30)
            while !done() {
                guard Date() < deadline else { throw CancellationError() }
                try loop.runOnce(timeoutMilliseconds: 1_000)
            }
        }

        func run(_ argv: [String], timeout: TimeInterval = 30, id: String = "n1", action: String = "act",
                 userInfoJSON: String = "{}") throws -> CommandOutcome {
            let box = start(argv, timeout: timeout, id: id, action: action, userInfoJSON: userInfoJSON)
            try drive { box.outcome != nil }
            return box.outcome!
        }
    }

    final class Box {
        var outcome: CommandOutcome?
        var order = 0
    }

    @Test func theCommandGetsTheEnvironmentAndTheJSONOnStandardInput() throws {
        let harness = try Harness()
        let userInfo: [String: UserInfoValue] = ["plant": .string("fern \"big\""), "count": .integer(3), "ok": .boolean(true)]
        let json = CommandRunner.userInfoJSON(userInfo)
        let script = #"printf '%s\n%s\n%s\n' "$CHIME_ID" "$CHIME_ACTION" "$CHIME_USER_INFO" > "$1"; cat >> "$1""#
        let outcome = try harness.run(["/bin/sh", "-c", script, "sh", harness.file("out")],
                                      id: "abc123", action: "water", userInfoJSON: json)
        #expect(outcome == .exited(0))

        let lines = try harness.read("out").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "abc123")
        #expect(lines[1] == "water")
        #expect(lines[2] == json)
        let input = try #require(JSONSerialization.jsonObject(with: Data(lines[3].utf8)) as? [String: Any])
        #expect(input["id"] as? String == "abc123")
        #expect(input["action"] as? String == "water")
        let info = try #require(input["userInfo"] as? [String: Any])
        #expect(info["plant"] as? String == "fern \"big\"")
        #expect(info["count"] as? Int == 3)
        #expect(info["ok"] as? Bool == true)
        #expect(lines.count == 5 && lines[4].isEmpty, "one line of JSON, then end of file")
        #expect(harness.log.contains("exited with status 0"))
    }

    @Test func theExitStatusIsReportedAndLogged() throws {
        let harness = try Harness()
        #expect(try harness.run(["/bin/sh", "-c", "exit 3"]) == .exited(3))
        #expect(harness.log.contains("warning: Action 'act' on n1: /bin/sh exited with status 3."))
        #expect(try harness.run(["sh", "-c", "kill -USR1 $$"]) == .signalled(SIGUSR1))
        #expect(harness.runner.runningCount == 0)
    }

    @Test func aCommandPastItsTimeoutIsStoppedAndGone() throws {
        let harness = try Harness()
        let started = Date()
        let script = "sleep 30 & echo $$ $! > \"$1\"; wait"
        let outcome = try harness.run(["/bin/sh", "-c", script, "sh", harness.file("pids")], timeout: 0.3)
        #expect(outcome == .timedOut)
        #expect(Date().timeIntervalSince(started) < 10)
        // The command is reaped, and what it started (its process group) was stopped too.
        let pids = try harness.read("pids").split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
        try #require(pids.count == 2)
        #expect(kill(pids[0], 0) == -1 && errno == ESRCH)
        #expect(Self.awaitExit(pids[1]))
        #expect(harness.log.contains("still runs after its timeout"))
    }

    /// Waits (at most 10 s) until `pid` has ended: a signal sent to it takes effect
    /// when it next runs, and a pidfd turns readable once it has exited.
    static func awaitExit(_ pid: pid_t) -> Bool {
        let fd = clinux_pidfd_open(pid)
        if fd < 0 { return errno == ESRCH }
        defer { close(fd) }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 10_000) == 1
    }

    @Test func aCommandIgnoringSIGTERMIsKilled() throws {
        let harness = try Harness()
        let script = "trap '' TERM; echo $$ > \"$1\"; while :; do sleep 1; done"
        let started = Date()
        let outcome = try harness.run(["/bin/sh", "-c", script, "sh", harness.file("pid")], timeout: 0.2)
        #expect(outcome == .timedOut)
        #expect(Date().timeIntervalSince(started) >= 2)
        let pid = try #require(pid_t(harness.read("pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(harness.log.contains("sending SIGKILL"))
    }

    @Test func aMissingProgramFailsToStartWithASentenceAndNothingElseBreaks() throws {
        let harness = try Harness()
        let byName = try harness.run(["chime-no-such-program-\(UUID().uuidString)"])
        guard case .failedToStart(let sentence) = byName else {
            Issue.record("Expected failedToStart, got \(byName)")
            return
        }
        #expect(sentence.contains("no program of that name is in PATH"))
        #expect(harness.log.contains("error: Action 'act' on n1: \(sentence)"))

        let byPath = try harness.run(["/nonexistent/chime-handler"])
        #expect(byPath == .failedToStart("Cannot run /nonexistent/chime-handler: there is no such file."))
        #expect(try harness.run([]) == .failedToStart("The command is empty."))
        #expect(try harness.run(["/bin/true"]) == .exited(0))
    }

    @Test func twoRunsAtOnceBothCompleteAndAHangingOneDelaysNothing() throws {
        let harness = try Harness()
        let slow = harness.start(["/bin/sh", "-c", "sleep 30"], timeout: 1)
        let quick = harness.start(["/bin/sh", "-c", "exit 4"])
        try harness.drive { quick.outcome != nil }
        #expect(quick.outcome == .exited(4))
        #expect(slow.outcome == nil)
        #expect(harness.runner.runningCount == 1)
        try harness.drive { slow.outcome != nil }
        #expect(slow.outcome == .timedOut)
        #expect(quick.order < slow.order)
    }

    @Test func theCommandHasNoSignalBlocked() throws {
        let harness = try Harness()
        // As in chimed, which blocks these for its signalfd; a child inherits the mask.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&blocked, signal) }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }

        // grep reads its own status: the shell's own mask changes while it forks and waits.
        let script = "exec grep -E 'SigBlk|SigIgn' /proc/self/status > \"$1\""
        let outcome = try harness.run(["/bin/sh", "-c", script, "sh", harness.file("status")])
        #expect(outcome == .exited(0))
        let status = try harness.read("status")
        #expect(status.contains("SigBlk:\t0000000000000000"), "\(status)")
        // Nothing from the daemon ignored either. glibc's posix_spawn leaves its own two
        // internal signals (32 and 33) ignored, and the program's glibc takes them back.
        let ignored = status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }
            .flatMap { UInt64($0.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
        #expect(ignored.map { $0 & 0x7FFF_FFFF } == 0, "\(status)")
    }

    @Test func descriptorsOpenedWithoutCloseOnExecAreClosedInTheCommand() throws {
        let harness = try Harness()
        let leaked = open("/dev/null", O_RDONLY)
        try #require(leaked > 2)
        defer { close(leaked) }
        #expect(try harness.run(["/bin/sh", "-c", "test -e /proc/$$/fd/\(leaked)"]) == .exited(1))
        #expect(try harness.run(["/bin/sh", "-c", "test -e /proc/$$/fd/0"]) == .exited(0))
    }

    @Test func inputLargerThanThePipeIsWrittenWhole() throws {
        let harness = try Harness()
        let big = String(repeating: "x", count: 300_000)
        let json = CommandRunner.userInfoJSON(["big": .string(big)])
        let outcome = try harness.run(["/bin/sh", "-c", "cat > \"$1\"", "sh", harness.file("in")], userInfoJSON: json)
        #expect(outcome == .exited(0))
        #expect(try harness.read("in") == CommandRunner.input(id: "n1", action: "act", userInfoJSON: json) + "\n")
    }

    @Test func aUserInfoTooLargeForTheEnvironmentReachesStandardInputOnly() throws {
        let harness = try Harness()
        let json = CommandRunner.userInfoJSON(["big": .string(String(repeating: "z", count: 200_000))])
        let script = #"printf '%s' "${CHIME_USER_INFO-unset}" > "$1""#
        #expect(try harness.run(["/bin/sh", "-c", script, "sh", harness.file("env")], userInfoJSON: json) == .exited(0))
        #expect(try harness.read("env") == "unset")
    }

    @Test func aCommandThatReadsNoneOfALargeInputDoesNotHurtTheDaemon() throws {
        let harness = try Harness()
        let json = CommandRunner.userInfoJSON(["big": .string(String(repeating: "y", count: 300_000))])
        #expect(try harness.run(["/bin/true"], userInfoJSON: json) == .exited(0))
        #expect(try harness.run(["/bin/sh", "-c", "exit 5"]) == .exited(5))
    }

    // MARK: - Limits

    /// A bus client can press a button in a loop: the commands must not all run at once.
    @Test func atMostTwoRunTheNextTwoWaitAndOneMoreIsRefused() throws {
        let harness = try Harness(maxRunning: 2, maxWaiting: 2)
        // Each command notes its start, then waits until the test writes to its FIFO.
        let script = #"echo "$CHIME_ID" >> "$1"; read line < "$2""#
        for index in 1...5 { #expect(mkfifo(harness.file("release-n\(index)"), 0o600) == 0) }
        let boxes = (1...5).map { index in
            harness.start(["/bin/sh", "-c", script, "sh", harness.file("started"), harness.file("release-n\(index)")],
                          id: "n\(index)")
        }
        #expect(harness.runner.runningCount == 2)
        #expect(harness.runner.waitingCount == 2)
        #expect(harness.log.contains("info: Action 'act' on n3: 2 commands are running; /bin/sh waits for one to end."))

        let refusal = "2 commands are running and 2 are waiting, the most Chime allows; this one is not run."
        try harness.drive { boxes[4].outcome != nil }
        #expect(boxes[4].outcome == .failedToStart(refusal))
        #expect(harness.log.contains("error: Action 'act' on n5: \(refusal)"))

        /// Lets command `index` end, and runs the loop until it is reaped.
        func release(_ index: Int) throws {
            let fd = open(harness.file("release-n\(index)"), O_WRONLY)
            #expect(fd >= 0)
            _ = write(fd, "\n", 1)
            close(fd)
            try harness.drive { boxes[index - 1].outcome != nil }
            #expect(boxes[index - 1].outcome == .exited(0))
            #expect(harness.runner.runningCount <= 2)
        }
        /// Runs the loop until `count` shells have noted their start: the file's order is the
        /// shells', and two shells started a moment apart may write in either order on a busy
        /// machine, so each is let go only after the one before it has written.
        func waitForStarts(_ count: Int) throws {
            try harness.drive { ((try? harness.read("started")) ?? "").split(separator: "\n").count == count }
        }
        try waitForStarts(2)
        try release(1)
        #expect(harness.runner.runningCount == 2)
        #expect(harness.runner.waitingCount == 1)
        try waitForStarts(3)
        try release(2)
        #expect(harness.runner.waitingCount == 0)
        try release(3)
        try release(4)
        #expect(harness.runner.runningCount == 0)

        let started = try harness.read("started").split(separator: "\n").map(String.init)
        #expect(Set(started.prefix(2)) == ["n1", "n2"])
        #expect(Array(started.dropFirst(2)) == ["n3", "n4"])
    }

    // MARK: - The session's umask and scope

    /// The process's umask, read without changing it (umask(2) can only set it).
    static func currentUmask() throws -> String {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        return status.split(separator: "\n").first { $0.hasPrefix("Umask:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) } ?? ""
    }

    @Test func theCommandGetsTheSessionsUmaskAndTheDaemonKeepsItsOwn() throws {
        let before = try Self.currentUmask()
        let harness = try Harness(placement: SessionPlacement(sessionUmask: 0o027, connection: nil, logger: LogRecorder().logger))
        #expect(try harness.run(["/bin/sh", "-c", #"umask > "$1""#, "sh", harness.file("umask")]) == .exited(0))
        #expect(try harness.read("umask") == "0027\n")
        #expect(try Self.currentUmask() == before)
    }

    @Test func scopeNamesFollowSystemdsNamingForApps() {
        #expect(SessionPlacement.scopeName(applicationID: "org.example.App", pid: 42) == "app-chime-org.example.App-42.scope")
        #expect(SessionPlacement.scopeName(applicationID: "notify-send", pid: 7) == #"app-chime-notify\x2dsend-7.scope"#)
        #expect(SessionPlacement.scopeName(applicationID: ".hidden é/x", pid: 1) == #"app-chime-\x2ehidden\x20\xc3\xa9\x2fx-1.scope"#)
        #expect(SessionPlacement.scopeName(applicationID: "", pid: 1) == "app-chime-unnamed-1.scope")
        let long = SessionPlacement.scopeName(applicationID: String(repeating: "-", count: 300), pid: 1234567)
        #expect(long.count <= 255 && long.hasSuffix("x2d-1234567.scope"))
    }

    /// A stand-in systemd user manager on a test bus, recording StartTransientUnit.
    final class FakeManager {
        let connection: Connection
        var calls: [[Value]] = []
        private var registration: Registration?
        static let job = try! ObjectPath("/org/freedesktop/systemd1/job/1")

        init(session: TestSession, loop: EventLoop) throws {
            connection = try Connection.bus(address: session.address)
            connection.attach(to: loop)
            #expect(try connection.requestName(BusName("org.freedesktop.systemd1")) == .owned)
            registration = try connection.export([Interface(try InterfaceName("org.freedesktop.systemd1.Manager"), methods: [
                Method(try MemberName("StartTransientUnit"),
                       inputs: [Argument("name", "s"), Argument("mode", "s"), Argument("properties", "a(sv)"),
                                Argument("aux", "a(sa(sv))")],
                       outputs: [Argument("job", "o")]) { [unowned self] call in
                    self.calls.append(call.arguments)
                    return [.objectPath(Self.job)]
                },
            ])], at: try ObjectPath("/org/freedesktop/systemd1"))
        }
    }

    @Test func aUserManagerIsAskedForAScopeHoldingTheCommand() throws {
        let session = try TestSession(capabilities: nil)
        let connection = try Connection.bus(address: session.address)
        let placementLog = LogRecorder()
        let harness = try Harness(placement: SessionPlacement(sessionUmask: 0o022, connection: connection, logger: placementLog.logger))
        connection.attach(to: harness.loop)
        let manager = try FakeManager(session: session, loop: harness.loop)

        #expect(try harness.run(["/bin/sh", "-c", #"echo $$ > "$1""#, "sh", harness.file("pid")]) == .exited(0))
        try harness.drive { !manager.calls.isEmpty }
        let pid = try #require(UInt32(try harness.read("pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(manager.calls.count == 1)
        #expect(manager.calls.first == [
            .string("app-chime-sh-\(pid).scope"), .string("fail"),
            .array(element: "(sv)", [
                .structure([.string("PIDs"), .variant(.array(element: "u", [.uint32(pid)]))]),
                .structure([.string("Description"), .variant(.string("/bin/sh, run by Chime for 'act' on notification n1"))]),
                .structure([.string("CollectMode"), .variant(.string("inactive-or-failed"))]),
            ]),
            .array(element: "(sa(sv))", []),
        ])
        try harness.drive { placementLog.contains("debug: Process \(pid) runs in app-chime-sh-\(pid).scope.") }
    }

    @Test func withoutAUserManagerCommandsRunAsBeforeAndThatIsSaid() throws {
        let session = try TestSession(capabilities: nil)
        let connection = try Connection.bus(address: session.address)
        let placementLog = LogRecorder()
        let harness = try Harness(placement: SessionPlacement(sessionUmask: 0o022, connection: connection, logger: placementLog.logger))
        connection.attach(to: harness.loop)

        #expect(try harness.run(["/bin/sh", "-c", "exit 0"]) == .exited(0))
        try harness.drive { placementLog.contains("No systemd user manager on the session bus") }
        #expect(try harness.run(["/bin/sh", "-c", "exit 4"]) == .exited(4))
        #expect(placementLog.messages.filter { $0.contains("warning") || $0.contains("error") }.isEmpty, "\(placementLog.messages)")
    }

    @Test func userInfoBecomesAJSONObject() {
        let json = CommandRunner.userInfoJSON([
            "s": .string("a\"b\\c\n\u{1}é"), "i": .integer(-7), "d": .double(0.5), "n": .double(.nan), "b": .boolean(false),
        ])
        #expect(json == #"{"b":false,"d":0.5,"i":-7,"n":null,"s":"a\"b\\c\n\u0001é"}"#)
        #expect(CommandRunner.input(id: "i\"d", action: "a", userInfoJSON: "{}") == #"{"id":"i\"d","action":"a","userInfo":{}}"#)
    }
}
