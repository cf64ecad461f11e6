import CDBus
import EventLoop
import Glibc

/// A private connection to a message bus.
///
/// One thread owns it. Attached to an ``EventLoop`` it reads, writes and dispatches from
/// that loop (the daemon); unattached it is used with blocking calls and
/// ``readWriteDispatch(timeoutMilliseconds:)`` (the command-line client). Every libdbus
/// callback runs inside this thread's own calls into libdbus, never on another thread.
public final class Connection {
    let raw: OpaquePointer
    /// The loop's side of libdbus's watches and timeouts, once attached.
    var loopBridge: LoopBridge?
    private var nextToken = 0
    /// The handlers of signals, by token; read by the message filter.
    private(set) var subscriptions: [Int: (rule: MatchRule, handler: (Message) -> Void)] = [:]
    /// The exported objects; read by the message filter.
    private(set) var objects: [ObjectPath: (token: Int, interfaces: [Interface])] = [:]
    private var closed = false

    /// Called once when the bus goes away (the daemon should then exit, or reconnect).
    public var onDisconnect: (() -> Void)?

    /// What this connection reads of any one message it receives (calls, replies and
    /// signals): a service sets it from the largest request it accepts, so a peer's
    /// oversized message is refused while it is read. Unlimited by default.
    public var readLimits: ReadLimits = .unlimited

