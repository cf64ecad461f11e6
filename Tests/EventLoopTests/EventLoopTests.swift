import Glibc
import Testing
@testable import EventLoop

struct EventLoopTests {
    @Test func idleLoopWouldSleepForever() {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        defer { close(fds[0]); close(fds[1]) }
        let watch = loop.watch(fd: fds[0], events: .readable) { _ in }
        // No timeouts: poll gets -1, so nothing but a ready descriptor wakes the loop.
        #expect(loop.nextTimeoutMilliseconds() == -1)
        withExtendedLifetime(watch) {}
    }

    @Test func timeoutsFireOnceInOrderAndCancelledOnesNever() throws {
        let loop = EventLoop()
        var fired: [String] = []
        let late = loop.timeout(afterMilliseconds: 40) { fired.append("late") }
        let early = loop.timeout(afterMilliseconds: 10) { fired.append("early") }
        let cancelled = loop.timeout(afterMilliseconds: 5) { fired.append("cancelled") }
        cancelled.cancel()
        _ = loop.timeout(afterMilliseconds: 5) { fired.append("dropped") }  // token dropped at once
        while fired.count < 2 { try loop.runOnce(timeoutMilliseconds: 1_000) }
        #expect(fired == ["early", "late"])
        #expect(loop.nextTimeoutMilliseconds() == -1)
        withExtendedLifetime((late, early)) {}
    }

    @Test func watchReportsReadableDescriptor() throws {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        defer { close(fds[0]); close(fds[1]) }
        var events: EventLoop.Events = []
        let watch = loop.watch(fd: fds[0], events: .readable) { events = $0 }
        var byte: UInt8 = 1
        write(fds[1], &byte, 1)
        try loop.runOnce(timeoutMilliseconds: 5_000)
        #expect(events.contains(.readable))

        // Paused watches are not polled.
        events = []
        loop.update(watch, events: [])
        try loop.runOnce(timeoutMilliseconds: 10)
        #expect(events.isEmpty)
    }

    @Test func idleWaitsForATurnWithNothingReadyAndRunsOnce() throws {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        defer { close(fds[0]); close(fds[1]) }
        var order: [String] = []
        let watch = loop.watch(fd: fds[0], events: .readable) { _ in
            var byte: UInt8 = 0
            read(fds[0], &byte, 1)
            order.append("read")
        }
        var byte: UInt8 = 1
        write(fds[1], &byte, 1)
        let idle = loop.idle(atLatestAfterMilliseconds: 60_000) { order.append("idle") }
        try loop.runOnce(timeoutMilliseconds: 5_000)
        #expect(order == ["read"])
        try loop.runOnce(timeoutMilliseconds: 5_000)
        #expect(order == ["read", "idle"])
        // Once run, gone: the loop sleeps again as long as it is told to.
        #expect(loop.nextTimeoutMilliseconds() == -1)
        try loop.runOnce(timeoutMilliseconds: 0)
        #expect(order == ["read", "idle"])
        withExtendedLifetime((watch, idle)) {}
    }

    @Test func idleRunsAtItsDeadlineWhenTheLoopNeverRests() throws {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        defer { close(fds[0]); close(fds[1]) }
        // Never drained: every turn finds the pipe ready.
        var byte: UInt8 = 1
        write(fds[1], &byte, 1)
        var turns = 0, ranAfter: Int?
        let watch = loop.watch(fd: fds[0], events: .readable) { _ in turns += 1 }
        let idle = loop.idle(atLatestAfterMilliseconds: 20) { ranAfter = turns }
        let start = EventLoop.monotonicNow()
        while ranAfter == nil, EventLoop.monotonicNow() - start < 10_000_000_000 {
            try loop.runOnce(timeoutMilliseconds: 5_000)
        }
        #expect(ranAfter != nil && ranAfter! > 0)
        #expect(EventLoop.monotonicNow() - start >= 20_000_000)
        withExtendedLifetime((watch, idle)) {}
    }

    @Test func aCancelledIdleNeverRuns() throws {
        let loop = EventLoop()
        var ran = false
        let idle = loop.idle(atLatestAfterMilliseconds: 0) { ran = true }
        idle.cancel()
        try loop.runOnce(timeoutMilliseconds: 0)
        #expect(!ran)
    }

    @Test func prepareHooksRunBeforeEveryWait() throws {
        let loop = EventLoop()
        var count = 0
        let hook = loop.prepare { count += 1 }
        try loop.runOnce(timeoutMilliseconds: 0)
        try loop.runOnce(timeoutMilliseconds: 0)
        #expect(count == 2)
        hook.cancel()
        try loop.runOnce(timeoutMilliseconds: 0)
        #expect(count == 2)
    }

