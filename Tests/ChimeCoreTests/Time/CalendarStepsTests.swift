@testable import ChimeCore
import Foundation
import Testing

/// Month and year repeats in the proleptic Gregorian and the Hebrew calendars, against
/// Python: its `datetime` is proleptic Gregorian, and `convertdate` (python3-convertdate)
/// computes Hebrew dates on its own.
struct CalendarStepsTests {
    /// The wall-clock times of occurrences 0..<count of an absolute rule in UTC.
    private func occurrences(_ rule: FireRule, _ count: Int) -> [String] {
        (0..<count).map { n in
            rule.occurrence(n, systemZone: .utc).map { LocalDateTime($0, in: .utc).description } ?? "none"
        }
    }

    private func rule(_ start: String, _ unit: RepeatUnit, every: Int = 1, calendar: String) throws -> FireRule {
        let local = try #require(LocalDateTime(iso: start))
        return try FireRule(
            trigger: .absolute(local.date(in: .utc)), recurrence: Recurrence(unit: unit, count: every), calendar: calendar)
    }

    @Test(arguments: [
        ("1500-01-31T09:00:00", RepeatUnit.month, 1, 1_300), ("1580-08-31T09:00:00", .month, 1, 60),
        ("1200-02-29T12:00:00", .year, 1, 900), ("1581-10-10T00:00:00", .year, 1, 3), ("0004-12-31T23:59:59", .month, 7, 500),
    ])
    func gregorianStepsAreProlepticAsInPython(start: String, unit: RepeatUnit, every: Int, count: Int) throws {
        let expected = try python("""
            import calendar, datetime
            start = datetime.datetime.fromisoformat('\(start)')
            for n in range(\(count)):
                months = n * \(every) * (12 if '\(unit)' == 'year' else 1)
                total = start.year * 12 + start.month - 1 + months
                y, m = divmod(total, 12)
                d = min(start.day, calendar.monthrange(y, m + 1)[1])
                print(start.replace(year=y, month=m + 1, day=d).isoformat())
            """)
        #expect(occurrences(try rule(start, unit, every: every, calendar: "gregorian"), count) == expected)
    }

    @Test func aMonthlyRepeatCrossesFifteen82WithoutLosingTenDays() throws {
        // Foundation's gregorian calendar is Julian before 1582-10-15: 1582-09-20 plus one month was 1582-10-30.
        let rule = try rule("1582-09-20T09:00:00", .month, calendar: "gregorian")
        #expect(occurrences(rule, 3) == ["1582-09-20T09:00:00", "1582-10-20T09:00:00", "1582-11-20T09:00:00"])
        let japanese = try self.rule("1500-03-01T00:00:00", .year, calendar: "japanese")
        #expect(occurrences(japanese, 2) == ["1500-03-01T00:00:00", "1501-03-01T00:00:00"])
    }

    /// convertdate numbers months from Nisan (1) to Adar (12) and Adar II (13); Chime, as
    /// Foundation, from Tishri (1) to Adar I (6), Adar or Adar II (7), Elul (13).
    private static let convertdateMonths = """
        from convertdate import hebrew
        import datetime
        def months(y):
            return [7, 8, 9, 10, 11, 12] + ([13] if hebrew.leap(y) else []) + [1, 2, 3, 4, 5, 6]
        def chime_month(y, m):
            if 7 <= m <= 11: return m - 6
            if m == 12: return 6 if hebrew.leap(y) else 7
            if m == 13: return 7
            return m + 7
        def convertdate_month(y, cm):
            if cm <= 5: return cm + 6
            if cm == 6: return 12
            if cm == 7: return 13 if hebrew.leap(y) else 12
            return cm - 7

        """

