import EventLoop
import FoundationEssentials
import Glibc

/// The clocks and timers the fire timer and presenter run on: the loop's own in chimed,
/// one driven by hand in the in-process tests.
protocol Timekeeper: AnyObject {
    /// The wall clock: due times are instants of it.
    var now: Date { get }
    /// Nanoseconds on a clock that never jumps, for back-off and expiry.
    var monotonic: UInt64 { get }
    /// Calls `handler` once, `milliseconds` from now; dropping the token cancels it.
    func after(milliseconds: Int, _ handler: @escaping () -> Void) -> AnyObject
    /// The one alarm at a wall-clock instant, which also reports clock changes.
    func makeAlarm(_ handler: @escaping (WallClockEvent) -> Void) throws -> Alarm
}

/// An alarm at one wall-clock instant at a time.
protocol Alarm: AnyObject {
    /// Arms it for `date`; any date in the past, before 1970 included, goes off at once.
    func arm(at date: Date) throws
    /// No wake-up at all until it is armed again.
    func disarm()
}

/// chimed's timekeeping: the poll loop's timeouts and a `timerfd` alarm.
final class LoopTimekeeper: Timekeeper {
    private let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
    }

    var now: Date { Date() }
    var monotonic: UInt64 { EventLoop.monotonicNow() }

    func after(milliseconds: Int, _ handler: @escaping () -> Void) -> AnyObject {
        loop.timeout(afterMilliseconds: milliseconds, handler: handler)
    }

    func makeAlarm(_ handler: @escaping (WallClockEvent) -> Void) throws -> Alarm {
        try WallClockTimer(loop: loop, handler: handler)
    }
}

extension WallClockTimer: Alarm {
    func arm(at date: Date) throws {
        // Before the epoch is as past as any other past time: it goes off now.
        let seconds = max(0, date.timeIntervalSince1970)
        let whole = seconds.rounded(.down)
        try arm(at: timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000)))
    }
}
