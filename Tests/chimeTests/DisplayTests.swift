import Testing
@testable import chime

/// Text for people, made without Foundation: time formats and ISO times.
struct DisplayTests {
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
        #expect(Display.withoutSeconds(format, twelveHour: "%I:%M:%S %p") == expected)
    }

    @Test(arguments: [
        ("2026-12-24T18:00:00+01:00", 1_798_131_600 as Int64?),
        ("2026-12-24T17:00:00Z", 1_798_131_600),
        ("2026-12-24T17:00:00", 1_798_131_600),
        ("2026-12-24T12:00:00-05:00", 1_798_131_600),
        ("2026-12-24T22:30:00+05:30", 1_798_131_600),
        ("2026-12-24 18:00", nil),
        ("soon", nil),
    ])
    func isoTimesBecomeInstants(iso: String, expected: Int64?) {
        #expect(Display.instant(iso: iso) == expected)
    }

    @Test func replacingAllReplacesEveryOccurrence() {
        #expect("%T and %T".replacingAll("%T", with: "%H:%M:%S") == "%H:%M:%S and %H:%M:%S")
        #expect("none".replacingAll("%T", with: "x") == "none")
        #expect("".replacingAll("%T", with: "x") == "")
    }
}
