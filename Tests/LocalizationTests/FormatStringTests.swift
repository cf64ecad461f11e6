import Testing
@testable import Localization

struct FormatStringTests {
    @Test(arguments: [
        ("Due %1$s ago.", ["5 min"], "Due 5 min ago."),
        ("%2$s, %1$s", ["a", "b"], "b, a"),
        ("%s and %d", ["x", "3"], "x and 3"),
        ("100%% sure", [], "100% sure"),
        ("%1$d h %2$d min", ["2", "5"], "2 h 5 min"),
        // Broken translations show, never crash: unknown conversions stay, missing arguments are empty.
        ("%x %5$s.", ["a"], "%x ."),
        ("ends with %", [], "ends with %"),
    ])
    func fills(_ format: String, _ arguments: [String], _ expected: String) {
        #expect(FormatString.fill(format, arguments) == expected)
    }
}