    @Test func stopEndsRun() throws {
        let loop = EventLoop()
        let stopper = loop.timeout(afterMilliseconds: 1) { loop.stop() }
        try loop.run()
        withExtendedLifetime(stopper) {}
    }
}

struct WallClockTimerTests {
    static func now(plusMilliseconds ms: Int) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Int(now.tv_nsec) + ms * 1_000_000
        return timespec(tv_sec: now.tv_sec + total / 1_000_000_000, tv_nsec: total % 1_000_000_000)
    }

    @Test func firesAtTheInstant() throws {
        let loop = EventLoop()
        var events: [WallClockEvent] = []
        let timer = try WallClockTimer(loop: loop) { events.append($0) }
        let target = Self.now(plusMilliseconds: 30)
        try timer.arm(at: target)
        #expect(timer.deadline != nil)
        while events.isEmpty { try loop.runOnce(timeoutMilliseconds: 5_000) }
        #expect(events == [.expired])
        #expect(timer.deadline == nil)
        let after = Self.now(plusMilliseconds: 0)
        #expect(after.tv_sec > target.tv_sec || (after.tv_sec == target.tv_sec && after.tv_nsec >= target.tv_nsec))
    }

    @Test func instantInThePastFiresAtOnce() throws {
        let loop = EventLoop()
        var events: [WallClockEvent] = []
        let timer = try WallClockTimer(loop: loop) { events.append($0) }
        try timer.arm(at: timespec(tv_sec: 0, tv_nsec: 0))
        try loop.runOnce(timeoutMilliseconds: 5_000)
        #expect(events == [.expired])
    }

    /// 1969-12-31T23:59:59.5Z as a scheduler computes it: (-1 s, +0.5 s). The kernel
    /// refuses that form (EINVAL); the timer must fire at once instead of failing.
    @Test func fractionalInstantBeforeTheEpochFiresAtOnce() throws {
        let loop = EventLoop()
        var events: [WallClockEvent] = []
        let timer = try WallClockTimer(loop: loop) { events.append($0) }
        try timer.arm(at: timespec(tv_sec: -1, tv_nsec: 500_000_000))
        try loop.runOnce(timeoutMilliseconds: 5_000)
        #expect(events == [.expired])

        // And the timer still works for an ordinary instant afterwards.
        try timer.arm(at: Self.now(plusMilliseconds: 10))
        while events.count < 2 { try loop.runOnce(timeoutMilliseconds: 5_000) }
        #expect(events == [.expired, .expired])
    }

    @Test(arguments: [
        (timespec(tv_sec: -1, tv_nsec: 500_000_000), timespec(tv_sec: 0, tv_nsec: 1)),
        (timespec(tv_sec: -86_400 * 365, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: 1)),
        (timespec(tv_sec: 0, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: 1)),
        (timespec(tv_sec: 0, tv_nsec: -5), timespec(tv_sec: 0, tv_nsec: 1)),
        (timespec(tv_sec: Int.min, tv_nsec: -1), timespec(tv_sec: 0, tv_nsec: 1)),
        (timespec(tv_sec: 10, tv_nsec: -1), timespec(tv_sec: 9, tv_nsec: 999_999_999)),
        (timespec(tv_sec: 10, tv_nsec: 2_500_000_000), timespec(tv_sec: 12, tv_nsec: 500_000_000)),
        (timespec(tv_sec: Int.max, tv_nsec: 1_500_000_000), timespec(tv_sec: Int.max, tv_nsec: 500_000_000)),
        (timespec(tv_sec: 1_800_000_000, tv_nsec: 7), timespec(tv_sec: 1_800_000_000, tv_nsec: 7)),
    ])
    func malformedInstantsNeverReachTheKernel(instant: timespec, expected: timespec) throws {
        let deadline = WallClockTimer.kernelDeadline(for: instant)
        #expect(deadline.tv_sec == expected.tv_sec && deadline.tv_nsec == expected.tv_nsec,
                "\(instant) became \(deadline)")
        // Whatever came in, arming succeeds.
        let timer = try WallClockTimer(loop: EventLoop()) { _ in }
        try timer.arm(at: instant)
    }

    @Test func disarmedTimerStaysSilent() throws {
        let loop = EventLoop()
        var events: [WallClockEvent] = []
        let timer = try WallClockTimer(loop: loop) { events.append($0) }
        try timer.arm(at: Self.now(plusMilliseconds: 5))
        timer.disarm()
        try loop.runOnce(timeoutMilliseconds: 50)
        #expect(events.isEmpty)
    }
}

