import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// Files that could stall or swamp chimed: a config or a sound that is a FIFO or huge.
@Suite(.timeLimit(.minutes(10)))
struct HostileFileTests {
    @Test func aFIFOAsConfigIsRefusedAndChimedStillAnswers() throws {
        let session = try TestSession()
        // Reading a FIFO blocks until a writer comes; none ever does here.
        #expect(mkfifo(session.configFile.path, 0o600) == 0)
        #expect(try session.pingDaemon(timeout: 30))
        try session.waitForDaemonLog(
            containing: "\(session.configFile.path): The config is a FIFO, not a regular file, so it was not read. Using the built-in categories only.")
        #expect(try session.run(["chime", "notify", "-c", "reminder", "Still here"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete', 'remind', 'Remind in 30 minutes']>"), "\(call)")
    }

    @Test func anOversizedConfigIsRefusedAndTheLastGoodOneKept() throws {
        let session = try TestSession()
        let good = """
            [Category todo]
            Actions=complete;
            """
        try good.write(to: session.configFile, atomically: true, encoding: .utf8)
        #expect(try session.pingDaemon())
        let comment = "# " + String(repeating: "x", count: 1_000) + "\n"
        try (good + "\n" + String(repeating: comment, count: 300)).write(to: session.configFile, atomically: true, encoding: .utf8)
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForDaemonLog(containing: "more than the 262144 (256 KiB) Chime reads, so it was not read. Keeping the last good config.")
        #expect(try session.run(["chime", "notify", "-c", "todo", "Still works"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete']>"), "\(call)")
    }

    @Test func aFIFOAsSoundFileIsRefusedAndChimedStillAnswers() throws {
        // Without the sound capability chimed plays the sound itself, through libcanberra.
        let session = try TestSession(capabilities: "body actions")
        let fifo = session.directory.appendingPathComponent("ding.oga")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let sent = try session.callScheduler("PresentNow", "{'title': <'Ding'>, 'sound': <'\(fifo.path)'>}")
        #expect(sent.status == 0, "\(sent)")
        let id = try #require(sent.stdout.split(separator: "'").dropFirst().first.map(String.init))
        try session.waitForDaemonLog(containing: "The sound file \(fifo.path) of \(id) is a FIFO, not a regular file, so it was not read; no sound.")
        #expect(try session.pingDaemon(timeout: 30))
        _ = try session.waitForNotifyCalls(1)
    }
}

/// Requests that are malformed or huge, from real clients on the bus.
@Suite(.timeLimit(.minutes(10)))
struct HostileRequestTests {
    static let chime = BusName(rawValue: "io.github.chime.Chime")!
    static let path = ObjectPath(rawValue: "/io/github/chime/Chime")!

    static func schedule(_ fields: [(String, Value)]) throws -> Message {
        try Message.methodCall(destination: chime, path: path, interface: try InterfaceName("io.github.chime.Scheduler1"),
                               member: try MemberName("Schedule"), arguments: [.variantDictionary(fields)])
    }

    static func ping() throws -> Message {
        try Message.methodCall(destination: chime, path: path, interface: try InterfaceName("org.freedesktop.DBus.Peer"),
                               member: try MemberName("Ping"))
    }

    /// A call to the bus itself: when its answer is back, the bus has passed on everything
    /// this connection sent before it.
    static func fence(_ connection: Connection) throws {
        _ = try connection.call(try Message.methodCall(
            destination: try BusName("org.freedesktop.DBus"), path: try ObjectPath("/org/freedesktop/DBus"),
            interface: try InterfaceName("org.freedesktop.DBus"), member: try MemberName("GetId")))
    }

