import Foundation
import Testing
import TestSupport

/// A real notification server: dunst on a private X server (Xvfb), clicked with xdotool.
@Suite(.timeLimit(.minutes(10)))
struct DunstEndToEndTests {
    @Test func clickOnAFiredReminderInvokesDefault() throws {
        let session = try TestSession(capabilities: nil)
        let xvfb = try Spawned(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                               environment: session.environment)
        defer { xvfb.stop() }
        guard xvfb.stdout.wait(timeout: 60, until: { $0.contains("\n") }) else {
            throw TestFailure.failed("Xvfb did not start: \(xvfb.stderr.text)")
        }
        let display = ":" + xvfb.stdout.text.trimmingCharacters(in: .whitespacesAndNewlines)
        var env = session.environment
        env["DISPLAY"] = display
        let dunst = try Spawned(["dunst", "-config", packageRoot.appendingPathComponent("Tests/servers/dunstrc").path], environment: env)
        defer { dunst.stop() }
        try session.waitForName("org.freedesktop.Notifications")

        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let scheduled = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                         "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.Schedule",
                                         "{'title': <'Tea is ready'>, 'when': <'in 1s'>, 'defaultAction': <'Open'>, 'category': <'reminder'>}"])
        let id = try #require(scheduled.stdout.split(separator: "'").dropFirst().first.map(String.init), "\(scheduled)")
        _ = try monitor.waitForLine(containing: "Fired ('\(id)'")

        let search = try Spawned(["xdotool", "search", "--sync", "--onlyvisible", "--class", "dunst"], environment: env).finish()
        let window = try #require(search.stdout.split(separator: "\n").first.map(String.init), "\(search)")
        let geometry = try Spawned(["xdotool", "getwindowgeometry", "--shell", window], environment: env).finish().stdout
        func value(_ key: String) -> Int {
            geometry.split(separator: "\n").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? 0
        }
        let click = try Spawned(["xdotool", "mousemove", "--window", window, String(value("WIDTH") / 2), String(value("HEIGHT") / 2),
                                 "click", "1"], environment: env).finish()
        #expect(click.status == 0, "\(click)")

        let pressed = try monitor.waitForLine(containing: "ActionInvoked ('\(id)'")
        #expect(pressed.contains("'default'"), "\(pressed)")
        // dunst closes it after the action (reason 2, dismissed), and Chime passes that on.
        let closed = try monitor.waitForLine(containing: "Closed ('\(id)'")
        #expect(closed.contains("uint32 2"))
    }
}
