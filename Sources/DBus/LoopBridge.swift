import CDBus
import EventLoop

// The loop bridge: libdbus's watches and timeouts as sources of the one poll loop.

extension Connection {
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

    /// Takes libdbus's watches and timeouts back from the loop, on close.
    func detachFromLoop() {
        guard loopBridge != nil else { return }
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        loopBridge = nil
    }
}

/// Keeps the loop sources that stand for libdbus's watches and timeouts.
///
/// libdbus calls these with its connection lock held: they touch only the loop,
/// never the connection.
final class LoopBridge {
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

// MARK: - libdbus callbacks
//
// C function pointers: no captures; the bridge travels as user data.

/// Runs `body` with the bridge in `data` and the watch or timeout libdbus passed; false
/// (libdbus's "no memory") when either is missing.
private func withBridge(
    _ object: OpaquePointer?, _ data: UnsafeMutableRawPointer?, _ body: (LoopBridge, OpaquePointer) -> Void
) -> dbus_bool_t {
    guard let object, let data else { return 0 }
    body(Unmanaged<LoopBridge>.fromOpaque(data).takeUnretainedValue(), object)
    return 1
}

private let addWatch: DBusAddWatchFunction = { withBridge($0, $1) { $0.add(watch: $1) } }
private let removeWatch: DBusRemoveWatchFunction = { _ = withBridge($0, $1) { $0.remove(watch: $1) } }
private let toggleWatch: DBusWatchToggledFunction = { _ = withBridge($0, $1) { $0.toggle(watch: $1) } }
private let addTimeout: DBusAddTimeoutFunction = { withBridge($0, $1) { $0.add(timeout: $1) } }
private let removeTimeout: DBusRemoveTimeoutFunction = { _ = withBridge($0, $1) { $0.remove(timeout: $1) } }
private let toggleTimeout: DBusTimeoutToggledFunction = { _ = withBridge($0, $1) { $0.toggle(timeout: $1) } }

private let dispatchStatusChanged: DBusDispatchStatusFunction = { _, status, data in
    guard status == DBUS_DISPATCH_DATA_REMAINS, let data else { return }
    Unmanaged<LoopBridge>.fromOpaque(data).takeUnretainedValue().scheduleDispatch()
}
