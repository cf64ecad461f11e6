import ChimeAPI
import DBus
import EventLoop

/// `ping`: how long chimed takes to answer a Ping while it handles a request at every
/// documented limit, beside its Ping with nothing else to do.
///
/// Each round, one connection sends a maximal `Schedule` and a second pings chimed at
/// once; the Ping arrives behind the request and waits for it. The figure is the stall
/// a request at the limits can cause everyone else.
struct PingCommand {
    let rounds: Int
    let idleRounds = 50

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--rounds"])
        rounds = try options.positiveInt("--rounds", default: 20)
    }

    /// A Schedule at every limit of the table in docs/dbus.md: a 1 KiB title, a 16 KiB body,
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
        let loader = try Connection.session()
        let ping = try Message.methodCall(destination: ChimeBus.name, path: ChimeBus.path,
                                          interface: try InterfaceName("org.freedesktop.DBus.Peer"), member: try MemberName("Ping"))
        func timedPing() throws -> Double {
            let start = Clock.monotonic()
            _ = try pinger.call(ping, timeoutMilliseconds: 60_000)
            return (Clock.monotonic() - start) * 1000
        }
        let idle = try (0..<idleRounds).map { _ in try timedPing() }
        var busy: [Double] = []
        for round in 0..<rounds {
            let call = try Scheduler1.schedule.call([Self.maximal])
            var answer: Result<Message, DBusError>?
            loader.call(call, timeoutMilliseconds: 120_000) { answer = $0 }
            loader.flush()
            busy.append(try timedPing())
            while answer == nil {
                guard loader.readWriteDispatch(timeoutMilliseconds: 60_000) else { throw BenchError("the bus closed") }
            }
            if case .failure(let error)? = answer {
                throw BenchError("maximal request \(round) failed: \(error.name): \(error.message)")
            }
        }
        let quiet = Percentiles(idle), loaded = Percentiles(busy)
        print("ping idle median \(fixed(quiet.value(0.5), 2)) ms; during a maximal request median "
            + "\(fixed(loaded.value(0.5), 2)) ms, max \(fixed(loaded.value(1), 2)) ms over \(rounds) rounds")
    }
}
