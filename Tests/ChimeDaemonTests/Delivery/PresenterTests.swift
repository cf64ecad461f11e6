import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// Delivery in-process: a fake server answered by hand and a clock moved by hand, so
/// every retry, cap and press rule is checked in milliseconds. The real-process tests
/// (DeliveryFaultTests) check the same against a real bus and server.
struct PresenterTests {
    @Test func shownEndsTheAttemptAndTheStoredRowGoes() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a")
        #expect(harness.server.titles == ["a"])
        #expect(try harness.storedDeliveries().map(\.id) == ["a"], "stored until shown")
        harness.server.show(0)
        #expect(try harness.storedDeliveries().isEmpty)
        #expect(harness.presenter.waitingCount == 0)
    }

    @Test func aRefusalIsTriedAgainWithBackOffThenGivenUp() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a")
        var sent = 1
        for (attempt, delay) in [0.5, 1, 2, 4, 8].enumerated() {
            harness.server.refuse(sent - 1)
            harness.time.advance(delay - 0.01)
            #expect(harness.server.requests.count == sent, "not before its back-off (attempt \(attempt + 1))")
            harness.time.advance(0.02)
            sent += 1
            #expect(harness.server.requests.count == sent, "after \(delay) s")
        }
        harness.server.refuse(sent - 1)
        harness.time.advance(120)
        #expect(harness.server.requests.count == 6)
        #expect(try harness.history() == Array(repeating: "retried a", count: 5) + ["gave up a"])
        #expect(try harness.storedDeliveries().isEmpty)
        #expect(harness.time.armedTimeouts == 0, "nothing left to wake up for")
    }

    @Test func aRetryIsMarkedLate() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", title: "Tea")
        harness.time.advance(3)
        harness.server.refuse(0)
        harness.time.advance(1)
        let body = try #require(harness.server.requests.last?.request.body)
        #expect(body.hasPrefix("Due 4 s ago."), "\(body)")
    }

    @Test func aNewServerGetsWhatTheOldOneDidNotAnswerAtOnce() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a")
        harness.deliver("b")
        harness.server.show(0)
        harness.server.restart()
        // b failed with the old server and goes to the new one without back-off.
        #expect(harness.server.titles == ["a", "b", "b"])
        #expect(try harness.history() == ["retried b"])
    }

    @Test func aStalledServerFacesABoundedNumberOfCalls() throws {
        let harness = try DeliveryHarness()
        for index in 0..<50 { harness.deliver("n\(index)") }
        #expect(harness.server.requests.count == Presenter.maxInFlight)
        #expect(harness.presenter.waitingCount == 50 - Presenter.maxInFlight)
        harness.server.show(0)
        #expect(harness.server.requests.count == Presenter.maxInFlight + 1, "a free slot is filled at once, in order")
        #expect(harness.server.titles.last == "n\(Presenter.maxInFlight)")
    }

    @Test func withoutAServerNothingIsSentAndAPresentNowIsStoredToWait() throws {
        let harness = try DeliveryHarness()
        harness.server.isReady = false
        try harness.presenter.present(Alert(title: "now"), id: "p")
        harness.deliver("a")
        #expect(harness.server.requests.isEmpty)
        #expect(Set(try harness.storedDeliveries().map(\.id)) == ["p", "a"])
        harness.server.isReady = true
        harness.server.onEvent(.ready)
        #expect(harness.server.titles == ["now", "a"])
    }

    @Test func aPresentNowShownAtOnceIsNeverWritten() throws {
        let harness = try DeliveryHarness()
        try harness.presenter.present(Alert(title: "now"), id: "p")
        harness.server.show(0)
        #expect(try harness.storedDeliveries().isEmpty)
        #expect(try harness.history().isEmpty)
    }

    @Test func aRepeatThatCannotBeShownWaitsOnce() throws {
        let harness = try DeliveryHarness()
        harness.server.isReady = false
        harness.deliver("r", due: harness.time.now)
        harness.time.advance(60)
        harness.deliver("r", due: harness.time.now)
        #expect(harness.presenter.waitingCount == 1)
        #expect(try harness.storedDeliveries().count == 1)
    }

    @Test func aStoppedPresentersDeliveriesAreSentAgainByTheNext() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a")
        harness.commits.commit()
        // A second presenter on the same store, as after a restart of chimed.
        let server = FakeServer()
        let next = Presenter(server: server, store: harness.store, commits: harness.commits, time: harness.time,
                             settings: harness.settings, logger: harness.log.logger)
        try next.start()
        server.onEvent(.ready)
        #expect(server.titles == ["a"])
        #expect(try harness.history() == ["retried a"])
    }

    @Test func onePressPerPopupAndThePopupIsClosedUnlessResident() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", category: "reminder")
        harness.deliver("b", category: "reminder", resident: true)
        let a = harness.server.show(0), b = harness.server.show(1)
        harness.server.onEvent(.actionInvoked(serverID: a, key: "complete"))
        harness.server.onEvent(.actionInvoked(serverID: a, key: "remind"))
        harness.server.onEvent(.actionInvoked(serverID: b, key: "remind"))
        #expect(harness.presses.map { "\($0.id) \($0.key)" } == ["a complete", "b remind"])
        #expect(harness.server.closed == [a], "a resident popup stays")
        harness.server.onEvent(.closed(serverID: a, reason: 1))
        #expect(harness.closings.map(\.reason) == [2], "closed by a press is dismissed, whatever the server says")
    }

    @Test func anExpiryChimeEnforcesIsReason1() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", expires: 300)
        let id = harness.server.show(0)
        harness.time.advance(0.29)
        #expect(harness.server.closed.isEmpty)
        harness.time.advance(0.02)
        #expect(harness.server.closed == [id])
        harness.server.onEvent(.closed(serverID: id, reason: 3))
        #expect(harness.closings.map(\.reason) == [1])
        #expect(harness.closings.first?.detail == "Its expiry time passed.")
    }

    @Test func aServerRestartPostsAgainWhatHadButtonsAndForgetsTheRest() throws {
        let harness = try DeliveryHarness()
        harness.deliver("plain")
        harness.deliver("buttons", category: "reminder")
        harness.server.showAll()
        harness.server.restart()
        #expect(harness.server.titles == ["plain", "buttons", "buttons"])
        // The old server's ids mean nothing now.
        harness.server.onEvent(.actionInvoked(serverID: 1, key: "default"))
        #expect(harness.presses.isEmpty)
    }

    @Test func noMoreThanMaxTrackedAreFollowedOnScreen() throws {
        let harness = try DeliveryHarness()
        for index in 0...Presenter.maxTracked {
            harness.deliver("n\(index)", category: "reminder")
            harness.server.showAll()
        }
        // The oldest is no longer followed: its buttons do nothing.
        harness.server.onEvent(.actionInvoked(serverID: 1, key: "complete"))
        harness.server.onEvent(.actionInvoked(serverID: 2, key: "complete"))
        #expect(harness.presses.map(\.id) == ["n1"])
        #expect(harness.log.contains("no longer following n0"))
    }

    @Test func aCancelledWaitingOccurrenceIsWithdrawn() throws {
        let harness = try DeliveryHarness()
        harness.server.isReady = false
        harness.deliver("a")
        harness.presenter.withdraw(ids: ["a"])
        #expect(harness.presenter.waitingCount == 0)
        // Its row goes with the cancel's own transaction (StoreTests); here: it is never sent.
        harness.server.isReady = true
        harness.server.onEvent(.ready)
        #expect(harness.server.requests.isEmpty)
    }
}
