import ChimeAPI
import DBus
import Testing

/// Status and History entries: typed on both sides, each instant also as text.
struct RecordsTests {
    static func iso(_ seconds: Int64) -> String { "T\(seconds)" }

    @Test func statusRoundTripsWithTextBesideEachInstant() {
        var status = DaemonStatus()
        status.version = "1.0"
        status.pid = 42
        status.nextFire = 1_800_000_000
        status.backup = 1_700_000_000
        status.capabilities = ["body"]
        let entries = status.entries(isoText: Self.iso)
        #expect(entries.map(\.0) == ["version", "pid", "nextFire", "nextFireTimestamp", "capabilities", "backup", "backupTimestamp"])
        #expect(entries.first { $0.0 == "nextFire" }?.1 == .string("T1800000000"))
        #expect(DaemonStatus(entries.map { (key: $0.0, value: .variant($0.1)) }) == status)
    }

    @Test func statusCarriesTheConfigAndItsErrors() {
        var status = DaemonStatus()
        status.config = "/home/u/.config/chime/config"
        status.categories = ["reminder", "todo"]
        status.appSettings = 1
        status.configErrors = ["/home/u/.config/chime/config:2: [Category broken] Actions lists 'nosuch', …"]
        let entries = status.entries(isoText: Self.iso)
        #expect(entries.map(\.0) == ["config", "categories", "appSettings", "configErrors"])
        #expect(entries.last?.1 == .stringArray(status.configErrors ?? []))
        #expect(DaemonStatus(entries.map { (key: $0.0, value: .variant($0.1)) }) == status)
    }

    @Test func statusLeavesOutWhatIsAbsentOrOfAnotherType() {
        let status = DaemonStatus([(key: "pid", value: .string("x")), (key: "scheduled", value: .uint32(3)), (key: "other", value: .bool(true))])
        #expect(status.pid == nil)
        #expect(status.scheduled == 3)
        #expect(DaemonStatus().entries(isoText: Self.iso).isEmpty)
    }

    @Test func historyEventRoundTrips() {
        let event = HistoryEvent(timestamp: 5, id: "a", event: "snoozed", title: "T", detail: "", copy: "b")
        let entries = event.entries(isoText: Self.iso)
        #expect(entries.map(\.0) == ["time", "timestamp", "id", "event", "title", "detail", "copy"])
        #expect(HistoryEvent(entries.map { (key: $0.0, value: $0.1) }) == event)
        #expect(HistoryEvent([]) == HistoryEvent(timestamp: nil, id: "", event: "", title: "", detail: ""))
    }
}