    private init(raw: OpaquePointer) {
        self.raw = raw
        // libdbus's default for bus connections is to _exit() when the bus goes away;
        // the owner decides instead, through onDisconnect.
        dbus_connection_set_exit_on_disconnect(raw, 0)
        dbus_connection_add_filter(raw, filterMessage, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`, or else to the
    /// per-user bus at `$XDG_RUNTIME_DIR/bus`. Never X11 autolaunch, which is libdbus's
    /// next resort: with DISPLAY set it runs dbus-launch, which starts a bus of its own
    /// that nothing else in the session uses and that outlives the caller.
    public static func session() throws(DBusError) -> Connection {
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 {
            let (raw, error) = withLibDBusError { dbus_bus_get_private(DBUS_BUS_SESSION, $0) }
            guard let raw else {
                throw .disconnected("Cannot connect to the session bus: \(error?.message ?? "unknown error").")
            }
            return Connection(raw: raw)
        }
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), let socket = userBusSocket(in: runtime) else {
            throw .disconnected(
                "No session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus; "
                    + "run this inside a desktop session (or a user manager with dbus-user-session)."
            )
        }
        return try bus(address: "unix:path=" + escapedAddressValue(socket))
    }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket).
    public static func system() throws(DBusError) -> Connection {
        let (raw, error) = withLibDBusError { dbus_bus_get_private(DBUS_BUS_SYSTEM, $0) }
        guard let raw else { throw .disconnected("Cannot connect to the system bus: \(error?.message ?? "unknown error").") }
        return Connection(raw: raw)
    }

    /// ``system()`` for a program without a loop of its own (`chime doctor`), waiting at
    /// most `timeoutMilliseconds` for the bus to say hello: the hello is said from a loop
    /// made for it, and the connection comes back without one, for blocking calls.
    public static func system(timeoutMilliseconds: Int32) throws(DBusError) -> Connection {
        let loop = EventLoop()
        var outcome: Result<Connection, DBusError>?
        system(on: loop, timeoutMilliseconds: timeoutMilliseconds, readLimits: .unlimited) { outcome = $0 }
        while outcome == nil {
            do {
                try loop.runOnce(timeoutMilliseconds: Int(timeoutMilliseconds))
            } catch {
                throw .failed("Cannot connect to the system bus: \(error).")
            }
        }
        let connection = try outcome!.get()
        connection.detachFromLoop()
        return connection
    }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket) from
    /// `loop` without blocking it; `done` runs from the loop once the bus has said hello,
    /// or with the error, or when `timeoutMilliseconds` have passed without an answer. It
    /// reads within `readLimits` from the start.
    ///
    /// ``system()`` blocks until the bus answers, and libdbus waits for the bus's side of
    /// the authentication without a time limit: a system bus that takes the connection
    /// and never answers (a wedged dbus-daemon) would hold a daemon's loop for ever.
    public static func system(on loop: EventLoop, timeoutMilliseconds: Int32, readLimits: ReadLimits,
                              then done: @escaping (Result<Connection, DBusError>) -> Void) {
        let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/var/run/dbus/system_bus_socket"
        let (opened, openError) = withLibDBusError { dbus_connection_open_private(address, $0) }
        guard let opened else {
            return done(.failure(.disconnected("Cannot connect to the system bus: \(openError?.message ?? "unknown error").")))
        }
        let connection = Connection(raw: opened)
        connection.readLimits = readLimits
        connection.attach(to: loop)
        let hello: Message
        do {
            hello = try Message.busCall("Hello")
        } catch {
            connection.close()
            return done(.failure(error))
        }
        // What dbus_bus_register does, answered from the loop.
        connection.call(hello, timeoutMilliseconds: timeoutMilliseconds) { result in
            let name = (try? result.get().arguments())?.first?.stringValue
            guard let name, dbus_bus_set_unique_name(opened, name) != 0 else {
                connection.close()
                let why = if case .failure(let error) = result { error.message } else { "it gave no unique name" }
                return done(.failure(.disconnected("Cannot connect to the system bus: \(why)")))
            }
            done(.success(connection))
        }
    }

    /// Connects to the bus at `address` (a private test bus, say) and registers with it.
    public static func bus(address: String) throws(DBusError) -> Connection {
        guard !address.utf8.contains(0) else { throw .invalidArgs("The bus address contains a NUL character.") }
        let (opened, openError) = withLibDBusError { dbus_connection_open_private(address, $0) }
        guard let opened else {
            throw .disconnected("Cannot connect to the bus at \(address): \(openError?.message ?? "unknown error").")
        }
        let connection = Connection(raw: opened)
        let (registered, error) = withLibDBusError { dbus_bus_register(opened, $0) }
        guard registered != 0 else {
            throw .disconnected("Cannot register with the bus at \(address): \(error?.message ?? "unknown error").")
        }
        return connection
    }

    deinit {
        close()
        dbus_connection_remove_filter(raw, filterMessage, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_unref(raw)
    }

    /// Closes the connection; further sends fail.
    public func close() {
        guard !closed else { return }
        closed = true
        dbus_connection_close(raw)
        detachFromLoop()
    }

    /// This connection's unique name on the bus, such as `:1.42`.
    public var uniqueName: String {
        dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
    }

    /// The bus's own id (its GUID, as `org.freedesktop.DBus.GetId` returns it), learnt
    /// while authenticating: no round trip. Unique names are unique only within one bus's
    /// life, so a name is told apart from one of an earlier bus by this.
    public var busID: String {
        guard let id = dbus_connection_get_server_id(raw) else { return "" }
        defer { dbus_free(id) }
        return String(cString: id)
    }

    /// Whether the connection to the bus is still up.
    public var isConnected: Bool { dbus_connection_get_is_connected(raw) != 0 }

    // MARK: - Names

    /// What became of a request for a well-known name.
    public enum NameRequestResult: Sendable, Equatable {
        /// This connection owns the name now.
        case owned
        /// Another connection owns it; we did not queue for it.
        case taken
    }

    /// Asks for `name` without queueing: either we own it now or someone else does.
    public func requestName(_ name: BusName) throws(DBusError) -> NameRequestResult {
        try sendNameRequest(name).result()
    }

    /// Sends the request of ``requestName(_:)`` and returns without its answer, which
    /// ``PendingNameRequest/result()`` reads: the bus's round trip (and, under D-Bus
    /// activation, its delivery of the calls that wait for the name) overlaps whatever the
    /// caller does meanwhile.
    public func sendNameRequest(_ name: BusName) throws(DBusError) -> PendingNameRequest {
        let message = try Message.busCall("RequestName", [.string(name.rawValue), .uint32(UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE))])
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, message.raw, &pending, 25_000) != 0, let pending else {
            throw .disconnected("Not connected to the bus.")
        }
        // Written now: nothing else writes until the caller reads the answer or runs a loop.
        dbus_connection_flush(raw)
        return PendingNameRequest(pending)
    }

    // MARK: - Sending and calling

    /// Queues `message` for sending (written by the loop, or by ``flush()``).
    public func send(_ message: Message) throws(DBusError) {
        guard dbus_connection_send(raw, message.raw, nil) != 0 else {
            throw .failed("Out of memory queueing a message.")
        }
    }

    /// Blocks until everything queued has been written.
    public func flush() {
        dbus_connection_flush(raw)
    }

    /// Calls a method and blocks for the reply; an error reply is thrown.
    public func call(_ message: Message, timeoutMilliseconds: Int32 = 25_000) throws(DBusError) -> Message {
        let (reply, error) = withLibDBusError { error in
            dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, error)
        }
        guard let reply else { throw error ?? .failed("The call failed without an error.") }
        let message = Message(owning: reply)
        message.readLimits = readLimits
        return message
    }

    /// Emits a signal from `path`.
    public func emit(path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [Value]) throws(DBusError) {
        try send(.signal(path: path, interface: interface, member: member, arguments: arguments))
    }

    // MARK: - Synchronous use

    /// Reads, writes and dispatches once, waiting at most `timeoutMilliseconds` (-1: no
    /// limit); false once the connection is closed. For clients without a loop.
    public func readWriteDispatch(timeoutMilliseconds: Int32) -> Bool {
        dbus_connection_read_write_dispatch(raw, timeoutMilliseconds) != 0
    }

    // MARK: - Signals

    /// Calls `handler` for every message matching `rule` until the subscription is
    /// cancelled or dropped. The bus is told at once, without waiting for its answer.
    ///
    /// A rule's sender is checked on every message only for the bus itself and for
    /// unique names (``MatchRule/matches(_:)``): any client can send a signal straight to
    /// this connection. A handler following another well-known name must compare the
    /// message's sender with that name's current unique owner itself.
    public func subscribe(_ rule: MatchRule, handler: @escaping (Message) -> Void) -> Subscription {
        nextToken += 1
        subscriptions[nextToken] = (rule, handler)
        dbus_bus_add_match(raw, rule.text, nil)
        return Subscription(connection: self, token: nextToken)
    }

    fileprivate func unsubscribe(token: Int) {
        guard let entry = subscriptions.removeValue(forKey: token) else { return }
        if isConnected { dbus_bus_remove_match(raw, entry.rule.text, nil) }
    }

    // MARK: - Exported objects

    /// Serves `interfaces` at `path` (with `Introspectable` and `Properties` added) until
    /// the registration is cancelled or dropped.
    public func export(_ interfaces: [Interface], at path: ObjectPath) throws(DBusError) -> Registration {
        guard objects[path] == nil else { throw .failed("An object is already exported at \(path).") }
        nextToken += 1
        objects[path] = (nextToken, interfaces)
        return Registration(connection: self, path: path, token: nextToken)
    }

    fileprivate func unexport(path: ObjectPath, token: Int) {
        if objects[path]?.token == token { objects[path] = nil }
    }
}

// MARK: - Tokens

/// A signal subscription; cancelling or dropping it removes the match rule.
public final class Subscription {
    private weak var connection: Connection?
    private let token: Int

    fileprivate init(connection: Connection, token: Int) {
        self.connection = connection
        self.token = token
    }

    /// Removes the match rule; the handler is not called again.
    public func cancel() {
        connection?.unsubscribe(token: token)
        connection = nil
    }

    deinit { cancel() }
}

/// An exported object; cancelling or dropping it stops serving the path.
public final class Registration {
    private weak var connection: Connection?
    private let path: ObjectPath
    private let token: Int

    fileprivate init(connection: Connection, path: ObjectPath, token: Int) {
        self.connection = connection
        self.path = path
        self.token = token
    }

    /// Stops serving the path.
    public func cancel() {
        connection?.unexport(path: path, token: token)
        connection = nil
    }

    deinit { cancel() }
}

/// A ``Connection/sendNameRequest(_:)`` whose answer is read once, when needed.
public final class PendingNameRequest {
    private let pending: OpaquePointer
    private var answer: Result<Connection.NameRequestResult, DBusError>?

    init(_ pending: OpaquePointer) {
        self.pending = pending
    }

    deinit {
        dbus_pending_call_unref(pending)
    }

    /// The bus's answer, waited for the first time. Blocking reads only this reply: other
    /// messages stay queued, unanswered, for the loop.
    public func result() throws(DBusError) -> Connection.NameRequestResult {
        if answer == nil { answer = read() }
        return try answer!.get()
    }

    private func read() -> Result<Connection.NameRequestResult, DBusError> {
        dbus_pending_call_block(pending)
        guard let raw = dbus_pending_call_steal_reply(pending) else {
            return .failure(DBusError(name: DBusError.noReplyName, message: "The bus did not answer the name request."))
        }
        let reply = Message(owning: raw)
        if reply.kind == .error { return .failure(reply.error ?? .failed("RequestName failed.")) }
        switch (try? reply.arguments())?.first {
        case .uint32(UInt32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)), .uint32(UInt32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER)):
            return .success(.owned)
        case .uint32:
            return .success(.taken)
        default:
            return .failure(.failed("The bus answered the name request with '\(reply.signature)'."))
        }
    }
}

extension Connection {
    /// `$XDG_RUNTIME_DIR/bus` when it is a socket of this user's, as libdbus requires.
    public static func userBusSocket(in runtime: String) -> String? {
        let path = runtime + "/bus"
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid() else { return nil }
        return path
    }

    /// `value` escaped for a D-Bus address: bytes outside `[-0-9A-Za-z_/.\*]` become `%XX`.
    public static func escapedAddressValue(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}
