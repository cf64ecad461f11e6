import ChimeAPI
import ChimeCore
import DBus
import Foundation
import Testing
@testable import ChimeDaemon

/// The method table in-process: a call decoded, the core asked, the answer encoded, on the
/// parts ``Daemon/assemble(_:)`` builds (``DaemonHarness``). The integration tests make
/// the same calls to the real chimed with gdbus.
struct MethodTableTests {
    static func tea(_ extra: [(String, Value)] = []) -> Value {
        .variantDictionary([("title", .string("Tea")), ("when", .string("in 1h"))] + extra)
    }

    @Test func theTableAnswersEveryMethodOfTheContractWithItsTypes() throws {
        let harness = try DaemonHarness()
        let table = harness.parts.methods.interface
        #expect(table.name == Scheduler1.name)
        #expect(table.methods.map(\.name) == Scheduler1.methods.map(\.name))
        for (method, declared) in zip(table.methods, Scheduler1.methods) {
            #expect(method.inputs == declared.inputs, "\(method.name)")
            #expect(method.outputs == declared.outputs, "\(method.name)")
        }
    }

    @Test func aScheduledNotificationIsStoredArmedDescribedAndFires() throws {
        let harness = try DaemonHarness()
        let due = harness.time.now.addingTimeInterval(3600)
        let id = try #require(try harness.values("Schedule", [Self.tea()]).first?.stringValue)

        // Stored, and its due time in the timer's heap: the alarm is armed for it.
        #expect(try harness.store.notification(id: id)?.nextFire == due)
        #expect(harness.time.alarm.armedAt == due)
        let described = DaemonHarness.entries(try #require(try harness.values("Get", [.string(id)]).first))
        #expect(described["title"]?.stringValue == "Tea")
        #expect(described["state"]?.stringValue == "scheduled")
        #expect(described["nextFire"]?.integerValue == Int64(due.timeIntervalSince1970))
        let listed = try #require(try harness.values("List").first?.arrayElements)
        #expect(listed.map { DaemonHarness.entries($0)["id"]?.stringValue } == [id])

        try harness.advance(3600)
        #expect(harness.server.titles == ["Tea"])
        harness.connection.flush()
        let fired = harness.bus.waitForSignals(1).filter { $0.member == "Fired" }
        #expect(fired.map { $0.arguments.first?.stringValue } == [id])
    }

    /// A daily repeat whose item starts `leadTime` after `when` fires that far ahead of each
    /// of the item's occurrences, in its zone: 01:55 EST on 14 March 2027 for a 03:10 New York
    /// item, where 02:55 does not exist. An Update of the lead alone keeps `when` and moves
    /// the item: an hour ahead of 03:55 is 01:55 EST that day too, and 02:55 EDT after it.
    @Test func aRepeatAheadOfItsItemFiresAheadOfEachOccurrenceAndAnUpdatedLeadMovesTheItem() throws {
        let harness = try DaemonHarness()
        let when = "2027-03-12T02:55:00[America/New_York]"
        let request = Value.variantDictionary([("title", .string("Night shift")), ("when", .string(when)), ("repeat", .string("day")),
                                               ("leadTime", .double(900))])
        let id = try #require(try harness.values("Schedule", [request]).first?.stringValue)
        func occurrences() throws -> [Int64] {
            try harness.values("Occurrences", [.string(id), .uint32(4)]).first?.arrayElements?.compactMap(\.integerValue) ?? []
        }
        // 07:55 UTC (02:55 EST), then 06:55 UTC: 01:55 EST on the 14th, 02:55 EDT on the 15th.
        #expect(try occurrences() == [1_804_838_100, 1_804_924_500, 1_805_007_300, 1_805_093_700])
        _ = try harness.values("Update", [.string(id), .variantDictionary([("leadTime", .double(3_600))])])
        let described = DaemonHarness.entries(try #require(try harness.values("Get", [.string(id)]).first))
        #expect(described["when"] == .string(when) && described["leadTime"] == .double(3_600))
        #expect(try occurrences() == [1_804_838_100, 1_804_924_500, 1_805_007_300, 1_805_093_700])
        #expect(try harness.store.notification(id: id)?.rule.trigger == .zoned(LocalDateTime(year: 2027, month: 3, day: 12, hour: 3, minute: 55),
                                                                               zone: "America/New_York"))
    }

