import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// A chimed started again takes over what the last one left on screen (in-process: a
/// second presenter on the same store, as after a restart). ServerMatrixTests and
/// TakeoverTests check the same against real servers.
struct PresenterTakeoverTests {
    /// A presenter started on `harness`'s store, as the next chimed, with its own server.
    func restarted(_ harness: DeliveryHarness, server: FakeServer = FakeServer()) throws -> (Presenter, FakeServer, Presses) {
        harness.commits.commit()
        let next = Presenter(server: server, store: harness.store, commits: harness.commits, time: harness.time,
                             settings: harness.settings, logger: harness.log.logger)
        let presses = Presses()
        presses.presenter = next
        next.onPress = { presses.all.append("\($0.id) \($0.key)") }
        next.onClosed = { presses.closings.append($0) }
        try next.start()
        server.onEvent(.ownerChanged(server.server?.split(separator: " ").last.map(String.init)))
        server.onEvent(.ready)
        return (next, server, presses)
    }

    /// What the next presenter did; it also keeps that presenter alive for the test.
    final class Presses {
        var presenter: Presenter?
        var all: [String] = []
        var closings: [Closing] = []
    }

    @Test func aPopupOnScreenIsPostedAgainInPlaceSilentlyWithItsText() throws {
        let harness = try DeliveryHarness()
        var alert = Alert(title: "Tea")
        alert.category = "reminder"
        alert.sound = .themed("bell")
        harness.presenter.deliver(id: "a", kind: .scheduled, alert: alert, due: harness.time.now.addingTimeInterval(-10))
        harness.server.show(0, as: 41)
        let first = harness.server.requests[0].request
        harness.time.advance(600)
        let (_, server, presses) = try restarted(harness)
        let again = try #require(server.requests.first?.request)
        #expect(again.replacesID == 41)
        #expect(again.body == first.body, "the text on screen, late note as it was: \(again.body)")
        #expect(first.body.contains("Due 10 s ago."), "\(first.body)")
        #expect(again.alert.sound == .none, "no second sound")
        #expect(again.hints.contains { $0.0 == "suppress-sound" })
        #expect(again.alert.allActions.map(\.key) == first.alert.allActions.map(\.key))
        server.show(0, as: 41)
        server.onEvent(.actionInvoked(serverID: 41, key: "complete"))
        server.onEvent(.actionInvoked(serverID: 41, key: "complete"))
        #expect(presses.all == ["a complete"], "a press acts once")
        harness.commits.commit()
        #expect(try harness.store.shownDeliveries().shown.isEmpty, "pressed, it is not taken over again")
    }

    @Test func onGNOMEShellOneStillShownIsClosedAndPostedAfresh() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", category: "reminder")
        harness.deliver("b", category: "reminder")
        harness.server.show(0, as: 8)
        harness.server.show(1, as: 9)
        let server = FakeServer()
        server.name = "gnome-shell"
        let (_, _, presses) = try restarted(harness, server: server)
        #expect(server.requests.map(\.request.replacesID) == [8, 9], "in place first: only the answer tells whether it is there")
        server.show(0, as: 8)
        server.show(1, as: 12)
        #expect(server.closed == [8, 12], "a still shown is closed before it is posted afresh; b's copy, made anew, is closed")
        let afresh = try #require(server.requests.last?.request)
        #expect(server.requests.count == 3 && afresh.replacesID == 0 && afresh.alert.title == "a")
        server.show(2, as: 13)
        server.onEvent(.actionInvoked(serverID: 13, key: "complete"))
        server.onEvent(.actionInvoked(serverID: 8, key: "complete"))
        #expect(presses.all == ["a complete"])
    }

    @Test func aPopupPressedBeforeTheRestartIsNotTakenOver() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", category: "reminder", resident: true)
        let id = harness.server.show(0)
        harness.server.onEvent(.actionInvoked(serverID: id, key: "remind"))
        let (_, server, _) = try restarted(harness)
        #expect(server.requests.isEmpty)
    }

    @Test func aPopupWithoutButtonsOrExpiryIsNotStored() throws {
        let harness = try DeliveryHarness()
        harness.deliver("plain")
        harness.server.show(0)
        harness.commits.commit()
        #expect(try harness.store.shownDeliveries().shown.isEmpty)
    }

    @Test func aPopupClosedWhileNoChimedListenedIsNotShownAgain() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", category: "reminder")
        harness.deliver("b", category: "reminder")
        let a = harness.server.show(0)
        harness.server.show(1)
        let server = FakeServer()
        server.closedHistory = [a]
        let (_, _, _) = try restarted(harness, server: server)
        #expect(server.titles == ["b"], "dunst's history says a was closed")
        harness.commits.commit()
        #expect(try harness.store.shownDeliveries().shown.map(\.delivery.id) == ["b"])
    }

    @Test func aServerThatNoLongerHasItAnswersAnotherIdAndTheCopyIsClosed() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", category: "reminder")
        harness.server.show(0, as: 5)
        let (next, server, presses) = try restarted(harness)
        server.show(0, as: 6)
        #expect(server.closed == [6])
        server.onEvent(.closed(serverID: 6, reason: 3))
        #expect(presses.closings.map(\.reason) == [4])
        #expect(next.waitingCount == 0)
        harness.commits.commit()
        #expect(try harness.store.shownDeliveries().shown.isEmpty)
    }

    @Test func anotherServerOnTheSameBusGetsWhatHadButtonsAsAfterAServerRestart() throws {
        let harness = try DeliveryHarness()
        harness.deliver("buttons", category: "reminder")
        harness.deliver("expiring", expires: 60_000)
        harness.server.showAll()
        let server = FakeServer()
        server.server = "bus-1 :1.99"
        let (_, _, _) = try restarted(harness, server: server)
        #expect(server.titles == ["buttons"])
        #expect(server.requests.first?.request.replacesID == 0)
    }

    @Test func aPopupOfAnotherBusIsGoneWithIt() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", category: "reminder")
        harness.server.showAll()
        let server = FakeServer()
        server.server = "bus-2 :1.7"
        let (_, _, _) = try restarted(harness, server: server)
        #expect(server.requests.isEmpty)
        harness.commits.commit()
        #expect(try harness.store.shownDeliveries().shown.isEmpty)
    }

    @Test func anExpiryRunsFromWhenItWasFirstShown() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", expires: 10_000)
        harness.server.show(0, as: 3)
        harness.time.advance(4)
        let (_, server, _) = try restarted(harness)
        server.show(0, as: 3)
        harness.time.advance(5.9)
        #expect(server.closed.isEmpty)
        harness.time.advance(0.2)
        #expect(server.closed == [3])
    }

    @Test func aClosedPopupLeavesNoRow() throws {
        let harness = try DeliveryHarness()
        harness.deliver("a", category: "reminder")
        let id = harness.server.show(0)
        harness.commits.commit()
        #expect(try harness.store.shownDeliveries().shown.count == 1)
        harness.server.onEvent(.closed(serverID: id, reason: 2))
        harness.commits.commit()
        #expect(try harness.store.shownDeliveries().shown.isEmpty)
    }
}
