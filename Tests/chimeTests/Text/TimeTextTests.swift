import Glibc
import Localization
import Testing
@testable import chime

/// The one way chime writes a time for people, in the C locale's English words.
struct TimeTextTests {
    /// The broken-down time of `text` ("2026-12-24 18:00"), its weekday filled in, on a clock
    /// `offset` seconds east of UTC.
    static func parts(_ text: String, offset: Int = 0) -> tm {
        let numbers = text.split(whereSeparator: { "- :".contains($0) }).compactMap { Int32($0) }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday, parts.tm_hour, parts.tm_min) =
            (numbers[0] - 1900, numbers[1] - 1, numbers[2], numbers[3], numbers[4])
        _ = timegm(&parts)
        parts.tm_gmtoff = offset
        return parts
    }

    static var now: tm { parts("2026-12-01 10:00") }

    @Test(arguments: [
        ("2026-12-01 09:00", "today 09:00"),
        ("2026-12-01 23:59", "today 23:59"),
        ("2026-12-02 00:00", "tomorrow 00:00"),
        ("2026-11-30 18:30", "yesterday 18:30"),
        ("2026-12-03 09:00", "Thu 3 Dec 09:00"),
        ("2026-01-05 07:05", "Mon 5 Jan 07:05"),
        ("2027-01-01 09:00", "Fri 1 Jan 2027 09:00"),
        ("2030-06-01 09:00", "Sat 1 Jun 2030 09:00"),
    ])
    func aDayIsAWordNearNowAndADateElseWithTheYearWhenItIsAnother(time: String, expected: String) {
        let text = Localization.untranslated { HumanText.dayText(Self.parts(time), today: Self.now, formats: .c) }
        #expect(text == expected)
    }

    @Test func aZonedTimeComesFirstAndTheLocalOneAfter() {
        let text = Localization.untranslated {
            HumanText.zonedText(Self.parts("2026-12-02 09:00", offset: -18_000), today: Self.parts("2026-12-01 04:00", offset: -18_000),
                                zone: "America/New_York", local: Self.parts("2026-12-02 15:00", offset: 3_600),
                                localToday: Self.parts("2026-12-01 10:00", offset: 3_600), formats: .c)
        }
        #expect(text == "tomorrow 09:00 New York, 15:00 here")
        // Another date here: the local side says its own day.
        let late = Localization.untranslated {
            HumanText.zonedText(Self.parts("2026-12-02 21:00", offset: -18_000), today: Self.parts("2026-12-01 04:00", offset: -18_000),
                                zone: "America/New_York", local: Self.parts("2026-12-03 11:00", offset: 32_400),
                                localToday: Self.parts("2026-12-01 18:00", offset: 32_400), formats: .c)
        }
        #expect(late == "tomorrow 21:00 New York, Thu 3 Dec 11:00 here")
        // The same clock as here: the zone is named, the time said once.
        let same = Localization.untranslated {
            HumanText.zonedText(Self.parts("2026-12-02 09:00", offset: 3_600), today: Self.now, zone: "Europe/Paris",
                                local: Self.parts("2026-12-02 09:00", offset: 3_600), localToday: Self.now, formats: .c)
        }
        #expect(same == "tomorrow 09:00 Paris")
    }

    @Test(arguments: [
        ("America/New_York", "New York"), ("America/Argentina/Buenos_Aires", "Buenos Aires"), ("UTC", "UTC"), ("Etc/GMT+5", "GMT+5"),
    ])
    func aZoneIsNamedByItsCity(zone: String, name: String) {
        #expect(HumanText.placeName(ofZone: zone) == name)
    }

    @Test(arguments: [
        ("2026-12-01 10:20", "in 20 minutes"),
        ("2026-12-02 09:00", "in 23 hours"),
        ("2026-12-02 11:00", "in 1 day"),
        ("2026-12-14 10:00", "in 13 days"),
        ("2026-12-15 10:00", "in 2 weeks"),
        ("2027-01-31 10:00", "in 8 weeks"),
        ("2027-02-01 10:00", "in 2 months"),
        ("2028-11-30 10:00", "in 23 months"),
        ("2028-12-01 10:00", "in 2 years"),
        // 1281 days: years, never days.
        ("2030-06-04 10:00", "in 3 years"),
    ])
    func howFarAwayIsSaidInTheLargestUnitThatReadsWell(time: String, expected: String) {
        let end = Self.parts(time)
        var start = Self.now, later = end
        let ahead = Int64(timegm(&later) - timegm(&start))
        #expect(Localization.untranslated { HumanText.distance(ahead: ahead, from: Self.now, to: end) } == expected)
    }

    @Test(arguments: [
        ("%a %-d %b %Y %H:%M", "Tue 1 Dec 2026 10:00"),
        ("%A %d.%m. %%", "Tuesday 01.12. %"),
        ("%B", "December"),
    ])
    func theCLocalesWordsAreEnglishWhateverTheProcessLocale(format: String, expected: String) {
        #expect(HumanText.englishTime(Self.now, format) == expected)
    }

    @Test(arguments: [
        ("%d.%m.%Y", "%d.%m."),
        ("%m/%d/%Y", "%m/%d"),
        ("%d/%m/%y", "%d/%m"),
        ("%Y-%m-%d", "%m-%d"),
        ("%F", "%m-%d"),
        ("%D", "%m/%d"),
        ("%Y年%m月%d日", "%m月%d日"),
        ("%Y. %m. %d.", "%m. %d."),
        ("%-d.%-m.%Y", "%-d.%-m."),
        ("%d %b", ""),
        ("%Y", ""),
    ])
    func aDateFormatLosesItsYearForDaysOfThisYear(format: String, expected: String) {
        #expect(HumanText.withoutYear(format) == expected)
    }
}