    /// Reads and dispatches on `connections` until `done` holds or 60 s pass.
    static func dispatch(_ connections: [Connection], until done: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: 60)
        while !done() {
            guard Date() < deadline else { throw TestFailure.timeout("replies from chimed") }
            for connection in connections { _ = connection.readWriteDispatch(timeoutMilliseconds: 50) }
        }
    }

    /// One client's NaN and another client's good Schedule reach chimed together, so they
    /// are handled in one batch and committed in one transaction: the NaN is refused on
    /// its own, and the other client's reminder is stored.
    @Test func aNaNFromOneClientNeverFailsAnotherClientsSchedule() throws {
        let session = try TestSession()
        #expect(try session.pingDaemon())
        let pid = try session.daemonPID()
        let good = try Connection.bus(address: session.address)
        let bad = try Connection.bus(address: session.address)
        var goodResult: Result<Message, DBusError>?
        var badResult: Result<Message, DBusError>?
        // Stopped, chimed reads nothing: both calls wait in its socket and are read at once.
        kill(pid, SIGSTOP)
        bad.call(try Self.schedule([("title", .string("Bad")), ("when", .string("in 1h")),
                                    ("userInfo", .variantDictionary([("ratio", .double(.nan))]))])) { badResult = $0 }
        good.call(try Self.schedule([("title", .string("Good")), ("when", .string("in 1h"))])) { goodResult = $0 }
        try Self.fence(bad)
        try Self.fence(good)
        kill(pid, SIGCONT)
        try Self.dispatch([good, bad]) { goodResult != nil && badResult != nil }

        guard case .failure(let error) = badResult else { Issue.record("the NaN was accepted: \(String(describing: badResult))"); return }
        #expect(error.name == DBusError.invalidArgsName)
        #expect(error.message == "userInfo.ratio: is nan; a number must be finite.")
        let id = try #require(try goodResult?.get().arguments().first?.stringValue, "\(String(describing: goodResult))")
        let listed = try session.run(["chime", "list", "--json"])
        #expect(listed.stdout.contains("\"id\": \"\(id)\""), "\(listed)")
        #expect(!listed.stdout.contains("Bad"))
    }

    /// Seconds for a Ping sent right behind `request` on the same connection: chimed
    /// answers it only once it has dealt with the request. Returns the request's result.
    static func pingBehind(_ request: Message, session: TestSession) throws -> (Result<Message, DBusError>?, TimeInterval) {
        let client = try Connection.bus(address: session.address)
        var result: Result<Message, DBusError>?
        let start = Date()
        client.call(request) { result = $0 }
        _ = try client.call(try Self.ping(), timeoutMilliseconds: 30_000)
        let elapsed = Date().timeIntervalSince(start)
        try Self.dispatch([client]) { result != nil }
        return (result, elapsed)
    }

    /// 100,000 hints and 100,000 userInfo entries once froze chimed for seconds and were
    /// accepted. Now reading stops at the message-size limit, and a Ping behind the
    /// request is answered at once (the bound here is far above the goal, 100 ms, and
    /// far below the old freeze: `make bench` measures the real figure).
    @Test func aHugeRequestIsRefusedWhileReadingAndPingStaysPrompt() throws {
        let session = try TestSession()
        #expect(try session.pingDaemon())
        let many = (0..<100_000).map { ("x-\($0)", Value.int32(Int32($0))) }
        let (result, elapsed) = try Self.pingBehind(try Self.schedule([
            ("title", .string("Huge")), ("when", .string("in 1h")),
            ("hints", .variantDictionary(many)), ("userInfo", .variantDictionary(many)),
        ]), session: session)
        guard case .failure(let error) = result else { Issue.record("accepted: \(String(describing: result))"); return }
        #expect(error.name == DBusError.invalidArgsName)
        #expect(error.message == "The message is larger than 262144 bytes, the most this service reads from one message.")
        #expect(elapsed < 2, "Ping took \(elapsed) s behind the huge request")
        #expect(try session.pingDaemon())
    }

    /// A request at every count limit is accepted, and a Ping behind it is prompt too.
    @Test func aMaximalRequestIsAcceptedAndPingStaysPrompt() throws {
        let session = try TestSession()
        #expect(try session.pingDaemon())
        let (result, elapsed) = try Self.pingBehind(try Self.schedule([
            ("title", .string(String(repeating: "t", count: 1024))), ("body", .string(String(repeating: "b", count: 16 * 1024))),
            ("when", .string("in 1h")), ("repeat", .string("minute")),
            ("actions", .array(element: "(ss)", (0..<10).map { .structure([.string("k\($0)"), .string("Button \($0)")]) })),
            ("hints", .variantDictionary((0..<32).map { ("x-\($0)", .string(String(repeating: "h", count: 256))) })),
            ("userInfo", .variantDictionary((0..<64).map { ("key\($0)", .string(String(repeating: "u", count: 2048))) })),
        ]), session: session)
        let id = try #require(try result?.get().arguments().first?.stringValue, "\(String(describing: result))")
        #expect(elapsed < 2, "Ping took \(elapsed) s behind the maximal request")
        #expect(try session.run(["chime", "show", id]).status == 0)
    }

    @Test(arguments: [
        ("hints", "hints: has more than 32 hints, the most one notification may have."),
        ("userInfo", "userInfo: has more than 64 entries, the most one notification may have."),
    ])
    func oneOverACountLimitIsInvalidArgsNamingIt(key: String, sentence: String) throws {
        let session = try TestSession()
        let count = key == "hints" ? 33 : 65
        let sent = try session.callScheduler(
            "Schedule", "{'title': <'T'>, 'when': <'in 1h'>, '\(key)': <{\((0..<count).map { "'k\($0)': <1>" }.joined(separator: ", "))}>}")
        #expect(sent.status != 0)
        #expect(sent.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: \(sentence)"), "\(sent)")
    }
}

