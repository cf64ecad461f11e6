import FoundationEssentials

/// What a server answered.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, names lowercased; a repeated field's values joined with ", "
    /// (RFC 9110 §5.3).
    public var headers: [String: String]
    /// The body, decoded from any Content-Encoding.
    public var body: [UInt8]
    /// The address that answered, after redirects.
    public var url: String

    /// A response; ``HTTPClient`` makes them, tests and callers may too.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = [], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The value of the header field `name`, in any case.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// How many seconds from `now` Retry-After asks to wait (RFC 9110 §10.2.3), given as
    /// seconds or as an HTTP-date; nil without a field chimed can read. A date in the past
    /// is 0.
    public func retryAfterSeconds(now: Date) -> Int? {
        guard let value = header("retry-after")?.trimmingSpaces(), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // A server that asks for more than a year means "not now": saturate, do not fail.
            return value.utf8.reduce(0) { min($0 * 10 + Int($1 - UInt8(ascii: "0")), 1 << 40) }
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        let seconds = (date - now.timeIntervalSince1970).rounded(.up)
        return seconds <= 0 ? 0 : Int(min(seconds, Double(1 << 40)))
    }
}

/// The three forms of HTTP-date a recipient must accept (RFC 9110 §5.6.7).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970 of `text`: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the
    /// obsolete RFC 850 form ("Sunday, 06-Nov-94 08:49:37 GMT") or asctime's
    /// ("Sun Nov  6 08:49:37 1994"); nil for anything else.
    static func parse(_ text: String) -> Double? {
        let words = text.split { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" }.map(String.init)
        let day: String, month: String, year: String, time: String
        switch words.count {
        case 6 where words[5] == "GMT":
            (day, month, year, time) = (words[1], words[2], words[3], words[4])
        case 5:
            (day, month, year, time) = (words[2], words[1], words[4], words[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let monthIndex = months.firstIndex(of: month.lowercased()),
              let dayNumber = Int(day), (1...31).contains(dayNumber),
              var yearNumber = Int(year), yearNumber >= 0,
              clock.count == 3,
              let hour = Int(clock[0]), (0...23).contains(hour),
              let minute = Int(clock[1]), (0...59).contains(minute),
              let second = Int(clock[2]), (0...60).contains(second) else { return nil }
        if year.count == 2 {
            // RFC 850's two-digit years: 70–99 as 19xx, the rest as 20xx; no server sends
            // this obsolete form with a year outside 1970–2069.
            yearNumber += yearNumber < 70 ? 2000 : 1900
        }
        guard (1970...9999).contains(yearNumber) else { return nil }
        let days = daysSince1970(year: yearNumber, month: monthIndex + 1, day: dayNumber)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        // Counted from March, so that the leap day ends a year (a well-known civil-date method).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
