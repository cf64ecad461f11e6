import ChimeCore
import Foundation
import Testing

/// An example of RFC 5545 3.8.5.3: its DTSTART in New York, its RRULE, and the occurrences it
/// lists, as wall-clock times there.
struct RFCExample: Sendable, CustomTestStringConvertible {
    var name: String
    var start: String
    var rrule: String
    var expected: [String]

    var testDescription: String { name }
}

struct RuleExpansionTests {
    static func days(_ month: String, _ days: ClosedRange<Int>) -> [String] {
        days.map { month + "-" + ($0 < 10 ? "0\($0)" : "\($0)") + "T09:00" }
    }

    /// 09:00 to 16:40 every 20 minutes on 2 September 1997, then 09:00 the next day.
    static let twentyMinutes: [String] = {
        var times: [String] = []
        for hour in 9...16 {
            for minute in ["00", "20", "40"] { times.append("1997-09-02T" + (hour < 10 ? "0" : "") + String(hour) + ":" + minute) }
        }
        return times + ["1997-09-03T09:00"]
    }()

    static let examples: [RFCExample] = [
        RFCExample(name: "every other week on Monday, Wednesday and Friday until December 24, 1997",
                   start: "1997-09-01T09:00", rrule: "FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000;WKST=SU;BYDAY=MO,WE,FR",
                   expected: ["09-01", "09-03", "09-05", "09-15", "09-17", "09-19", "09-29", "10-01", "10-03", "10-13", "10-15", "10-17",
                              "10-27", "10-29", "10-31", "11-10", "11-12", "11-14", "11-24", "11-26", "11-28", "12-08", "12-10", "12-12",
                              "12-22"].map { "1997-\($0)T09:00" }),
        RFCExample(name: "the third instance into the month of one of Tuesday, Wednesday or Thursday, for the next 3 months",
                   start: "1997-09-04T09:00", rrule: "FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3",
                   expected: ["1997-09-04T09:00", "1997-10-07T09:00", "1997-11-06T09:00"]),
        RFCExample(name: "the second-to-last weekday of the month", start: "1997-09-29T09:00",
                   rrule: "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2;COUNT=7",
                   expected: ["1997-09-29", "1997-10-30", "1997-11-27", "1997-12-30", "1998-01-29", "1998-02-26", "1998-03-30"]
                       .map { $0 + "T09:00" }),
        RFCExample(name: "every 20th Monday of the year", start: "1997-05-19T09:00", rrule: "FREQ=YEARLY;BYDAY=20MO;COUNT=3",
                   expected: ["1997-05-19T09:00", "1998-05-18T09:00", "1999-05-17T09:00"]),
        RFCExample(name: "Monday of week number 20", start: "1997-05-12T09:00", rrule: "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO;COUNT=3",
                   expected: ["1997-05-12T09:00", "1998-05-11T09:00", "1999-05-17T09:00"]),
        RFCExample(name: "every Thursday in March", start: "1997-03-13T09:00", rrule: "FREQ=YEARLY;BYMONTH=3;BYDAY=TH;COUNT=11",
                   expected: ["1997-03-13", "1997-03-20", "1997-03-27", "1998-03-05", "1998-03-12", "1998-03-19", "1998-03-26",
                              "1999-03-04", "1999-03-11", "1999-03-18", "1999-03-25"].map { $0 + "T09:00" }),
        // The RFC leaves the start out with an EXDATE; here the start is no Friday the 13th and so no occurrence.
        RFCExample(name: "every Friday the 13th", start: "1997-09-02T09:00", rrule: "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;COUNT=5",
                   expected: ["1998-02-13", "1998-03-13", "1998-11-13", "1999-08-13", "2000-10-13"].map { $0 + "T09:00" }),
        RFCExample(name: "the first Saturday that follows the first Sunday of the month", start: "1997-09-13T09:00",
                   rrule: "FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13;COUNT=10",
                   expected: ["1997-09-13", "1997-10-11", "1997-11-08", "1997-12-13", "1998-01-10", "1998-02-07", "1998-03-07",
                              "1998-04-11", "1998-05-09", "1998-06-13"].map { $0 + "T09:00" }),
        RFCExample(name: "US Presidential Election day", start: "1996-11-05T09:00",
                   rrule: "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8;COUNT=3",
                   expected: ["1996-11-05T09:00", "2000-11-07T09:00", "2004-11-02T09:00"]),
        // The RFC's UNTIL=19970902T170000Z is 13:00 in New York, yet it lists 15:00: its list reads UNTIL on the wall clock.
        RFCExample(name: "every 3 hours from 9:00 to 17:00 on a specific day", start: "1997-09-02T09:00",
                   rrule: "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000;BYHOUR=9,12,15,18",
                   expected: ["1997-09-02T09:00", "1997-09-02T12:00", "1997-09-02T15:00"]),
        RFCExample(name: "every 20 minutes from 9:00 to 16:40 every day", start: "1997-09-02T09:00",
                   rrule: "FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40;COUNT=25",
                   expected: twentyMinutes),
        RFCExample(name: "every 20 minutes from 9:00 to 16:40, minutely", start: "1997-09-02T09:00",
                   rrule: "FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16;COUNT=25",
                   expected: twentyMinutes),
        RFCExample(name: "every day in January, for 3 years", start: "1998-01-01T09:00",
                   rrule: "FREQ=YEARLY;UNTIL=20000131T140000;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA",
                   expected: days("1998-01", 1...31) + days("1999-01", 1...31) + days("2000-01", 1...31)),
        RFCExample(name: "every day in January, for 3 years, daily", start: "1998-01-01T09:00",
                   rrule: "FREQ=DAILY;UNTIL=20000131T140000;BYMONTH=1",
                   expected: days("1998-01", 1...31) + days("1999-01", 1...31) + days("2000-01", 1...31)),
        RFCExample(name: "monthly on the first and last day of the month for 10 occurrences", start: "1997-09-30T09:00",
                   rrule: "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1",
                   expected: ["1997-09-30", "1997-10-01", "1997-10-31", "1997-11-01", "1997-11-30", "1997-12-01", "1997-12-31",
                              "1998-01-01", "1998-01-31", "1998-02-01"].map { $0 + "T09:00" }),
        RFCExample(name: "every 18 months on the 10th thru 15th of the month for 10 occurrences", start: "1997-09-10T09:00",
                   rrule: "FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15",
                   expected: days("1997-09", 10...15) + days("1999-03", 10...13)),
        RFCExample(name: "every third year on the 1st, 100th and 200th day for 10 occurrences", start: "1997-01-01T09:00",
                   rrule: "FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200",
                   expected: ["1997-01-01", "1997-04-10", "1997-07-19", "2000-01-01", "2000-04-09", "2000-07-18", "2003-01-01",
                              "2003-04-10", "2003-07-19", "2006-01-01"].map { $0 + "T09:00" }),
        RFCExample(name: "yearly in June and July for 10 occurrences", start: "1997-06-10T09:00", rrule: "FREQ=YEARLY;COUNT=10;BYMONTH=6,7",
                   expected: (1997...2001).flatMap { ["\($0)-06-10T09:00", "\($0)-07-10T09:00"] }),
        RFCExample(name: "where the days generated make a difference because of WKST=MO", start: "1997-08-05T09:00",
                   rrule: "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO",
                   expected: ["1997-08-05T09:00", "1997-08-10T09:00", "1997-08-19T09:00", "1997-08-24T09:00"]),
        RFCExample(name: "where the days generated make a difference because of WKST=SU", start: "1997-08-05T09:00",
                   rrule: "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU",
                   expected: ["1997-08-05T09:00", "1997-08-17T09:00", "1997-08-19T09:00", "1997-08-31T09:00"]),
        RFCExample(name: "an invalid date (February 30) is ignored", start: "2007-01-15T09:00", rrule: "FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5",
                   expected: ["2007-01-15T09:00", "2007-01-30T09:00", "2007-02-15T09:00", "2007-03-15T09:00", "2007-03-30T09:00"]),
    ]

