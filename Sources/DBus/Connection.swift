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
    private var loopBridge: LoopBridge?
    private var nextToken = 0
    private var subscriptions: [Int: (rule: MatchRule, handler: (Message) -> Void)] = [:]
    private var objects: [ObjectPath: (token: Int, interfaces: [Interface])] = [:]
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

    /// Connects to the session bus named by the environment.
    public static func session() throws(DBusError) -> Connection {
        let (raw, error) = withLibDBusError { dbus_bus_get_private(DBUS_BUS_SESSION, $0) }
        guard let raw else {
            // libdbus's own text for this case is about X11 autolaunch, which says nothing
            // to someone whose session simply has no bus.
            if getenv("DBUS_SESSION_BUS_ADDRESS") == nil {
                throw .disconnected(
                    "No session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus; "
                        + "run this inside a desktop session (or a user manager with dbus-user-session)."
                )
            }
            throw .disconnected("Cannot connect to the session bus: \(error?.message ?? "unknown error").")
        }
        return Connection(raw: raw)
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
        if loopBridge != nil {
            dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
            dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
            dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
            loopBridge = nil
        }
    }

    /// This connection's unique name on the bus, such as `:1.42`.
    public var uniqueName: String {
        dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
    }

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
        let (result, error) = withLibDBusError { error in
            dbus_bus_request_name(raw, name.rawValue, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), error)
        }
        if let error { throw error }
        switch result {
        case Int32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER), Int32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER): return .owned
        default: return .taken
        }
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

    /// Calls a method and returns at once; `reply` runs from the loop when the answer
    /// (or an error, or the timeout) arrives. Needs an attached loop for the timeout.
    public func call(
        _ message: Message, timeoutMilliseconds: Int32 = 25_000,
        reply: @escaping (Result<Message, DBusError>) -> Void
    ) {
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, message.raw, &pending, timeoutMilliseconds) != 0, let pending else {
            reply(.failure(.disconnected("Not connected to the bus.")))
            return
        }
        let box = Unmanaged.passRetained(ReplyBox(reply, readLimits: readLimits)).toOpaque()
        dbus_pending_call_set_notify(pending, pendingCallCompleted, box, releaseReplyBox)
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

    // MARK: - Loop integration

    /// Lets `loop` drive this connection: libdbus's watches and timeouts become loop
    /// sources, and queued messages are dispatched before the loop sleeps.
    ///
    /// Messages can also be queued after that dispatch, by a call into libdbus from a
    /// handler or a later prepare hook: sending finds a reset socket there, closes it and
    /// queues `Disconnected`, and no descriptor is left to wake the loop (chimed then
    /// slept forever with its bus gone, in 2 of 150 rounds). libdbus reports every such
    /// change of its dispatch status, which wakes the loop at once.
    public func attach(to loop: EventLoop) {
        let bridge = LoopBridge(loop: loop)
        loopBridge = bridge
        bridge.dispatch = { [unowned self] in self.dispatchQueued() }
        let data = Unmanaged.passUnretained(bridge).toOpaque()
        dbus_connection_set_watch_functions(raw, addWatch, removeWatch, toggleWatch, data, nil)
        dbus_connection_set_timeout_functions(raw, addTimeout, removeTimeout, toggleTimeout, data, nil)
        dbus_connection_set_dispatch_status_function(raw, dispatchStatusChanged, data, nil)
        bridge.prepareSource = loop.prepare { [unowned self] in self.dispatchQueued() }
    }

    private func dispatchQueued() {
        while dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS {
            dbus_connection_dispatch(raw)
        }
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

    // MARK: - Incoming

    fileprivate func handle(_ message: Message) -> Bool {
        switch message.kind {
        case .signal:
            if message.interface == "org.freedesktop.DBus.Local" && message.member == "Disconnected" {
                onDisconnect?()
                return true
            }
            for token in subscriptions.keys.sorted() {
                // A handler may cancel other subscriptions (or its own) as it runs.
                guard let entry = subscriptions[token], entry.rule.matches(message) else { continue }
                entry.handler(message)
            }
            return false
        case .methodCall:
            return dispatchMethodCall(message)
        default:
            return false
        }
    }

    private func dispatchMethodCall(_ message: Message) -> Bool {
        guard let pathString = message.path, let path = ObjectPath(rawValue: pathString) else { return false }
        let result: Result<[Value], DBusError>
        if let object = objects[path] {
            let dispatcher = ObjectDispatcher(interfaces: object.interfaces, children: childNodes(of: path), connection: self)
            guard let answer = dispatcher.dispatch(message) else { return true }
            result = answer
        } else {
            let children = childNodes(of: path)
            guard !children.isEmpty, message.interface ?? Introspection.interfaceName == Introspection.interfaceName,
                  message.member == "Introspect" else { return false }
            result = .success([.string(Introspection.document(interfaces: [], children: children))])
        }
        guard !message.noReplyExpected else { return true }
        let reply: Message?
        switch result {
        case .success(let values):
            do { reply = try message.makeReply(values) } catch { reply = message.makeErrorReply(error) }
        case .failure(let error):
            reply = message.makeErrorReply(error)
        }
        if let reply { try? send(reply) }
        return true
    }

    /// The names of the nodes directly below `path` that lead to exported objects.
    private func childNodes(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        let names = objects.keys.compactMap { other -> String? in
            guard other.rawValue.hasPrefix(prefix), other != path else { return nil }
            return other.rawValue.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
        }
        return Array(Set(names)).sorted()
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

    public func cancel() {
        connection?.unexport(path: path, token: token)
        connection = nil
    }

    deinit { cancel() }
}

// MARK: - libdbus callbacks
//
// These are C function pointers: no captures; the owner travels as user data.

private let filterMessage: DBusHandleMessageFunction = { _, rawMessage, data in
    guard let rawMessage, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let connection = Unmanaged<Connection>.fromOpaque(data).takeUnretainedValue()
    let message = Message(owning: dbus_message_ref(rawMessage))
    message.readLimits = connection.readLimits
    return connection.handle(message) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}

private final class ReplyBox {
    let handler: (Result<Message, DBusError>) -> Void
    let readLimits: ReadLimits
    init(_ handler: @escaping (Result<Message, DBusError>) -> Void, readLimits: ReadLimits) {
        self.handler = handler
        self.readLimits = readLimits
    }
}

private let pendingCallCompleted: DBusPendingCallNotifyFunction = { pending, data in
    guard let pending, let data else { return }
    let box = Unmanaged<ReplyBox>.fromOpaque(data).takeUnretainedValue()
    let result: Result<Message, DBusError>
    if let raw = dbus_pending_call_steal_reply(pending) {
        let reply = Message(owning: raw)
        reply.readLimits = box.readLimits
        result = reply.kind == .error ? .failure(reply.error ?? .failed("Error reply.")) : .success(reply)
    } else {
        result = .failure(DBusError(name: DBusError.noReplyName, message: "No reply arrived."))
    }
    box.handler(result)
    // Drops send_with_reply's reference; libdbus then frees the box through releaseReplyBox.
    dbus_pending_call_unref(pending)
}

private let releaseReplyBox: DBusFreeFunction = { data in
    guard let data else { return }
    Unmanaged<ReplyBox>.fromOpaque(data).release()
}

/// Keeps the loop sources that stand for libdbus's watches and timeouts.
///
/// libdbus calls these with its connection lock held: they touch only the loop,
/// never the connection.
private final class LoopBridge {
    let loop: EventLoop
    var watches: [OpaquePointer: Source] = [:]
    var timeouts: [OpaquePointer: Source] = [:]
    var knownTimeouts: Set<OpaquePointer> = []
    var prepareSource: Source?
    /// Dispatches what libdbus has queued; set by the connection.
    var dispatch: () -> Void = {}
    private var dispatchSoon: Source?

    init(loop: EventLoop) { self.loop = loop }

    /// Dispatches from the loop as soon as it is back in control: libdbus forbids
    /// dispatching from inside its own call.
    func scheduleDispatch() {
        guard dispatchSoon == nil else { return }
        dispatchSoon = loop.timeout(afterMilliseconds: 0) { [weak self] in
            guard let self else { return }
            self.dispatchSoon = nil
            self.dispatch()
        }
    }

    func events(of watch: OpaquePointer) -> EventLoop.Events {
        guard dbus_watch_get_enabled(watch) != 0 else { return [] }
        let flags = dbus_watch_get_flags(watch)
        var events: EventLoop.Events = []
        if flags & DBUS_WATCH_READABLE.rawValue != 0 { events.insert(.readable) }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events.insert(.writable) }
        return events
    }

    func add(watch: OpaquePointer) {
        watches[watch] = loop.watch(fd: dbus_watch_get_unix_fd(watch), events: events(of: watch)) { ready in
            var flags: UInt32 = 0
            if ready.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
            if ready.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if ready.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
            if ready.contains(.hangup) { flags |= DBUS_WATCH_HANGUP.rawValue }
            dbus_watch_handle(watch, flags)
        }
    }

    func remove(watch: OpaquePointer) {
        watches.removeValue(forKey: watch)?.cancel()
    }

    func toggle(watch: OpaquePointer) {
        if let source = watches[watch] { loop.update(source, events: events(of: watch)) }
    }

    func add(timeout: OpaquePointer) {
        knownTimeouts.insert(timeout)
        arm(timeout)
    }

    func remove(timeout: OpaquePointer) {
        knownTimeouts.remove(timeout)
        timeouts.removeValue(forKey: timeout)?.cancel()
    }

    func toggle(timeout: OpaquePointer) {
        timeouts.removeValue(forKey: timeout)?.cancel()
        arm(timeout)
    }

    private func arm(_ timeout: OpaquePointer) {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = Int(dbus_timeout_get_interval(timeout))
        timeouts[timeout] = loop.timeout(afterMilliseconds: interval) { [weak self] in
            guard let self else { return }
            self.timeouts[timeout] = nil
            dbus_timeout_handle(timeout)
            // libdbus timeouts repeat until removed or disabled.
            if self.knownTimeouts.contains(timeout) && self.timeouts[timeout] == nil { self.arm(timeout) }
        }
    }
}

