import Glibc

/// The two clocks a measurement needs: monotonic for durations, real time for due times
/// (the daemon's timer is on CLOCK_REALTIME, so lateness is judged on the same clock).
enum Clock {
    /// Seconds on the monotonic clock.
    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Seconds since the epoch, with nanoseconds kept apart so no precision is lost
    /// when a whole-second due time is subtracted.
    static func realtime() -> (seconds: Int, nanoseconds: Int) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return (now.tv_sec, now.tv_nsec)
    }

    /// `2026-11-22T10:00:05Z`: an instant, which the daemon takes as absolute.
    static func iso8601UTC(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            + "T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

/// Nearest-rank percentiles of a sample.
struct Percentiles {
    private let sorted: [Double]

    init(_ sample: [Double]) { sorted = sample.sorted() }

    /// The smallest value with at least `fraction` of the sample at or below it.
    func value(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    var max: Double { sorted.last ?? .nan }
}

/// Fixed decimals without Foundation's formatters.
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "nan" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(scaled) - whole * Int(scale)
    var text = "\(value < 0 && scaled != 0 ? "-" : "")\(whole)"
    if decimals > 0 {
        let digits = String(fraction)
        text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
}
