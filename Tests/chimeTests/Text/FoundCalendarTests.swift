import DBus
import Testing
@testable import chime

/// A calendar DiscoverCalendars found, as `chime calendar add` lists it.
struct FoundCalendarTests {
    @Test func itIsReadFromChimedsAnswer() throws {
        let found = try #require(FoundCalendar([
            (key: "location", value: .variant(.string("https://dav.example.org/alice/personal"))), (key: "name", value: .variant(.string("Personal"))),
            (key: "components", value: .variant(.stringArray(["VEVENT"]))), (key: "writable", value: .variant(.bool(false))),
            (key: "color", value: .variant(.string("#FF0000"))),
        ]))
        #expect(found == FoundCalendar(location: "https://dav.example.org/alice/personal", name: "Personal", components: ["VEVENT"], writable: false))
        #expect(FoundCalendar([(key: "name", value: .string("No address"))]) == nil)
    }

    @Test(arguments: [
        ([], true, "events and tasks"), (["VEVENT"], true, "events"), (["VTODO"], false, "tasks, read-only"),
        (["VEVENT", "VTODO"], true, "events and tasks"), (["VJOURNAL"], true, "no events or tasks"),
    ])
    func whatItHoldsIsSaid(components: [String], writable: Bool, expected: String) {
        let found = FoundCalendar(location: "https://x.org/a/b", name: "b", components: components, writable: writable)
        #expect(found.contents == expected)
        #expect(found.holdsReminders == (expected != "no events or tasks"))
    }

    @Test func oneFollowedAlreadySaysAsWhat() {
        let found = FoundCalendar(location: "https://x.org/a/b", name: "b", components: ["VEVENT"], followedAs: "work")
        #expect(found.contents == "events, followed as work")
    }

    @Test func theCollectionsNameIsTheLastSegmentDecoded() {
        #expect(FoundCalendar(location: "https://x.org/alice/my%20cal%C3%A9", name: "").segment == "my calé")
        #expect(FoundCalendar(location: "https://x.org/alice/my%20cal%C3%A9", name: "").title == "my calé")
        #expect(FoundCalendar(location: "https://x.org/alice/a%zz", name: "A").segment == "a%zz")
        #expect(FoundCalendar(location: "https://x.org/alice/a%2", name: "A").title == "A")
    }
}
