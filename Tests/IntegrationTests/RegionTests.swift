import Foundation
import TestSupport
import Testing

/// Region triggers end to end: `chime add --near`, chimed, and a GeoClue fake on a
/// private system bus whose fixes cross the circle.
@Suite(.timeLimit(.minutes(5)))
struct RegionTests {
    /// A shop in Berlin, and fixes by how far north of it they are.
    static let shop = (latitude: 52.5200, longitude: 13.4050)

    func fix(_ geoclue: FakeGeoClue, metresNorth metres: Double, accuracy: Double = 10) throws {
        try geoclue.move(to: FakeGeoClue.north(of: Self.shop.latitude, by: metres), Self.shop.longitude, accuracy: accuracy)
    }

    /// A session with a system bus and GeoClue on it, and a region of 150 m around the shop.
    func start(_ flags: [String], denying: Bool = false) throws -> (TestSession, FakeGeoClue, String) {
        let session = try TestSession(systemBus: true)
        let geoclue = try FakeGeoClue(on: try #require(session.systemBus), denying: denying)
        let id = try session.run(["chime", "add", "Buy milk", "--near", "\(Self.shop.latitude),\(Self.shop.longitude)",
                                  "--radius", "150m"] + flags)
        #expect(id.status == 0, "\(id)")
        return (session, geoclue, id.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func entryFiresOnceAndTheClientStopsWithTheLastRegion() throws {
        let (session, geoclue, id) = try start(["--on-entry"])
        try geoclue.waitForCalls("Start", 1)
        #expect(try geoclue.property("DesktopId").contains("'io.github.chime.Chime'"))
        try fix(geoclue, metresNorth: 500)
        try fix(geoclue, metresNorth: 20)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Buy milk'>"))
        // Done after its crossing: nothing is listed, and GeoClue is let go.
        try geoclue.waitForCalls("Stop", 1)
        #expect(try session.run(["chime", "list"]).stdout.contains("Nothing scheduled."))
        let log = try session.run(["chime", "log", "--id", id])
        #expect(log.stdout.contains("fired") && log.stdout.contains("Entered the region"), "\(log)")
    }

    @Test func exitFires() throws {
        let (session, geoclue, _) = try start(["--on-exit"])
        try geoclue.waitForCalls("Start", 1)
        try fix(geoclue, metresNorth: 0)
        try fix(geoclue, metresNorth: 400)
        #expect(try session.waitForNotifyCalls(1).count == 1)
    }

    @Test func everyTimeFiresAtEachCrossingBothWays() throws {
        let (session, geoclue, id) = try start(["--every-time"])
        try geoclue.waitForCalls("Start", 1)
        for metres in [600.0, 0, 600, 0] { try fix(geoclue, metresNorth: metres) }
        #expect(try session.waitForNotifyCalls(3).count == 3)
        // Still there for the next crossing.
        #expect(try session.run(["chime", "list"]).stdout.contains(id))
    }

    @Test func aFixWobblingOnTheEdgeFiresOnce() throws {
        let (session, geoclue, _) = try start(["--every-time"])
        try geoclue.waitForCalls("Start", 1)
        try fix(geoclue, metresNorth: 600)
        try fix(geoclue, metresNorth: 100)
        _ = try session.waitForNotifyCalls(1)
        // Around the edge with 30 m accuracy: each circle straddles it.
        for metres in [160.0, 140, 170, 135, 165] { try fix(geoclue, metresNorth: metres, accuracy: 30) }
        // Then out for sure: the second Notify is that exit; a wobble would have come first.
        try fix(geoclue, metresNorth: 400)
        _ = try session.waitForNotifyCalls(2)
        try session.waitForDaemonLog(containing: "Left the region")
        #expect(try session.notifyCalls().count == 2)
    }

    @Test func aRestartKeepsWhereTheUserWas() throws {
        let (session, geoclue, id) = try start(["--on-entry", "--every-time"])
        try geoclue.waitForCalls("Start", 1)
        try fix(geoclue, metresNorth: 600)
        try fix(geoclue, metresNorth: 0)
        // Shown for chimed too (delivery is at least once: one in flight at a stop is sent again).
        try session.waitForDaemonLog(containing: "Notification \(id) is server id")
        try session.killDaemon(signal: SIGTERM)
        #expect(try session.run(["chime", "list"]).status == 0)
        try geoclue.waitForCalls("Start", 2)
        // Still inside: chimed knows it from the store, so this is no entry.
        try fix(geoclue, metresNorth: 10)
        try fix(geoclue, metresNorth: 700)
        try session.waitForDaemonLog(containing: "Location \(FakeGeoClue.north(of: Self.shop.latitude, by: 700)),")
        #expect(try session.notifyCalls().count == 1)
        // Left before this restart: the first fix inside after it is an entry.
        try session.killDaemon(signal: SIGTERM)
        #expect(try session.run(["chime", "list"]).status == 0)
        try geoclue.waitForCalls("Start", 3)
        try fix(geoclue, metresNorth: 5)
        #expect(try session.waitForNotifyCalls(2).count == 2)
    }

    @Test func withoutGeoClueItWaitsAndStartsWhenGeoClueAppears() throws {
        let session = try TestSession(systemBus: true)
        let added = try session.run(["chime", "add", "Buy milk", "--near", "52.52,13.405"])
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.contains("waiting for a location source"), "\(added)")
        // The list names the place it waits to watch.
        let list = try session.run(["chime", "list"])
        #expect(list.stdout.contains("waiting: on entering or leaving 100m around 52.52,13.405"), "\(list)")
        try session.waitForDaemonLog(containing: "waits for a location source")
        // GeoClue appears: chimed follows its name and starts a client, no restart.
        let geoclue = try FakeGeoClue(on: try #require(session.systemBus))
        try geoclue.waitForCalls("Start", 1)
        #expect(!(try session.run(["chime", "list"]).stdout.contains("waiting")))
        try fix(geoclue, metresNorth: 500)
        try fix(geoclue, metresNorth: 0)
        #expect(try session.waitForNotifyCalls(1).count == 1)
    }

    @Test func withoutASystemBusItIsAcceptedAndWaits() throws {
        let session = try TestSession()
        let added = try session.run(["chime", "add", "Buy milk", "--near", "52.52,13.405", "--radius", "1km"])
        #expect(added.status == 0, "\(added)")
        let list = try session.run(["chime", "list"])
        #expect(list.stdout.contains("waiting: on entering or leaving 1km around 52.52,13.405"), "\(list)")
        // show agrees with list, and says the place in words.
        let shown = try session.run(["chime", "show", added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]).stdout
            .split(separator: "\n")
        #expect(shown.contains { $0.hasPrefix("state: ") && $0.hasSuffix(" waiting for a location source") }, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("place: ") && $0.hasSuffix(" on entering or leaving 1km around 52.52,13.405") }, "\(shown)")
    }

    @Test func aDenialWaitsAndDoctorSaysWhatToDo() throws {
        let (session, geoclue, _) = try start([], denying: true)
        try geoclue.waitForCalls("Start", 1)
        try session.waitForDaemonLog(containing: "GeoClue denied Chime")
        #expect(try session.run(["chime", "list"]).stdout.contains("waiting: on entering"))
        let doctor = try session.run(["chime", "doctor"])
        #expect(doctor.stdout.contains("GeoClue denied Chime its location"), "\(doctor)")
        #expect(doctor.stdout.contains("Privacy › Location"), "\(doctor)")
    }

    @Test func theClientIsHeldOnlyWhileARegionExists() throws {
        let (session, geoclue, first) = try start([])
        try geoclue.waitForCalls("Start", 1)
        let second = try session.add("Post a letter", "--near", "52.5,13.4")
        #expect(try session.run(["chime", "cancel", first]).status == 0)
        // One region is left: the client stays.
        #expect(try session.run(["chime", "list"]).stdout.contains(second))
        #expect(try geoclue.calls("Stop") == 0)
        #expect(try session.run(["chime", "cancel", second]).status == 0)
        try geoclue.waitForCalls("Stop", 1)
        let status = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                      "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.Status"])
        #expect(status.stdout.contains("'locationSource': <'unused'>"), "\(status)")
    }
}
