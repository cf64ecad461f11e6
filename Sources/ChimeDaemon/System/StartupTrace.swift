/// How long each step of start-up took, for the one line chimed logs once it answers
/// calls: with D-Bus activation, the first `chime` of a session waits for all of it.
struct StartupTrace {
    private var last: ContinuousClock.Instant
    private let start: ContinuousClock.Instant
    private var steps: [(name: String, took: Duration)] = []

    /// A trace whose first step starts at `start` (chimed's `main`).
    init(since start: ContinuousClock.Instant) {
        self.start = start
        last = start
    }

    /// Ends the step called `name` now.
    mutating func mark(_ name: String) {
        let now = ContinuousClock.now
        steps.append((name, now - last))
        last = now
    }

    /// `ready 9.8 ms after main: bus 1.2, store 5.1, …`.
    var summary: String {
        "ready \(millisecondsText(last - start, decimals: 1)) ms after main: " + stepsText
    }

    /// `bus 1.2, store 5.1, …`: each step's milliseconds.
    var stepsText: String {
        steps.map { "\($0.name) \(millisecondsText($0.took, decimals: 1))" }.joined(separator: ", ")
    }
}

/// `duration` in milliseconds with `decimals` digits after the point, for the timing lines
/// of the log (start-up, each batch fired), which `make bench` reads back.
func millisecondsText(_ duration: Duration, decimals: Int) -> String {
    let scale = (0..<decimals).reduce(1) { value, _ in value * 10 }
    let units = max(0, duration.components.seconds * 1000 * Int64(scale)
        + duration.components.attoseconds / (1_000_000_000_000_000 / Int64(scale)))
    let fraction = String(units % Int64(scale))
    return decimals == 0 ? "\(units)"
        : "\(units / Int64(scale))." + String(repeating: "0", count: decimals - fraction.count) + fraction
}
