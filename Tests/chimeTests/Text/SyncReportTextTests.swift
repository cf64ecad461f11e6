import DBus
import Testing
@testable import chime

/// A CalDAV calendar's sync as `chime calendar sync` reports it.
struct SyncReportTextTests {
    static func report(sent: UInt32, error: String? = nil) -> SyncReportText {
        var entries: [(key: String, value: Value)] = [
            ("name", .string("personal")), ("new", .uint32(2)), ("updated", .uint32(1)), ("removed", .uint32(0)), ("sent", .uint32(sent)),
        ]
        if let error { entries.append(("error", .string(error))) }
        return SyncReportText(entries.map { ($0.key, .variant($0.value)) })
    }

    @Test func itsLineCountsWhatChanged() {
        #expect(Self.report(sent: 1).line == "personal: 2 new, 1 updated, 0 removed, 1 press sent.")
        #expect(Self.report(sent: 0).line == "personal: 2 new, 1 updated, 0 removed, 0 presses sent.")
        #expect(Self.report(sent: 0).errorSentence == nil)
    }

    @Test func anErrorNamesItsCalendar() {
        #expect(Self.report(sent: 0, error: "The server of calendar personal answered PROPFIND with HTTP 500.").errorSentence
                == "The server of calendar personal answered PROPFIND with HTTP 500.")
        #expect(Self.report(sent: 0, error: "the calendar is no longer followed").errorSentence == "personal: the calendar is no longer followed")
    }

    @Test func itsJSONHasTheCountsAndTheError() {
        #expect(Self.report(sent: 1).json.compact == #"{"name":"personal","new":2,"updated":1,"removed":0,"sent":1}"#)
        #expect(Self.report(sent: 0, error: "x").json.compact == #"{"name":"personal","new":2,"updated":1,"removed":0,"sent":0,"error":"x"}"#)
    }
}
