import CDBus

/// A D-Bus message: a method call, a reply, an error or a signal.
///
/// Owns one reference to the libdbus message. Arguments are read into ``Value``s in
/// one pass, so any type a peer sends is read without a crash; what a handler expects
/// is checked against those values afterwards. A received message is read within its
/// connection's ``ReadLimits``.
public final class Message {
    /// The kind of message.
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal, other
    }

    let raw: OpaquePointer
    /// What reading the body may cost: the receiving connection's ``Connection/readLimits``.
    public internal(set) var readLimits: ReadLimits = .unlimited

    /// Takes over one reference to `raw`.
    init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        dbus_message_unref(raw)
    }

    // MARK: - Creating

    /// A method call to `destination` (nil for a peer-to-peer connection).
    public static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        arguments: [Value] = []
    ) throws(DBusError) -> Message {
        let raw = dbus_message_new_method_call(destination?.rawValue, path.rawValue, interface?.rawValue, member.rawValue)
        guard let raw else { throw .failed("Out of memory creating a method call.") }
        let message = Message(owning: raw)
        try message.append(arguments)
        return message
    }

    /// A method call to the bus itself: `org.freedesktop.DBus` at `/org/freedesktop/DBus`.
    public static func busCall(_ member: String, _ arguments: [Value] = []) throws(DBusError) -> Message {
        try methodCall(destination: try BusName("org.freedesktop.DBus"), path: try ObjectPath("/org/freedesktop/DBus"),
                       interface: try InterfaceName("org.freedesktop.DBus"), member: try MemberName(member), arguments: arguments)
    }

    /// A signal emitted from `path`.
    public static func signal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [Value] = []
    ) throws(DBusError) -> Message {
        guard let raw = dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue) else {
            throw .failed("Out of memory creating a signal.")
        }
        let message = Message(owning: raw)
        try message.append(arguments)
        return message
    }

    /// The successful reply to this method call.
    public func makeReply(_ arguments: [Value] = []) throws(DBusError) -> Message {
        // libdbus aborts on a reply to a message without a serial (one never sent).
        guard serial != 0 else { throw .failed("Cannot reply to a message that was never sent.") }
        guard let raw = dbus_message_new_method_return(raw) else { throw .failed("Out of memory creating a reply.") }
        let reply = Message(owning: raw)
        try reply.append(arguments)
        return reply
    }

    /// The error reply to this method call.
    public func makeErrorReply(_ error: DBusError) -> Message? {
        guard serial != 0 else { return nil }
        // A bad error name would abort libdbus; fall back to the generic one.
        let name = ErrorName(rawValue: error.name)?.rawValue ?? "org.freedesktop.DBus.Error.Failed"
        // libdbus would also abort on a message text with invalid UTF-8; Swift strings are
        // valid, but an embedded NUL would silently cut it, so drop those.
        let text = String(error.message.unicodeScalars.filter { $0 != "\0" })
        return dbus_message_new_error(raw, name, text).map { Message(owning: $0) }
    }

    // MARK: - Header

    public var kind: Kind {
        switch dbus_message_get_type(raw) {
        case CDBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case CDBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case CDBUS_MESSAGE_TYPE_ERROR: .error
        case CDBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .other
        }
    }

    public var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    public var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    public var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    public var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    public var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    public var signature: String { String(cString: dbus_message_get_signature(raw)) }
    public var serial: UInt32 { dbus_message_get_serial(raw) }

    /// Whether the bus may start the destination's service to deliver this call (the
    /// default); off for a look that must not change what it looks at.
    public var autoStart: Bool {
        get { dbus_message_get_auto_start(raw) != 0 }
        set { dbus_message_set_auto_start(raw, newValue ? 1 : 0) }
    }

    /// Whether the caller asked for no reply (`dbus-send` without `--print-reply`).
    public var noReplyExpected: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// The error this message carries, for an error reply: its name and first string argument.
    public var error: DBusError? {
        guard kind == .error, let name = errorName else { return nil }
        let text = (try? arguments())?.first?.stringValue ?? ""
        return DBusError(name: name, message: text)
    }

    // MARK: - Body

    /// Appends `values` to the body, after checking each one libdbus would abort on.
    public func append(_ values: [Value]) throws(DBusError) {
        for value in values { try value.validate() }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values {
            guard Marshal.write(value, into: &iter) else { throw .failed("Out of memory marshalling a message.") }
        }
    }

    /// Every argument in the body, read within ``readLimits``.
    public func arguments() throws(DBusError) -> [Value] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var budget = ReadBudget(readLimits)
        return try Marshal.readAll(&iter, budget: &budget)
    }

    /// The first argument alone (nil for an empty body), read within ``readLimits``.
    public func firstArgument() throws(DBusError) -> Value? {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return nil }
        var budget = ReadBudget(readLimits)
        return try Marshal.read(&iter, budget: &budget)
    }

    /// The serialized bytes (no bus needed), for tests and size measurement.
    public func marshalled() throws(DBusError) -> [UInt8] {
        // Wire data needs a serial; a message not sent yet has none.
        if serial == 0 { dbus_message_set_serial(raw, 1) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &buffer, &length) != 0, let buffer else {
            throw .failed("Out of memory marshalling a message.")
        }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) }
    }

    /// Parses serialized bytes back into a message; malformed bytes are an error.
    public static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> Message {
        let (raw, error) = withLibDBusError { error in
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32(buffer.count), error) }
            }
        }
        guard let raw else { throw error ?? .invalidArgs("Malformed message.") }
        return Message(owning: raw)
    }
}
