import Foundation

/// KDE Plasma 5's plasmashell on a private X server, its popups read through a private
/// AT-SPI bus and clicked with the pointer.
///
/// Plasma draws every popup in QML inside one X window, so neither xdotool nor the window
/// tree can see a button. Its accessibility tree names each button by its label and each
/// popup's summary, with their extents on screen; the click itself is a real pointer click
/// there, so Plasma's own handler runs (`Tests/servers/gtk-popup` finds the point).
public final class PlasmaServer: MatrixServer {
    public static let name = "plasma"
    public static let packages = ["plasma-workspace", "plasma-desktop", "kactivitymanagerd", "xvfb", "xdotool", "x11-utils",
                                  "at-spi2-core", "gir1.2-atspi-2.0", "python3-gi"]
    /// Its packages pull in some 360 others: `make test-servers` installs them, `make test` does not.
    public static let heavy = true

    private static let plasmashell = "/usr/bin/plasmashell"
    private static let activityManager = "/usr/lib/x86_64-linux-gnu/libexec/kactivitymanagerd"

    private let session: TestSession
    private let display: XDisplay
    /// Plasma's own home, configuration, data, cache and runtime directories.
    private let directory: URL
    private var accessibility: AccessibilityBus?
    /// Tells which summary a server id belongs to.
    private let recorder: BusRecorder
    private var activities: Spawned?
    private var server: Spawned?

    public init(session: TestSession) throws {
        self.session = session
        for path in [Self.plasmashell, Self.activityManager] where !FileManager.default.isExecutableFile(atPath: path) {
            throw MatrixServerError.couldNotStart("\(path) is not installed")
        }
        directory = session.directory.appendingPathComponent("plasma")
        for name in ["home", "config", "data", "cache", "runtime"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(name), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        // PopupTimeout: how long Plasma shows a popup whose expire_timeout is -1 before it
        // closes it as expired (reason 1); by default 5 s, too short for a slow machine to
        // find the popup and press it.
        try "[Notifications]\nPopupTimeout=120000\n"
            .write(to: directory.appendingPathComponent("config/plasmanotifyrc"), atomically: true, encoding: .utf8)
        recorder = try BusRecorder(session: session)
        display = try XDisplay(environment: session.environment)
        do {
            try startAccessibility()
            try startActivityManager()
            try start()
        } catch {
            stop()
            throw error
        }
    }

    /// What Plasma runs with: nothing of the machine's own desktop, user or session.
    private var environment: [String: String] {
        var env = session.environment
        env["DISPLAY"] = display.name
        env["QT_QPA_PLATFORM"] = "xcb"
        env["HOME"] = directory.appendingPathComponent("home").path
        for (name, folder) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"),
                               ("XDG_RUNTIME_DIR", "runtime")] {
            env[name] = directory.appendingPathComponent(folder).path
        }
        // For the reader (gtk-popup, libatspi); Qt takes the bus from the X root instead.
        env["AT_SPI_BUS_ADDRESS"] = accessibility?.address
        env["GSETTINGS_BACKEND"] = "memory"
        return env
    }

    private func startAccessibility() throws {
        let accessibility = try AccessibilityBus(socket: directory.appendingPathComponent("a11y-bus"), environment: environment)
        self.accessibility = accessibility
        // Qt 5's bridge ignores AT_SPI_BUS_ADDRESS: it asks the session bus for org.a11y.Bus
        // (which would need at-spi-bus-launcher) or reads the bus from this X root property,
        // and then exports its tree without waiting for a screen reader to ask.
        let property = try Spawned(["xprop", "-root", "-f", "AT_SPI_BUS", "8s", "-set", "AT_SPI_BUS", accessibility.address],
                                   environment: environment).finish()
        guard property.status == 0 else { throw MatrixServerError.couldNotStart("xprop AT_SPI_BUS: \(property)") }
    }

    /// plasmashell aborts its start when the activity manager is not on the bus, and the
    /// test bus cannot activate it.
    private func startActivityManager() throws {
        do {
            activities = try Spawned([Self.activityManager], environment: environment)
            try session.waitForName("org.kde.ActivityManager")
        } catch {
            throw MatrixServerError.couldNotStart("kactivitymanagerd never owned org.kde.ActivityManager: \(error)")
        }
    }

    private func start() throws {
        do {
            // --no-respawn: a crash stays a crash; crashAndRestart starts the next one.
            server = try Spawned([Self.plasmashell, "--no-respawn"], environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("plasmashell: \(error)")
        }
        do { try session.waitForName("org.freedesktop.Notifications") } catch {
            throw MatrixServerError.couldNotStart("plasmashell never owned the name: \(String(server?.stderr.text.suffix(2000) ?? ""))")
        }
    }

    public func press(label: String, key: String, notification id: UInt32) throws {
        try click(on: "button", label, summary: try summary(of: id))
    }

    /// A click on the summary invokes the default action: Plasma draws no button for it.
    public func click(notification id: UInt32) throws {
        let summary = try summary(of: id)
        try click(on: "label", summary, summary: summary)
    }

    public func crashAndRestart() throws {
        server?.stop()
        try start()
    }

    public func stop() {
        // The kioslave5 plasmashell starts in a session of its own ends by itself once
        // plasmashell's socket to it closes.
        server?.stop()
        activities?.stop()
        accessibility?.stop()
        display.stop()
    }

    /// The summary of the notification Plasma answered with `id` (the latest: a restarted
    /// plasmashell numbers from 1 again).
    private func summary(of id: UInt32) throws -> String {
        try recorder.catchUp(on: session)
        guard let notified = recorder.notifications().last(where: { $0.id == id }) else {
            throw TestFailure.failed("plasmashell never answered a Notify with \(id)")
        }
        return notified.summary
    }

    /// Clicks the middle of the `role` called `name` on the popup whose summary is `summary`,
    /// then parks the pointer in the top left corner, on the desktop: Plasma pauses a popup's
    /// expiry while the pointer is over it.
    private func click(on role: String, _ name: String, summary: String) throws {
        let helper = packageRoot.appendingPathComponent("Tests/servers/gtk-popup").path
        let found = try Spawned([helper, role, name, summary], environment: environment).finish(timeout: 90)
        let point = found.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        guard found.status == 0, point.count == 2 else { throw TestFailure.failed("gtk-popup: \(found)") }
        let result = try display.xdotool(["mousemove", point[0], point[1], "click", "1", "mousemove", "0", "0"], environment: environment)
        guard result.status == 0 else { throw TestFailure.failed("xdotool click failed: \(result)") }
    }
}
