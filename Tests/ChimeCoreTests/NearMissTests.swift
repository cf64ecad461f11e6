import Testing
@testable import ChimeCore

/// The "did you mean" guesses after a name that is not known.
struct NearMissTests {
    static let categories = ["reminder", "todo", "email.arrived", "im.received"]

    @Test(arguments: [
        ("reminders", "reminder"),
        ("Reminder", "reminder"),
        ("remind", "reminder"),
        ("reminedr", "reminder"),
        ("todos", "todo"),
        ("tod", "todo"),
        ("email.arived", "email.arrived"),
    ])
    func aCommonSlipIsGuessed(typed: String, meant: String) {
        #expect(NearMiss.nearest(to: typed, among: Self.categories) == meant)
    }

    @Test(arguments: ["work", "re", "x", "", "reminder"])
    func nothingCloseIsNoGuess(typed: String) {
        #expect(NearMiss.nearest(to: typed, among: Self.categories) == nil)
    }

    /// A short start that fits two candidates is no guess: either could be meant.
    @Test func anAmbiguousStartIsNoGuess() {
        #expect(NearMiss.nearest(to: "rem", among: ["reminder", "remote"]) == nil)
    }

    @Test(arguments: [("", "abc", 3), ("abc", "abc", 0), ("abc", "acb", 1), ("kitten", "sitting", 3), ("ca", "abc", 3)])
    func theDistanceCountsEachEditOnce(a: String, b: String, distance: Int) {
        #expect(NearMiss.distance(a, b) == distance)
        #expect(NearMiss.distance(b, a) == distance)
    }
}
