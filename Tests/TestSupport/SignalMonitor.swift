import Foundation

/// `gdbus monitor` on chimed's signals, as a user would watch them.
public final class SignalMonitor {
    private let process: Spawned

    /// Starts watching; chimed must already be running (gdbus follows its unique name).
    public init(session: TestSession) throws {
        process = try session.spawn(["gdbus", "monitor", "--session", "--dest", "io.github.chime.Chime"])
        guard process.stdout.wait(timeout: 60, until: { $0.contains("is owned by") }) else {
            throw TestFailure.failed("gdbus monitor did not start: \(process.stdout.text) \(process.stderr.text)")
        }
    }

    /// Waits for a line containing `fragment`; returns it.
    public func waitForLine(containing fragment: String, timeout: TimeInterval = 60) throws -> String {
        guard process.stdout.wait(timeout: timeout, until: { $0.contains(fragment) }) else {
            throw TestFailure.timeout("a signal containing \(fragment); saw: \(process.stdout.text)")
        }
        return lines.first { $0.contains(fragment) } ?? ""
    }

    /// Every line seen so far.
    public var lines: [String] { process.stdout.text.split(separator: "\n").map(String.init) }

    deinit { process.stop() }
}
