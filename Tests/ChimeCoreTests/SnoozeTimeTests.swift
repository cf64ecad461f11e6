import ChimeCore
import Foundation
import Testing

/// When a snoozed notification comes back: `chime snooze`'s WHEN and the config's `Snooze=`.
struct SnoozeTimeTests {
    static let zone = Zone(identifier: "Europe/Berlin")!
    /// Wed 2026-11-25 14:00 in Berlin.
    static let now = Date(timeIntervalSince1970: 1_795_611_600)

    @Test(arguments: [
        ("10m", SnoozeTime.after(600)), ("1h30m", .after(5400)), ("in 2h", .after(7200)), ("2d", .after(172_800)),
        ("tomorrow 9:00", .at("tomorrow 9:00")), ("18:00", .at("18:00")),
    ])
    func reads(text: String, expected: SnoozeTime) throws {
        #expect(try SnoozeTime(parsing: text, field: "when", now: Self.now, systemZone: Self.zone) == expected)
    }

    @Test func aTimeOfDayIsReadWhenSnoozedAndStaysOnTheClock() throws {
        let rule = try SnoozeTime.at("tomorrow 9:00").fireRule(now: Self.now, systemZone: Self.zone)
        let date = try #require(rule.occurrence(0, systemZone: Self.zone))
        #expect(date == Self.now.addingTimeInterval(19 * 3600), "\(date)")
        #expect(rule.recurrence == nil)
        guard case .floating = rule.trigger else { Issue.record("\(rule.trigger) is not a wall-clock time"); return }
        // A time of day already past today comes back tomorrow.
        let noon = try SnoozeTime.at("12:00").fireRule(now: Self.now, systemZone: Self.zone)
        #expect(noon.occurrence(0, systemZone: Self.zone) == Self.now.addingTimeInterval(22 * 3600))
    }

    @Test(arguments: [
        ("soon", "when: 'soon' is neither a duration (10m, 1h30m, 2d) nor a time to come back at (18:00, tomorrow 9:00)"),
        ("0m", "when: '0m' is neither a duration"),
        ("2000-01-01 09:00", "when: '2000-01-01 09:00' is not ahead"),
        ("today 9:00", "when: 'today 9:00' is not ahead: a snoozed notification comes back later."),
    ])
    func refuses(text: String, sentence: String) {
        #expect {
            _ = try SnoozeTime(parsing: text, field: "when", now: Self.now, systemZone: Self.zone)
        } throws: { error in
            "\(error)".contains(sentence)
        }
    }
}
