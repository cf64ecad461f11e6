import Foundation
import Glibc

/// dunst on a private X server. A click on the popup invokes its default action
/// (`mouse_left_click = do_action` in Tests/servers/dunstrc); a button is pressed through
/// dunst's own context menu (`dunstctl context`), whose menu program picks the line.
public final class DunstServer: MatrixServer {
    public static let name = "dunst"
    public static let packages = ["dunst", "xvfb", "xdotool"]

    private let session: TestSession
    private let display: XDisplay
    private let config: URL
    private let pick: URL
    private var dunst: Spawned?

    public init(session: TestSession) throws {
        self.session = session
        display = try XDisplay(environment: session.environment)
        let directory = session.directory.appendingPathComponent("dunst")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        config = directory.appendingPathComponent("dunstrc")
        pick = directory.appendingPathComponent("pick")
        let menu = packageRoot.appendingPathComponent("Tests/servers/dunst-menu").path
        let base = try String(contentsOf: packageRoot.appendingPathComponent("Tests/servers/dunstrc"), encoding: .utf8)
        try base.replacingOccurrences(of: "dmenu = /bin/false", with: "dmenu = \(menu)")
            .write(to: config, atomically: true, encoding: .utf8)
        try start()
    }

    private var environment: [String: String] {
        var env = session.environment
        env["DISPLAY"] = display.name
        env["CHIME_DUNST_PICK"] = pick.path
        return env
    }

    private func start() throws {
        do {
            dunst = try Spawned(["dunst", "-config", config.path], environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("dunst: \(error)")
        }
        do { try session.waitForName("org.freedesktop.Notifications") } catch {
            throw MatrixServerError.couldNotStart("dunst never owned the name: \(dunst?.stderr.text ?? "")")
        }
    }

    public func press(label: String, key: String, notification id: UInt32) throws {
        // dunst 1.9 lists a button as "#LABEL (SUMMARY) [ID,KEY]" in its menu.
        try "[\(id),\(key)]".write(to: pick, atomically: true, encoding: .utf8)
        let result = try Spawned(["dunstctl", "context"], environment: environment).finish()
        guard result.status == 0 else { throw TestFailure.failed("dunstctl context failed: \(result)") }
    }

    public func click(notification id: UInt32) throws {
        let window = try display.windows(ofClass: "dunst", environment: environment).first
        guard let window else { throw TestFailure.failed("no dunst popup on screen") }
        let size = try display.geometry(of: window, environment: environment)
        try display.click(window: window, x: size.width / 2, y: size.height / 2, environment: environment)
    }

    public func crashAndRestart() throws {
        dunst?.stop()
        try start()
    }

    public func stop() {
        dunst?.stop()
        display.stop()
    }
}
