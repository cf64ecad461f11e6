import Testing
@testable import chime

/// What people type after --repeat that is no unit, and the options that say it.
struct RepeatSuggestionTests {
    @Test(arguments: [
        ("weekdays", "--repeat week --on weekdays"), ("Weekends", "--repeat week --on weekends"),
        ("biweekly", "--every 2 --repeat week"), ("fortnightly", "--every 2 --repeat week"), ("every other week", "--every 2 --repeat week"),
        ("quarterly", "--every 3 --repeat month"), ("mondays", "--repeat week --on mon"), ("mon,wed,fri", "--repeat week --on mon,wed,fri"),
        ("tuesday and thursday", "--repeat week --on tue,thu"), ("wek", "--repeat week"), ("dayly", "--repeat daily"),
        ("2 wekks", "--every 2 --repeat week"),
    ])
    func aLikelyMeaningIsSaidInOptions(typed: String, options: String) {
        #expect(RepeatSuggestion.options(for: typed) == options)
    }

    @Test(arguments: ["sometimes", "whenever", "", "42"])
    func aWordWithoutOneGetsNone(typed: String) {
        #expect(RepeatSuggestion.options(for: typed) == nil)
    }
}