    @Test(arguments: examples)
    func theRFCsExamplesGiveTheOccurrencesItLists(_ example: RFCExample) throws {
        let rule = try zoned("America/New_York", example.start, example.rrule)
        let zone = try #require(Zone(identifier: "America/New_York"))
        let found = rule.upcoming(from: .distantPast, count: example.expected.count + 5, systemZone: zone)
        #expect(found.map { String(LocalDateTime($0, in: zone).description.prefix(16)) } == example.expected)
    }

    /// The last work day of the month, which RFC 5545 gives as BYSETPOS's example, years on:
    /// found from the period of the instant asked about, with its index counted.
    @Test func theLastWorkDayOfTheMonthYearsAhead() throws {
        let rule = try zoned("Europe/Berlin", "2026-01-01T17:00", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1")
        let zone = try #require(Zone(identifier: "Europe/Berlin"))
        let start = try #require(LocalDateTime(iso: "2036-05-01T00:00")).date(in: zone)
        let found = try #require(rule.firstOccurrence(onOrAfter: start, systemZone: zone))
        #expect(LocalDateTime(found.date, in: zone).description == "2036-05-30T17:00:00")
        #expect(found.index == 124)
        #expect(rule.occurrence(found.index, systemZone: zone) == found.date)
        #expect(rule.upcoming(from: start, count: 3, systemZone: zone).map { LocalDateTime($0, in: zone).description }
            == ["2036-05-30T17:00:00", "2036-06-30T17:00:00", "2036-07-31T17:00:00"])
    }

