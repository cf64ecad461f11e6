import Testing
import Spelling

/// The "did you mean" guesses after a name that is not known.
struct NearestNameTests {
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
        #expect(Spelling.nearest(to: typed, among: Self.categories) == meant)
    }

    @Test(arguments: ["work", "re", "x", "", "reminder"])
    func nothingCloseIsNoGuess(typed: String) {
        #expect(Spelling.nearest(to: typed, among: Self.categories) == nil)
    }

    /// A short start that fits two candidates is no guess: either could be meant.
    @Test func anAmbiguousStartIsNoGuess() {
        #expect(Spelling.nearest(to: "rem", among: ["reminder", "remote"]) == nil)
    }

    @Test(arguments: [("", "abc", 3), ("abc", "abc", 0), ("abc", "acb", 1), ("kitten", "sitting", 3), ("ca", "abc", 3)])
    func theDistanceCountsEachEditOnce(a: String, b: String, distance: Int) {
        #expect(Spelling.distance(Array(a), Array(b)) == distance)
        #expect(Spelling.distance(Array(b), Array(a)) == distance)
    }
}
