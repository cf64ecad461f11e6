import CDesktopLibs
import ChimeCore
import CLinux
import Glibc
import DBus
import Logging

/// Opens the app a notification speaks for when its `default` action is invoked, as iOS
/// launches an app with the notification in its launch options.
///
/// The app is found from its desktop entry id (`org.example.App`, looked up as
/// `org.example.App.desktop` in the `applications` directories of `XDG_DATA_HOME` and
/// `XDG_DATA_DIRS`, by GIO's GDesktopAppInfo, loaded on first use: see CDesktopLibs).
///
/// - An entry with `DBusActivatable=true` is called on the bus, following the
///   freedesktop Desktop Entry spec: its id is the bus name, the object path is the id
///   with `.` as `/` and `-` as `_`, and the interface `org.freedesktop.Application`.
///   When the entry lists a `notification` action (`Actions=…;notification;`), it gets
///   `ActivateAction("notification", [<{"id": <s>, "userInfo": <a{sv}>}>], platform_data)`;
///   otherwise `Activate(platform_data)`. `platform_data` holds `chime-notification-id`.
///   The bus starts the app if it is not running.
///   A button with `activationMode` foreground opens the app the same way, with its key
///   added as `"action": <s>` to the parameter and as `chime-action` to `platform_data`.
///   One desktop action, not one per button: the spec's action names are the entry's
///   own `[Desktop Action …]` groups, which an app cannot list for every button a
///   config may give it, and `default` (a click) stays the absent key, as before.
/// - Any other entry is launched with its `Exec=` line (GIO handles field codes and
///   `Terminal=`), with no files or URIs.
///
/// An app launched from its `Exec=` line gets the session's umask and a scope of its own
/// (see ``SessionPlacement``). Failures are logged; nothing else depends on them.
///
/// GLib reads `XDG_DATA_HOME` and `XDG_DATA_DIRS` once per process, at its first lookup.
/// Launching an ordinary entry makes GLib open its own session bus connection (GDBus,
/// with its worker thread) to announce the launch; Chime's own connection is unaffected.
final class AppLauncher {
    private let connection: Connection
    private let logger: Logger
    private let placement: SessionPlacement?

    /// The action an app lists in its desktop entry to be handed the notification.
    static let notificationAction = "notification"
    static let applicationInterface = "org.freedesktop.Application"
    /// How long the app (started by the bus, perhaps) has to answer.
    static let callTimeoutMilliseconds: Int32 = 25_000

    /// Without `placement`, apps get chimed's umask and stay in its cgroup.
    init(connection: Connection, logger: Logger, placement: SessionPlacement? = nil) {
        self.connection = connection
        self.logger = logger
        self.placement = placement
    }

    /// Opens the app of `desktopEntry` (with or without `.desktop`) for notification `id`,
    /// for the button `action` (nil: the notification itself); `then` runs once the app
    /// took it, failed to, or cannot be opened.
    func open(desktopEntry: String, id: String, userInfo: [String: UserInfoValue], action: String? = nil,
              then done: @escaping () -> Void = {}) {
        let name = desktopEntry.hasSuffix(".desktop") ? String(desktopEntry.dropLast(".desktop".count)) : desktopEntry
        guard !name.isEmpty, !name.contains("/"), !name.utf8.contains(0) else {
            logger.error("Notification \(id): '\(desktopEntry)' is not a desktop entry id; no app opened.")
            return done()
        }
        guard let info = chime_app_info_new(name + ".desktop") else {
            if let reason = chime_desktop_libs_error() {
                logger.error("Notification \(id): desktop entries cannot be read without GIO (\(String(cString: reason))); no app opened.")
            } else {
                logger.error("Notification \(id): no desktop entry \(name).desktop in the applications directories; no app opened.")
            }
            return done()
        }
        defer { chime_app_info_free(info) }

        if chime_app_info_get_boolean(info, "DBusActivatable") != 0 {
            activate(name, id: id, userInfo: userInfo, action: action,
                     listsNotificationAction: Self.actions(of: info).contains(Self.notificationAction), then: done)
        } else {
            launch(info, name: name, id: id)
            done()
        }
    }

