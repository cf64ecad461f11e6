import Glibc

/// `lateness`: how long after its due time each scheduled notification reaches the bus.
///
/// The Notify call is seen by a bus monitor the moment the bus routes it to the
/// notification server, so the figure is the daemon's own: timer wake-up, store update
/// and the call, without the server's time to draw it.
struct LatenessCommand {
    static let titlePrefix = "bench-due-"

    let load: ScheduleLoad
    let spread: Int
    let grace: Int
    /// A program that sends the Notify calls in chimed's place, for the floor.
    let peer: String?

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--count", "--spread", "--window", "--grace", "--peer"])
        load = try ScheduleLoad(options)
        spread = try options.positiveInt("--spread")
        grace = try options.positiveInt("--grace", default: 5)
        peer = options.optional("--peer")
    }

    func run() throws {
        let count = load.count
        // Watching starts first, so no Notify can be missed.
        let monitor = try NotifyMonitor()
        // Two seconds of head room: every call is answered before the first is due.
        let first = Clock.realtime().seconds + 2
        let dueTimes = (0..<count).map { first + $0 * spread / count }
        var expected: [Int: Int] = [:]
        for due in dueTimes { expected[due, default: 0] += 1 }

        var peerPID: pid_t?
        if let peer {
            peerPID = try Self.start(peer, input: expected.keys.sorted().map { "\($0) \(expected[$0]!)\n" }.joined())
        } else {
            let pipeline = try SchedulePipeline()
            try pipeline.run(load) { index in
                (when: Clock.iso8601UTC(dueTimes[index]), title: Self.titlePrefix + String(dueTimes[index]), body: "")
            }
        }
        defer {
            if let peerPID {
                var status: Int32 = 0
                waitpid(peerPID, &status, 0)
            }
        }
        let scheduledBy = Clock.realtime()
        guard scheduledBy.seconds < first else {
            throw BenchError("scheduling \(count) took past the first due time; lower --count")
        }

        let deadline = Clock.monotonic() + Double(dueTimes.last! - scheduledBy.seconds + grace)
        var lateness: [Double] = []
        var unexpected = 0
        while lateness.count < count, !monitor.disconnected {
            let left = deadline - Clock.monotonic()
            guard left > 0 else { break }
            for notify in monitor.read(waitingMilliseconds: Int32(left * 1000) + 1) {
                guard notify.summary.hasPrefix(Self.titlePrefix),
                      let due = Int(notify.summary.dropFirst(Self.titlePrefix.count)),
                      let remaining = expected[due], remaining > 0 else {
                    unexpected += 1
                    continue
                }
                expected[due] = remaining - 1
                let late = Double(notify.seconds - due) * 1000 + Double(notify.nanoseconds) / 1e6
                lateness.append(late)
            }
        }
        if monitor.disconnected { throw BenchError("the monitor's bus connection closed") }
        guard lateness.count == count else {
            throw BenchError("only \(lateness.count) of \(count) notifications were sent by \(grace) s after the last was due"
                             + (unexpected > 0 ? " (\(unexpected) other Notify calls seen)" : ""))
        }
        let stats = Percentiles(lateness)
        print("lateness of \(count) over \(spread) s: p50 \(fixed(stats.value(0.5), 3)) ms, "
              + "p99 \(fixed(stats.value(0.99), 3)) ms, max \(fixed(stats.max, 3)) ms")
    }

    /// Starts `command` through /bin/sh with `input` on its standard input (closed after
    /// it, so the program sees its end), without waiting for it.
    private static func start(_ command: String, input: String) throws -> pid_t {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw BenchError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments = words.map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, arguments + [nil], environ)
        close(pipeEnds[0])
        defer { close(pipeEnds[1]) }
        guard spawned == 0 else { throw BenchError("cannot start \(command)") }
        let bytes = Array(input.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(pipeEnds[1], $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { throw BenchError("cannot write to \(command)") }
            written += count
        }
        return pid
    }
}
