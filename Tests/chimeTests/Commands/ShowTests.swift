import ChimeAPI
import DBus
import Localization
import Testing
@testable import chime

/// What `chime show` makes of chimed's description of a notification.
struct ShowTests {
    static let described: [(key: String, value: Value)] = [
        ("id", .string("k3x9m2qa")), ("title", .string("Tea")), ("body", .string("")), ("urgency", .variant(.byte(2))),
        ("appName", .string("Kettle")), ("when", .string("2030-06-01T09:00")), ("calendar", .string("gregorian")),
        ("state", .string("done")), ("fireCount", .variant(.uint32(3))), ("lateLimit", .variant(.double(5400))),
        ("expires", .variant(.int32(1500))), ("defaultAction", .string("")), ("userInfo", .variantDictionary([])),
        ("futureKey", .string("kept")),
    ]

    @Test func labelsAreWordsEmptyValuesGoAndUnknownKeysStay() {
        let rows = Localization.untranslated { Show.rows(Self.described, now: 0) }
        let labels = rows.map(\.0)
        #expect(labels == ["id", "title", "state", "fired", "late limit", "urgency", "app", "default action", "expires", "futureKey"],
                "\(rows)")
        let values = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        #expect(values["state"] == "done")
        #expect(values["fired"] == "3 times")
        #expect(values["late limit"] == "1 h 30 min")
        #expect(values["urgency"] == "critical")
        #expect(values["default action"] == "none")
        #expect(values["expires"] == "after 1.5 s")
    }

    @Test(arguments: [(45.0, "45 s"), (1.5, "1.5 s"), (600, "10 min"), (7200, "2 h"), (90_061, "1 d 1 h 1 min 1 s")])
    func durationsAreWrittenInTheUnitsLateLimitTakes(seconds: Double, expected: String) {
        #expect(Show.duration(seconds) == expected)
    }
}
