import ChimeCore
import Foundation
import Testing

struct LocalDateTimeTests {
    @Test(arguments: [
        ("2026-12-24T18:00", LocalDateTime(year: 2026, month: 12, day: 24, hour: 18)),
        ("2026-12-24T18:00:05", LocalDateTime(year: 2026, month: 12, day: 24, hour: 18, second: 5)),
        ("2026-12-24 18:00", LocalDateTime(year: 2026, month: 12, day: 24, hour: 18)),
        ("2028-02-29T23:59:59", LocalDateTime(year: 2028, month: 2, day: 29, hour: 23, minute: 59, second: 59)),
        ("0001-01-01T00:00", LocalDateTime(year: 1, month: 1, day: 1)),
    ])
    func readsISO(text: String, expected: LocalDateTime) {
        #expect(LocalDateTime(iso: text) == expected)
    }

    @Test(arguments: [
        "2026-02-30T10:00", "2026-02-29T10:00", "1900-02-29T10:00", "2026-04-31T10:00", "2026-13-01T10:00",
        "2026-00-10T10:00", "2026-12-00T10:00", "2026-12-24T25:00", "2026-12-24T24:00", "2026-12-24T18:60",
        "2026-12-24T18:00:60", "0000-01-01T00:00", "2026-12-24", "2026-12-24T18", "2026-12-24T18:00:5",
        "26-12-24T18:00", "2026/12/24T18:00", "2026-12-24T18:00Z", "2026-12-24X18:00", "", "2026-1a-24T18:00",
    ])
    func refusesImpossibleOrMalformed(text: String) {
        #expect(LocalDateTime(iso: text) == nil)
    }

    @Test func describesWithSeconds() {
        #expect(LocalDateTime(year: 2026, month: 12, day: 24, hour: 18).description == "2026-12-24T18:00:00")
        #expect(LocalDateTime(year: 987, month: 1, day: 2, hour: 3, minute: 4, second: 5).description == "0987-01-02T03:04:05")
    }

    @Test func ordersByFieldsFromYearDown() {
        let a = LocalDateTime(year: 2026, month: 12, day: 24, hour: 18)
        #expect(a < LocalDateTime(year: 2026, month: 12, day: 24, hour: 18, second: 1))
        #expect(a < LocalDateTime(year: 2027, month: 1, day: 1))
        #expect(!(a < a))
    }

    @Test(arguments: [
        (LocalDateTime(year: 2026, month: 2, day: 29), "February 2026 has 28 days."),
        (LocalDateTime(year: 2026, month: 4, day: 31), "April 2026 has 30 days."),
        (LocalDateTime(year: 2026, month: 13, day: 1), "month 13 is out of range."),
        (LocalDateTime(year: 2026, month: 1, day: 1, hour: 25), "hour 25 is out of range."),
        (LocalDateTime(year: 2026, month: 1, day: 1, minute: -1), "minute -1 is out of range."),
        (LocalDateTime(year: 10_000, month: 1, day: 1), "year 10000 is out of range."),
    ])
    func explainsImpossibleFields(local: LocalDateTime, problem: String) {
        #expect(local.problem == problem)
    }

    @Test(arguments: [
        // 1970-01-01 was a Thursday; 2026-11-22 a Sunday; 2000-02-29 a Tuesday.
        (LocalDateTime(year: 1970, month: 1, day: 1), 4), (LocalDateTime(year: 2026, month: 11, day: 22), 0),
        (LocalDateTime(year: 2000, month: 2, day: 29), 2), (LocalDateTime(year: 1969, month: 12, day: 31), 3),
    ])
    func knowsTheWeekday(local: LocalDateTime, weekday: Int) {
        #expect(local.weekday == weekday)
    }

    @Test func countsSecondsLikeUTC() throws {
        for text in ["1970-01-01T00:00:00Z", "2026-12-24T18:00:05Z", "2000-02-29T12:00:00Z", "1901-05-06T07:08:09Z", "9999-12-31T23:59:59Z"] {
            let date = instant(text)
            let local = LocalDateTime(date, in: .utc)
            #expect(TimeInterval(local.secondsAsUTC) == date.timeIntervalSince1970, "\(text)")
            #expect(LocalDateTime(secondsAsUTC: local.secondsAsUTC) == local)
        }
    }

