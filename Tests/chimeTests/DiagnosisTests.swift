import Testing
@testable import chime

/// The pieces of `chime doctor` that need no bus.
struct DiagnosisTests {
    @Test func addressValuesAreEscaped() {
        #expect(Diagnosis.escapedAddressValue("/run/user/1000/bus") == "/run/user/1000/bus")
        #expect(Diagnosis.escapedAddressValue("/tmp/a b,c=d") == "/tmp/a%20b%2cc%3dd")
    }

    @Test func everyCapabilityChimeUsesHasAFallback() {
        let all = Diagnosis.fallbacks(for: [], localSound: true).map(\.capability)
        #expect(all == ["body", "actions", "sound", "body-markup", "persistence"])
        #expect(Diagnosis.fallbacks(for: Set(all), localSound: true).isEmpty)
        #expect(Diagnosis.fallbacks(for: [], localSound: false).first { $0.capability == "sound" }?.instead.contains("silent") == true)
    }

    @Test func localTimeReadsTheDaemonsText() {
        #expect(Diagnosis.localTime("2026-12-24T18:00:00+01:00") == "2026-12-24 18:00:00 +01:00")
    }
}
