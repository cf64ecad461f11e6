import Testing
@testable import ChimeDaemon

/// How late, in words people use: to the minute within a day, then days, weeks, months
/// and years, never thousands of days; the popup's words are the log's.
struct LateTextTests {
    @Test(arguments: [
        (0.0, "0 s"), (4, "4 s"), (59.4, "59 s"), (60, "1 min"), (299, "4 min"), (300, "5 min"), (3_599, "59 min"),
        (3_600, "1 h"), (7_500, "2 h 5 min"), (86_399, "23 h 59 min"),
        (86_400, "1 day"), (3 * 86_400, "3 days"), (13 * 86_400 + 86_399, "13 days"),
        (14 * 86_400, "2 weeks"), (27 * 86_400, "3 weeks"), (60 * 86_400, "8 weeks"),
        (61 * 86_400, "2 months"), (200 * 86_400, "6 months"), (364 * 86_400, "11 months"),
        (365 * 86_400, "1 year"), (730 * 86_400, "1 year"), (731 * 86_400, "2 years"),
        // 2020-01-01 10:00 seen on 2026-11-29, and a birthday from 1960: never in days.
        (2_523 * 86_400, "6 years"), (24_337 * 86_400, "66 years"),
    ] as [(Double, String)])
    func spansAreSaidInTheLargestUnitThatFits(seconds: Double, text: String) {
        #expect(LateText.describe(seconds) == text)
        // chimed's own language is C here: the popup says what the log says.
        #expect(LateText.spoken(seconds) == text)
    }

    @Test(arguments: [-5.0, .nan, .infinity, 1e300])
    func noSpanTraps(seconds: Double) {
        #expect(!LateText.describe(seconds).isEmpty)
    }
}
