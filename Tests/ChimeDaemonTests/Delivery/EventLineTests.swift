import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// A reminder about a calendar item says when the item starts, counted from when the popup
/// is shown, and where: on the fake server and clock of ``DeliveryHarness``.
struct EventLineTests {
    static func alert(lead: Double?, location: String?, body: String = "Bring the card") -> Alert {
        var alert = Alert(title: "Dentist")
        alert.body = body
        alert.leadTime = lead
        alert.location = location
        return alert
    }

    @Test(arguments: [
        (900.0 as Double?, "Hauptstraße 5" as String?, 0.0, "Starts in 15 min. · Hauptstraße 5\nBring the card"),
        (86_400, nil, 0, "Starts in 1 day.\nBring the card"),
        // Shown ten minutes late (the machine was asleep): five minutes are left, and it says how late.
        (900, nil, 600, "Starts in 5 min.\nBring the card\nDue 10 min ago."),
        (-3_900, "Room 4", 0, "Started 1 h 5 min ago. · Room 4\nBring the card"),
        (30, nil, 0, "Starts now.\nBring the card"),
        (nil, "Room 4", 0, "Room 4\nBring the card"),
        (nil, nil, 0, "Bring the card"),
    ])
    func theFirstLineSaysWhenAndWhere(lead: Double?, location: String?, late: Double, body: String) throws {
        let harness = try DeliveryHarness()
        let due = harness.time.now
        harness.time.advance(late)
        harness.presenter.deliver(id: "d", kind: .scheduled, alert: Self.alert(lead: lead, location: location), due: due)
        #expect(harness.server.requests.first?.request.alert.body == body)
    }
}
