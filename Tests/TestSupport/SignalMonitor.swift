import Foundation

/// `gdbus monitor` on chimed's signals, as a user would watch them.
public final class SignalMonitor {
    private let process: Spawned

    /// Starts watching; chimed must already be running (gdbus follows its unique name),
    /// or `startDaemon` starts it first.
    public init(session: TestSession, startDaemon: Bool = false) throws {
        if startDaemon {
            _ = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                 "/io/github/chime/Chime", "--method", "org.freedesktop.DBus.Peer.Ping"])
        }
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
