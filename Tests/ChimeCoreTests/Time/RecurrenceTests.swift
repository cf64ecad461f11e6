import ChimeCore
import Testing

struct RecurrenceTests {
    @Test(arguments: [0, -1, Int.min])
    func aCountBelowOneIsRefused(count: Int) {
        #expect(throws: FieldError("every", "the count must be 1 or more, not \(count).")) { try Recurrence(unit: .day, count: count) }
    }

    @Test(arguments: [
        ("day", RepeatUnit.day, 1), ("2 weeks", .week, 2), ("30 minutes", .minute, 30), ("30min", .minute, 30),
        ("Hourly", .hour, 1), ("daily", .day, 1), ("weekly", .week, 1), ("monthly", .month, 1), ("yearly", .year, 1),
        ("annually", .year, 1), ("3 months", .month, 3), ("2h", .hour, 2), ("1 Year", .year, 1),
    ])
    func readsIntervals(text: String, unit: RepeatUnit, count: Int) throws {
        #expect(try Recurrence(parsing: text) == Recurrence(unit: unit, count: count))
    }

    @Test func badIntervalsNameTheField() {
        #expect(throws: FieldError("every", "the count must be 1 or more, not 0.")) { try Recurrence(parsing: "0 days") }
        #expect(throws: FieldError(
            "repeat",
            "'fortnightly' is not a repeat interval; use a unit (minute, hour, day, week, month, year) with an optional count, as in 30 minutes or 2 weeks."
        )) { try Recurrence(parsing: "fortnightly", field: "repeat") }
        // Seconds are a unit of a duration, not of a repeat.
        #expect(throws: FieldError(
            "repeat",
            "'30s' is not a repeat interval; use a unit (minute, hour, day, week, month, year) with an optional count, as in 30 minutes or 2 weeks."
        )) { try Recurrence(parsing: "30s", field: "repeat") }
        #expect(throws: FieldError("every", "'99999999999 days' is not a repeat interval: the count is too large.")) {
            try Recurrence(parsing: "99999999999 days")
        }
    }
}
