import Foundation
import TestSupport
import Testing

/// `chime-bench place`, which `make bench` times place crossings with: its own GeoClue and
/// NetworkManager must stay what chimed asks of the real ones, or the figure is of nothing.
@Suite(.timeLimit(.minutes(5)))
struct BenchPlaceTests {
    func place(_ session: TestSession, via source: String, crossings: Int) throws -> ProcessResult {
        try session.run([binDirectory.appendingPathComponent("chime-bench").path, "place", "--via", source,
                         "--crossings", String(crossings)], timeout: 120)
    }

    @Test(arguments: [("geoclue", "region"), ("networkmanager", "network")])
    func everyCrossingFiresOnceAndNothingIsLeft(source: String, place: String) throws {
        let session = try TestSession(systemBus: true)
        let result = try self.place(session, via: source, crossings: 4)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("4 crossings through \(source): median "), "\(result)")
        // Entering and leaving, twice each: chimed saw a crossing each way, not a stale state.
        let log = session.daemonLog
        #expect(log.components(separatedBy: "Entered the \(place)").count - 1 == 2, "\(log)")
        #expect(log.components(separatedBy: "Left the \(place)").count - 1 == 2, "\(log)")
        #expect(try session.notifyCalls().count == 4)
        #expect(try session.run(["chime", "list"]).stdout.contains("Nothing scheduled."))
    }

    @Test func withoutAPrivateSystemBusItRefusesInOneSentence() throws {
        let session = try TestSession(extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": ""])
        let result = try place(session, via: "geoclue", crossings: 4)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("DBUS_SYSTEM_BUS_ADDRESS is not set"), "\(result)")
    }
}
