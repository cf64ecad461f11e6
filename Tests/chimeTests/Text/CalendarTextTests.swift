import DBus
import JSON
import Testing
@testable import chime

/// A calendar as `chime calendar list` and `chime doctor` show it.
struct CalendarTextTests {
    static func caldav(_ state: String, lastSync: Int64? = nil, error: String? = nil, queued: UInt32 = 0, share: Bool = true) -> CalendarText {
        var entries: [(key: String, value: Value)] = [
            ("name", .string("personal")), ("kind", .string("caldav")), ("location", .string("https://dav.example.org/alice/personal")),
            ("state", .string(state)), ("reminders", .uint32(3)), ("problems", .stringArray([])), ("user", .string("alice")),
            ("shareDismissals", .bool(share)), ("interval", .uint32(300)), ("queued", .uint32(queued)),
        ]
        if let lastSync { entries += [("lastSync", .string("2030-01-01T09:00:00+01:00")), ("lastSyncTimestamp", .int64(lastSync))] }
        if let error { entries.append(("error", .string(error))) }
        return CalendarText(entries.map { ($0.key, .variant($0.value)) })
    }

    @Test func aCalDAVCalendarSaysWhenItLastSynced() {
        let time: Int64 = 1_893_484_800
        #expect(Self.caldav("syncing").stateText == "syncing")
        #expect(Self.caldav("synced", lastSync: time).stateText == "synced " + HumanText.date(time))
        #expect(Self.caldav("offline", lastSync: time, error: "Calendar personal: no route.").stateText == "offline, last synced " + HumanText.date(time))
        #expect(Self.caldav("offline").stateText == "offline, never synced")
        let refused = "The server refused the password of alice for calendar personal."
        #expect(Self.caldav(refused, error: refused).stateText == "not syncing")
        #expect(Self.caldav(refused, error: refused).needsUser && !Self.caldav("offline").needsUser)
    }

    @Test func pressesWaitingAndDismissalsKeptHereAreSaid() {
        #expect(Self.caldav("syncing", queued: 1).stateText == "syncing, 1 press to send")
        #expect(Self.caldav("syncing", queued: 2, share: false).stateText == "syncing, 2 presses to send, dismissals kept here")
    }

    @Test func aFolderKeepsItsWords() {
        let folder = CalendarText([("name", .string("tasks")), ("kind", .string("vdir")), ("state", .string("missing"))])
        #expect(!folder.isCalDAV && !folder.needsUser && folder.stateText == "its folder is missing")
    }

    @Test func itsJSONHasEveryKeyChimedGave() {
        let json = Self.caldav("offline", lastSync: 1_893_484_800, error: "Calendar personal: no route.", queued: 2).json.compact
        #expect(json == #"{"name":"personal","kind":"caldav","location":"https://dav.example.org/alice/personal","state":"offline","#
                + #""reminders":3,"problems":[],"user":"alice","shareDismissals":true,"interval":300,"lastSync":"2030-01-01T09:00:00+01:00","#
                + #""lastSyncTimestamp":1893484800,"error":"Calendar personal: no route.","queued":2}"#)
        let folder = CalendarText([("name", .string("tasks")), ("kind", .string("vdir"))]).json.compact
        #expect(folder == #"{"name":"tasks","kind":"vdir","location":"","state":"","reminders":0,"problems":[]}"#)
    }
}
