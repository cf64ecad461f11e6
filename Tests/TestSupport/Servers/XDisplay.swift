import Foundation

/// A private X server (Xvfb) for a notification server that draws on X.
public final class XDisplay {
    private let xvfb: Spawned
    /// Its `DISPLAY`, ":N".
    public let name: String

    /// Starts Xvfb on a free display number, which it chooses and reports itself.
    public init(environment: [String: String]) throws {
        do {
            xvfb = try Spawned(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                               environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("Xvfb: \(error)")
        }
        guard xvfb.stdout.wait(timeout: 60, until: { $0.contains("\n") }) else {
            throw MatrixServerError.couldNotStart("Xvfb did not start: \(xvfb.stderr.text)")
        }
        name = ":" + xvfb.stdout.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs xdotool on this display.
    @discardableResult
    public func xdotool(_ arguments: [String], environment: [String: String]) throws -> ProcessResult {
        var env = environment
        env["DISPLAY"] = name
        return try Spawned(["xdotool"] + arguments, environment: env).finish()
    }

    /// The visible windows of `windowClass`, waiting up to `timeout` for one to appear.
    public func windows(ofClass windowClass: String, environment: [String: String], timeout: TimeInterval = 30) throws -> [String] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let found = try xdotool(["search", "--onlyvisible", "--class", windowClass], environment: environment)
            let windows = found.stdout.split(separator: "\n").map(String.init)
            // xdotool has no "wait for a window" that gives up; ask again at a short interval.
            if !windows.isEmpty || Date() >= deadline { return windows }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// A window's position and size.
    public func geometry(of window: String, environment: [String: String]) throws -> (x: Int, y: Int, width: Int, height: Int) {
        let shell = try xdotool(["getwindowgeometry", "--shell", window], environment: environment).stdout
        func value(_ key: String) -> Int {
            shell.split(separator: "\n").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? 0
        }
        return (value("X"), value("Y"), value("WIDTH"), value("HEIGHT"))
    }

    /// Moves the pointer to (`x`, `y`) inside `window` and clicks `button`.
    public func click(window: String, x: Int, y: Int, button: Int = 1, environment: [String: String]) throws {
        let result = try xdotool(["mousemove", "--window", window, String(x), String(y), "click", String(button)],
                                 environment: environment)
        guard result.status == 0 else { throw TestFailure.failed("xdotool click failed: \(result)") }
    }

    /// Stops Xvfb.
    public func stop() { xvfb.stop() }

    deinit { stop() }
}
