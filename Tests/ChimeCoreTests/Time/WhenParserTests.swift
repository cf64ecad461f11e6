import ChimeCore
import Foundation
import Testing

/// Sunday 2026-11-22, 10:00 in Berlin (09:00 UTC, 04:00 in New York, 23:00 Saturday in Honolulu).
private let now = instant("2026-11-22T10:00:00+01:00")

private func parser() throws -> WhenParser {
    WhenParser(now: now, systemZone: try #require(Zone(identifier: "Europe/Berlin")))
}

private func local(_ text: String) -> LocalDateTime {
    guard let local = LocalDateTime(iso: text) else {
        Issue.record("'\(text)' is not a local date and time")
        return LocalDateTime(year: 1, month: 1, day: 1)
    }
    return local
}

struct WhenParserTests {
    @Test(arguments: [
        // A time of day: today while it is ahead, else tomorrow.
        ("15:00", "2026-11-22T15:00"), ("9:05", "2026-11-23T09:05"), ("15:00:30", "2026-11-22T15:00:30"),
        ("10:00", "2026-11-23T10:00"), ("10:00:01", "2026-11-22T10:00:01"), ("09:59:59", "2026-11-23T09:59:59"),
        ("00:00", "2026-11-23T00:00"), ("23:59", "2026-11-22T23:59"),
        ("3pm", "2026-11-22T15:00"), ("9:30 am", "2026-11-23T09:30"), ("12am", "2026-11-23T00:00"),
        ("12pm", "2026-11-22T12:00"), ("9:30PM", "2026-11-22T21:30"), (" 15:00 ", "2026-11-22T15:00"),
        // Named days, even when the time is past.
        ("today 18:00", "2026-11-22T18:00"), ("TODAY 8:00", "2026-11-22T08:00"), ("tomorrow 9:00", "2026-11-23T09:00"),
        ("Tomorrow at 9:00", "2026-11-23T09:00"), ("today at 3pm", "2026-11-22T15:00"),
        // Weekdays: the next one, today if still ahead.
        ("mon 8:30", "2026-11-23T08:30"), ("monday 8:30", "2026-11-23T08:30"), ("tue 6:00", "2026-11-24T06:00"),
        ("wednesday 12:00", "2026-11-25T12:00"), ("THU 7:15", "2026-11-26T07:15"), ("fri 17:00", "2026-11-27T17:00"),
        ("sat 8:00", "2026-11-28T08:00"), ("sun 11:00", "2026-11-22T11:00"), ("Sunday 9:00", "2026-11-29T09:00"),
        ("sun 10:00", "2026-11-29T10:00"), ("Thurs at 7:15", "2026-11-26T07:15"), ("fri 5pm", "2026-11-27T17:00"),
        // Dates with times, without an offset.
        ("2026-12-24T18:00", "2026-12-24T18:00"), ("2026-12-24 18:00", "2026-12-24T18:00"),
        ("2026-12-24t18:00:05", "2026-12-24T18:00:05"), ("2028-02-29 07:00", "2028-02-29T07:00"),
        ("2020-01-01 00:00", "2020-01-01T00:00"),
    ])
    func wallClockFormsFloat(text: String, expected: String) throws {
        #expect(try parser().trigger(text) == .floating(local(expected)))
    }

    @Test(arguments: [
        ("2026-12-24T18:00:00+01:00", "2026-12-24T17:00:00Z"), ("2026-12-24T17:00Z", "2026-12-24T17:00:00Z"),
        ("2026-12-24T17:00:00z", "2026-12-24T17:00:00Z"), ("2026-12-24T12:00-05:00", "2026-12-24T17:00:00Z"),
        ("2026-12-24T18:00+0100", "2026-12-24T17:00:00Z"), ("2026-12-24 18:00+01", "2026-12-24T17:00:00Z"),
        ("2026-12-24T22:30+05:30", "2026-12-24T17:00:00Z"), ("2026-12-24 17:00:00Z", "2026-12-24T17:00:00Z"),
    ])
    func offsetsMakeInstants(text: String, expected: String) throws {
        #expect(try parser().trigger(text) == .absolute(instant(expected)))
        // A zone asked for does not change an instant that is already fixed.
        #expect(try parser().trigger(text, zone: "America/New_York") == .absolute(instant(expected)))
    }

    @Test func fractionsOfASecondNeedAnInstant() throws {
        #expect(try parser().trigger("2026-12-24T17:00:00.250Z") == .absolute(instant("2026-12-24T17:00:00Z").addingTimeInterval(0.25)))
        #expect(try parser().trigger("2026-12-24T17:00:00,5+00:00") == .absolute(instant("2026-12-24T17:00:00Z").addingTimeInterval(0.5)))
        #expect(throws: FieldError("when", "'2026-12-24T17:00:00.5' is not a valid time: fractions of a second need an offset or Z.")) {
            try parser().trigger("2026-12-24T17:00:00.5")
        }
    }

    @Test(arguments: [
        ("2026-12-24T18:00[Europe/Berlin]", "2026-12-24T18:00", "Europe/Berlin"),
        ("2026-12-24T18:00:00+01:00[Europe/Berlin]", "2026-12-24T18:00", "Europe/Berlin"),
        ("2026-12-24 09:00[!America/New_York][u-ca=gregory]", "2026-12-24T09:00", "America/New_York"),
        ("2026-07-01T08:00[Asia/Kolkata]", "2026-07-01T08:00", "Asia/Kolkata"),
    ])
    func bracketedZonesPinTheWallClock(text: String, expected: String, zone: String) throws {
        #expect(try parser().trigger(text) == .zoned(local(expected), zone: zone))
    }

    @Test(arguments: [
        ("in 20m", 1_200.0), ("in 1h30m", 5_400), ("in 90s", 90), ("IN 36H", 129_600),
        ("in 1h 30m", 5_400), ("in 20 minutes", 1_200), ("In 1 hour", 3_600),
    ])
    func relativeTimesAreInstantsFromNow(text: String, seconds: TimeInterval) throws {
        #expect(try parser().trigger(text) == .absolute(now.addingTimeInterval(seconds)))
        #expect(try parser().trigger(text, zone: "Asia/Tokyo") == .absolute(now.addingTimeInterval(seconds)))
    }

    @Test(arguments: [
        // 04:00 in New York.
        ("America/New_York", "15:00", "2026-11-22T15:00"), ("America/New_York", "3:00", "2026-11-23T03:00"),
        ("America/New_York", "today 4:00", "2026-11-22T04:00"), ("America/New_York", "mon 8:30", "2026-11-23T08:30"),
        ("America/New_York", "sun 5:00", "2026-11-22T05:00"), ("America/New_York", "2026-12-24 18:00", "2026-12-24T18:00"),
        // 23:00 on Saturday in Honolulu: "today" there is the 21st.
        ("Pacific/Honolulu", "today 8:00", "2026-11-21T08:00"), ("Pacific/Honolulu", "tomorrow 9:00", "2026-11-22T09:00"),
        ("Pacific/Honolulu", "23:30", "2026-11-21T23:30"), ("Pacific/Honolulu", "22:00", "2026-11-22T22:00"),
        ("Pacific/Honolulu", "sat 23:30", "2026-11-21T23:30"), ("Pacific/Honolulu", "sun 8:30", "2026-11-22T08:30"),
    ])
    func aZoneMakesWallClockFormsZoned(zone: String, text: String, expected: String) throws {
        #expect(try parser().trigger(text, zone: zone) == .zoned(local(expected), zone: zone))
    }

    @Test func aSkippedTimeTodayIsStillAhead() throws {
        // 01:00 on Berlin's spring-forward night: 02:30 does not exist, but its alarm (03:30) is ahead.
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        let early = WhenParser(now: instant("2026-03-29T01:00:00+01:00"), systemZone: berlin)
        #expect(try early.trigger("2:30") == .floating(local("2026-03-29T02:30")))
        let late = WhenParser(now: instant("2026-03-29T03:40:00+02:00"), systemZone: berlin)
        #expect(try late.trigger("2:30") == .floating(local("2026-03-30T02:30")))
    }

    @Test(arguments: [
        ("25:00", "'25:00' is not a valid time: hour 25 is out of range."),
        ("12:60", "'12:60' is not a valid time: minute 60 is out of range."),
        ("12:00:61", "'12:00:61' is not a valid time: second 61 is out of range."),
        ("13pm", "'13pm' is not a valid time: hour 13 is out of range for am and pm."),
        ("0am", "'0am' is not a valid time: hour 0 is out of range for am and pm."),
        ("tomorrow 24:00", "'tomorrow 24:00' is not a valid time: hour 24 is out of range."),
        ("2026-12-24 24:00", "'2026-12-24 24:00' is not a valid time: hour 24 is out of range."),
        ("2026-02-30 10:00", "'2026-02-30 10:00' is not a valid date: February 2026 has 28 days."),
        ("2026-02-29T10:00Z", "'2026-02-29T10:00Z' is not a valid date: February 2026 has 28 days."),
        ("2026-04-31 10:00", "'2026-04-31 10:00' is not a valid date: April 2026 has 30 days."),
        ("2026-13-01 10:00", "'2026-13-01 10:00' is not a valid date: month 13 is out of range."),
        ("2026-12-00 10:00", "'2026-12-00 10:00' is not a valid date: day 0 is out of range."),
        ("Feb 30", "'Feb 30' is not a valid date: February has no day 30."),
        ("whenever", "'whenever' is not a time: 'whenever' is not understood; use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601."),
        ("15", "'15' is not a time: '15' is not understood; use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601."),
        ("someday 9:00", "'someday 9:00' is not a time: 'someday' is not understood; use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601."),
        ("9:5", "'9:5' is not a time: '9:5' is not understood; use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601."),
        ("2026-12-24T18:00+25:00", "'2026-12-24T18:00+25:00' has the offset '+25:00', which is not one: use Z or ±HH:MM from -23:59 to +23:59."),
        ("", "must not be empty; use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601."),
        ("in", "'in' needs a duration, as in 'in 20m'."),
        ("in 0m", "'0m' is not a duration: it must be longer than zero."),
        ("in -5m", "'-5m' is not a duration: it must be longer than zero."),
        ("in 5 parsecs", "'5 parsecs' is not a duration: 'parsecs' is not a unit; use s, m, h, d or w."),
        ("2026-12-24T18:00[Mars/Base]", "'Mars/Base' is not a known time zone."),
        ("2026-12-24T18:00+02:00[Europe/Berlin]", "'2026-12-24T18:00+02:00[Europe/Berlin]' contradicts itself: Europe/Berlin is at +01:00 then, not +02:00."),
    ])
    func badTextIsExplainedInOneSentence(text: String, reason: String) {
        #expect(throws: FieldError("when", reason)) { try parser().trigger(text) }
    }

    /// A phrase that is partly understood blames the word that is not, and shows a phrase
    /// that reads when there is one.
    @Test(arguments: [
        ("tomorrow morning", "'tomorrow morning' is not a time: 'morning' is not understood; give a clock time, as in 'tomorrow 9:00'."),
        ("Friday evening", "'Friday evening' is not a time: 'evening' is not understood; give a clock time, as in 'Friday 18:00'."),
        ("tonight", "'tonight' is not a time: 'tonight' is not understood; give a clock time, as in '21:00'."),
        ("tomorow", "'tomorow' is not a time: 'tomorow' is not understood; did you mean 'tomorrow'?"),
        ("tomorow 9:00", "'tomorow 9:00' is not a time: 'tomorow' is not understood; did you mean 'tomorrow 9:00'?"),
        ("next wensday", "'next wensday' is not a time: 'wensday' is not understood; did you mean 'next wednesday'?"),
        ("febuary 14", "'febuary 14' is not a time: 'febuary' is not understood; did you mean 'february 14'?"),
        ("tomorrow blah", "'tomorrow blah' is not a time: 'blah' is not understood; use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601."),
    ])
    func theWordNotUnderstoodIsNamedWithAPhraseThatReads(text: String, reason: String) {
        #expect(throws: FieldError("when", reason)) { try parser().trigger(text) }
    }

    @Test func anUnknownZoneNamesTheZoneField() {
        #expect(throws: FieldError("zone", "'Mars/Base' is not a known time zone.")) { try parser().trigger("15:00", zone: "Mars/Base") }
        #expect(throws: FieldError("zone", "'' is not a known time zone.")) { try parser().trigger("in 5m", zone: "") }
    }

    // MARK: - Durations

    @Test(arguments: [
        ("20m", 1_200.0), ("1h30m", 5_400), ("90s", 90), ("2d", 172_800), ("1w", 604_800), ("1h 30m", 5_400),
        ("20 minutes", 1_200), ("1 hour 5 min", 3_900), ("2H", 7_200), ("1w2d3h4m5s", 788_645), (" 45 secs ", 45),
    ])
    func durationsAddUp(text: String, seconds: TimeInterval) throws {
        #expect(try WhenParser.duration(text, field: "in") == seconds)
    }

    @Test(arguments: [
        ("", "a duration must not be empty; use 20m, 1h30m, 90s, 2d or 1w."),
        ("0m", "'0m' is not a duration: it must be longer than zero."),
        ("0h 0m", "'0h 0m' is not a duration: it must be longer than zero."),
        ("-5m", "'-5m' is not a duration: it must be longer than zero."),
        ("5", "'5' is not a duration: 5 has no unit; use s, m, h, d or w."),
        ("5 parsecs", "'5 parsecs' is not a duration: 'parsecs' is not a unit; use s, m, h, d or w."),
        // Months and years are units of a repeat, not of a duration: they have no fixed length.
        ("2 months", "'2 months' is not a duration: 'months' is not a unit; use s, m, h, d or w."),
        ("1y", "'1y' is not a duration: 'y' is not a unit; use s, m, h, d or w."),
        ("1.5h", "'1.5h' is not a duration: use whole numbers, as in 1h30m."),
        ("m", "'m' is not a duration; use 20m, 1h30m, 90s, 2d or 1w."),
        ("20m!", "'20m!' is not a duration; use 20m, 1h30m, 90s, 2d or 1w."),
        ("99999999w", "'99999999w' is too long: the limit is 100 years."),
        ("99999999999999999999s", "'99999999999999999999s' is too long: the limit is 100 years."),
    ])
    func badDurationsNameTheirField(text: String, reason: String) {
        #expect(throws: FieldError("late-limit", reason)) { try WhenParser.duration(text, field: "late-limit") }
    }
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
