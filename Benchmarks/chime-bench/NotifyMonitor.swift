import CDBus

/// A bus monitor that sees every `Notify` call on the session bus, with the instant it
/// was read.
///
/// It uses libdbus directly rather than the project's `Connection`: a monitor must never
/// send anything (the bus disconnects one that does), and dispatching a method call
/// through `Connection` would answer it with UnknownMethod. Messages are only read and
/// popped here, never dispatched.
final class NotifyMonitor {
    /// One Notify call: its summary (the title) and when it was read, on CLOCK_REALTIME.
    struct Seen {
        let summary: String
        let seconds: Int
        let nanoseconds: Int
    }

    private let raw: OpaquePointer
    private(set) var disconnected = false

    init() throws {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let raw = dbus_bus_get_private(DBUS_BUS_SESSION, &error) else {
            defer { dbus_error_free(&error) }
            throw BenchError("cannot connect to the session bus: \(Self.text(error.message))")
        }
        self.raw = raw
        // libdbus's default is to _exit() the process when the bus goes away.
        dbus_connection_set_exit_on_disconnect(raw, 0)
        try becomeMonitor()
    }

    deinit {
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    private func becomeMonitor() throws {
        guard let call = dbus_message_new_method_call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring", "BecomeMonitor")
        else { throw BenchError("out of memory") }
        defer { dbus_message_unref(call) }
        var iter = DBusMessageIter()
        var rules = DBusMessageIter()
        dbus_message_iter_init_append(call, &iter)
        var ok = dbus_message_iter_open_container(&iter, CDBUS_TYPE_ARRAY, "s", &rules) != 0
        let rule = "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"
        ok = ok && rule.withCString { text in
            var pointer: UnsafePointer<CChar>? = text
            return dbus_message_iter_append_basic(&rules, CDBUS_TYPE_STRING, &pointer) != 0
        }
        ok = ok && dbus_message_iter_close_container(&iter, &rules) != 0
        var flags: UInt32 = 0
        ok = ok && dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT32, &flags) != 0
        guard ok else { throw BenchError("out of memory building BecomeMonitor") }

        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(raw, call, 10_000, &error) else {
            defer { dbus_error_free(&error) }
            throw BenchError("BecomeMonitor failed: \(Self.text(error.name)): \(Self.text(error.message))")
        }
        dbus_message_unref(reply)
    }

    /// The socket, for an event loop to poll; then read with a wait of 0.
    var fileDescriptor: Int32? {
        var fd: Int32 = -1
        return dbus_connection_get_unix_fd(raw, &fd) != 0 ? fd : nil
    }

    /// Waits at most `milliseconds` for traffic and returns the Notify calls read.
    func read(waitingMilliseconds milliseconds: Int32) -> [Seen] {
        guard !disconnected else { return [] }
        if dbus_connection_read_write(raw, max(0, milliseconds)) == 0 {
            disconnected = true
        }
        // Everything popped now was on the socket by this instant.
        let now = Clock.realtime()
        var seen: [Seen] = []
        while let message = dbus_connection_pop_message(raw) {
            defer { dbus_message_unref(message) }
            if dbus_message_get_type(message) == CDBUS_MESSAGE_TYPE_SIGNAL,
               dbus_message_is_signal(message, "org.freedesktop.DBus.Local", "Disconnected") != 0 {
                disconnected = true
                continue
            }
            guard dbus_message_get_type(message) == CDBUS_MESSAGE_TYPE_METHOD_CALL,
                  dbus_message_is_method_call(message, "org.freedesktop.Notifications", "Notify") != 0,
                  let summary = Self.summary(of: message) else { continue }
            seen.append(Seen(summary: summary, seconds: now.seconds, nanoseconds: now.nanoseconds))
        }
        return seen
    }

    /// Notify's fourth argument, the summary; nil if the call is malformed.
    private static func summary(of message: OpaquePointer) -> String? {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return nil }
        for _ in 0..<3 {
            guard dbus_message_iter_next(&iter) != 0 else { return nil }
        }
        guard dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_STRING else { return nil }
        var pointer: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? "unknown error"
    }
}
