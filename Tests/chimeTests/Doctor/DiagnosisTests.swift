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
}
