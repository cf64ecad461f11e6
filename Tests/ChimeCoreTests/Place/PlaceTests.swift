import ChimeCore
import Foundation
import Testing

/// Distances on the Earth, the accuracy hysteresis, and which crossings fire.
struct PlaceTests {
    /// Berlin's Fernsehturm; 0.001° of latitude is about 111.2 m.
    let tower = try! Region(latitude: 52.5208, longitude: 13.4094, radius: 150, identifier: "tower")

    @Test(arguments: [
        // (lat1, lon1, lat2, lon2, metres): known great-circle distances.
        (52.5200, 13.4050, 48.8566, 2.3522, 877_460.0),  // Berlin to Paris
        (0.0, 0.0, 0.0, 1.0, 111_195.0),  // one degree on the equator
        (0.0, 179.9, 0.0, -179.9, 22_239.0),  // across the antimeridian
        (89.9, 0.0, 89.9, 180.0, 22_239.0),  // over the pole
    ])
    func haversineDistances(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ metres: Double) throws {
        let region = try Region(latitude: a, longitude: b, radius: 1)
        let distance = region.distance(toLatitude: c, longitude: d)
        #expect(abs(distance - metres) / metres < 0.001, "\(distance) m")
    }

    @Test func aFixCountsOnlyWhenItsWholeCircleIsOnOneSide() {
        let centre = Fix(latitude: 52.5208, longitude: 13.4094, accuracy: 20)
        #expect(tower.presence(of: centre, previous: nil) == .inside)
        // 111 m out with 30 m accuracy: 141 ≤ 150, inside.
        let near = Fix(latitude: 52.5218, longitude: 13.4094, accuracy: 30)
        #expect(tower.presence(of: near, previous: .outside) == .inside)
        // 111 m out with 50 m accuracy straddles the edge: the last state holds.
        let straddling = Fix(latitude: 52.5218, longitude: 13.4094, accuracy: 50)
        #expect(tower.presence(of: straddling, previous: .outside) == .outside)
        #expect(tower.presence(of: straddling, previous: .inside) == .inside)
        #expect(tower.presence(of: straddling, previous: nil) == nil)
        // 222 m out with 50 m: 172 > 150, outside.
        let away = Fix(latitude: 52.5228, longitude: 13.4094, accuracy: 50)
        #expect(tower.presence(of: away, previous: .inside) == .outside)
        // A city-level guess decides nothing, nor does a fix without an accuracy.
        #expect(tower.presence(of: Fix(latitude: 52.5208, longitude: 13.4094, accuracy: 25_000), previous: .outside) == .outside)
        #expect(tower.presence(of: Fix(latitude: 52.5208, longitude: 13.4094, accuracy: .nan), previous: .inside) == .inside)
    }

    @Test func aWobblingFixCrossesOnce() throws {
        let place = try Place(.region(tower), notifyOnEntry: true, notifyOnExit: true, triggersOnce: false)
        var presence: Presence? = .outside
        var crossings = 0
        // Around the edge, 145 to 160 m out, with 20 m accuracy, then well inside.
        for (metres, accuracy) in [(160.0, 20.0), (145, 20), (155, 20), (148, 20), (100, 20), (152, 20), (140, 20)] {
            let fix = Fix(latitude: 52.5208 + metres / 111_195, longitude: 13.4094, accuracy: accuracy)
            let next = tower.presence(of: fix, previous: presence)
            if place.fires(from: presence, to: next) { crossings += 1 }
            presence = next
        }
        #expect(crossings == 1)
        #expect(presence == .inside)
    }

    @Test func crossingsFireInTheDirectionsAsked() throws {
        let entry = try Place(.network("Office"), notifyOnEntry: true, notifyOnExit: false)
        #expect(entry.fires(from: .outside, to: .inside))
        #expect(!entry.fires(from: .inside, to: .outside))
        let exit = try Place(.network("Office"), notifyOnEntry: false, notifyOnExit: true)
        #expect(exit.fires(from: .inside, to: .outside))
        #expect(!exit.fires(from: .outside, to: .inside))
        // Neither flag means both, as CLRegion.
        let both = try Place(.network("Office"), notifyOnEntry: false, notifyOnExit: false)
        #expect(both.notifyOnEntry && both.notifyOnExit)
        // The first thing learnt is no crossing.
        #expect(!both.fires(from: nil, to: .inside))
        #expect(!both.fires(from: .inside, to: .inside))
    }

    @Test(arguments: [
        (91.0, 0.0, 100.0, "region.latitude"), (-90.5, 0.0, 100.0, "region.latitude"),
        (0.0, 180.5, 100.0, "region.longitude"), (0.0, -181.0, 100.0, "region.longitude"),
        (0.0, 0.0, 0.0, "region.radius"), (0.0, 0.0, -5.0, "region.radius"), (0.0, 0.0, 100_001.0, "region.radius"),
        (Double.nan, 0.0, 100.0, "region.latitude"),
    ])
    func badRegionsAreRefusedByName(_ latitude: Double, _ longitude: Double, _ radius: Double, _ field: String) {
        #expect(throws: FieldError.self) { try Region(latitude: latitude, longitude: longitude, radius: radius) }
        do {
            _ = try Region(latitude: latitude, longitude: longitude, radius: radius)
        } catch {
            #expect(error.field == field)
        }
    }

    @Test func anEmptyNetworkNameIsRefused() {
        #expect(throws: FieldError("network.name", "must not be empty: give a connection id or a Wi-Fi SSID.")) {
            try Place(.network("  "), notifyOnEntry: true, notifyOnExit: false)
        }
    }

    @Test func aPlaceTakesNoRepeat() throws {
        let place = try Place(.network("Office"), notifyOnEntry: true, notifyOnExit: false)
        #expect(throws: FieldError.self) {
            try FireRule(trigger: .place(place), recurrence: try Recurrence(unit: .day, count: 1))
        }
        let rule = try FireRule(trigger: .place(place))
        #expect(rule.occurrence(0, systemZone: .utc) == nil)
    }
}
