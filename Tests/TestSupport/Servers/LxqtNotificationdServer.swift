import Foundation

/// lxqt-notificationd (Qt 5) on a private X server, driven by pointer clicks on its popups.
///
/// Qt draws its buttons inside one X window, so neither xdotool nor the window tree can see
/// them. `QT_USE_NATIVE_WINDOWS=1` gives every widget its own X window, and `xwininfo -tree`
/// then shows where Qt laid each button out: no guessing from fonts or label widths. AT-SPI
/// would name the buttons, but Qt 5.15's bridge here connects to a private a11y bus without
/// ever exporting its tree (the registry stays empty), so it cannot be relied on.
public final class LxqtNotificationdServer: MatrixServer {
    public static let name = "lxqt-notificationd"
    public static let packages = ["lxqt-notificationd", "xvfb", "xdotool", "x11-utils"]

    private let session: TestSession
    private let display: XDisplay
    /// Its own record of the bus: which popups are open, and the actions of each.
    private let recorder: BusRecorder
    /// Where the running server's part of `recorder`'s text begins: a restarted lxqt numbers
    /// its notifications from 1 again, so the dead one's ids and closes must not count.
    private var epoch = 0
    private var server: Spawned?

    public init(session: TestSession) throws {
        self.session = session
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/lxqt-notificationd") else {
            throw MatrixServerError.couldNotStart("/usr/bin/lxqt-notificationd is not installed")
        }
        display = try XDisplay(environment: session.environment)
        recorder = try BusRecorder(session: session)
        // LXQt reads $XDG_CONFIG_HOME/lxqt/notifications.conf. server_decides = 0: a popup
        // Chime sends with expire_timeout -1 stays until pressed or closed, however slow the
        // machine; unattendedMaxNum = 0: no tray icon and no cache of missed popups.
        let directory = URL(fileURLWithPath: session.environment["XDG_CONFIG_HOME"] ?? session.directory.path)
            .appendingPathComponent("lxqt")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "[General]\nplacement=top-left\nserver_decides=0\nunattendedMaxNum=0\n"
            .write(to: directory.appendingPathComponent("notifications.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    private var environment: [String: String] {
        var env = session.environment
        env["DISPLAY"] = display.name
        env["QT_QPA_PLATFORM"] = "xcb"
        env["QT_USE_NATIVE_WINDOWS"] = "1"
        env["XDG_CACHE_HOME"] = session.directory.appendingPathComponent("cache").path
        return env
    }

    private func start() throws {
        do {
            server = try Spawned(["lxqt-notificationd"], environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("lxqt-notificationd: \(error)")
        }
        do { try session.waitForName("org.freedesktop.Notifications") } catch {
            throw MatrixServerError.couldNotStart("lxqt-notificationd never owned the name: \(server?.stderr.text ?? "")")
        }
    }

    public func press(label: String, key: String, notification id: UInt32) throws {
        let shown = try popup(of: id)
        let actions = try require(recorder.notifications().last { $0.id == id }, "no Notify for \(id)").actions
        // lxqt draws fewer than 4 actions as buttons and 4 or more as a combo box with an OK
        // button; a "default" action gets a button only when it has a label.
        let keys = stride(from: 0, to: actions.count - 1, by: 2)
            .filter { !(actions[$0] == "default" && actions[$0 + 1].isEmpty) }.map { actions[$0] }
        guard actions.count / 2 < 4 else { throw TestFailure.failed("lxqt shows \(actions.count / 2) actions as a combo box") }
        let index = try require(keys.firstIndex(of: key), "no button '\(label)' (\(key)) in \(actions)")
        let buttons = try require(shown.children.first { !$0.children.isEmpty }, "popup \(id) has no buttons").children
            .sorted { $0.x < $1.x }
        guard buttons.count == keys.count else { throw TestFailure.failed("popup \(id) has \(buttons.count) buttons for \(keys)") }
        let button = buttons[index]
        try click(x: button.x + button.width / 2, y: button.y + button.height / 2)
    }

    public func click(notification id: UInt32) throws {
        let shown = try popup(of: id)
        // The popup's own margin left of its labels: a release there (or on a label) invokes
        // "default"; the close button sits top right, the buttons at the bottom.
        try click(x: shown.x + 3, y: shown.y + shown.height / 3)
    }

    public func crashAndRestart() throws {
        try recorder.catchUp(on: session)
        server?.stop()
        epoch = recorder.text.count
        try start()
    }

    public func stop() {
        server?.stop()
        display.stop()
    }

    // MARK: - Finding a popup

    /// An X window of the server with its place on the screen and its child windows.
    struct Window {
        var x = 0, y = 0, width = 0, height = 0
        var children: [Window] = []
    }

    /// The popup of notification `id`, once the server has laid it out.
    private func popup(of id: UInt32) throws -> Window {
        try recorder.catchUp(on: session)
        let open = openNotifications()
        let index = try require(open.firstIndex(of: id), "notification \(id) is not on screen (open: \(open))")
        let deadline = Date(timeIntervalSinceNow: 30)
        while true {
            // X has no event for "Qt finished laying out the popups": ask again briefly.
            let popups = try popupWindows()
            if popups.count == open.count { return popups[index] }
            guard Date() < deadline else {
                throw TestFailure.failed("\(popups.count) lxqt popups on screen for \(open.count) open notifications")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// The ids of the notifications the server shows, top to bottom: in the order they came,
    /// skipping a copy of one still open (lxqt drops a new notification whose app, summary
    /// and body equal an open one's, though it answers Notify with a new id).
    private func openNotifications() -> [UInt32] {
        let messages = BusRecorder.messages(in: String(recorder.text.dropFirst(epoch)))
        var open: [BusRecorder.Notified] = []
        for notified in BusRecorder.notifications(in: messages) {
            guard let id = notified.id, BusRecorder.signals("NotificationClosed", of: id, in: messages).isEmpty,
                  !open.contains(where: { $0.id == id }) else { continue }
            if open.contains(where: { $0.summary == notified.summary && $0.body == notified.body }) { continue }
            open.append(notified)
        }
        return open.compactMap(\.id)
    }

    /// The popups, top to bottom: the windows three levels below a top-level window of the
    /// server (notification area → scroll viewport → layout → popup).
    private func popupWindows() throws -> [Window] {
        let tree = try run(["xwininfo", "-root", "-tree"])
        guard tree.status == 0 else { throw TestFailure.failed("xwininfo failed: \(tree)") }
        return Self.parse(tree: tree.stdout).children.flatMap(\.children).flatMap(\.children).flatMap(\.children)
            .sorted { $0.y < $1.y }
    }

    /// The windows of `xwininfo -root -tree` output under the root, nested by indentation;
    /// a window's line ends in "WxH+relX+relY  +absX+absY".
    static func parse(tree: String) -> Window {
        var stack: [(indent: Int, window: Window)] = [(-1, Window())]
        func fold(downTo indent: Int) {
            while stack.count > 1, stack[stack.count - 1].indent >= indent {
                let child = stack.removeLast().window
                stack[stack.count - 1].window.children.append(child)
            }
        }
        for line in tree.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[0].hasPrefix("0x"), let place = fields.last, place.hasPrefix("+") else { continue }
            let dimensions = fields[fields.count - 2].split(separator: "+").first?.split(separator: "x").compactMap { Int($0) } ?? []
            let position = place.split(separator: "+").compactMap { Int($0) }
            guard dimensions.count == 2, position.count == 2 else { continue }
            let indent = line.prefix { $0 == " " }.count
            fold(downTo: indent)
            stack.append((indent, Window(x: position[0], y: position[1], width: dimensions[0], height: dimensions[1])))
        }
        fold(downTo: 0)
        return stack[0].window
    }

    // MARK: - Pointer

    /// Clicks at (`x`, `y`) on the screen, then parks the pointer in the far corner: lxqt
    /// pauses a popup's expiry timer while the pointer is over it.
    private func click(x: Int, y: Int) throws {
        let result = try display.xdotool(["mousemove", String(x), String(y), "click", "1", "mousemove", "1279", "799"],
                                         environment: environment)
        guard result.status == 0 else { throw TestFailure.failed("xdotool click failed: \(result)") }
    }

    private func run(_ arguments: [String]) throws -> ProcessResult {
        try Spawned(arguments, environment: environment).finish()
    }

    private func require<T>(_ value: T?, _ failure: @autoclosure () -> String) throws -> T {
        guard let value else { throw TestFailure.failed(failure()) }
        return value
    }
}
