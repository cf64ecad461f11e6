import Foundation
import Glibc

/// GNOME Shell, headless (its own Wayland compositor on a virtual monitor), with its
/// org.gnome.Shell.Notifications service. Presses and clicks go through `org.gnome.Shell.Eval`
/// (`--unsafe-mode`) to the banner on screen: its button's or its own `clicked`, as a pointer
/// release emits it.
public final class GnomeShellServer: MatrixServer {
    public static let name = "gnome-shell"
    // gjs runs org.gnome.Shell.Notifications; Debian's gnome-shell does not pull it in.
    public static let packages = ["gnome-shell", "gjs"]

    private static let service = "/usr/share/gnome-shell/org.gnome.Shell.Notifications"

    private let session: TestSession
    private let systemBus: SystemBus
    private let environment: [String: String]
    private var shell: Spawned?
    private var notifications: Spawned?

    public init(session: TestSession) throws {
        self.session = session
        for path in ["/usr/bin/gnome-shell", "/usr/bin/gjs", Self.service] where !FileManager.default.fileExists(atPath: path) {
            throw MatrixServerError.couldNotStart("\(path) is not installed")
        }
        // mutter's native backend will not start without a logind session; the fake one lives
        // on a system bus of its own, given to the shell only.
        let directory = session.directory.appendingPathComponent("gnome-shell")
        do {
            systemBus = try SystemBus(directory: directory.appendingPathComponent("system"))
            try systemBus.startTemplate("logind", owning: "org.freedesktop.login1")
        } catch {
            throw MatrixServerError.couldNotStart("no fake logind for mutter: \(error)")
        }
        var env = session.environment
        for name in ["home", "runtime", "cache"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(name), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        env["HOME"] = directory.appendingPathComponent("home").path
        env["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("runtime").path
        env["XDG_CACHE_HOME"] = directory.appendingPathComponent("cache").path
        env["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus.address
        // Settings stay in memory: the machine's dconf is never read nor written.
        env["GSETTINGS_BACKEND"] = "memory"
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = nil
        environment = env
        do { try start() } catch { stop(); throw error }
    }

    private func start() throws {
        do {
            shell = try Spawned(["gnome-shell", "--headless", "--unsafe-mode", "--virtual-monitor", "1280x800"], environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("gnome-shell: \(error)")
        }
        // Logged on 'startup-complete', once the shell has its UI and its D-Bus objects.
        guard shell?.stderr.wait(timeout: 120, until: { $0.contains("GNOME Shell started at") }) == true else {
            throw MatrixServerError.couldNotStart("gnome-shell did not finish starting: \(shell?.stderr.text.suffix(2000) ?? "")")
        }
        // The shell greets with notices of its own (run as root: "privileged user"; no screen
        // lock), which an idle headless shell never hides and which would queue every other
        // banner behind them: dismiss them. Chime's name is not owned yet: none are Chime's.
        _ = try eval("(() => { const t = imports.ui.main.messageTray; [t._notification, ...t._notificationQueue].forEach(n => n?.destroy()); })()")
        do {
            notifications = try Spawned(["/usr/bin/gjs", Self.service], environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("org.gnome.Shell.Notifications: \(error)")
        }
        do { try session.waitForName("org.freedesktop.Notifications") } catch {
            throw MatrixServerError.couldNotStart("org.gnome.Shell.Notifications never owned the name: \(notifications?.stderr.text ?? "")")
        }
    }

    /// Runs `script` in the shell; returns its JSON result.
    private func eval(_ script: String) throws -> String {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path", "/org/gnome/Shell",
                                      "--method", "org.gnome.Shell.Eval", script])
        guard result.status == 0, result.stdout.hasPrefix("(true,") else { throw TestFailure.failed("Eval failed: \(result)") }
        return result.stdout
    }

    /// Clicks, on the banner showing notification `id`, the button labelled `label`, or the
    /// banner itself when `label` is nil.
    private func click(_ label: String?, notification id: UInt32) throws {
        let target = label.map { "banner._buttonBox?.get_children().find(b => b.label === \(Self.jsString($0)))" } ?? "banner"
        let script = """
            (() => {
                const Main = imports.ui.main;
                const notification = Main.notificationDaemon._fdoNotificationDaemon._notifications[\(id)]?.notification;
                if (!notification) return 'gone';
                const tray = Main.messageTray;
                const banner = tray._banner;
                if (banner?.notification !== notification) {
                    // A banner stays up until the user is active; on an idle headless shell an
                    // earlier one (which only its sender may close) would hold this one back
                    // forever. A nudge of the pointer lets it time out and go to the list.
                    if (banner && tray.idleMonitor.get_idletime() > 1000) {
                        const { Clutter, GLib } = imports.gi;
                        globalThis.chimeMatrixPointer ??= Clutter.get_default_backend().get_default_seat()
                            .create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
                        globalThis.chimeMatrixPointer.notify_relative_motion(GLib.get_monotonic_time(), 1, 1);
                    }
                    return 'not shown';
                }
                const target = \(target);
                if (!target) return 'no such button';
                target.emit('clicked', 1);
                return 'clicked';
            })()
            """
        let deadline = Date(timeIntervalSinceNow: 60)
        while true {
            let reply = try eval(script)
            if reply.contains("clicked") { return }
            // The tray shows one banner at a time and slides the next one in, and a
            // notification updated in place (replaces_id) gets its buttons anew; nothing on
            // the bus tells when either is done, so ask again at a short interval.
            guard reply.contains("not shown") || reply.contains("no such button"), Date() < deadline else {
                throw TestFailure.failed("cannot click \(label ?? "the banner") of \(id): \(reply)")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    private static func jsString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    public func press(label: String, key: String, notification id: UInt32) throws {
        try click(label, notification: id)
    }

    public func click(notification id: UInt32) throws {
        try click(nil, notification: id)
    }

    public func crashAndRestart() throws {
        // The name belongs to the gjs service, a proxy for the shell; a crash of the shell
        // alone would leave the name owned and the notifications silently gone.
        notifications?.stop()
        shell?.stop()
        try start()
    }

    public func stop() {
        notifications?.stop()
        shell?.stop()
        systemBus.stop()
    }
}
