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
        let parts = steps.map { "\($0.name) \(Self.milliseconds($0.took))" }
        return "ready \(Self.milliseconds(last - start)) ms after main: " + parts.joined(separator: ", ")
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let tenths = (duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000)
        return "\(tenths / 10).\(tenths % 10)"
    }
}
