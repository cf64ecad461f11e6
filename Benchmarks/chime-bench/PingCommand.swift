import DBus
import EventLoop

/// `ping`: how long chimed takes to answer a Ping while requests at every documented
/// limit are on their way to it, beside its Ping with nothing else to do.
///
/// One connection sends `--count` maximal `Schedule` calls at once; a second pings
/// chimed until they are all answered. A Ping queued behind a maximal request waits
/// for it: the figure is the stall a request at the limits can cause everyone else.
struct PingCommand {
    let count: Int
    let idleRounds = 50

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--count"])
        count = try options.positiveInt("--count", default: 20)
    }

    /// A Schedule at every limit of the README's table: a 1 KiB title, a 16 KiB body,
    /// 10 buttons, 32 hints of 256 bytes and 64 userInfo entries of 2 KiB.
    static var maximal: Value {
        .variantDictionary([
            ("title", .string(String(repeating: "t", count: 1024))), ("body", .string(String(repeating: "b", count: 16 * 1024))),
            ("when", .string("in 1d")),
            ("actions", .array(element: "(ss)", (0..<10).map { .structure([.string("k\($0)"), .string("Button \($0)")]) })),
            ("hints", .variantDictionary((0..<32).map { ("x-\($0)", .string(String(repeating: "h", count: 256))) })),
            ("userInfo", .variantDictionary((0..<64).map { ("key\($0)", .string(String(repeating: "u", count: 2048))) })),
        ])
    }

    func run() throws {
        let pinger = try Connection.session()
        let ping = try Message.methodCall(destination: SchedulePipeline.busName, path: SchedulePipeline.path,
                                          interface: try InterfaceName("org.freedesktop.DBus.Peer"), member: try MemberName("Ping"))
        func timedPing() throws -> Double {
            let start = Clock.monotonic()
            _ = try pinger.call(ping, timeoutMilliseconds: 60_000)
            return (Clock.monotonic() - start) * 1000
        }
        let idle = try (0..<idleRounds).map { _ in try timedPing() }

        let loader = try Connection.session()
        let loop = EventLoop()
        loader.attach(to: loop)
        var answered = 0
        var failure: BenchError?
        let schedule = try MemberName("Schedule")
        for index in 0..<count {
            let call = try Message.methodCall(destination: SchedulePipeline.busName, path: SchedulePipeline.path,
                                              interface: SchedulePipeline.interface, member: schedule, arguments: [Self.maximal])
            loader.call(call, timeoutMilliseconds: 120_000) { result in
                answered += 1
                if case .failure(let error) = result, failure == nil {
                    failure = BenchError("maximal request \(index) failed: \(error.name): \(error.message)")
                }
            }
        }
        loader.flush()
        var loaded: [Double] = []
        while answered < count {
            loaded.append(try timedPing())
            try loop.runOnce(timeoutMilliseconds: 0)
        }
        if let failure { throw failure }
        let quiet = Percentiles(idle), busy = Percentiles(loaded)
        print("ping idle median \(fixed(quiet.value(0.5), 2)) ms; behind \(count) maximal requests median "
            + "\(fixed(busy.value(0.5), 2)) ms, max \(fixed(busy.value(1), 2)) ms over \(loaded.count) pings")
    }
}
