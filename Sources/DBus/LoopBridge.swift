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
/// Each source travels on its watch or timeout (`dbus_watch_set_data`,
/// `dbus_timeout_set_data`), which libdbus releases when it drops the watch or timeout:
/// no table keyed by libdbus's pointers, whose first use cost chimed's start two generic
/// types and a conformance search of the whole binary.
///
/// libdbus calls these with its connection lock held: they touch only the loop,
/// never the connection.
final class LoopBridge {
    let loop: EventLoop
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
        let source = loop.watch(fd: dbus_watch_get_unix_fd(watch), events: events(of: watch)) { ready in
            var flags: UInt32 = 0
            if ready.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
            if ready.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if ready.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
            if ready.contains(.hangup) { flags |= DBUS_WATCH_HANGUP.rawValue }
            dbus_watch_handle(watch, flags)
        }
        dbus_watch_set_data(watch, Unmanaged.passRetained(source).toOpaque(), releaseCarried)
    }

    func remove(watch: OpaquePointer) {
        Self.carried(Source.self, dbus_watch_get_data(watch))?.cancel()
        dbus_watch_set_data(watch, nil, nil)
    }

    func toggle(watch: OpaquePointer) {
        if let source = Self.carried(Source.self, dbus_watch_get_data(watch)) { loop.update(source, events: events(of: watch)) }
    }

    /// What a timeout carries: its source while armed, and whether libdbus removed it
    /// (after which the timeout may be freed, and must not be touched).
    final class Timer {
        var source: Source?
        var removed = false
    }

    func add(timeout: OpaquePointer) {
        let timer = Timer()
        dbus_timeout_set_data(timeout, Unmanaged.passRetained(timer).toOpaque(), releaseCarried)
        arm(timeout, timer)
    }

    func remove(timeout: OpaquePointer) {
        guard let timer = Self.carried(Timer.self, dbus_timeout_get_data(timeout)) else { return }
        timer.removed = true
        timer.source?.cancel()
        timer.source = nil
        dbus_timeout_set_data(timeout, nil, nil)
    }

    func toggle(timeout: OpaquePointer) {
        guard let timer = Self.carried(Timer.self, dbus_timeout_get_data(timeout)) else { return }
        timer.source?.cancel()
        timer.source = nil
        arm(timeout, timer)
    }

    private func arm(_ timeout: OpaquePointer, _ timer: Timer) {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = Int(dbus_timeout_get_interval(timeout))
        timer.source = loop.timeout(afterMilliseconds: interval) { [weak self, weak timer] in
            guard let self, let timer, !timer.removed else { return }
            timer.source = nil
            dbus_timeout_handle(timeout)
            // libdbus timeouts repeat until removed or disabled.
            if !timer.removed && timer.source == nil { self.arm(timeout, timer) }
        }
    }

    /// The object a watch or timeout carries, nil when it carries none.
    private static func carried<T: AnyObject>(_ type: T.Type, _ data: UnsafeMutableRawPointer?) -> T? {
        data.map { Unmanaged<T>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// Lets go of what `dbus_watch_set_data` or `dbus_timeout_set_data` was given.
private let releaseCarried: DBusFreeFunction = { data in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
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
