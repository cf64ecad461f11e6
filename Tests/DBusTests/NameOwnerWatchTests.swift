import EventLoop
import Testing
import TestSupport
@testable import DBus

/// ``NameOwnerWatch``: the owner a name had before, then each change, on the bus's word
/// alone (a forged `NameOwnerChanged` is the suite's other business).
extension MatchRuleTests {
    @Test func aNameOwnerWatchFindsTheOwnerBeforeItThenFollowsEachChange() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let watcher = try Connection.bus(address: session.address)
        watcher.attach(to: loop)
        let name = try BusName("t.Watched")
        let first = try Connection.bus(address: session.address)
        #expect(try first.requestName(name) == .owned)

        var events: [String] = []
        let watch = NameOwnerWatch(name, on: watcher, changed: { events.append($0 ?? "left") }, absent: { events.append("absent") })
        try run(loop) { !events.isEmpty }
        #expect(events == [first.uniqueName])
        #expect(watch.owner == first.uniqueName)

        first.close()
        try run(loop) { events.count == 2 }
        let second = try Connection.bus(address: session.address)
        #expect(try second.requestName(name) == .owned)
        try run(loop) { events.count == 3 }
        #expect(events == [first.uniqueName, "left", second.uniqueName])
        #expect(watch.owner == second.uniqueName)
    }

    @Test func aNameNobodyOwnsIsAbsentOnceAndAnotherNamesOwnerIsNotItsOwn() throws {
        let session = try TestSession(capabilities: nil)
        let loop = EventLoop()
        let watcher = try Connection.bus(address: session.address)
        watcher.attach(to: loop)
        var events: [String] = []
        let watchA = NameOwnerWatch(try BusName("t.A"), on: watcher, changed: { events.append("A " + ($0 ?? "left")) },
                                    absent: { events.append("A absent") })
        let watchB = NameOwnerWatch(try BusName("t.B"), on: watcher, changed: { events.append("B " + ($0 ?? "left")) },
                                    absent: { events.append("B absent") })
        try run(loop) { events.count == 2 }
        #expect(Set(events) == ["A absent", "B absent"])

        // One connection follows both names: a change of t.B is not one of t.A.
        let owner = try Connection.bus(address: session.address)
        #expect(try owner.requestName(try BusName("t.B")) == .owned)
        try run(loop) { events.count == 3 }
        #expect(events.last == "B " + owner.uniqueName)
        #expect(watchA.owner == nil && watchB.owner == owner.uniqueName)
    }
}