struct SignalWatcherTests {
    // Synchronous on purpose: the signal is raised for, blocked in and read on one thread.
    @Test func signalArrivesThroughTheLoop() throws {
        let loop = EventLoop()
        var received: [Int32] = []
        let watcher = try SignalWatcher(loop: loop, signals: [SIGUSR2]) { received.append($0) }
        raise(SIGUSR2)
        try loop.runOnce(timeoutMilliseconds: 5_000)
        #expect(received == [SIGUSR2])
        withExtendedLifetime(watcher) {}
    }
}

/// The time-zone watch: only the watched name wakes the loop, however it is replaced.
struct FileWatcherTests {
    /// A fresh directory holding `localtime`, a link to `zone-a`, as in `/etc`.
    final class Directory {
        let path: String
        init() {
            var template = Array("/tmp/chime-watch-XXXXXX".utf8CString)
            path = String(cString: mkdtemp(&template))
            write("zone-a", "A")
            write("zone-b", "B")
            symlink(path + "/zone-a", path + "/localtime")
        }
        func write(_ name: String, _ text: String) {
            let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
            close(fd)
        }
        /// Points `localtime` at `target` the way timedatectl does: a new link, renamed over.
        func relink(to target: String) {
            unlink(path + "/localtime.new")
            symlink(path + "/" + target, path + "/localtime.new")
            rename(path + "/localtime.new", path + "/localtime")
        }
        deinit {
            for name in ["localtime", "localtime.new", "zone-a", "zone-b", "other", "other.new"] { unlink(path + "/" + name) }
            rmdir(path)
        }
    }

    /// Whether the watcher's descriptor has anything to say, without waiting.
    static func isReadable(_ watcher: FileWatcher) -> Bool {
        var entry = pollfd(fd: watcher.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    /// Runs the loop until `condition` holds, for at most about five seconds.
    static func drive(_ loop: EventLoop, until condition: () -> Bool) throws {
        for _ in 0..<50 where !condition() { try loop.runOnce(timeoutMilliseconds: 100) }
    }

    @Test func writesToOtherNamesInTheDirectoryDoNotWakeIt() throws {
        let directory = Directory()
        let loop = EventLoop()
        var changes = 0
        let watcher = try FileWatcher(loop: loop, path: directory.path + "/localtime") { _ in changes += 1 }
        directory.write("other", "x")
        directory.write("other.new", "y")
        rename(directory.path + "/other.new", directory.path + "/other")
        chmod(directory.path + "/other", 0o600)
        #expect(!Self.isReadable(watcher))
        try loop.runOnce(timeoutMilliseconds: 0)
        #expect(changes == 0)
    }

    @Test func aLinkReplacedByRenameIsSeenEveryTime() throws {
        let directory = Directory()
        let loop = EventLoop()
        var changes = 0
        let watcher = try FileWatcher(loop: loop, path: directory.path + "/localtime") { _ in changes += 1 }
        directory.relink(to: "zone-b")
        try Self.drive(loop) { changes >= 1 }
        #expect(changes >= 1)

        // The watch followed the name to the new link: a second swap is seen too.
        let before = changes
        directory.relink(to: "zone-a")
        try Self.drive(loop) { changes > before }
        #expect(changes > before)
        withExtendedLifetime(watcher) {}
    }

    @Test func aRegularFileRewrittenInPlaceIsSeen() throws {
        let directory = Directory()
        unlink(directory.path + "/localtime")
        directory.write("localtime", "A")
        let loop = EventLoop()
        var changes = 0
        let watcher = try FileWatcher(loop: loop, path: directory.path + "/localtime") { _ in changes += 1 }
        directory.write("localtime", "B")
        try Self.drive(loop) { changes >= 1 }
        #expect(changes >= 1)
        withExtendedLifetime(watcher) {}
    }

    @Test func aNameRemovedAndMadeAgainIsSeen() throws {
        let directory = Directory()
        let loop = EventLoop()
        var changes = 0
        let watcher = try FileWatcher(loop: loop, path: directory.path + "/localtime") { _ in changes += 1 }
        unlink(directory.path + "/localtime")
        try Self.drive(loop) { changes >= 1 }
        #expect(changes >= 1)

        let before = changes
        symlink(directory.path + "/zone-b", directory.path + "/localtime")
        try Self.drive(loop) { changes > before }
        #expect(changes > before)

        // Back on the file: other names are quiet again.
        try loop.runOnce(timeoutMilliseconds: 0)
        directory.write("other", "x")
        #expect(!Self.isReadable(watcher))
    }
}
