import ChimeAPI
import DBus
import EventLoop
import Glibc

/// `presses`: how long from a button press (the server's ActionInvoked) to its effect.
///
/// chime-bench plays the notification server here, so that it knows the instant each
/// press is sent. For each of N notifications of category `bench` it presses `--action`:
/// - a command (`Exec=`), whose first act is to append `CHIME_ID` and its start time to
///   `--output`: the effect is the command starting;
/// - a snooze: the daemon stages the copy while handling the press and commits it before
///   it reads anything else, so a Ping sent once the daemon's own ActionInvoked signal
///   arrives is answered after the commit; that answer bounds the effect from above.
final class PressesCommand {
    let count: Int
    let action: String
    let output: String?

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--count", "--action", "--output"])
        count = try options.positiveInt("--count")
        action = try options.string("--action")
        output = options.optional("--output")
    }

    func run() throws {
        let loop = EventLoop()
        let connection = try Connection.session()
        connection.attach(to: loop)
        let server = try BenchServer(connection: connection)

        var echoes: Set<String> = []
        let echo = connection.subscribe(Scheduler1.actionInvoked.matchRule) { message in
            if let id = (try? message.arguments())?.first?.stringValue { echoes.insert(id) }
        }
        var pressedAt: [String: (seconds: Int, nanoseconds: Int)] = [:]
        var effects: [Double] = []
        for index in 0..<count {
            // The title carries the index; the Notify handler maps it to the server id.
            let title = "press-\(getpid())-\(index)"
            var chimeID: String?
            connection.call(try Scheduler1.presentNow.call(
                [.variantDictionary([(NotificationKey.title.rawValue, .string(title)), (NotificationKey.category.rawValue, .string("bench"))])]
            )) { result in chimeID = (try? result.get().arguments())?.first?.stringValue ?? "" }
            try loop.wait("PresentNow \(index)") { chimeID != nil && server.notified[title] != nil }
            guard let id = chimeID, !id.isEmpty, let serverID = server.notified[title] else { throw BenchError("PresentNow \(index) failed") }

            let start = Clock.monotonic()
            pressedAt[id] = Clock.realtime()
            try connection.emit(path: BenchServer.path, interface: BenchServer.interface, member: try MemberName("ActionInvoked"),
                                arguments: [.uint32(serverID), .string(action)])
            try loop.wait("the daemon's ActionInvoked for \(id)") { echoes.contains(id) }
            if output == nil {
                var answered = false
                connection.call(try Message.methodCall(destination: ChimeBus.name, path: ChimeBus.path,
                                                       interface: try InterfaceName("org.freedesktop.DBus.Peer"),
                                                       member: try MemberName("Ping"))) { _ in answered = true }
                try loop.wait("Ping after \(id)") { answered }
                effects.append((Clock.monotonic() - start) * 1000)
            }
        }

        if let output {
            // Each command appends "ID SECONDS.NANOSECONDS"; wait until all have started.
            let deadline = Clock.monotonic() + 60
            var lines: [Substring] = []
            while Clock.monotonic() < deadline {
                lines = (readFile(output) ?? "").split(separator: "\n")
                if lines.count >= count { break }
                try loop.runOnce(timeoutMilliseconds: 100)
            }
            for line in lines {
                let parts = line.split(separator: " ")
                guard parts.count == 2, let pressed = pressedAt[String(parts[0])], let started = Double(parts[1]) else { continue }
                effects.append((started - Double(pressed.seconds) - Double(pressed.nanoseconds) / 1e9) * 1000)
            }
            guard effects.count == count else { throw BenchError("\(effects.count) of \(count) commands started") }
        }
        let p = Percentiles(effects)
        print("\(count) presses of \(action): median \(fixed(p.value(0.5), 3)) ms, p99 \(fixed(p.value(0.99), 3)) ms")
        withExtendedLifetime((server, echo)) {}
    }

    private func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