    /// The object path of a D-Bus activatable app, per the Desktop Entry spec.
    static func objectPath(forBusName name: String) -> String {
        "/" + name.replacing(".", with: "/").replacing("-", with: "_")
    }

    // MARK: - D-Bus activation

    private func activate(_ name: String, id: String, userInfo: [String: UserInfoValue], action: String?,
                          listsNotificationAction: Bool, then done: @escaping () -> Void) {
        let message: Message
        do {
            let busName = try BusName(name)
            let path = try ObjectPath(Self.objectPath(forBusName: name))
            let interface = try InterfaceName(Self.applicationInterface)
            let platformData = Value.variantDictionary([("chime-notification-id", .string(id))]
                + (action.map { [("chime-action", .string($0))] } ?? []))
            if listsNotificationAction {
                let parameter = Value.variantDictionary([("id", .string(id)), ("userInfo", NotificationEncoding.userInfo(userInfo))]
                    + (action.map { [("action", .string($0))] } ?? []))
                message = try .methodCall(
                    destination: busName, path: path, interface: interface, member: try MemberName("ActivateAction"),
                    arguments: [.string(Self.notificationAction), .array(element: "v", [.variant(parameter)]), platformData]
                )
            } else {
                message = try .methodCall(destination: busName, path: path, interface: interface,
                                          member: try MemberName("Activate"), arguments: [platformData])
            }
        } catch {
            logger.error("Notification \(id): \(name).desktop is D-Bus activatable, but '\(name)' cannot be called: \(error)")
            return done()
        }
        let method = listsNotificationAction ? "ActivateAction('\(Self.notificationAction)')" : "Activate"
        logger.info("Notification \(id): opening \(name) with \(method) on the bus.")
        connection.call(message, timeoutMilliseconds: Self.callTimeoutMilliseconds) { [logger] result in
            if case .failure(let error) = result {
                logger.error("Notification \(id): \(name) did not take \(method): \(error)")
            }
            done()
        }
    }

    private static func actions(of info: UnsafeMutableRawPointer) -> [String] {
        chime_app_info_list_actions(info).map { [String](nullTerminated: $0) } ?? []
    }

    // MARK: - Exec

    private func launch(_ info: UnsafeMutableRawPointer, name: String, id: String) {
        var message: UnsafeMutablePointer<CChar>?
        var pid: Int32 = 0
        // Without G_SPAWN_DO_NOT_REAP_CHILD GLib spawns through an intermediate child that
        // it reaps at once: the app is nobody's child here, and no SIGCHLD is needed; the
        // pid GIO reports is the app's own.
        // The setup function runs in the app's process before exec: the signals the
        // daemon blocks for its signalfd must not stay blocked in the app (GLib 2.74
        // clears the mask of its children by itself; this keeps it so on any version),
        // and the umask is set there, in the child, so the daemon's own never changes.
        let launched: Int32
        if let placement {
            let umaskData = UnsafeMutableRawPointer(bitPattern: UInt(placement.sessionUmask))
            launched = chime_app_info_launch(info, clinux_child_setup_session, umaskData, &pid, &message)
        } else {
            launched = chime_app_info_launch(info, clinux_child_setup_unblock_signals, nil, &pid, &message)
        }
        if launched != 0 {
            logger.info("Notification \(id): launched \(name) from its desktop entry\(pid > 0 ? " as process \(pid)" : "").")
            placement?.moveToOwnScope(pid: pid, applicationID: name, description: "\(name) opened by Chime for notification \(id)")
            return
        }
        let reason = message.map { String(cString: $0) } ?? "unknown error"
        free(message)
        logger.error("Notification \(id): cannot launch \(name): \(reason).")
    }
}