    @Test(arguments: ["FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=2", "FREQ=DAILY;BYMONTH=4;BYMONTHDAY=31",
                      "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=-30", "FREQ=MINUTELY;BYYEARDAY=366;BYHOUR=3;BYMONTH=1",
                      "FREQ=HOURLY;INTERVAL=2;BYHOUR=1,3", "FREQ=YEARLY;INTERVAL=400;BYMONTH=2;BYMONTHDAY=29"])
    func aRuleThatNeverOccursHasNoOccurrenceSoon(_ text: String) throws {
        let rule = try zoned("UTC", "2026-01-01T10:00", text)
        let began = Date()
        #expect(rule.occurrence(0, systemZone: .utc) == nil)
        #expect(rule.nextOccurrence(after: Date(timeIntervalSince1970: 2_000_000_000), systemZone: .utc) == nil)
        #expect(rule.upcoming(from: .distantPast, count: 5, systemZone: .utc).isEmpty)
        #expect(Date().timeIntervalSince(began) < 20, "gave up in \(Date().timeIntervalSince(began)) s")
    }

    @Test(arguments: [
        ("FREQ=MONTHLY;BYDAY=6MO", "BYDAY 6MO: a month has at most 5 of a weekday; number it 1 to 5 or -5 to -1."),
        ("FREQ=YEARLY;BYDAY=-54FR", "BYDAY -54FR: a year has at most 53 of a weekday; number it 1 to 53 or -53 to -1."),
        ("FREQ=WEEKLY;BYDAY=2MO", "BYDAY 2MO: a numbered weekday needs FREQ=MONTHLY or FREQ=YEARLY (RFC 5545 3.3.10)."),
        ("FREQ=YEARLY;BYWEEKNO=3;BYDAY=1MO", "BYDAY 1MO cannot be numbered beside BYWEEKNO (RFC 5545 3.3.10)."),
        ("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", "BYSETPOS=0 is not a position in a period; use 1 to 366 or -366 to -1."),
        ("FREQ=DAILY;BYSETPOS=1", "BYSETPOS needs another BY part to pick from (RFC 5545 3.3.10)."),
        ("FREQ=MONTHLY;BYMONTHDAY=0", "BYMONTHDAY=0 is not a day of a month; use 1 to 31 or -31 to -1."),
        ("FREQ=MONTHLY;BYMONTHDAY=32", "BYMONTHDAY=32 is not a day of a month; use 1 to 31 or -31 to -1."),
        ("FREQ=DAILY;BYHOUR=24", "BYHOUR=24 is not an hour; use 0 to 23."),
        ("FREQ=DAILY;BYMINUTE=60", "BYMINUTE=60 is not a minute; use 0 to 59."),
        ("FREQ=DAILY;BYSECOND=60", "BYSECOND=60 is not a second Chime fires at; use 0 to 59."),
        ("FREQ=YEARLY;BYWEEKNO=54", "BYWEEKNO=54 is not a week of a year; use 1 to 53 or -53 to -1."),
        ("FREQ=YEARLY;BYYEARDAY=367", "BYYEARDAY=367 is not a day of a year; use 1 to 366 or -366 to -1."),
        ("FREQ=YEARLY;BYMONTH=13", "BYMONTH=13 is not a month; use 1 to 12."),
        ("FREQ=YEARLY;BYMONTH=x", "BYMONTH=X: 'X' is not a whole number."),
        ("FREQ=MONTHLY;BYWEEKNO=3", "BYWEEKNO goes with FREQ=YEARLY only (RFC 5545 3.3.10)."),
        ("FREQ=MONTHLY;BYYEARDAY=3", "BYYEARDAY does not go with FREQ=MONTHLY (RFC 5545 3.3.10)."),
        ("FREQ=WEEKLY;BYMONTHDAY=3", "BYMONTHDAY does not go with FREQ=WEEKLY (RFC 5545 3.3.10)."),
        ("FREQ=DAILY;COUNT=3;UNTIL=20301231T000000Z", "COUNT and UNTIL cannot both end one rule (RFC 5545 3.3.10); keep one."),
        ("FREQ=MONTHLY;BYMONTHDAY=5;RSCALE=GREGORIAN;SKIP=FORWARD",
         "SKIP=FORWARD goes with a rule without BY parts; leave SKIP out of one with them."),
        ("FREQ=DAILY;BYEASTER=0", "BYEASTER is not supported; use FREQ, INTERVAL, COUNT, UNTIL, the BY parts of RFC 5545, WKST "
            + "and RSCALE=GREGORIAN with SKIP."),
    ])
    func refusalsNameThePart(_ text: String, _ sentence: String) {
        #expect(throws: FieldError("rrule", sentence)) { try Recurrence.parse(rrule: text) }
    }

