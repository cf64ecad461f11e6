import DBus
import Glibc

/// Questions for the bus and its peers that change nothing: no call here starts a
/// service through activation, and none waits longer than ``timeoutMilliseconds``.
///
/// `chime doctor` and the interface-mismatch diagnosis use it; a hung peer costs them
/// seconds, not the 25 s of libdbus's default timeout.
struct BusLookups {
    let connection: Connection
    var timeoutMilliseconds: Int32 = 3_000

    /// Calls a method without starting its destination; an error reply is thrown.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [Value] = []
    ) throws(DBusError) -> [Value] {
        let message = try Message.methodCall(
            destination: try BusName(destination), path: try ObjectPath(path), interface: try InterfaceName(interface),
            member: try MemberName(member), arguments: arguments
        )
        message.autoStart = false
        return try connection.call(message, timeoutMilliseconds: timeoutMilliseconds).arguments()
    }

    // MARK: - org.freedesktop.DBus

    private func driver(_ member: String, _ arguments: [Value] = []) throws(DBusError) -> [Value] {
        try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member, arguments)
    }

    /// Whether some connection owns `name` now (asking never starts anything).
    func hasOwner(_ name: String) -> Bool {
        (try? driver("NameHasOwner", [.string(name)]))?.first?.boolValue ?? false
    }

    /// The unique name of `name`'s owner, nil when it has none.
    func owner(of name: String) -> String? {
        (try? driver("GetNameOwner", [.string(name)]))?.first?.stringValue
    }

    /// The process id of the connection that owns `name`, when the bus knows it.
    func processID(of name: String) -> UInt32? {
        guard case .uint32(let pid)? = (try? driver("GetConnectionUnixProcessID", [.string(name)]))?.first else { return nil }
        return pid
    }

    /// The names the bus can start on demand (it found an activation file for each).
    func activatableNames() -> Set<String> {
        Set((try? driver("ListActivatableNames"))?.first?.arrayElements?.compactMap(\.stringValue) ?? [])
    }

    /// The primary owner of `name` first, then every connection queued for it.
    func queuedOwners(of name: String) -> [String] {
        (try? driver("ListQueuedOwners", [.string(name)]))?.first?.arrayElements?.compactMap(\.stringValue) ?? []
    }

    // MARK: - Peers

    /// A peer's Introspect document for `path`, nil when it does not answer.
    func introspect(_ destination: String, _ path: String) -> String? {
        (try? call(destination, path, "org.freedesktop.DBus.Introspectable", "Introspect"))?.first?.stringValue
    }

    /// A string property read through `org.freedesktop.DBus.Properties.Get`.
    func stringProperty(_ destination: String, _ path: String, _ interface: String, _ name: String) -> String? {
        let reply = try? call(destination, path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)])
        return reply?.first?.unwrapped.stringValue
    }
}

/// The program name of process `pid`: the last path component of its `argv[0]`
/// (`/proc/PID/cmdline`), as `comm` cuts names to 15 bytes (`xfce4-notifyd` fits, but
/// `lxqt-notificationd` does not). `comm` serves when argv is empty (a kernel thread,
/// a zombie) or unreadable; nil when neither can be read.
func processName(_ pid: UInt32) -> String? {
    if let command = readSmallFile("/proc/\(pid)/cmdline"),
       let first = command.split(separator: "\0", omittingEmptySubsequences: false).first, !first.isEmpty {
        return String(first.split(separator: "/").last ?? first)
    }
    guard let comm = readSmallFile("/proc/\(pid)/comm"), !comm.isEmpty else { return nil }
    return comm.hasSuffix("\n") ? String(comm.dropLast()) : comm
}
