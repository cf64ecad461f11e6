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

/// The short name of process `pid` (`/proc/PID/comm`), nil when it cannot be read.
func processName(_ pid: UInt32) -> String? {
    let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let name = String(decoding: buffer[..<count], as: UTF8.self)
    return name.hasSuffix("\n") ? String(name.dropLast()) : name
}
