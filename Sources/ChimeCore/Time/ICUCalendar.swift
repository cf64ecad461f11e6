internal import CICU

/// Month and year steps in the calendars chimed leaves to the system's ICU, opened on the
/// first use of one of them (see CICU.h).
enum ICUCalendar {
    /// A wall-clock time, as seconds since 1970 read as UTC, moved `steps` months (or years,
    /// when `years`) in `calendar` (a CLDR name, ICU's `@calendar=` keyword: ICU answers a
    /// name it does not know with the Gregorian calendar, which CICU refuses); a day the
    /// target month lacks becomes its last. Nil when ICU is missing (``loadFailure``), does
    /// not know the calendar, or the result is out of its range.
    static func adding(_ steps: Int, years: Bool, toSecondsAsUTC seconds: Int, calendar: String) -> Int? {
        guard let amount = Int32(exactly: steps) else { return nil }
        var result: Int64 = 0
        guard chime_icu_add(calendar, Int64(seconds), years ? 1 : 0, amount, &result) == 0 else { return nil }
        return Int(result)
    }

    /// Whole months (or years) from `from` to `to` in `calendar`: the most that can be
    /// added to `from` without passing `to`, negative when `to` is earlier.
    static func count(years: Bool, from: Int, to: Int, calendar: String) -> Int? {
        var result: Int32 = 0
        guard chime_icu_difference(calendar, Int64(from), Int64(to), years ? 1 : 0, &result) == 0 else { return nil }
        return Int(result)
    }

    /// Why ICU cannot be used, or nil when it can. Asking loads it.
    static var loadFailure: String? {
        guard chime_icu_available() == 0 else { return nil }
        return chime_icu_error().map { String(cString: $0) } ?? "ICU could not be loaded"
    }

    /// The version of the ICU in use ("72.1"), for logs; nil when it is not loaded.
    static var version: String? {
        chime_icu_version().map { String(cString: $0) }
    }
}
