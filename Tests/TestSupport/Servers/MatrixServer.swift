import Foundation

/// A notification server the matrix scenario (`ServerMatrixTests`) runs against, driven as a
/// user drives it: a pointer click on its popup, or the server's own control (dunstctl,
/// makoctl, GNOME Shell's Eval) where it has one. Never by emitting its signals for it.
public protocol MatrixServer: AnyObject {
    /// Its name in the report and in `CHIME_SERVERS`: "dunst", "mako", "gnome-shell", …
    static var name: String { get }
    /// The Debian packages it needs; `scripts/deps.sh servers` installs them.
    static var packages: [String] { get }
    /// Whether it runs only when named (or with `CHIME_SERVERS=all`): its packages are too
    /// many for `make test` to install.
    static var heavy: Bool { get }
    /// Starts it for `session` (with the display or compositor it needs) and returns once it
    /// owns org.freedesktop.Notifications on the session's bus. Throws
    /// ``MatrixServerError/couldNotStart(_:)`` with the reason when it cannot run here.
    init(session: TestSession) throws
    /// Presses the button labelled `label` (action key `key`) of the notification the
    /// server numbered `id`.
    func press(label: String, key: String, notification id: UInt32) throws
    /// Clicks the notification itself, which invokes its "default" action.
    func click(notification id: UInt32) throws
    /// Kills the server as a crash does (SIGKILL) and starts it again; returns once the new
    /// one owns org.freedesktop.Notifications.
    func crashAndRestart() throws
    /// Stops it and everything it started.
    func stop()
}

extension MatrixServer {
    /// Most servers are light enough for every `make test`.
    public static var heavy: Bool { false }
}

/// Why a server's run did not happen.
public enum MatrixServerError: Error, CustomStringConvertible {
    /// The server, or what it needs (a display, a compositor, a user), cannot run here.
    case couldNotStart(String)

    public var description: String {
        switch self {
        case .couldNotStart(let reason): "could not start: \(reason)"
        }
    }
}

/// Every server the matrix knows, in report order.
public enum MatrixServers {
    public static var all: [any MatrixServer.Type] { [
        DunstServer.self,
        MakoServer.self,
        GnomeShellServer.self,
        NotificationDaemonServer.self,
        XfceNotifydServer.self,
        LxqtNotificationdServer.self,
        PlasmaServer.self,
    ] }

    /// The servers `CHIME_SERVERS` names (comma-separated, or `all`); without it, all but
    /// the heavy ones.
    public static var selected: [String] {
        guard let wanted = ProcessInfo.processInfo.environment["CHIME_SERVERS"], !wanted.isEmpty else {
            return all.filter { !$0.heavy }.map { $0.name }
        }
        guard wanted != "all" else { return all.map { $0.name } }
        return wanted.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The server type called `name`.
    public static func named(_ name: String) -> (any MatrixServer.Type)? {
        all.first { $0.name == name }
    }
}