private func bridge(_ data: UnsafeMutableRawPointer?) -> LoopBridge? {
    data.map { Unmanaged<LoopBridge>.fromOpaque($0).takeUnretainedValue() }
}

private let addWatch: DBusAddWatchFunction = { watch, data in
    guard let watch, let bridge = bridge(data) else { return 0 }
    bridge.add(watch: watch)
    return 1
}

private let removeWatch: DBusRemoveWatchFunction = { watch, data in
    guard let watch, let bridge = bridge(data) else { return }
    bridge.remove(watch: watch)
}

private let toggleWatch: DBusWatchToggledFunction = { watch, data in
    guard let watch, let bridge = bridge(data) else { return }
    bridge.toggle(watch: watch)
}

private let addTimeout: DBusAddTimeoutFunction = { timeout, data in
    guard let timeout, let bridge = bridge(data) else { return 0 }
    bridge.add(timeout: timeout)
    return 1
}

private let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in
    guard let timeout, let bridge = bridge(data) else { return }
    bridge.remove(timeout: timeout)
}

private let dispatchStatusChanged: DBusDispatchStatusFunction = { _, status, data in
    guard status == DBUS_DISPATCH_DATA_REMAINS, let bridge = bridge(data) else { return }
    bridge.scheduleDispatch()
}

private let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in
    guard let timeout, let bridge = bridge(data) else { return }
    bridge.toggle(timeout: timeout)
}
