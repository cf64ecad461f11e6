import CLinux
import Glibc

/// What a ``WallClockTimer`` reports.
public enum WallClockEvent: Sendable, Equatable {
    /// The armed instant has come.
    case expired
    /// The real-time clock jumped (set by hand or NTP, or the machine resumed from
    /// suspend): every due time computed from the old clock must be recomputed.
    case clockChanged
}

/// A one-shot alarm at an instant of the real-time clock.
///
/// It is a `timerfd` on `CLOCK_REALTIME` armed with `TFD_TIMER_ABSTIME |
/// TFD_TIMER_CANCEL_ON_SET`: an absolute alarm keeps its instant through suspend (a
/// monotonic sleep would fire late by the time asleep), and the cancel flag turns every
/// discontinuous clock change into a ``WallClockEvent/clockChanged`` wake-up.
public final class WallClockTimer {
    private let fd: Int32
    private var source: Source?
    private let handler: (WallClockEvent) -> Void

    /// The instant the timer is armed for, in seconds since the epoch; nil when disarmed.
    public private(set) var deadline: timespec?

    public init(loop: EventLoop, handler: @escaping (WallClockEvent) -> Void) throws(LoopError) {
        fd = clinux_timerfd_create(CLOCK_REALTIME, clinux_TFD_CLOEXEC | clinux_TFD_NONBLOCK)
        guard fd >= 0 else { throw .system(call: "timerfd_create", errno: errno) }
        self.handler = handler
        source = loop.watch(fd: fd, events: .readable) { [unowned self] _ in self.readExpiry() }
    }

    /// Arms the timer for `instant` (real-time clock), any instant at all: one in the
    /// past, at or before the epoch included, fires at once.
    public func arm(at instant: timespec) throws(LoopError) {
        let value = Self.kernelDeadline(for: instant)
        let flags = clinux_TFD_TIMER_ABSTIME | clinux_TFD_TIMER_CANCEL_ON_SET
        guard clinux_timerfd_settime(fd, flags, value) == 0 else {
            throw .system(call: "timerfd_settime", errno: errno)
        }
        deadline = value
    }

    /// `instant` in the only form `timerfd_settime` accepts: `tv_nsec` within 0..<10⁹ and
    /// `tv_sec` not negative.
    ///
    /// Anything else is EINVAL, and `1969-12-31T23:59:59.5Z` arrives as (-1, 500,000,000).
    /// Every instant at or before the epoch is long past, so it becomes one nanosecond
    /// after it: a zero it_value would disarm the timer instead of firing it.
    static func kernelDeadline(for instant: timespec) -> timespec {
        let billion = 1_000_000_000
        var seconds = instant.tv_sec
        let carry = instant.tv_nsec / billion
        var nanoseconds = instant.tv_nsec % billion
        if nanoseconds < 0 {
            nanoseconds += billion
            seconds = seconds.subtractingReportingOverflow(1).overflow ? Int.min : seconds - 1
        }
        let (sum, overflow) = seconds.addingReportingOverflow(carry)
        seconds = overflow ? (carry > 0 ? Int.max : Int.min) : sum
        guard seconds > 0 || (seconds == 0 && nanoseconds > 0) else { return timespec(tv_sec: 0, tv_nsec: 1) }
        return timespec(tv_sec: seconds, tv_nsec: nanoseconds)
    }

    /// Disarms the timer: no wake-ups at all until it is armed again.
    public func disarm() {
        _ = clinux_timerfd_settime(fd, 0, timespec(tv_sec: 0, tv_nsec: 0))
        deadline = nil
    }

    private func readExpiry() {
        var expirations: UInt64 = 0
        let count = read(fd, &expirations, MemoryLayout<UInt64>.size)
        if count == MemoryLayout<UInt64>.size {
            deadline = nil
            handler(.expired)
        } else if count < 0 && errno == ECANCELED {
            handler(.clockChanged)
        }
        // EAGAIN: a spurious wake-up after a re-arm; nothing to report.
    }

    deinit {
        source?.cancel()
        close(fd)
    }
}
