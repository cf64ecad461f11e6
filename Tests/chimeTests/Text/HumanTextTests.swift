import Glibc
import Testing
@testable import chime

/// Text for people, made without Foundation: time formats and ISO times.
struct HumanTextTests {
    @Test(arguments: [
        ("%H:%M:%S", "%H:%M"),
        ("%T", "%H:%M"),
        ("%r", "%I:%M %p"),
        ("%H.%M.%S", "%H.%M"),
        ("%H時%M分%S秒", "%H時%M分"),
        ("%Hh%M", "%Hh%M"),
        ("%H:%M:%S %Z", "%H:%M %Z"),
        ("100%% %S", "100%% "),
    ])
    func timeFormatsLoseTheirSeconds(format: String, expected: String) {
        #expect(HumanText.withoutSeconds(format, twelveHour: "%I:%M:%S %p") == expected)
    }

    @Test(arguments: [
        (3600, "2026-12-24T18:00:00+01:00"),
        (0, "2026-12-24T17:00:00+00:00"),
        (-18_000, "2026-12-24T12:00:00-05:00"),
        (19_800, "2026-12-24T22:30:00+05:30"),
        // Local mean time, as in New York until 1883: the offset keeps its seconds.
        (-17_762, "2026-12-24T12:03:58-04:56:02"),
    ])
    func instantsBecomeISOTimesWithTheirOffset(offset: Int, iso: String) {
        // The local parts of 2026-12-24T17:00:00Z in a zone `offset` seconds east of UTC.
        var time = time_t(1_798_131_600 + offset)
        var parts = tm()
        gmtime_r(&time, &parts)
        parts.tm_gmtoff = offset
        #expect(HumanText.isoText(parts) == iso)
    }
}
