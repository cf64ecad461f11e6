import Foundation

/// A GTK 3 notification server on a private X display, whose popups are read through a
/// private AT-SPI bus: xdotool knows only the popup's window, not where GTK put a button in
/// it, and a place computed from the layout breaks with the theme, the font or the label's
/// length. AT-SPI names each button by its label and gives its extents on screen; the click
/// itself is a real pointer click there, so the server's own button handler runs.
public final class GtkPopup {
    private let session: TestSession
    private let command: [String]
    private let display: XDisplay
    private let directory: URL
    private let accessibility: AccessibilityBus
    private var server: Spawned?
    /// Tells which summary a server id belongs to, and the label of its default action.
    private let recorder: BusRecorder

    /// Starts Xvfb, an accessibility bus with its registry, and `command` on them; returns
    /// once the server owns org.freedesktop.Notifications.
    public init(session: TestSession, command: [String]) throws {
        self.session = session
        self.command = command
        guard FileManager.default.isExecutableFile(atPath: command[0]) else {
            throw MatrixServerError.couldNotStart("\(command[0]) is not installed")
        }
        directory = session.directory.appendingPathComponent("gtk-\(UUID().uuidString.prefix(8))")
        for name in ["cache", "runtime"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(name), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        recorder = try BusRecorder(session: session)
        display = try XDisplay(environment: session.environment)
        var environment = session.environment
        environment["DISPLAY"] = display.name
        accessibility = try AccessibilityBus(socket: directory.appendingPathComponent("a11y-bus"), environment: environment)
        try startServer()
    }

    /// What the server and the AT-SPI reader run with: nothing of the machine's own desktop.
    private var environment: [String: String] {
        var env = session.environment
        env["DISPLAY"] = display.name
        // GTK's atk-bridge reads this before asking the session bus for org.a11y.Bus, so no
        // at-spi-bus-launcher (which leaves its registry running) is needed.
        env["AT_SPI_BUS_ADDRESS"] = accessibility.address
        env["NO_AT_BRIDGE"] = nil
        env["XDG_CACHE_HOME"] = directory.appendingPathComponent("cache").path
        env["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("runtime").path
        // The real user's dconf database is never opened.
        env["GSETTINGS_BACKEND"] = "memory"
        return env
    }

    private func startServer() throws {
        do {
            server = try Spawned(command, environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("\(command[0]): \(error)")
        }
        do { try session.waitForName("org.freedesktop.Notifications") } catch {
            throw MatrixServerError.couldNotStart("\(command[0]) never owned the name: \(server?.stderr.text ?? "")")
        }
    }

    /// The Notify call the server answered with `id` (the latest: a restarted server counts
    /// from 1 again).
    private func notified(_ id: UInt32) throws -> BusRecorder.Notified {
        try recorder.catchUp(on: session)
        guard let notified = recorder.notifications().last(where: { $0.id == id }) else {
            throw TestFailure.failed("the server never answered a Notify with \(id)")
        }
        return notified
    }

    /// Clicks the button labelled `label` on the popup of notification `id`.
    public func press(label: String, notification id: UInt32) throws {
        try click(.button, label, summary: try notified(id).summary)
    }

    /// Clicks the button of the default action of notification `id`, for a server that
    /// draws that action as a button.
    public func pressDefault(notification id: UInt32) throws {
        let notified = try notified(id)
        let actions = notified.actions
        guard let index = stride(from: 0, to: actions.count - 1, by: 2).first(where: { actions[$0] == "default" }) else {
            throw TestFailure.failed("notification \(id) has no default action: \(actions)")
        }
        try click(.button, actions[index + 1], summary: notified.summary)
    }

    /// Clicks the summary of notification `id`, where a click on the popup's text lands.
    public func clickSummary(notification id: UInt32) throws {
        let summary = try notified(id).summary
        try click(.label, summary, summary: summary)
    }

    private enum Widget: String { case button, label }

    private func click(_ widget: Widget, _ name: String, summary: String) throws {
        let helper = packageRoot.appendingPathComponent("Tests/servers/gtk-popup").path
        let found = try Spawned([helper, widget.rawValue, name, summary], environment: environment).finish(timeout: 90)
        let point = found.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        guard found.status == 0, point.count == 2 else { throw TestFailure.failed("gtk-popup: \(found)") }
        let result = try display.xdotool(["mousemove", point[0], point[1], "click", "1"], environment: environment)
        guard result.status == 0 else { throw TestFailure.failed("xdotool click failed: \(result)") }
    }

    /// Kills the server as a crash does and starts it again.
    public func crashAndRestart() throws {
        server?.stop()
        try startServer()
    }

    /// Stops the server, the accessibility bus and its registry, and Xvfb.
    public func stop() {
        server?.stop()
        accessibility.stop()
        display.stop()
    }
}

/// A matrix server driven through a ``GtkPopup``: a button is pressed by its label.
public protocol GtkPopupServer: MatrixServer {
    /// The server with its display and its accessibility bus.
    var popup: GtkPopup { get }
}

extension GtkPopupServer {
    /// Clicks the button labelled `label` on the popup of `id`.
    public func press(label: String, key: String, notification id: UInt32) throws {
        try popup.press(label: label, notification: id)
    }

    /// Kills the server as a crash does and starts it again.
    public func crashAndRestart() throws {
        try popup.crashAndRestart()
    }

    /// Stops the server and all it runs on.
    public func stop() {
        popup.stop()
    }
}