    @Test(arguments: [
        (tea([("category", .string("remnider"))]), "category: 'remnider' is neither built in nor in the config", "did you mean 'reminder'?"),
        (Value.variantDictionary([("when", .string("in 1h"))]), "title", "must not be empty"),
        (tea([("repeat", .string("fortnight"))]), "repeat", "fortnight"),
        (Value.variantDictionary([("title", .string("Tea")), ("when", .string("yesterday 9:00"))]), "when: 'yesterday 9:00'", "not understood"),
        (Value.variantDictionary([("title", .string("Tea")), ("when", .string("2020-01-01 9:00"))]), "when: 2020-01-01 9:00 is 7 years ago", "set late to true"),
    ])
    func badInputIsRefusedByItsKeyAndNothingIsStored(request: Value, key: String, words: String) throws {
        let harness = try DaemonHarness()
        let kept = try #require(try harness.values("Schedule", [Self.tea()]).first?.stringValue)

        let error = try harness.error("Schedule", [request])
        #expect(error.name == ChimeError.invalidArgs)
        #expect(error.message.contains(key) && error.message.contains(words), "\(error.message)")
        // What was there stays, and nothing else came.
        #expect(try harness.store.scheduled().map(\.id) == [kept])
    }

    @Test func aCancelRemovesTheRowAndItsDueTimeAndASecondIsNotFound() throws {
        let harness = try DaemonHarness()
        let id = try #require(try harness.values("Schedule", [Self.tea()]).first?.stringValue)
        #expect(harness.time.alarm.armedAt != nil)

        #expect(try harness.values("Cancel", [.string(id)]).isEmpty)
        #expect(try harness.store.notification(id: id) == nil)
        #expect(harness.parts.schedule.heapDueTimes[id] == nil, "the timer still waits for a cancelled notification")
        try harness.advance(7200)
        #expect(harness.server.titles.isEmpty)

        let again = try harness.error("Cancel", [.string(id)])
        #expect(again.name == ChimeError.notFound)
        #expect(again.message.contains(id))
    }

    @Test func completeOnAShownRepeatEndsItsSeriesAndSaysSo() throws {
        let harness = try DaemonHarness()
        let id = try #require(try harness.values("Schedule", [Self.tea([("repeat", .string("day")), ("category", .string("reminder"))])])
            .first?.stringValue)
        try harness.advance(3600)
        harness.server.showAll()

        #expect(try harness.values("InvokeAction", [.string(id), .string("complete")]).isEmpty)
        harness.commits.commit()
        let described = DaemonHarness.entries(try #require(try harness.values("Get", [.string(id)]).first))
        #expect(described["completed"] != nil, "\(described)")
        #expect(harness.parts.schedule.heapDueTimes[id] == nil, "tomorrow's occurrence is still due")
        harness.connection.flush()
        let signals = harness.bus.waitForSignals(3).map(\.member)
        #expect(signals.contains("ActionInvoked") && signals.contains("Completed"), "\(signals)")
        // The popup went with the press.
        #expect(harness.server.closed.count == 1)
    }

    @Test func invokeActionRefusesAKeyTheNotificationHasNotAndARemindBeforeItFired() throws {
        let harness = try DaemonHarness()
        let id = try #require(try harness.values("Schedule", [Self.tea([("category", .string("reminder"))])]).first?.stringValue)

        let unknown = try harness.error("InvokeAction", [.string(id), .string("snooze")])
        #expect(unknown.name == ChimeError.invalidArgs)
        #expect(unknown.message.contains("complete, remind"), "\(unknown.message)")

        let early = try harness.error("InvokeAction", [.string(id), .string("remind")])
        #expect(early.name == ChimeError.notShown, "\(early)")
        #expect(try harness.store.scheduled().map(\.id) == [id])
    }

    @Test func aCategoryOfTheConfigIsKnownToEveryMethodThatTakesOne() throws {
        let harness = try DaemonHarness(config: "[Category kettle]\nActions=complete\n")
        let id = try #require(try harness.values("Schedule", [Self.tea([("category", .string("kettle"))])]).first?.stringValue)
        let status = DaemonHarness.entries(try #require(try harness.values("Status").first))
        #expect(status["categories"]?.arrayElements?.compactMap(\.stringValue) == ["kettle", "reminder"])
        #expect(try harness.error("InvokeAction", [.string(id), .string("remind")]).message.contains("it has complete"))
    }
}
