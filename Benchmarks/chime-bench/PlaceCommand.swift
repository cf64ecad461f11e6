import ChimeAPI
import DBus
import EventLoop
import Glibc

/// A location source that chime-bench plays on the private system bus, for `place`.
protocol PlaceSource: AnyObject {
    /// The `Schedule` entry that makes chimed follow this source: `region` or `network`.
    var trigger: (String, Value) { get }
    /// Whether chimed has read where the user is before the first crossing (outside).
    var ready: Bool { get }
    /// Whether chimed has let the source go since its place was cancelled.
    var released: Bool { get }
    /// Sends one change that takes the user inside the place or out of it.
    func cross(inside: Bool) throws(DBusError)
}

/// `place`: how long from a location source's change to the `Notify` it fires.
///
/// chime-bench plays the source itself on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, which
/// must be a private one): GeoClue2 (``GeoClueFake``) or NetworkManager
/// (``NetworkManagerFake``). It schedules one place notification that fires at every
/// crossing, both ways, lets chimed learn the user is outside, then crosses N times, one
/// at a time: each figure runs from just before the change is sent (`LocationUpdated`, or
/// `PropertiesChanged` of `ActiveConnections`) to the moment a bus monitor reads the
/// `Notify` on the session bus, so the notification server's own time is not in it.
/// Everything it scheduled is cancelled at the end.
final class PlaceCommand {
    enum Via: String {
        case geoclue, networkmanager
    }

    let via: Via
    let crossings: Int

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--via", "--crossings"])
        let name = try options.string("--via")
        guard let via = Via(rawValue: name) else { throw UsageError(message: "--via must be geoclue or networkmanager, not '\(name)'") }
        self.via = via
        crossings = try options.positiveInt("--crossings", default: 100)
    }

    func run() throws {
        // Claiming GeoClue's or NetworkManager's name is for a private bus only.
        guard let address = getenv("DBUS_SYSTEM_BUS_ADDRESS"), address.pointee != 0 else {
            throw BenchError("DBUS_SYSTEM_BUS_ADDRESS is not set: run it under scripts/bench.sh, which starts a private system bus")
        }
        let loop = EventLoop()
        let system = try Connection.system()
        system.attach(to: loop)
        let session = try Connection.session()
        session.attach(to: loop)
        let title = "bench-place-\(via.rawValue)-\(getpid())"
        let monitor = try NotifyMonitor()
        guard let fd = monitor.fileDescriptor else { throw BenchError("the monitor's connection has no socket") }
        var notified: [NotifyMonitor.Seen] = []
        let watch = loop.watch(fd: fd, events: .readable) { _ in
            notified += monitor.read(waitingMilliseconds: 0).filter { $0.summary == title }
            if monitor.disconnected { loop.stop() }
        }
        let source: PlaceSource = switch via {
        case .geoclue: try GeoClueFake(system)
        case .networkmanager: try NetworkManagerFake(system)
        }

        let id = try call(session, loop, "Schedule", try Scheduler1.schedule.call([.variantDictionary([
            (NotificationKey.title.rawValue, .string(title)), source.trigger, (NotificationKey.regionTriggersOnce.rawValue, .bool(false)),
        ])]))
        guard let id = id.first?.stringValue else { throw BenchError("Schedule answered no id") }
        try loop.run(until: "chimed to follow \(via.rawValue)", monitor) { source.ready }

        var latencies: [Double] = []
        for index in 0..<crossings {
            guard notified.count == index else { throw BenchError("\(notified.count) Notify calls for \(index) crossings") }
            let sent = Clock.realtime()
            try source.cross(inside: index % 2 == 0)
            system.flush()
            try loop.run(until: "the Notify of crossing \(index + 1)", monitor) { notified.count > index }
            let seen = notified[index]
            latencies.append(Double(seen.seconds - sent.seconds) * 1000 + Double(seen.nanoseconds - sent.nanoseconds) / 1e6)
        }
        _ = try call(session, loop, "Cancel", try Scheduler1.cancel.call([.string(id)]))
        try loop.run(until: "chimed to let \(via.rawValue) go", monitor) { source.released }
        guard notified.count == crossings else { throw BenchError("\(notified.count) Notify calls for \(crossings) crossings") }
        let p = Percentiles(latencies)
        print("\(crossings) crossings through \(via.rawValue): median \(fixed(p.value(0.5), 3)) ms, p99 \(fixed(p.value(0.99), 3)) ms")
        withExtendedLifetime((watch, source)) {}
    }

    /// Calls chimed through the loop (the fake on the system bus must keep answering
    /// meanwhile) and returns the reply's arguments.
    private func call(_ session: Connection, _ loop: EventLoop, _ what: String, _ message: Message) throws -> [Value] {
        var result: Result<Message, DBusError>?
        session.call(message) { result = $0 }
        try loop.run(until: "the reply to \(what)", nil) { result != nil }
        switch result! {
        case .success(let reply): return try reply.arguments()
        case .failure(let error): throw BenchError("\(what) failed: \(error.name): \(error.message)")
        }
    }
}

extension EventLoop {
    /// Runs the loop until `done` holds, for at most 30 s (the machine is shared and slow).
    /// The check is a prepare hook registered after the connections', so it sees what was
    /// just dispatched before the loop would sleep.
    func run(until what: String, _ monitor: NotifyMonitor?, _ done: @escaping () -> Bool) throws {
        guard !done() else { return }
        var timedOut = false
        let check = prepare { [unowned self] in if done() { self.stop() } }
        let limit = timeout(afterMilliseconds: 30_000) { [unowned self] in
            timedOut = true
            self.stop()
        }
        try run()
        withExtendedLifetime((check, limit)) {}
        if monitor?.disconnected == true { throw BenchError("the monitor's bus connection closed") }
        if timedOut { throw BenchError("timed out after 30 s waiting for \(what)") }
    }
}