    @Test func hebrewDatesAgreeWithConvertdateDayByDay() throws {
        let expected = try python(Self.convertdateMonths + """
            day = datetime.date(2020, 1, 1)
            while day.year < 2050:
                y, m, d = hebrew.from_gregorian(day.year, day.month, day.day)
                print(y, chime_month(y, m), d)
                day += datetime.timedelta(days=1)
            """)
        let start = LocalDateTime(year: 2020, month: 1, day: 1).days
        let days = (0..<expected.count).map { HebrewDate(days: start + $0) }
        let mismatches = zip(days.indices, days).filter { "\($1.year) \($1.month) \($1.day)" != expected[$0] }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3).map { (LocalDateTime(secondsAsUTC: (start + $0.0) * 86_400), $0.1) })")
        #expect(days.allSatisfy { HebrewDate(days: $0.days) == $0 })
        let lengths = try python("from convertdate import hebrew\nfor y in range(5780, 5811): print(int(hebrew.year_days(y)))")
        #expect((5780...5810).map { String(HebrewDate.daysInYear($0)) } == lengths)
    }

    @Test(arguments: ["2026-03-09T09:00:00", "2024-03-10T08:00:00", "2024-12-01T07:30:00", "2025-12-20T10:00:00"])
    func hebrewMonthlyRepeatsStepThroughTheMonthsEachYearHas(start: String) throws {
        let count = 300
        let expected = try python(Self.convertdateMonths + """
            start = datetime.datetime.fromisoformat('\(start)')
            y, m, d = hebrew.from_gregorian(start.year, start.month, start.day)
            sequence = []
            for year in range(y, y + 30):
                # convertdate's year changes at Tishri (7), so the pairs run in calendar order.
                sequence += [(year, mm) for mm in months(year)]
            i = sequence.index((y, m))
            for n in range(\(count)):
                yy, mm = sequence[i + n]
                dd = min(d, hebrew.month_days(yy, mm))
                g = hebrew.to_gregorian(yy, mm, dd)
                print(datetime.datetime(*g, start.hour, start.minute, start.second).isoformat())
            """)
        #expect(occurrences(try rule(start, .month, calendar: "hebrew"), count) == expected)
    }

    @Test func theTwoHundredThirtiethMonthlyOccurrenceIsTwelveSeptember2044() throws {
        // 2026-03-09 is 20 Adar 5786; the 230th occurrence (229 months on) is 20 Elul 5804 and
        // the next 20 Tishri 5805 (convertdate). Foundation made them 2044-10-11 and 2044-11-10.
        let rule = try rule("2026-03-09T09:00:00", .month, calendar: "hebrew")
        func local(_ n: Int) -> String? { rule.occurrence(n, systemZone: .utc).map { LocalDateTime($0, in: .utc).description } }
        #expect(local(229) == "2044-09-12T09:00:00")
        #expect(local(230) == "2044-10-11T09:00:00")
        #expect(rule.nextOccurrence(after: Date(timeIntervalSince1970: 2_357_000_000), systemZone: .utc) != nil)
    }

    @Test(arguments: ["2024-03-10T09:00:00", "2025-03-15T09:00:00", "2024-12-01T09:00:00", "2023-09-16T09:00:00"])
    func hebrewYearlyRepeatsAgreeWithConvertdate(start: String) throws {
        // Adar I (a leap year's sixth month) is Adar in a common year; Adar is Adar II in a leap year.
        let count = 40
        let expected = try python(Self.convertdateMonths + """
            start = datetime.datetime.fromisoformat('\(start)')
            y, m, d = hebrew.from_gregorian(start.year, start.month, start.day)
            chime = chime_month(y, m)
            for n in range(\(count)):
                yy = y + n
                cm = 7 if chime == 6 and not hebrew.leap(yy) else chime
                mm = convertdate_month(yy, cm)
                dd = min(d, hebrew.month_days(yy, mm))
                g = hebrew.to_gregorian(yy, mm, dd)
                print(datetime.datetime(*g, start.hour, start.minute, start.second).isoformat())
            """)
        #expect(occurrences(try rule(start, .year, calendar: "hebrew"), count) == expected)
    }

    /// ICU answers a calendar name it does not know with the Gregorian calendar, silently:
    /// a month on from 9 March 2026 is 9 April only there (and in the calendars that number
    /// years otherwise). In the lunar, Coptic, Ethiopian, Indian and Persian calendars the
    /// 18th or so of one month is the 7th or 8th of April.
    @Test func everyCalendarOfferedDiffersFromGregorianWhereItShould() throws {
        let gregorianFamily: Set<String> = ["gregorian", "iso8601", "buddhist", "japanese", "republicOfChina"]
        let start = LocalDateTime(year: 2026, month: 3, day: 9, hour: 12)
        for (name, _) in FireRule.calendars {
            let rule = try rule(start.description, .month, calendar: name)
            let next = try #require(rule.occurrence(1, systemZone: .utc), "\(name) has no second month")
            let fields = LocalDateTime(next, in: .utc)
            let onTheNinth = (fields.month, fields.day) == (4, 9)
            #expect(onTheNinth == gregorianFamily.contains(name), "\(name): \(fields)")
        }
    }

    /// ICU's calendars are cached and moved by each step: steps from many threads at once
    /// (as tests run) must each get the answer they get alone.
    @Test func icuStepsFromManyThreadsAtOnceAgreeWithStepsAlone() async throws {
        let calendars = ["coptic", "chinese", "persian", "islamic-civil", "indian", "dangi"]
        func steps(_ calendar: String) -> [Int?] {
            (0..<200).map { ICUCalendar.adding($0 % 25, years: $0 % 2 == 0, toSecondsAsUTC: 1_773_014_400 + $0 * 86_400, calendar: calendar) }
        }
        let alone = calendars.map(steps)
        #expect(alone.allSatisfy { $0.allSatisfy { $0 != nil } }, "ICU: \(ICUCalendar.loadFailure ?? "loaded")")
        let together = await withTaskGroup(of: (Int, [Int?]).self) { group in
            for _ in 0..<4 {
                for (index, calendar) in calendars.enumerated() { group.addTask { (index, steps(calendar)) } }
            }
            return await group.reduce(into: [(Int, [Int?])]()) { $0.append($1) }
        }
        for (index, result) in together {
            let differing = zip(result, alone[index]).filter { $0 != $1 }.count
            #expect(differing == 0, "\(calendars[index]): \(differing) of \(result.count) steps differ")
        }
    }

    @Test(arguments: ["vietnamese", "ethiopicAmeteAlem", "ethioaa"])
    func calendarsNotOfferedAreRefusedWithTheList(name: String) throws {
        let error = #expect(throws: FieldError.self) {
            try FireRule(trigger: .floating(LocalDateTime(year: 2026, month: 1, day: 1)), calendar: name)
        }
        #expect(error?.field == "calendar")
        #expect(error?.reason == "'\(name)' is not a known calendar; use one of \(FireRule.calendars.map(\.name).joined(separator: ", ")).")
        #expect(FireRule.storedCalendar(name == "ethioaa" ? "ethiopicAmeteAlem" : name) == "gregorian")
    }

    /// The lines `script` prints when run by Debian's python3 (where python3-convertdate is).
    private func python(_ script: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let problem = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(String(decoding: problem, as: UTF8.self))")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
