import Glibc

/// A single-threaded `poll(2)` loop: file-descriptor watches, monotonic timeouts and
/// prepare hooks, and nothing else.
///
/// Nothing wakes the process but a ready descriptor or a timeout somebody asked for: with
/// no timeouts pending the loop sleeps in `poll` with an infinite timeout. Every handler
/// runs on the thread that called ``run()``, so owners need no locks.
public final class EventLoop {
    /// Readiness conditions, as in `poll(2)`.
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: Int16(POLLIN))
        public static let writable = Events(rawValue: Int16(POLLOUT))
        public static let error = Events(rawValue: Int16(POLLERR))
        public static let hangup = Events(rawValue: Int16(POLLHUP))
    }

    private struct Watch {
        var fd: Int32
        var events: Events
        var handler: (Events) -> Void
    }

    private struct Timeout {
        var deadline: UInt64
        var handler: () -> Void
    }

    private var nextID = 0
    private var watches: [Int: Watch] = [:]
    private var timeouts: [Int: Timeout] = [:]
    private var prepareHooks: [Int: () -> Void] = [:]
    private var idlers: [Int: Timeout] = [:]
    private var running = false

    public init() {}

    // MARK: - Registration

    /// Calls `handler` whenever `fd` is ready for any of `events`; errors and hang-ups are
    /// always reported. The watch lasts until the returned source is cancelled or dropped.
    public func watch(fd: Int32, events: Events, handler: @escaping (Events) -> Void) -> Source {
        let id = allocateID()
        watches[id] = Watch(fd: fd, events: events, handler: handler)
        return Source(loop: self, id: id)
    }

    /// Calls `handler` once, `milliseconds` from now on the monotonic clock.
    public func timeout(afterMilliseconds milliseconds: Int, handler: @escaping () -> Void) -> Source {
        let id = allocateID()
        let delay = UInt64(max(0, milliseconds)) * 1_000_000
        timeouts[id] = Timeout(deadline: Self.monotonicNow() &+ delay, handler: handler)
        return Source(loop: self, id: id)
    }

    /// Calls `hook` before every wait, so work queued by a handler (a library's dispatch
    /// queue, say) is drained before the loop sleeps.
    public func prepare(_ hook: @escaping () -> Void) -> Source {
        let id = allocateID()
        prepareHooks[id] = hook
        return Source(loop: self, id: id)
    }

    /// Calls `handler` once, on the first turn that finds nothing to do: no descriptor
    /// ready, no timeout due. Work that no caller waits for can so come after what is
    /// already queued. Should the loop stay busy, it runs `milliseconds` from now anyway.
    public func idle(atLatestAfterMilliseconds milliseconds: Int, handler: @escaping () -> Void) -> Source {
        let id = allocateID()
        let delay = UInt64(max(0, milliseconds)) * 1_000_000
        idlers[id] = Timeout(deadline: Self.monotonicNow() &+ delay, handler: handler)
        return Source(loop: self, id: id)
    }

    /// Changes which events an existing watch waits for; an empty set pauses it.
    public func update(_ source: Source, events: Events) {
        watches[source.id]?.events = events
    }

    fileprivate func remove(id: Int) {
        watches[id] = nil
        timeouts[id] = nil
        prepareHooks[id] = nil
        idlers[id] = nil
    }

    private func allocateID() -> Int {
        nextID += 1
        return nextID
    }

    // MARK: - Running

    /// Runs until ``stop()`` is called from a handler.
    public func run() throws(LoopError) {
        running = true
        while running {
            try runOnce(timeoutMilliseconds: nil)
        }
    }

    /// Stops ``run()`` after the current handler returns.
    public func stop() {
        running = false
    }

    /// Runs prepare hooks, waits once (at most `timeoutMilliseconds`, or until the next
    /// timeout when nil) and runs the handlers of what became ready.
    public func runOnce(timeoutMilliseconds: Int?) throws(LoopError) {
        for id in prepareHooks.keys.sorted() {
            prepareHooks[id]?()
        }
        if !running && timeoutMilliseconds == nil { return }

        var wait = idlers.isEmpty ? nextTimeoutMilliseconds() : 0
        if let limit = timeoutMilliseconds {
            wait = wait < 0 ? limit : min(wait, limit)
        }
        let ids = watches.keys.sorted().filter { !(watches[$0]?.events.isEmpty ?? true) }
        var fds = ids.map { pollfd(fd: watches[$0]!.fd, events: watches[$0]!.events.rawValue, revents: 0) }
        let ready = fds.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), Int32(clamping: wait))
        }
        if ready < 0 {
            let code = errno
            if code == EINTR { return }
            throw LoopError.poll(errno: code)
        }
        let fired = fireExpiredTimeouts()
        runIdlers(all: ready == 0 && !fired)
        guard ready > 0 else { return }
        for (index, id) in ids.enumerated() where fds[index].revents != 0 {
            // A handler may have removed this watch (or closed its descriptor) already.
            guard let watch = watches[id], watch.fd == fds[index].fd else { continue }
            watch.handler(Events(rawValue: fds[index].revents))
        }
    }

    /// Runs the idle handlers, or when the loop was busy only those past their deadline.
    private func runIdlers(all: Bool) {
        guard !idlers.isEmpty else { return }
        let now = Self.monotonicNow()
        let due = idlers.filter { all || $0.value.deadline <= now }.sorted { $0.key < $1.key }
        for (id, idler) in due where idlers[id] != nil {
            idlers[id] = nil
            idler.handler()
        }
    }

    func nextTimeoutMilliseconds() -> Int {
        guard let earliest = timeouts.values.map(\.deadline).min() else { return -1 }
        let now = Self.monotonicNow()
        if earliest <= now { return 0 }
        // Round up: waking a millisecond early would only spin once more.
        return Int((earliest - now + 999_999) / 1_000_000)
    }

    /// Runs the timeouts that are due; returns whether there were any.
    private func fireExpiredTimeouts() -> Bool {
        let now = Self.monotonicNow()
        let due = timeouts.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
        for (id, timeout) in due where timeouts[id] != nil {
            timeouts[id] = nil
            timeout.handler()
        }
        return !due.isEmpty
    }

    /// Nanoseconds on the monotonic clock, the clock of every loop timeout.
    public static func monotonicNow() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// A registration with an ``EventLoop``: cancelling or dropping it undoes the registration.
public final class Source {
    private weak var loop: EventLoop?
    let id: Int

    init(loop: EventLoop, id: Int) {
        self.loop = loop
        self.id = id
    }

    /// Undoes the registration; safe to call more than once.
    public func cancel() {
        loop?.remove(id: id)
        loop = nil
    }

    deinit {
        loop?.remove(id: id)
    }
}

/// Why the loop could not go on.
public enum LoopError: Error, CustomStringConvertible {
    case poll(errno: Int32)
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .poll(let code): "poll failed: \(String(cString: strerror(code)))"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
