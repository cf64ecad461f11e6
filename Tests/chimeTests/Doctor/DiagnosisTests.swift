import DBus
import Testing
@testable import chime

/// The pieces of `chime doctor` that need no bus.
struct DiagnosisTests {
    @Test func addressValuesAreEscaped() {
        #expect(Connection.escapedAddressValue("/run/user/1000/bus") == "/run/user/1000/bus")
        #expect(Connection.escapedAddressValue("/tmp/a b,c=d") == "/tmp/a%20b%2cc%3dd")
    }

    @Test func everyCapabilityChimeUsesHasAFallback() {
        let all = Diagnosis.fallbacks(for: [], localSound: true).map(\.capability)
        #expect(all == ["body", "actions", "sound", "body-markup", "persistence"])
        #expect(Diagnosis.fallbacks(for: Set(all), localSound: true).isEmpty)
        #expect(Diagnosis.fallbacks(for: [], localSound: false).first { $0.capability == "sound" }?.instead.english.contains("silent") == true)
    }

    @Test func aCalDAVCalendarOfflineIsAWarningAndOneRefusedAProblem() {
        var diagnosis = Diagnosis()
        let refused = "The server refused the password of alice for calendar work; give the right one with chime calendar password work."
        diagnosis.check([
            CalendarTextTests.caldav("synced", lastSync: 1_893_484_800),
            CalendarTextTests.caldav("offline", error: "Calendar personal: could not connect.", queued: 2),
            CalendarText([("name", .string("work")), ("kind", .string("caldav")), ("state", .string(refused)), ("error", .string(refused))]),
        ])
        #expect(diagnosis.warnings.map(\.english) == [
            "Calendar personal is offline; chimed tries again at its next sync. Calendar personal: could not connect.",
            "Calendar personal: 2 presses wait to be written to the server.",
        ])
        #expect(diagnosis.problems.map(\.english) == ["Calendar work cannot be synced: " + refused])
        let rows = Diagnosis.rows(diagnosis.calendars ?? [])
        #expect(rows.count == 3 && rows[0].0 == "personal")
        #expect(rows[0].1 == "synced \(HumanText.date(1_893_484_800)), 3 reminders to come, alice at https://dav.example.org/alice/personal")
        #expect(rows[1].1 == "offline, never synced, 2 presses to send, 3 reminders to come, alice at https://dav.example.org/alice/personal")
        #expect(rows[2].1 == "not syncing, 0 reminders to come, ")
    }

    @Test func noCalendarSaysHowToAddOne() {
        #expect(Diagnosis.rows([]).map(\.1) == ["none (chime calendar add URL --user NAME, or --vdir DIR)"])
    }
}