    /// The stored text is the rule: a rule with BY parts reads back as it is written, and
    /// one that Chime's days say keeps their text.
    @Test(arguments: [
        "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=YEARLY;INTERVAL=4;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8;BYMONTH=11",
        "FREQ=YEARLY;BYDAY=MO;BYWEEKNO=20,-1;WKST=SU;COUNT=3", "FREQ=HOURLY;INTERVAL=3;BYHOUR=9,12,15;UNTIL=19970902T170000",
        "FREQ=MINUTELY;BYSECOND=0,30;BYMINUTE=5;BYYEARDAY=-1", "FREQ=MONTHLY;BYMONTHDAY=15,-3", "FREQ=DAILY;BYDAY=MO",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;WKST=SU", "FREQ=MONTHLY;BYDAY=5FR,-2MO",
    ])
    func rulesWithPartsReadBackAsWritten(_ text: String) throws {
        let recurrence = try Recurrence.parse(rrule: text).0
        #expect(recurrence.parts != nil)
        #expect(recurrence.rrule() == text)
        #expect(try Recurrence.parse(rrule: recurrence.rrule()).0 == recurrence)
    }

    @Test func partsNeedTheGregorianCalendar() throws {
        let (recurrence, _) = try Recurrence.parse(rrule: "FREQ=MONTHLY;BYMONTHDAY=15")
        let start = try #require(LocalDateTime(iso: "2026-11-30T09:00"))
        let error = #expect(throws: FieldError.self) { try FireRule(trigger: .floating(start), recurrence: recurrence, calendar: "hebrew") }
        #expect(error?.field == "on")
    }
}
