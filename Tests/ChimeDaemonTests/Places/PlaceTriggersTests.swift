import ChimeCore
import Foundation
import Glibc
import Testing
@testable import ChimeDaemon

/// A system bus address where there is none: PlaceTriggers' connection fails at once, and
/// the machine's own GeoClue and NetworkManager never take part.
private let noSystemBus: Void = { setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/chime-tests/system_bus_socket", 1) }()

/// Places in-process: the fixes GeoClue and the network lists NetworkManager would report,
/// handed to PlaceTriggers directly, fire through the presenter on a fake server as a due
/// date does (RegionTests and NetworkPlaceTests check the same with python-dbusmock's
/// services on a private system bus).
struct PlaceTriggersTests {
    /// Berlin's Fernsehturm; 0.001° of latitude is about 111 m.
    static let tower = try! Region(latitude: 52.5208, longitude: 13.4094, radius: 150, identifier: "tower")

    final class Harness {
        let delivery: DeliveryHarness
        let places: PlaceTriggers
        /// The schedule the watch reports to: it writes presence and crossings.
        let schedule: Schedule
        private(set) var fired: [ScheduledNotification] = []

        init() throws {
            _ = noSystemBus
            delivery = try DeliveryHarness()
            places = PlaceTriggers(presenter: delivery.presenter, time: delivery.time, loop: delivery.loop, logger: delivery.log.logger)
            schedule = Schedule(store: delivery.store, commits: delivery.commits, places: places, logger: delivery.log.logger)
            places.onFired = { [unowned self] in self.fired.append($0) }
        }

        /// A place notification, stored as Schedule stores it; with `started`, handed to
        /// the running PlaceTriggers too.
        @discardableResult
        func add(_ id: String, _ place: Place, presence: Presence? = nil, started: Bool = true) throws -> ScheduledNotification {
            var notification = ScheduledNotification(id: id, alert: Alert(title: id), rule: try FireRule(trigger: .place(place)),
                                                     lateLimit: nil, created: delivery.time.now, nextIndex: 0, nextFire: nil)
            notification.presence = presence
            let store = delivery.store
            _ = try store.write { db in
                _ = try store.insert(notification, in: db)
                try store.recordPresence(id: id, presence, in: db)
            }
            if started { #expect(places.watch(notification)) }
            return notification
        }

        /// A fix `metres` north of the tower, good to `accuracy` metres.
        func fix(_ metres: Double, accuracy: Double = 10) {
            places.located(Fix(latitude: 52.5208 + metres / 111_195, longitude: 13.4094, accuracy: accuracy))
        }

        /// The notification as the store has it now.
        func stored(_ id: String) throws -> ScheduledNotification? {
            delivery.commits.commit()
            return try delivery.store.notification(id: id)
        }

        /// The `fired` history, oldest first, as "id: detail".
        func crossings() throws -> [String] {
            delivery.commits.commit()
            return try delivery.store.history(limit: 100).reversed().filter { $0.event == .fired }.map { "\($0.id): \($0.detail)" }
        }

        var shown: [String] { delivery.server.titles }
    }

    static func region(entry: Bool = true, exit: Bool = false, once: Bool = true) throws -> Place {
        try Place(.region(tower), notifyOnEntry: entry, notifyOnExit: exit, triggersOnce: once)
    }

    @Test func aDateIsTheSchedulersNotAPlace() throws {
        let harness = try Harness()
        let due = harness.delivery.time.now.addingTimeInterval(60)
        let dated = ScheduledNotification(id: "dated", alert: Alert(title: "Dated"), rule: try FireRule(trigger: .absolute(due)),
                                          lateLimit: nil, created: due, nextIndex: 0, nextFire: due)
        #expect(!harness.places.watch(dated))
        #expect(harness.places.sourceStates == ("unused", "unused"))
    }

    /// The first fix says where the user is, without firing: Core Location reports no entry
    /// into a region the device is already in. The next entry fires, once.
    @Test func theFirstFixDecidesWhereTheUserIsAndTheNextEntryFiresOnce() throws {
        let harness = try Harness()
        try harness.add("shop", try Self.region())
        harness.fix(0)
        #expect(harness.shown.isEmpty)
        #expect(try harness.stored("shop")?.presence == .inside, "where the user is is kept")
        harness.fix(1_000)
        #expect(harness.shown.isEmpty, "leaving does not fire a place watched for entry")
        #expect(try harness.stored("shop")?.presence == .outside)
        harness.fix(50)
        #expect(harness.shown == ["shop"])
        #expect(try harness.crossings() == ["shop: Entered the region tower (150 m around 52.5208,13.4094)."])
        let done = try #require(try harness.stored("shop"))
        #expect(done.state == .done && done.fireCount == 1 && done.lastFired == harness.delivery.time.now, "\(done)")
        #expect(harness.fired.map(\.id) == ["shop"] && harness.fired.first?.state == .done)
        harness.fix(1_000)
        harness.fix(0)
        #expect(harness.shown == ["shop"], "a place that triggers once is over")
    }

    @Test func aPlaceForEveryTimeFiresAtEachCrossingInTheDirectionsAsked() throws {
        let harness = try Harness()
        try harness.add("both", try Self.region(entry: true, exit: true, once: false))
        try harness.add("exit", try Self.region(entry: false, exit: true, once: false))
        for metres in [1_000.0, 0, 1_000, 0] { harness.fix(metres) }
        #expect(try harness.crossings() == [
            "both: Entered the region tower (150 m around 52.5208,13.4094).",
            "both: Left the region tower (150 m around 52.5208,13.4094).",
            "exit: Left the region tower (150 m around 52.5208,13.4094).",
            "both: Entered the region tower (150 m around 52.5208,13.4094).",
        ])
        let both = try #require(try harness.stored("both"))
        #expect(both.state == .scheduled && both.fireCount == 3 && both.presence == .inside, "\(both)")
        #expect(try harness.stored("exit")?.fireCount == 1)
    }

    /// A fix whose circle straddles the edge, or a city-level guess, decides nothing: a
    /// position wobbling at the boundary does not fire again and again.
    @Test func aFixThatStraddlesTheEdgeDecidesNothing() throws {
        let harness = try Harness()
        try harness.add("edge", try Self.region(entry: true, exit: true, once: false))
        harness.fix(1_000)
        for (metres, accuracy) in [(145.0, 20.0), (155, 20), (148, 20), (0, 25_000), (152, 20)] { harness.fix(metres, accuracy: accuracy) }
        #expect(harness.shown.isEmpty)
        #expect(try harness.stored("edge")?.presence == .outside)
        harness.fix(100, accuracy: 20)
        #expect(harness.shown == ["edge"])
    }

    @Test func aNetworkFiresWhenItComesAndGoes() throws {
        let harness = try Harness()
        try harness.add("arrive", try Place(.network("Office Wi-Fi"), notifyOnEntry: true, notifyOnExit: false))
        try harness.add("leave", try Place(.network("Office Wi-Fi"), notifyOnEntry: false, notifyOnExit: true))
        harness.places.networksChanged(["Home"])
        #expect(harness.shown.isEmpty, "the first list only says where the user is")
        harness.places.networksChanged(["Home", "Office Wi-Fi"])
        harness.places.networksChanged(["Office Wi-Fi"])
        harness.places.networksChanged([])
        #expect(try harness.crossings() == ["arrive: Entered the network Office Wi-Fi.", "leave: Left the network Office Wi-Fi."])
        #expect(try harness.stored("arrive")?.state == .done && harness.stored("leave")?.state == .done)
    }

    /// Where the user was is kept across a restart: leaving after it fires at once.
    @Test func whereTheUserWasIsKeptAcrossARestart() throws {
        let harness = try Harness()
        try harness.add("away", try Self.region(entry: false, exit: true), presence: .inside, started: false)
        try harness.add("net", try Place(.network("Office Wi-Fi"), notifyOnEntry: true, notifyOnExit: false), presence: .outside,
                        started: false)
        try harness.schedule.loadPlaces()
        harness.fix(1_000)
        harness.places.networksChanged(["Office Wi-Fi"])
        #expect(harness.shown == ["away", "net"])
    }

    @Test func aCancelledPlaceFiresNoMore() throws {
        let harness = try Harness()
        try harness.add("a", try Self.region(exit: true, once: false))
        try harness.add("b", try Self.region(exit: true, once: false))
        try harness.add("n", try Place(.network("Office Wi-Fi"), notifyOnEntry: true, notifyOnExit: true, triggersOnce: false))
        harness.fix(1_000)
        harness.places.networksChanged([])
        harness.places.unwatch(ids: ["a"])
        harness.fix(0)
        #expect(harness.shown == ["b"])
        harness.places.unwatchAll()
        harness.fix(1_000)
        harness.places.networksChanged(["Office Wi-Fi"])
        #expect(harness.shown == ["b"])
    }

    /// Without a system bus nothing can say where the user is: place notifications wait,
    /// Status says which source is missing, and the log says why.
    @Test func withoutASystemBusPlacesWaitAndSaySo() throws {
        let harness = try Harness()
        let shop = try harness.add("shop", try Self.region())
        #expect(harness.places.isWaiting(shop))
        #expect(harness.places.sourceStates == ("unavailable", "unused"))
        let office = try harness.add("office", try Place(.network("Office Wi-Fi"), notifyOnEntry: true, notifyOnExit: false))
        #expect(harness.places.isWaiting(office))
        #expect(harness.places.sourceStates == ("unavailable", "unavailable"))
        #expect(harness.delivery.log.contains("Cannot connect to the system bus"))
        #expect(harness.delivery.log.contains("shop waits for a location source: the system bus is not available."))
        #expect(harness.delivery.log.messages.filter { $0.contains("Place notifications wait for a location source") }.count == 1,
                "said once, not at each try: \(harness.delivery.log.messages)")
    }
}
