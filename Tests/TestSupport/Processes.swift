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

/// Collects a pipe's output and lets a test wait, without sleeping, for text to appear.
public final class OutputCollector: @unchecked Sendable {
    // Guarded by `condition`: readability handlers run on another thread.
    private let condition = NSCondition()
    private var data = Data()
    private var closed = false

    /// Reads `pipe` on a thread of its own until end of file.
    public func attach(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        let thread = Thread { [self] in
            while true {
                // Blocks until data or end of file (empty).
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty { closed = true } else { data.append(chunk) }
                condition.broadcast()
                condition.unlock()
                if chunk.isEmpty { break }
            }
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

/// A process started by a test, with its output collected.
public final class Spawned {
    public let process = Process()
    public let stdout = OutputCollector()
    public let stderr = OutputCollector()
    private let exited = DispatchSemaphore(value: 0)

    public init(_ arguments: [String], environment: [String: String], stdin: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0] : "/usr/bin/env")
        process.arguments = arguments[0].hasPrefix("/") ? Array(arguments.dropFirst()) : arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let input = Pipe()
            process.standardInput = input
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        stdout.attach(out)
        stderr.attach(err)
        let semaphore = exited
        process.terminationHandler = { _ in semaphore.signal() }
        try process.run()
        // The child has its copies; ours would keep the pipes from ever reaching end of file.
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
    }

    /// Waits for the process to exit and its output to be read.
    public func finish(timeout: TimeInterval = 60) throws -> ProcessResult {
        guard exited.wait(timeout: .now() + timeout) == .success else {
            process.terminate()
            throw TestFailure.timeout("\(process.arguments ?? []) still running after \(timeout) s; stderr: \(stderr.text)")
        }
        exited.signal()
        _ = stdout.waitForClose(timeout: 10)
        _ = stderr.waitForClose(timeout: 10)
        return ProcessResult(status: process.terminationStatus, stdout: stdout.text, stderr: stderr.text)
    }

    /// Kills the process. SIGKILL, because children of the test runner inherit a thread
    /// signal mask that blocks SIGTERM.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            _ = exited.wait(timeout: .now() + 30)
            exited.signal()
        }
    }

    deinit { stop() }
}