/// Signals sent straight to a connection reach it whatever its match rules say: any
/// client can send one, pretending to be the bus or chimed.
@Suite(.timeLimit(.minutes(10)))
struct ForgedSignalTests {
    /// A NameOwnerChanged saying the notification server left, sent by a client straight
    /// to chimed: taken for the bus's, it stopped all delivery.
    @Test func aForgedNameOwnerChangedDoesNotStopDelivery() throws {
        let session = try TestSession()
        #expect(try session.pingDaemon())
        let chimed = try session.owner(of: "io.github.chime.Chime")
        let server = try session.owner(of: "org.freedesktop.Notifications")
        let forged = try session.run([
            "dbus-send", "--session", "--type=signal", "--dest=\(chimed)", "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameOwnerChanged", "string:org.freedesktop.Notifications", "string:\(server)", "string:",
        ])
        #expect(forged.status == 0, "\(forged)")
        _ = try session.add("After the forgery", "--in", "1s")
        let calls = try session.waitForNotifyCalls(1, timeout: 30)
        #expect(calls[0].contains("<'After the forgery'>"), "\(calls)")
        #expect(!session.daemonLog.contains("The notification server left the bus."))
    }

    /// An ActionInvoked forged by another client, sent straight to a waiting `chime notify
    /// --wait`, is not taken for chimed's: the real press that follows is.
    @Test func aForgedActionInvokedDoesNotEndNotifyWait() throws {
        let session = try TestSession()
        let waiting = try session.spawn(["chime", "notify", "--wait", "-p", "-A", "done=Done", "T", "B"])
        #expect(waiting.stdout.wait(timeout: 60) { $0.contains("\n") })
        let id = waiting.stdout.text.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        let chime = try session.uniqueName(ofProcess: waiting.process.processIdentifier)
        for member in ["ActionInvoked", "Closed"] {
            let arguments = member == "Closed" ? ["uint32:2"] : ["string:forged"]
            let forged = try session.run([
                "dbus-send", "--session", "--type=signal", "--dest=\(chime)", "/io/github/chime/Chime",
                "io.github.chime.Scheduler1.\(member)", "string:\(id)",
            ] + arguments)
            #expect(forged.status == 0, "\(forged)")
        }
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'done'>]")
        let result = try waiting.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.split(separator: "\n").map(String.init) == [id, "done"], "\(result.stdout)")
    }
}

/// A title is anybody's text: human output must not let it drive the terminal.
@Suite(.timeLimit(.minutes(10)))
struct TerminalEscapeTests {
    /// Clears the screen, retitles the window and turns the text red.
    static let title = "\u{1B}[2J\u{1B}]0;owned\u{07}\u{1B}[31mRed"
    static let shownTitle = "\\x1b[2J\\x1b]0;owned\\x07\\x1b[31mRed"

    @Test func listShowAndLogEscapeControlCharactersAndJSONStaysExact() throws {
        let session = try TestSession()
        let id = try session.add(Self.title, "first line\nsecond \u{1B}[0mline", "--in", "1h")

        let list = try session.run(["chime", "list"])
        #expect(list.status == 0, "\(list)")
        #expect(!list.stdout.contains("\u{1B}"), "\(list.stdout)")
        #expect(list.stdout.contains(Self.shownTitle), "\(list.stdout)")

        let show = try session.run(["chime", "show", id])
        #expect(!show.stdout.contains("\u{1B}"), "\(show.stdout)")
        #expect(show.stdout.contains("title:" ), "\(show.stdout)")
        #expect(show.stdout.contains(Self.shownTitle), "\(show.stdout)")
        // The body keeps its lines, the second under the first.
        let lines = show.stdout.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("body:") }, "\(show.stdout)")
        let column = try #require(lines[first].range(of: "first line")).lowerBound.utf16Offset(in: lines[first])
        #expect(lines[first + 1] == String(repeating: " ", count: column) + "second \\x1b[0mline", "\(show.stdout)")

        let listJSON = try session.run(["chime", "list", "--json"])
        #expect(listJSON.stdout.contains(#""title": "\u001b[2J\u001b]0;owned\u0007\u001b[31mRed""#), "\(listJSON.stdout)")

        #expect(try session.run(["chime", "cancel", id]).status == 0)
        let log = try session.run(["chime", "log"])
        #expect(!log.stdout.contains("\u{1B}"), "\(log.stdout)")
        #expect(log.stdout.contains(Self.shownTitle), "\(log.stdout)")
        let logJSON = try session.run(["chime", "log", "--json"])
        #expect(logJSON.stdout.contains(#""\u001b[2J\u001b]0;owned\u0007\u001b[31mRed""#), "\(logJSON.stdout)")
    }

    @Test func anErrorQuotingTheCallersTextStaysOneEscapedLine() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "notify", "-u", "normal", "-h", "int:x:\u{1B}[2J\nNext line", "T"])
        #expect(result.status == 64, "\(result)")
        #expect(!result.stderr.contains("\u{1B}"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
}
