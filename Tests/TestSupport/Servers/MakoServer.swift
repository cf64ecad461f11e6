import Foundation
import Glibc

/// mako in a headless sway. Buttons and the default action are invoked through mako's own
/// control, `makoctl invoke`: headless sway has no input device (`WLR_LIBINPUT_NO_DEVICES`)
/// and no virtual-pointer client is installed, so there is no pointer to click with.
/// sway refuses to run as root: as root, sway and mako run as `nobody`, which
/// Tests/session-bus.conf.in lets onto the session's bus.
public final class MakoServer: MatrixServer {
    /// Its name in the report and in `CHIME_SERVERS`.
    public static let name = "mako"
    /// mako and the compositor it draws in.
    public static let packages = ["mako-notifier", "sway"]

    private let session: TestSession
    /// What runs sway and mako as `nobody` when the tests run as root; empty otherwise.
    private let asUser: [String]
    private let runtime: URL
    private let config: URL
    private var sway: Spawned?
    private var mako: Spawned?
    private var waylandDisplay = ""

    /// Starts sway, then mako on `session`'s bus; throws couldNotStart when either cannot run.
    public init(session: TestSession) throws {
        self.session = session
        let needed = ["sway", "mako", "makoctl", "busctl"] + (getuid() == 0 ? ["setpriv"] : [])
        if let missing = needed.first(where: { Self.find($0, in: session.environment) == nil }) {
            throw MatrixServerError.couldNotStart("\(missing) is not installed")
        }
        runtime = session.directory.appendingPathComponent("mako-runtime")
        config = runtime.appendingPathComponent("mako-config")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        for file in ["mako-config", "sway-config"] {
            try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Tests/servers/\(file)"),
                                             to: runtime.appendingPathComponent(file))
        }
        if getuid() == 0 {
            guard let account = getpwnam("nobody") else { throw MatrixServerError.couldNotStart("no user nobody to run sway as") }
            let (uid, gid) = (account.pointee.pw_uid, account.pointee.pw_gid)
            asUser = ["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"]
            // wlroots wants XDG_RUNTIME_DIR owned by its user and private to it; the bus's
            // socket lies in the session's directory, which that user must be able to enter.
            for path in [runtime.path, config.path, runtime.appendingPathComponent("sway-config").path] {
                guard chown(path, uid, gid) == 0 else { throw MatrixServerError.couldNotStart("chown \(path): \(String(cString: strerror(errno)))") }
            }
            var info = stat()
            guard stat(session.directory.path, &info) == 0, chmod(session.directory.path, (info.st_mode & 0o7777) | 0o001) == 0 else {
                throw MatrixServerError.couldNotStart("cannot open \(session.directory.path) to nobody")
            }
        } else {
            asUser = []
        }
        try startSway()
        try startMako()
    }

    /// The environment of sway and mako: their own home and runtime directory, nothing of
    /// a desktop the tests may run in.
    private var environment: [String: String] {
        var env = session.environment
        env["HOME"] = runtime.path
        env["XDG_RUNTIME_DIR"] = runtime.path
        env["XDG_CACHE_HOME"] = runtime.appendingPathComponent("cache").path
        env["WLR_BACKENDS"] = "headless"
        env["WLR_LIBINPUT_NO_DEVICES"] = "1"
        env["WLR_RENDERER"] = "pixman"
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = waylandDisplay.isEmpty ? nil : waylandDisplay
        env["SWAYSOCK"] = nil
        return env
    }

    private func startSway() throws {
        do {
            sway = try Spawned(asUser + ["sway", "-c", runtime.appendingPathComponent("sway-config").path], environment: environment)
        } catch {
            throw MatrixServerError.couldNotStart("sway: \(error)")
        }
        // sway-config's exec prints the socket once sway listens on it.
        let marker = "WAYLAND_DISPLAY="
        guard let sway, sway.stdout.wait(timeout: 60, until: { text in text.range(of: marker).map { text[$0.upperBound...].contains("\n") } ?? false }),
              let line = sway.stdout.text.split(separator: "\n").first(where: { $0.hasPrefix(marker) }),
              line.count > marker.count else {
            let reason = sway?.stderr.text.split(separator: "\n").suffix(5).joined(separator: " / ") ?? ""
            stop()
            throw MatrixServerError.couldNotStart("sway did not start: \(reason)")
        }
        waylandDisplay = String(line.dropFirst(marker.count))
    }

    private func startMako() throws {
        do {
            mako = try Spawned(asUser + ["mako", "-c", config.path], environment: environment)
        } catch {
            stop()
            throw MatrixServerError.couldNotStart("mako: \(error)")
        }
        do { try session.waitForName("org.freedesktop.Notifications") } catch {
            let reason = mako?.stderr.text ?? ""
            stop()
            throw MatrixServerError.couldNotStart("mako never owned the name: \(reason)")
        }
    }

    /// Invokes action `key` of notification `id` through makoctl (mako shows no labels to pick).
    public func press(label: String, key: String, notification id: UInt32) throws {
        try invoke(key, on: id)
    }

    /// Invokes the default action through makoctl, as mako's left click (`invoke-default-action`) would.
    public func click(notification id: UInt32) throws {
        try invoke("default", on: id)
    }

    /// makoctl exits 0 even when mako knows no such notification: the caller waits for
    /// the signal that shows the press happened.
    private func invoke(_ key: String, on id: UInt32) throws {
        let result = try session.run(["makoctl", "invoke", "-n", String(id), key])
        guard result.status == 0 else { throw TestFailure.failed("makoctl invoke failed: \(result)") }
    }

    /// SIGKILLs mako and starts another in the same sway.
    public func crashAndRestart() throws {
        let before = try owner()
        mako?.stop()
        try startMako()
        // The bus may not yet have seen the killed mako's connection close, so the name can
        // still be the old owner's. Nothing announces the new owner to the driver: ask again
        // at a short interval until it changes.
        let deadline = Date(timeIntervalSinceNow: 60)
        var now = try owner()
        while now.isEmpty || now == before {
            guard Date() < deadline else { throw TestFailure.timeout("the restarted mako owning org.freedesktop.Notifications") }
            Thread.sleep(forTimeInterval: 0.05)
            now = try owner()
        }
    }

    /// The unique name owning org.freedesktop.Notifications, empty when none.
    private func owner() throws -> String {
        try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                         "--method", "org.freedesktop.DBus.GetNameOwner", "org.freedesktop.Notifications"]).stdout
    }

    /// Stops mako and sway.
    public func stop() {
        mako?.stop()
        sway?.stop()
    }

    private static func find(_ program: String, in environment: [String: String]) -> String? {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }
            .first { access($0, X_OK) == 0 }
    }
}
