import CLinux
import Foundation

/// The package's root folder, from this file's place in it.
public let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Where the built `chime` and `chimed` are: `CHIME_BIN_DIR` (set by `make test`), else
/// next to the test bundle.
public let binDirectory: URL = {
    if let dir = ProcessInfo.processInfo.environment["CHIME_BIN_DIR"], !dir.isEmpty {
        return URL(fileURLWithPath: dir)
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
}()

/// Writes into `folder` the activation file `make services` writes, for the built chimed:
/// `dbus/io.github.chime.Chime.service.in` with its path filled in.
public func writeChimedServiceFile(in folder: URL) throws {
    let template = try String(contentsOf: packageRoot.appendingPathComponent("dbus/io.github.chime.Chime.service.in"), encoding: .utf8)
    try template.replacingOccurrences(of: "@CHIMED@", with: binDirectory.appendingPathComponent("chimed").path)
        .write(to: folder.appendingPathComponent("io.github.chime.Chime.service"), atomically: true, encoding: .utf8)
}

/// What a finished process left behind.
public struct ProcessResult: CustomStringConvertible {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
}

public enum TestFailure: Error, CustomStringConvertible {
    case timeout(String)
    case failed(String)
    public var description: String {
        switch self {
        case .timeout(let what): "timed out: \(what)"
        case .failed(let what): what
        }
    }
}

/// Collects what a process writes to one pipe and lets a test wait, without sleeping,
/// for text to appear.
public final class OutputCollector: @unchecked Sendable {
    // Guarded by `condition`: the reading thread appends while tests wait.
    private let condition = NSCondition()
    private var data = Data()
    private var closed = false

    /// Reads `descriptor` on a thread of its own until end of file, then closes it.
    func attach(_ descriptor: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                condition.lock()
                if count <= 0 { closed = true } else { data.append(contentsOf: buffer[..<count]) }
                condition.broadcast()
                condition.unlock()
                if count <= 0 { break }
            }
            close(descriptor)
        }
        thread.start()
    }

    public var text: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// Waits until `predicate` holds for the text so far, or the stream closes, or time runs out.
    @discardableResult
    public func wait(timeout: TimeInterval, until predicate: (String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if predicate(String(decoding: data, as: UTF8.self)) { return true }
            if closed { return false }
            if !condition.wait(until: deadline) { return predicate(String(decoding: data, as: UTF8.self)) }
        }
    }

    public func waitForClose(timeout: TimeInterval) -> Bool {
        wait(timeout: timeout) { _ in false }
        condition.lock()
        defer { condition.unlock() }
        return closed
    }
}

/// The child process of a ``Spawned``.
public final class ChildProcess: @unchecked Sendable {
    public let processIdentifier: pid_t
    public let arguments: [String]
    // Guarded by `condition`: set once by the thread that waits for the child.
    private let condition = NSCondition()
    private var status: Int32?

    init(processIdentifier: pid_t, arguments: [String]) {
        self.processIdentifier = processIdentifier
        self.arguments = arguments
    }

    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return status == nil
    }

    /// The exit status, or the number of the signal that ended it (as Foundation's
    /// Process reports it); nil while it runs.
    public var terminationStatus: Int32? {
        condition.lock()
        defer { condition.unlock() }
        return status
    }

    func exited(with waitStatus: Int32) {
        condition.lock()
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        status = waitStatus & 0x7f == 0 ? (waitStatus >> 8) & 0xff : waitStatus & 0x7f
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until it has exited; false when `timeout` passed first.
    func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while status == nil {
            if !condition.wait(until: deadline) { return status != nil }
        }
        return true
    }
}

/// A process started by a test, with its output collected.
///
/// Started with posix_spawn, not Foundation's Process: in swift-corelibs-foundation 6.3
/// Process.run reads /proc/self/fd past the end of a buffer and now and then crashes a
/// test run that spawns many processes (swift-corelibs-foundation#5472).
public final class Spawned {
    public let process: ChildProcess
    public let stdout = OutputCollector()
    public let stderr = OutputCollector()

    public init(_ arguments: [String], environment: [String: String], stdin: String? = nil) throws {
        // A bare name is looked up on the PATH of `environment`, as a shell would, by env.
        let argv = arguments[0].hasPrefix("/") ? arguments : ["/usr/bin/env"] + arguments
        var output: [Int32] = [0, 0], errors: [Int32] = [0, 0], input: [Int32] = [0, 0]
        guard clinux_pipe_cloexec(&output) == 0, clinux_pipe_cloexec(&errors) == 0, clinux_pipe_cloexec(&input) == 0 else {
            throw TestFailure.failed("pipe: \(String(cString: strerror(errno)))")
        }
        // Small enough for the pipe's buffer: written before the child starts.
        if let stdin {
            var bytes = Array(stdin.utf8)
            guard bytes.count < 60_000, write(input[1], &bytes, bytes.count) == bytes.count else {
                throw TestFailure.failed("stdin of \(bytes.count) bytes does not fit a pipe")
            }
        }
        close(input[1])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        clinux_spawn_file_actions_addclosefrom(&actions, 3)
        // The test runner's threads block some signals; its children start clean.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        // The child has its copies; ours would keep its pipes from ever reaching end of file.
        close(input[0])
        close(output[1])
        close(errors[1])
        guard status == 0 else {
            close(output[0])
            close(errors[0])
            throw TestFailure.failed("cannot start \(argv): \(String(cString: strerror(status)))")
        }
        let child = ChildProcess(processIdentifier: pid, arguments: arguments)
        process = child
        stdout.attach(output[0])
        stderr.attach(errors[0])
        let spawned = pid
        Thread {
            var waitStatus: Int32 = 0
            while waitpid(spawned, &waitStatus, 0) < 0 && errno == EINTR {}
            child.exited(with: waitStatus)
        }.start()
    }

    /// Waits for the process to exit and its output to be read.
    public func finish(timeout: TimeInterval = 60) throws -> ProcessResult {
        guard process.waitForExit(timeout: timeout) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestFailure.timeout("\(process.arguments) still running after \(timeout) s; stderr: \(stderr.text)")
        }
        _ = stdout.waitForClose(timeout: 10)
        _ = stderr.waitForClose(timeout: 10)
        return ProcessResult(status: process.terminationStatus ?? -1, stdout: stdout.text, stderr: stderr.text)
    }

    /// Kills the process and waits for it to be gone. SIGKILL: a test that wants a clean
    /// exit sends its own signal first.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            _ = process.waitForExit(timeout: 30)
        }
    }

    deinit { stop() }
}
