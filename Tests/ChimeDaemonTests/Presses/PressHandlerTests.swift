import ChimeAPI
import ChimeCore
import DBus
import Foundation
import Testing
@testable import ChimeDaemon

/// What a press does, in-process: the server's ActionInvoked and NotificationClosed as the
/// presenter hears them, carried to ``PressHandler`` by the wiring ``Daemon`` assembles,
/// on a fake server and clock (``DaemonHarness``). ActionTests, SnoozeTests and
/// ActionOptionsTests check the same through the real chimed and a notification server.
struct PressHandlerTests {
    /// Schedules `title` in an hour with `category`, lets it fire and shows it; its id and server id.
    static func shown(_ harness: DaemonHarness, _ title: String = "Tea", category: String = "reminder",
                      repeating: Bool = false) throws -> (id: String, serverID: UInt32) {
        var request: [(String, Value)] = [("title", .string(title)), ("when", .string("in 1h")), ("category", .string(category))]
        if repeating { request.append(("repeat", .string("day"))) }
        let id = try #require(try harness.values("Schedule", [.variantDictionary(request)]).first?.stringValue)
        try harness.advance(3600)
        let index = try #require(harness.server.unanswered.last)
        return (id, harness.server.show(index))
    }

    /// The history of `id`, oldest first, as "event detail".
    static func history(_ harness: DaemonHarness, _ id: String) throws -> [String] {
        harness.commits.commit()
        return try #require(try harness.store.history(of: id, limit: 100)).reversed().map { "\($0.event.rawValue) \($0.detail)" }
    }

    static func signals(_ harness: DaemonHarness, atLeast count: Int) -> [String] {
        harness.connection.flush()
        return harness.bus.waitForSignals(count).map { "\($0.member) \($0.arguments.first?.stringValue ?? "")" }
    }

    @Test func completeEndsTheSeriesWithItsLabelInTheHistoryAndSaysSoOnTheBus() throws {
        let harness = try DaemonHarness()
        let (id, serverID) = try Self.shown(harness, repeating: true)

        harness.server.onEvent(.actionInvoked(serverID: serverID, key: "complete"))
        harness.commits.commit()
        #expect(try harness.store.notification(id: id)?.completed == harness.time.now)
        #expect(harness.parts.schedule.heapDueTimes[id] == nil)
        let history = try Self.history(harness, id)
        #expect(history.suffix(2) == ["pressed Complete", "completed No further occurrences of \(id)."], "\(history)")
        let signals = Self.signals(harness, atLeast: 3)
        #expect(signals.contains("ActionInvoked \(id)") && signals.contains("Completed \(id)"), "\(signals)")
    }

    @Test func remindSchedulesOneCopyHalfAnHourOnAndLeavesTheSeries() throws {
        let harness = try DaemonHarness()
        let (id, serverID) = try Self.shown(harness, repeating: true)
        let series = try #require(try harness.store.notification(id: id)?.nextFire)

        harness.server.onEvent(.actionInvoked(serverID: serverID, key: "remind"))
        harness.commits.commit()
        let copies = try harness.store.scheduled().filter { $0.id != id }
        #expect(copies.count == 1)
        #expect(copies.first?.nextFire == harness.time.now.addingTimeInterval(30 * 60))
        #expect(copies.first?.alert.title == "Tea")
        #expect(try harness.store.notification(id: id)?.nextFire == series, "the series moved")
        let history = try Self.history(harness, id)
        #expect(history.suffix(2) == ["pressed Remind in 30 minutes", "snoozed Again in 30 min."], "\(history)")
    }

    @Test func aPressOnANotificationCompletedMeanwhileIsIgnoredAndSaysWhy() throws {
        let harness = try DaemonHarness()
        let (id, _) = try Self.shown(harness)
        _ = try harness.values("InvokeAction", [.string(id), .string("complete")])
        harness.commits.commit()
        let completed = try harness.store.notification(id: id)?.completed

        _ = try harness.values("InvokeAction", [.string(id), .string("remind")])
        harness.commits.commit()
        #expect(try Self.history(harness, id).suffix(1) == ["pressed Remind in 30 minutes: ignored, it was already completed."])
        #expect(try harness.store.scheduled().isEmpty, "a snooze copy of a completed notification")
        #expect(try harness.store.notification(id: id)?.completed == completed)
    }

    @Test func aButtonThatNeedsAnUnlockedSessionWaitsForItThenRunsOnce() throws {
        let harness = try DaemonHarness(config: """
            [Category guarded]
            Actions=complete;

            [Action complete]
            AuthenticationRequired=true
            """)
        let lock = harness.parts.lock
        lock.set(.locked, reason: "")
        let (id, serverID) = try Self.shown(harness, category: "guarded")

        harness.server.onEvent(.actionInvoked(serverID: serverID, key: "complete"))
        harness.commits.commit()
        #expect(try harness.store.notification(id: id)?.completed == nil, "ran while the session was locked")
        #expect(try Self.history(harness, id).suffix(1) == ["pressed Complete: held until the session is unlocked."])

        harness.time.advance(60)
        lock.set(.unlocked, reason: "")
        lock.set(.locked, reason: "")
        lock.set(.unlocked, reason: "")
        harness.commits.commit()
        #expect(try harness.store.notification(id: id)?.completed == harness.time.now)
        #expect(try Self.history(harness, id).filter { $0.hasPrefix("pressed") }
            == ["pressed Complete: held until the session is unlocked.", "pressed Complete"])
    }

    @Test(arguments: [(UInt32(1), "expired"), (2, "closed"), (3, "closed")])
    func aPopupThatLeavesTheScreenIsInTheHistoryAndOnTheBus(reason: UInt32, event: String) throws {
        let harness = try DaemonHarness()
        let (id, serverID) = try Self.shown(harness)

        harness.server.onEvent(.closed(serverID: serverID, reason: reason))
        let history = try Self.history(harness, id)
        #expect(history.last?.hasPrefix(event + " ") == true, "\(history)")
        harness.connection.flush()
        let closed = harness.bus.waitForSignals(2).filter { $0.member == "Closed" }
        #expect(closed.map(\.arguments) == [[.string(id), .uint32(reason)]])
        // Still scheduled: leaving the screen is not an answer.
        #expect(try harness.store.notification(id: id)?.completed == nil)
    }
}