    /// Wall-clock times around every kind of jump, with the instant each must name.
    @Test(arguments: [
        // New York: 2026-03-08 02:00 → 03:00, 2026-11-01 02:00 → 01:00.
        ("America/New_York", "2026-03-08T01:59:59", "2026-03-08T01:59:59-05:00"),
        ("America/New_York", "2026-03-08T02:00", "2026-03-08T03:00:00-04:00"),
        ("America/New_York", "2026-03-08T02:30", "2026-03-08T03:30:00-04:00"),
        ("America/New_York", "2026-03-08T03:00", "2026-03-08T03:00:00-04:00"),
        ("America/New_York", "2026-11-01T00:59", "2026-11-01T00:59:00-04:00"),
        ("America/New_York", "2026-11-01T01:30", "2026-11-01T01:30:00-04:00"),
        ("America/New_York", "2026-11-01T02:00", "2026-11-01T02:00:00-05:00"),
        // Berlin: 2026-03-29 02:00 → 03:00, 2026-10-25 03:00 → 02:00.
        ("Europe/Berlin", "2026-03-29T02:30", "2026-03-29T03:30:00+02:00"),
        ("Europe/Berlin", "2026-03-29T03:00", "2026-03-29T03:00:00+02:00"),
        ("Europe/Berlin", "2026-10-25T02:00", "2026-10-25T02:00:00+02:00"),
        ("Europe/Berlin", "2026-10-25T02:59:59", "2026-10-25T02:59:59+02:00"),
        ("Europe/Berlin", "2026-10-25T03:00", "2026-10-25T03:00:00+01:00"),
        // Lord Howe: half-hour jumps, 2026-10-04 02:00 → 02:30 and 2026-04-05 02:00 → 01:30.
        ("Australia/Lord_Howe", "2026-10-04T01:59", "2026-10-04T01:59:00+10:30"),
        ("Australia/Lord_Howe", "2026-10-04T02:15", "2026-10-04T02:45:00+11:00"),
        ("Australia/Lord_Howe", "2026-10-04T02:30", "2026-10-04T02:30:00+11:00"),
        ("Australia/Lord_Howe", "2026-04-05T01:29", "2026-04-05T01:29:00+11:00"),
        ("Australia/Lord_Howe", "2026-04-05T01:45", "2026-04-05T01:45:00+11:00"),
        ("Australia/Lord_Howe", "2026-04-05T02:00", "2026-04-05T02:00:00+10:30"),
        // Samoa skipped Friday 2011-12-30 entirely, going from -10 to +14.
        ("Pacific/Apia", "2011-12-29T23:59", "2011-12-29T23:59:00-10:00"),
        ("Pacific/Apia", "2011-12-30T00:00", "2011-12-31T00:00:00+14:00"),
        ("Pacific/Apia", "2011-12-30T09:00", "2011-12-31T09:00:00+14:00"),
        ("Pacific/Apia", "2011-12-31T00:00", "2011-12-31T00:00:00+14:00"),
        // Kolkata has no daylight saving and a half-hour offset.
        ("Asia/Kolkata", "2026-03-29T02:30", "2026-03-29T02:30:00+05:30"),
        ("Asia/Kolkata", "2026-10-25T02:30", "2026-10-25T02:30:00+05:30"),
        // Santiago jumps at midnight: 2026-09-06 00:00 → 01:00, 2026-04-05 00:00 → 04-04 23:00.
        ("America/Santiago", "2026-09-05T23:59", "2026-09-05T23:59:00-04:00"),
        ("America/Santiago", "2026-09-06T00:00", "2026-09-06T01:00:00-03:00"),
        ("America/Santiago", "2026-09-06T00:30", "2026-09-06T01:30:00-03:00"),
        ("America/Santiago", "2026-04-04T23:30", "2026-04-04T23:30:00-03:00"),
        ("America/Santiago", "2026-04-05T00:00", "2026-04-05T00:00:00-04:00"),
    ])
    func resolvesGapsForwardAndOverlapsEarly(zone: String, local: String, expected: String) throws {
        let zone = try #require(Zone(identifier: zone))
        let local = try #require(LocalDateTime(iso: local))
        #expect(local.date(in: zone) == instant(expected))
    }

    @Test(arguments: ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata", "America/Santiago"])
    func everyInstantReadsBackToItsWallClock(zone: String) throws {
        let zone = try #require(Zone(identifier: zone))
        // Every 7 minutes for two years covers each zone's jumps and its ordinary hours.
        var seconds = instant("2011-01-01T00:00:00Z").timeIntervalSince1970
        let end = instant("2013-01-01T00:00:00Z").timeIntervalSince1970
        while seconds < end {
            let date = Date(timeIntervalSince1970: seconds)
            let local = LocalDateTime(date, in: zone)
            let back = local.date(in: zone)
            // A repeated wall-clock time reads back as its first instant, never a later one.
            #expect(back <= date && date.timeIntervalSince(back) <= 3_600, "\(date) shows \(local) in \(zone.identifier)")
            if back > date || date.timeIntervalSince(back) > 3_600 { return }
            seconds += 7 * 60
        }
    }
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
