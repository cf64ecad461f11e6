import EventLoop
import Foundation
import Testing
import TestSupport
@testable import DBus

/// The wrapper against a real dbus-daemon started for each test.
///
/// The limit only catches a hang: it runs from when the test is queued, and on two busy
/// cores hundreds of tests queue behind the slow ones (two minutes was exceeded there by
/// tests that take a third of a second).
@Suite(.timeLimit(.minutes(10)))
struct ConnectionTests {
    static let path = try! ObjectPath("/t/Object")
    static let interface = try! InterfaceName("t.Echo")

    /// A loop driving every connection given, until `done` holds or 30 s pass.
    func run(_ loop: EventLoop, until done: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: 30)
        while !done() {
            guard Date() < deadline else { throw TestFailure.timeout("loop condition") }
            try loop.runOnce(timeoutMilliseconds: 1_000)
        }
    }

    func echoInterface() -> Interface {
        Interface(
            Self.interface,
            methods: [
                Method(try! MemberName("Echo"), inputs: [Argument("text", "s")], outputs: [Argument("text", "s")]) { call in
                    [call.arguments[0]]
                },
                Method(try! MemberName("Fail"), outputs: [Argument("never", "s")]) { _ throws(DBusError) in
                    throw DBusError(name: "t.Error.Nope", message: "No, and here is why.")
                },
            ],
            signals: [SignalDescription(try! MemberName("Happened"), arguments: [Argument("what", "s")])],
            properties: [Property("Answer", "i") { .int32(42) }]
        )
    }

    func call(_ member: String, _ args: [Value] = [], interface: String = "t.Echo", to name: String) throws -> Message {
        try Message.methodCall(destination: try BusName(name), path: Self.path, interface: try InterfaceName(interface),
                               member: try MemberName(member), arguments: args)
    }

    @Test func exportedMethodsAnswerAsyncCallsWithRepliesAndErrors() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let server = try Connection.bus(address: session.address)
        let client = try Connection.bus(address: session.address)
        server.attach(to: loop)
        client.attach(to: loop)
        let registration = try server.export([echoInterface()], at: Self.path)

        var results: [Result<Message, DBusError>] = []
        client.call(try call("Echo", [.string("hi")], to: server.uniqueName)) { results.append($0) }
        client.call(try call("Fail", to: server.uniqueName)) { results.append($0) }
        client.call(try call("Echo", [.int32(1)], to: server.uniqueName)) { results.append($0) }
        client.call(try call("Nope", to: server.uniqueName)) { results.append($0) }
        client.call(try call("Get", [.string("t.Echo"), .string("Answer")], interface: "org.freedesktop.DBus.Properties",
                             to: server.uniqueName)) { results.append($0) }
        try run(loop) { results.count == 5 }

        #expect(try results[0].get().arguments() == [.string("hi")])
        #expect(throws: DBusError(name: "t.Error.Nope", message: "No, and here is why.")) { try results[1].get() }
        #expect(throws: DBusError.invalidArgs("Echo takes arguments of type (s), not (i).")) { try results[2].get() }
        #expect((try? results[3].get()) == nil)
        if case .failure(let error) = results[3] { #expect(error.name == DBusError.unknownMethodName) }
        #expect(try results[4].get().arguments() == [.variant(.int32(42))])

        // After cancelling, the path is no longer served.
        registration.cancel()
        var after: Result<Message, DBusError>?
        client.call(try call("Echo", [.string("hi")], to: server.uniqueName)) { after = $0 }
        try run(loop) { after != nil }
        #expect((try? after?.get()) == nil)
    }

    @Test func introspectionComesFromTheTable() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let server = try Connection.bus(address: session.address)
        server.attach(to: loop)
        let client = try Connection.bus(address: session.address)
        client.attach(to: loop)
        let registration = try server.export([echoInterface()], at: Self.path)
        var xml: String?
        client.call(try call("Introspect", interface: "org.freedesktop.DBus.Introspectable", to: server.uniqueName)) {
            xml = (try? $0.get().arguments().first?.stringValue) ?? "failed"
        }
        try run(loop) { xml != nil }
        #expect(xml?.contains(echoInterface().introspectionXML) == true)
        withExtendedLifetime(registration) {}
    }

    @Test func asyncCallTimesOutThroughTheLoop() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let client = try Connection.bus(address: session.address)
        client.attach(to: loop)
        // Connected, but never reads: it can never answer.
        let silent = try Connection.bus(address: session.address)
        var result: Result<Message, DBusError>?
        client.call(try call("Echo", [.string("x")], to: silent.uniqueName), timeoutMilliseconds: 200) { result = $0 }
        try run(loop) { result != nil }
        if case .failure(let error) = result { #expect(error.name == DBusError.noReplyName) } else { Issue.record("expected a timeout") }
    }

    @Test func subscriptionsDeliverUntilCancelled() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let listener = try Connection.bus(address: session.address)
        listener.attach(to: loop)
        let emitter = try Connection.bus(address: session.address)

        var seen: [String] = []
        let happened = listener.subscribe(MatchRule(interface: Self.interface, member: try MemberName("Happened"))) { message in
            seen.append((try? message.arguments().first?.stringValue) ?? "?")
        }
        let fence = listener.subscribe(MatchRule(interface: Self.interface, member: try MemberName("Fence"))) { _ in
            seen.append("fence")
        }
        // The bus applies AddMatch in order with our later messages: a round trip makes sure it has.
        _ = try listener.call(try Message.methodCall(destination: try BusName("org.freedesktop.DBus"), path: try ObjectPath("/org/freedesktop/DBus"),
                                                     interface: try InterfaceName("org.freedesktop.DBus"), member: try MemberName("GetId")))
        try emitter.emit(path: Self.path, interface: Self.interface, member: try MemberName("Happened"), arguments: [.string("one")])
        emitter.flush()
        try run(loop) { seen == ["one"] }

        happened.cancel()
        _ = try listener.call(try Message.methodCall(destination: try BusName("org.freedesktop.DBus"), path: try ObjectPath("/org/freedesktop/DBus"),
                                                     interface: try InterfaceName("org.freedesktop.DBus"), member: try MemberName("GetId")))
        try emitter.emit(path: Self.path, interface: Self.interface, member: try MemberName("Happened"), arguments: [.string("two")])
        try emitter.emit(path: Self.path, interface: Self.interface, member: try MemberName("Fence"), arguments: [])
        emitter.flush()
        // Signals from one sender arrive in order: the fence proves "two" was not delivered.
        try run(loop) { seen.last == "fence" }
        #expect(seen == ["one", "fence"])
        withExtendedLifetime(fence) {}
    }

    @Test func secondOwnerOfANameIsToldItIsTaken() throws {
        let session = try TestSession(capabilities: nil)
        let first = try Connection.bus(address: session.address)
        let second = try Connection.bus(address: session.address)
        let name = try BusName("t.Owned")
        #expect(try first.requestName(name) == .owned)
        #expect(try second.requestName(name) == .taken)
        #expect(try first.requestName(name) == .owned)
    }

    @Test func blockingCallThrowsTheRemoteError() throws {
        let session = try TestSession(capabilities: nil)
        let client = try Connection.bus(address: session.address)
        let error = #expect(throws: DBusError.self) {
            _ = try client.call(try call("Echo", [.string("x")], to: "t.NobodyHere"))
        }
        #expect(error?.name == DBusError.serviceUnknownName)
    }

    @Test func lostBusIsReportedNotFatal() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let connection = try Connection.bus(address: session.address)
        connection.attach(to: loop)
        var disconnected = false
        connection.onDisconnect = { disconnected = true }
        session.stopBus()
        try run(loop) { disconnected }
        #expect(!connection.isConnected)
    }

    /// The bus dies with bytes of ours unread, so the socket is reset, and the reset is
    /// found by a send made after the connection's dispatch in the same turn of the loop
    /// (as chimed's group commit answers calls): libdbus then closes the socket and
    /// queues Disconnected with no descriptor left to wake the loop. It must still be
    /// reported before the loop sleeps.
    @Test func aResetFoundBySendingAfterDispatchIsReportedWithoutAnotherTurn() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let connection = try Connection.bus(address: session.address)
        connection.attach(to: loop)
        var disconnected = false
        connection.onDisconnect = { disconnected = true }
        let busPID = try #require(pid_t(try session.pid(of: "org.freedesktop.DBus").split(separator: " ").last?.prefix { $0.isNumber } ?? ""))
        let happened = try MemberName("Happened")

        kill(busPID, SIGSTOP)
        try connection.emit(path: Self.path, interface: Self.interface, member: happened, arguments: [.string("unread")])
        var killNow = true
        let hook = loop.prepare {
            guard killNow else { return }
            killNow = false
            session.stopBus()
            try? connection.emit(path: Self.path, interface: Self.interface, member: happened, arguments: [.string("lost")])
        }
        // One turn: the hook kills the bus and sends; what follows must not be a 20 s
        // wait with nothing left to wake it.
        try loop.runOnce(timeoutMilliseconds: 20_000)
        #expect(disconnected)
        #expect(!connection.isConnected)
        withExtendedLifetime(hook) {}
    }

    @Test func unreachableAddressIsAnError() {
        #expect(throws: DBusError.self) { _ = try Connection.bus(address: "unix:path=/nonexistent/chime-test") }
        #expect(throws: DBusError.self) { _ = try Connection.bus(address: "unix:path=/tmp/a\0b") }
    }
}
