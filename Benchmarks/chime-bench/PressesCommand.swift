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
    static let serverName = try! BusName("org.freedesktop.Notifications")
    static let serverPath = try! ObjectPath("/org/freedesktop/Notifications")
    static let serverInterface = try! InterfaceName("org.freedesktop.Notifications")

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
        var nextServerID: UInt32 = 0
        var notified: [String: UInt32] = [:]   // summary (the Chime id we put in the title) → server id
        let registration = try connection.export([Interface(Self.serverInterface, methods: [
            Method(try MemberName("Notify"), inputs: [
                Argument("app_name", "s"), Argument("replaces_id", "u"), Argument("app_icon", "s"), Argument("summary", "s"),
                Argument("body", "s"), Argument("actions", "as"), Argument("hints", "a{sv}"), Argument("expire_timeout", "i"),
            ], outputs: [Argument("id", "u")]) { call in
                nextServerID += 1
                notified[call.arguments[3].stringValue ?? ""] = nextServerID
                return [.uint32(nextServerID)]
            },
            Method(try MemberName("GetCapabilities"), outputs: [Argument("capabilities", "as")]) { _ in [.stringArray(["actions", "body"])] },
            Method(try MemberName("CloseNotification"), inputs: [Argument("id", "u")]) { _ in [] },
            Method(try MemberName("GetServerInformation"), outputs: [
                Argument("name", "s"), Argument("vendor", "s"), Argument("version", "s"), Argument("spec_version", "s"),
            ]) { _ in [.string("chime-bench"), .string("chime"), .string("1"), .string("1.2")] },
        ])], at: Self.serverPath)
        guard try connection.requestName(Self.serverName) == .owned else {
            throw BenchError("org.freedesktop.Notifications is taken; stop the other server first")
        }

        var echoes: Set<String> = []
        let echo = connection.subscribe(Scheduler1.actionInvoked.matchRule) { message in
            if let id = (try? message.arguments())?.first?.stringValue { echoes.insert(id) }
        }
        // Runs the loop until `done` holds. The check is a prepare hook registered after the
        // connection's, so it sees what was just dispatched before the loop would sleep.
        func wait(_ what: String, until done: @escaping () -> Bool) throws {
            var timedOut = false
            let check = loop.prepare { if done() { loop.stop() } }
            let limit = loop.timeout(afterMilliseconds: 30_000) {
                timedOut = true
                loop.stop()
            }
            try loop.run()
            withExtendedLifetime((check, limit)) {}
            if timedOut { throw BenchError("timed out waiting for \(what)") }
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
            try wait("PresentNow \(index)") { chimeID != nil && notified[title] != nil }
            guard let id = chimeID, !id.isEmpty, let serverID = notified[title] else { throw BenchError("PresentNow \(index) failed") }

            let start = Clock.monotonic()
            pressedAt[id] = Clock.realtime()
            try connection.emit(path: Self.serverPath, interface: Self.serverInterface, member: try MemberName("ActionInvoked"),
                                arguments: [.uint32(serverID), .string(action)])
            try wait("the daemon's ActionInvoked for \(id)") { echoes.contains(id) }
            if output == nil {
                var answered = false
                connection.call(try Message.methodCall(destination: ChimeBus.name, path: ChimeBus.path,
                                                       interface: try InterfaceName("org.freedesktop.DBus.Peer"),
                                                       member: try MemberName("Ping"))) { _ in answered = true }
                try wait("Ping after \(id)") { answered }
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
        withExtendedLifetime((registration, echo)) {}
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
