import CDBus
import EventLoop
import Foundation
import Testing
import TestSupport
@testable import DBus

/// A signal sent straight to a connection (with a destination) reaches it whatever its
/// match rules say; the rule's sender is checked again on arrival.
@Suite(.timeLimit(.minutes(10)))
struct MatchRuleTests {
    static let bus = BusName(rawValue: "org.freedesktop.DBus")!
    static let busPath = ObjectPath(rawValue: "/org/freedesktop/DBus")!
    static let busInterface = InterfaceName(rawValue: "org.freedesktop.DBus")!

    func run(_ loop: EventLoop, until done: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: 30)
        while !done() {
            guard Date() < deadline else { throw TestFailure.timeout("loop condition") }
            try loop.runOnce(timeoutMilliseconds: 1_000)
        }
    }

    /// Sends a signal to `destination` alone, as any client may.
    func sendDirectly(from sender: Connection, to destination: String, path: ObjectPath, interface: InterfaceName,
                      member: String, _ arguments: [Value]) throws {
        let message = try Message.signal(path: path, interface: interface, member: try MemberName(member), arguments: arguments)
        #expect(dbus_message_set_destination(message.raw, destination) != 0)
        try sender.send(message)
        sender.flush()
        // Once the bus answers this, it has passed on the signal sent before.
        _ = try sender.call(try Message.methodCall(destination: Self.bus, path: Self.busPath, interface: Self.busInterface,
                                                   member: try MemberName("GetId")))
    }

    @Test func aForgedNameOwnerChangedIsNotTakenForTheBus() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let listener = try Connection.bus(address: session.address)
        listener.attach(to: loop)
        let forger = try Connection.bus(address: session.address)
        let owner = try Connection.bus(address: session.address)

        var newOwners: [String] = []
        let subscription = listener.subscribe(MatchRule(sender: Self.bus, interface: Self.busInterface,
                                                        member: try MemberName("NameOwnerChanged"), arg0: "t.Watched")) { message in
            newOwners.append((try? message.arguments())?.last?.stringValue ?? "?")
        }
        // The bus applies AddMatch in order with the listener's later messages.
        _ = try listener.call(try Message.methodCall(destination: Self.bus, path: Self.busPath, interface: Self.busInterface,
                                                     member: try MemberName("GetId")))

        try sendDirectly(from: forger, to: listener.uniqueName, path: Self.busPath, interface: Self.busInterface,
                         member: "NameOwnerChanged", [.string("t.Watched"), .string(""), .string(forger.uniqueName)])
        #expect(try owner.requestName(try BusName("t.Watched")) == .owned)
        try run(loop) { !newOwners.isEmpty }
        // The bus's own signal came after the forged one: only it was delivered.
        #expect(newOwners == [owner.uniqueName])
        withExtendedLifetime(subscription) {}
    }

    @Test func aRuleNamingAUniqueNameTakesOnlyThatSender() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let listener = try Connection.bus(address: session.address)
        listener.attach(to: loop)
        let emitter = try Connection.bus(address: session.address)
        let forger = try Connection.bus(address: session.address)
        let path = try ObjectPath("/t/Object"), interface = try InterfaceName("t.Echo")

        var seen: [String] = []
        let subscription = listener.subscribe(MatchRule(sender: try BusName(emitter.uniqueName), path: path, interface: interface,
                                                        member: try MemberName("Happened"))) { message in
            seen.append((try? message.arguments())?.first?.stringValue ?? "?")
        }
        _ = try listener.call(try Message.methodCall(destination: Self.bus, path: Self.busPath, interface: Self.busInterface,
                                                     member: try MemberName("GetId")))
        try sendDirectly(from: forger, to: listener.uniqueName, path: path, interface: interface, member: "Happened", [.string("forged")])
        try emitter.emit(path: path, interface: interface, member: try MemberName("Happened"), arguments: [.string("real")])
        emitter.flush()
        try run(loop) { !seen.isEmpty }
        #expect(seen == ["real"])
        withExtendedLifetime(subscription) {}
    }

    @Test func theRuleTextNamesTheBus() throws {
        let rule = MatchRule(sender: Self.bus, interface: Self.busInterface, member: try MemberName("NameOwnerChanged"), arg0: "a'b")
        #expect(rule.text == "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='a'\\''b'")
    }
}
