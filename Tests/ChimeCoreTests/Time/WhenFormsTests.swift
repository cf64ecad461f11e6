import ChimeCore
import Foundation
import Testing

/// Sunday 2026-11-22, 10:00 in Berlin: every form the table of docs/scheduling.md shows,
/// read at one fixed instant in one fixed zone.
private let now = instant("2026-11-22T10:00:00+01:00")

private func parser(_ order: WhenParser.DateOrder? = .monthFirst, at date: Date = now) throws -> WhenParser {
    WhenParser(now: date, systemZone: try #require(Zone(identifier: "Europe/Berlin")), dateOrder: order)
}

private func local(_ text: String) -> LocalDateTime {
    guard let local = LocalDateTime(iso: text) else {
        Issue.record("'\(text)' is not a local date and time")
        return LocalDateTime(year: 1, month: 1, day: 1)
    }
    return local
}

private let usage = "use 15:00, 3pm, noon, tomorrow, fri 9:00, next fri, dec 24 18:00, 24.12.2026, in 2 hours, now + 1 day or ISO 8601"

struct WhenFormsTests {
    @Test(arguments: [
        // at(1)'s words: today if still ahead, else tomorrow.
        ("noon", "2026-11-22T12:00"), ("midnight", "2026-11-23T00:00"), ("teatime", "2026-11-22T16:00"),
        // 12- and 24-hour clocks: 12am is midnight, 12pm noon.
        ("12am", "2026-11-23T00:00"), ("12pm", "2026-11-22T12:00"), ("12:30 AM", "2026-11-23T00:30"), ("9:15pm", "2026-11-22T21:15"),
        ("21:15", "2026-11-22T21:15"), ("9:59", "2026-11-23T09:59"),
        // A day without a time takes the current time of day.
        ("tomorrow", "2026-11-23T10:00"), ("Tomorrow", "2026-11-23T10:00"),
        ("friday", "2026-11-27T10:00"), ("mon", "2026-11-23T10:00"),
        // A weekday alone on that weekday is a week away; with a time still ahead, today.
        ("sunday", "2026-11-29T10:00"), ("sun 11:00", "2026-11-22T11:00"),
        // "next" is the first such day after today, never today.
        ("next friday", "2026-11-27T10:00"), ("next sunday", "2026-11-29T10:00"), ("next sun 11:00", "2026-11-29T11:00"),
        ("next week", "2026-11-29T10:00"), ("next month", "2026-12-22T10:00"), ("next year", "2027-11-22T10:00"),
        ("next day", "2026-11-23T10:00"),
        // Month names in both orders, with an optional year: this year if still ahead.
        ("dec 24 18:00", "2026-12-24T18:00"), ("24 dec", "2026-12-24T10:00"), ("24 december 2027 9am", "2027-12-24T09:00"),
        ("December 24th, 2027", "2027-12-24T10:00"), ("dec 24, 2027 18:00", "2027-12-24T18:00"), ("Sept 1st", "2027-09-01T10:00"),
        ("nov 22 9:00", "2027-11-22T09:00"), ("nov 22 11:00", "2026-11-22T11:00"), ("22 nov", "2027-11-22T10:00"),
        ("feb 29", "2028-02-29T10:00"), ("18:00 dec 24", "2026-12-24T18:00"),
        // The time before or after the day.
        ("18:00 tomorrow", "2026-11-23T18:00"), ("10am monday", "2026-11-23T10:00"), ("noon tomorrow", "2026-11-23T12:00"),
        ("teatime friday", "2026-11-27T16:00"), ("midnight tomorrow", "2026-11-23T00:00"), ("9:30 pm friday", "2026-11-27T21:30"),
        ("at 9:00 tomorrow", "2026-11-23T09:00"), ("tomorrow at noon", "2026-11-23T12:00"), ("8am 2026-12-24", "2026-12-24T08:00"),
        // Numeric dates: dotted is day first everywhere; slashed follows the locale (month first here).
        ("24.12.2026 18:00", "2026-12-24T18:00"), ("24.12. 18:00", "2026-12-24T18:00"), ("24.12.2026", "2026-12-24T10:00"),
        ("1.3.", "2027-03-01T10:00"), ("12/24 18:00", "2026-12-24T18:00"), ("12/24/2027", "2027-12-24T10:00"),
        ("2026-12-24", "2026-12-24T10:00"),
        // Calendar units keep the clock time.
        ("in 2 days", "2026-11-24T10:00"), ("in 1 week", "2026-11-29T10:00"), ("in 1 month", "2026-12-22T10:00"),
        ("in 1 year", "2027-11-22T10:00"), ("in 2d", "2026-11-24T10:00"), ("IN 1W", "2026-11-29T10:00"),
        ("in 1 week 2 days", "2026-12-01T10:00"), ("now + 1 day", "2026-11-23T10:00"), ("now +2 weeks", "2026-12-06T10:00"),
        ("4pm + 3 days", "2026-11-25T16:00"), ("tomorrow + 1 week", "2026-11-30T10:00"), ("now+2days", "2026-11-24T10:00"),
        ("noon+1 day", "2026-11-23T12:00"), ("in a week", "2026-11-29T10:00"), ("now + a day", "2026-11-23T10:00"),
        // `today` alone is refused; as the start of a sum it is today.
        ("today + 2 days", "2026-11-24T10:00"),
        // at(1)'s HHMM leads, alone or before the day.
        ("1500", "2026-11-22T15:00"), ("0930", "2026-11-23T09:30"), ("0000", "2026-11-23T00:00"), ("1500 tomorrow", "2026-11-23T15:00"),
        ("1800 dec 24", "2026-12-24T18:00"),
        // A weekday before a date confirms it.
        ("friday dec 25", "2026-12-25T10:00"), ("Fri, Dec 25 18:00", "2026-12-25T18:00"), ("fri 25.12.", "2026-12-25T10:00"),
        ("friday 24 december 2027 9am", "2027-12-24T09:00"),
    ])
    func wallClockForms(text: String, expected: String) throws {
        #expect(try parser().trigger(text) == .floating(local(expected)))
    }

    @Test(arguments: [
        ("24/12 18:00", "2026-12-24T18:00"), ("24/12/2027", "2027-12-24T10:00"), ("24.12. 18:00", "2026-12-24T18:00"),
    ])
    func slashesFollowADayFirstLocale(text: String, expected: String) throws {
        #expect(try parser(.dayFirst).trigger(text) == .floating(local(expected)))
    }

    @Test(arguments: [
        ("now", 0.0), ("now + 1 hour", 3_600), ("now +30 minutes", 1_800), ("in 2 hours 30 minutes", 9_000),
        ("in 1 day 2 hours", 93_600), ("noon + 1 hour", 10_800), ("now + 1h30m", 5_400), ("now+1hour", 3_600), ("NOW+5min", 300),
        ("in an hour", 3_600), ("in a minute", 60), ("now + an hour", 3_600),
    ])
    func elapsedUnitsMakeInstants(text: String, seconds: TimeInterval) throws {
        #expect(try parser().trigger(text) == .absolute(now.addingTimeInterval(seconds)))
    }

    @Test func daysKeepTheClockAcrossDSTAndHoursKeepElapsedTime() throws {
        let berlin = try #require(Zone(identifier: "Europe/Berlin"))
        // 14:37 in summer time, four weeks before the clocks go back on 25 October.
        let october = try parser(at: instant("2026-10-10T14:37:00+02:00"))
        #expect(try october.trigger("in 4 weeks") == .floating(local("2026-11-07T14:37")))
        #expect(try october.trigger("now + 28 days") == .floating(local("2026-11-07T14:37")))
        guard case .absolute(let elapsed) = try october.trigger("in 672 hours") else { Issue.record("not an instant"); return }
        #expect(LocalDateTime(elapsed, in: berlin) == local("2026-11-07T13:37"))
        // The evening before the clocks go forward: a day later is 23 hours later.
        let march = try parser(at: instant("2026-03-28T20:00:00+01:00"))
        #expect(try march.trigger("in 1 day") == .floating(local("2026-03-29T20:00")))
        #expect(local("2026-03-29T20:00").date(in: berlin) == instant("2026-03-28T20:00:00+01:00").addingTimeInterval(23 * 3_600))
        #expect(try march.trigger("in 24 hours") == .absolute(instant("2026-03-29T21:00:00+02:00")))
    }

    @Test func aMonthLaterIsHeldToTheMonthsEnd() throws {
        let january = try parser(at: instant("2027-01-31T09:00:00+01:00"))
        #expect(try january.trigger("in 1 month") == .floating(local("2027-02-28T09:00")))
        #expect(try january.trigger("next month") == .floating(local("2027-02-28T09:00")))
    }

    @Test func aZonePinsTheSpokenForms() throws {
        #expect(try parser().trigger("tomorrow", zone: "America/New_York") == .zoned(local("2026-11-23T04:00"), zone: "America/New_York"))
        #expect(try parser().trigger("in 2 days", zone: "america/new_york") == .zoned(local("2026-11-24T04:00"), zone: "America/New_York"))
    }

    @Test(arguments: [
        ("20261224T1800Z", "2026-12-24T18:00:00Z"), ("20261224T180000+0100", "2026-12-24T17:00:00Z"),
        ("20261224t173000-05", "2026-12-24T22:30:00Z"),
    ])
    func iso8601BasicFormatIsRead(text: String, expected: String) throws {
        #expect(try parser().trigger(text) == .absolute(instant(expected)))
    }

    @Test func bracketedZonesAreFoundWhateverTheirCase() throws {
        #expect(try parser().trigger("2026-12-24T18:00[europe/paris]") == .zoned(local("2026-12-24T18:00"), zone: "Europe/Paris"))
        #expect(try parser().trigger("2026-12-24T18:00[AMERICA/NEW_YORK]") == .zoned(local("2026-12-24T18:00"), zone: "America/New_York"))
    }

    @Test func anOffsetChoosesBetweenTheTwoTimesOfAFallBackOverlap() throws {
        // 02:30 on 25 October 2026 happens twice in Berlin: at +02:00, then at +01:00.
        #expect(try parser().trigger("2026-10-25T02:30+02:00[Europe/Berlin]") == .zoned(local("2026-10-25T02:30"), zone: "Europe/Berlin"))
        #expect(try parser().trigger("2026-10-25T02:30+01:00[Europe/Berlin]") == .absolute(instant("2026-10-25T01:30:00Z")))
    }

    @Test(arguments: [
        ("someday 9:00", "'someday 9:00' is not a time: 'someday' is not understood; \(usage)."),
        ("whenever", "'whenever' is not a time: 'whenever' is not understood; \(usage)."),
        ("15", "'15' is not a time: '15' is not understood; \(usage)."),
        ("next blursday", "'next blursday' is not a time: 'blursday' is not understood; \(usage)."),
        ("dec 32", "'dec 32' is not a valid date: December has no day 32."),
        ("friday dec 24", "'friday dec 24': Dec 24 2026 is a Thursday, not a Friday; leave the weekday out or correct the date."),
        ("2460", "'2460' is not a valid time: hour 24 is out of range."),
        ("in a", "'a' is not a duration; use 20m, 1h30m, 90s, 2d or 1w."),
        ("feb 30", "'feb 30' is not a valid date: February has no day 30."),
        ("31.4.", "'31.4.' is not a valid date: April has no day 31."),
        ("2026-02-30", "'2026-02-30' is not a valid date: February 2026 has 28 days."),
        ("24/12 18:00", "'24/12 18:00': '24/12' is no date read as month/day, as the locale orders it; write 24 dec or 2026-12-24."),
        ("13.24.", "'13.24.': '13.24.' is no date read as day.month., as the locale orders it; write 24 dec or 2026-12-24."),
        ("24.12.26", "'24.12.26': write the year of '24.12.26' with four digits."),
        ("dec 24 20271", "'dec 24 20271': write the year '20271' with four digits."),
        ("20271-12-24T18:00", "'20271-12-24T18:00' has a year of more than four digits; write it as in 2026-12-24 18:00."),
        ("2026-12-24T18:00+24:00",
         "'2026-12-24T18:00+24:00' has the offset '+24:00', which is not one: use Z or ±HH:MM from -23:59 to +23:59."),
        ("2026-12-24T18:00+1", "'2026-12-24T18:00+1' has the offset '+1', which is not one: use Z or ±HH:MM from -23:59 to +23:59."),
        ("2026-12-24T18:00[Europe/Berlin", "'2026-12-24T18:00[Europe/Berlin' has a '[' without its ']'."),
        ("now +", "'now +' needs a duration after '+', as in 'now + 1 hour'."),
        ("now + 5 parsecs", "'5 parsecs' is not a duration: 'parsecs' is not a unit; use s, m, h, d or w."),
        ("in 0 days", "'0 days' is not a duration: it must be longer than zero."),
        ("in 200 years", "'200 years' is too long: the limit is 100 years."),
        // Today at the current time of day would be now: "--at today" is a time left out.
        ("today", "'today' needs a time of day, as in 'today 18:00' (today alone would be now)."),
        ("Today", "'Today' needs a time of day, as in 'today 18:00' (today alone would be now)."),
    ])
    func errorsNameWhatWasNotUnderstood(text: String, reason: String) throws {
        #expect(throws: FieldError("when", reason)) { try parser().trigger(text) }
    }

    @Test func withoutALocaleOrderSlashesAreRefusedWithASuggestion() throws {
        #expect(throws: FieldError("when", "'12/24 18:00': the locale gives no order of day and month for '12/24'; write 24 dec or 2026-12-24.")) {
            try parser(nil).trigger("12/24 18:00")
        }
        // Dots are day first in every locale that writes them.
        #expect(try parser(nil).trigger("24.12.2026 18:00") == .floating(local("2026-12-24T18:00")))
    }

    @Test(arguments: [
        ("%m/%d/%y", WhenParser.DateOrder.monthFirst), ("%d.%m.%Y", .dayFirst), ("%d/%m/%Y", .dayFirst), ("%Y-%m-%d", .monthFirst),
        ("%D", .monthFirst), ("%Y年%m月%d日", .monthFirst), ("%e.%m.%Y", .dayFirst),
    ])
    func theLocalesDateFormatGivesTheOrder(format: String, order: WhenParser.DateOrder) {
        #expect(WhenParser.DateOrder.order(ofFormat: format) == order)
    }
}

private func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else {
        Issue.record("'\(text)' is not an ISO 8601 instant")
        return .distantPast
    }
    return date
}
