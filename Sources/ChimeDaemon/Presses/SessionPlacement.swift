import DBus
import Glibc
import Logging

/// Puts what Chime starts (button commands, apps opened from a notification) where the
/// session itself would put them, not where chimed is.
///
/// - **The session's umask**, the one chimed was started with: chimed's own is 077, for
///   its private store, and a command that writes a file must not make it private by
///   surprise.
/// - **A transient scope of its own** under the systemd user manager, when there is one
///   on the session bus, as desktop shells do for the apps they launch
///   (`app-chime-<id>-<pid>.scope`, systemd.unit(5)'s naming for apps). In chimed's
///   cgroup a restart of chimed would kill them, and their memory would count as its.
///   The move is asked for asynchronously, once the process runs: what it forks before
///   the manager has moved it stays behind, the same race desktop shells accept.
///   Failures are logged; nothing depends on them.
final class SessionPlacement {
    /// The umask processes started by Chime get.
    let sessionUmask: mode_t
    private let connection: Connection?
    private let logger: Logger
    private var toldNoManager = false

    static let managerName = try! BusName("org.freedesktop.systemd1")
    static let managerPath = try! ObjectPath("/org/freedesktop/systemd1")
    static let managerInterface = try! InterfaceName("org.freedesktop.systemd1.Manager")
    /// The launcher part of the scope names (systemd.unit: `app[-<launcher>]-<ApplicationID>-<RANDOM>.scope`).
    static let launcher = "chime"

    /// `connection` is the session bus, where a user manager is asked for scopes; nil
    /// leaves processes in chimed's cgroup.
    init(sessionUmask: mode_t, connection: Connection?, logger: Logger) {
        self.sessionUmask = sessionUmask
        self.connection = connection
        self.logger = logger
    }

    /// Runs `spawn` with the session's umask in force, then restores chimed's.
    ///
    /// posix_spawn has no umask attribute, and the umask is the process's: this is right
    /// only because chimed's one thread is the one that creates files, and posix_spawn
    /// returns once the child has exec'd (glibc's clone with CLONE_VFORK).
    func withSessionUmask<T>(_ spawn: () -> T) -> T {
        let own = umask(sessionUmask)
        defer { umask(own) }
        return spawn()
    }

    // MARK: - Scopes

    /// The scope name for process `pid` of application `id`: `app-chime-<id>-<pid>.scope`,
    /// `id` escaped as systemd escapes unit names (a `-` would read as a separator).
    static func scopeName(applicationID id: String, pid: pid_t) -> String {
        let suffix = "-\(pid).scope"
        let prefix = "app-\(launcher)-"
        // systemd's limit is 255 characters: a long id is cut, never an escape sequence.
        var escaped = ""
        for (index, byte) in id.utf8.enumerated() {
            let keep = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && index > 0)
            let piece = keep ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16).leftPadded(to: 2)
            guard prefix.count + escaped.count + piece.count + suffix.count <= 255 else { break }
            escaped += piece
        }
        return prefix + (escaped.isEmpty ? "unnamed" : escaped) + suffix
    }

    /// Asks the user manager, without waiting, to move `pid` into a transient scope of
    /// its own named for `applicationID`.
    func moveToOwnScope(pid: pid_t, applicationID: String, description: String) {
        guard let connection, pid > 0 else { return }
        let unit = Self.scopeName(applicationID: applicationID, pid: pid)
        let message: Message
        do {
            let property = { (name: String, value: Value) in Value.structure([.string(name), .variant(value)]) }
            message = try .methodCall(
                destination: Self.managerName, path: Self.managerPath, interface: Self.managerInterface,
                member: try MemberName("StartTransientUnit"),
                arguments: [
                    .string(unit), .string("fail"),
                    .array(element: "(sv)", [
                        property("PIDs", .array(element: "u", [.uint32(UInt32(pid))])),
                        property("Description", .string(description)),
                        // Gone once its processes are, failed or not: nothing piles up.
                        property("CollectMode", .string("inactive-or-failed")),
                    ]),
                    .array(element: "(sa(sv))", []),
                ]
            )
        } catch {
            logger.warning("Process \(pid) stays in chimed's cgroup: \(error)")
            return
        }
        // A session without a user manager must not start one (or anything) for this.
        message.autoStart = false
        connection.call(message, timeoutMilliseconds: 10_000) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                self.logger.debug("Process \(pid) runs in \(unit).")
            case .failure(let error) where error.name == DBusError.serviceUnknownName || error.name == DBusError.nameHasNoOwnerName:
                guard !self.toldNoManager else { return }
                self.toldNoManager = true
                self.logger.info("No systemd user manager on the session bus: what Chime starts stays in chimed's cgroup.")
            case .failure(let error):
                // A command that ends at once is gone before the manager looks: common, and harmless.
                self.logger.info("Process \(pid) stays in chimed's cgroup (it may have ended already): the user manager did not make \(unit): \(error)")
            }
        }
    }
}

extension String {
    /// The string with zeros in front, up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
