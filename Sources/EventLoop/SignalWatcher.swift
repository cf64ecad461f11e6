import CLinux
import Glibc

/// Delivers chosen signals through the loop (`signalfd`), so a SIGTERM handler may do
/// anything a normal handler may, instead of the few async-signal-safe calls.
public final class SignalWatcher {
    private let fd: Int32
    private var source: Source?

    /// Blocks `signals` for this thread and reports each one to `handler`.
    public init(loop: EventLoop, signals: [Int32], handler: @escaping (Int32) -> Void) throws(LoopError) {
        let list = signals + [0]
        fd = list.withUnsafeBufferPointer { clinux_signalfd($0.baseAddress, clinux_SFD_CLOEXEC | clinux_SFD_NONBLOCK) }
        guard fd >= 0 else { throw .system(call: "signalfd", errno: errno) }
        source = loop.watch(fd: fd, events: .readable) { [fd] _ in
            while true {
                let signal = clinux_signalfd_read(fd)
                guard signal > 0 else { break }
                handler(signal)
            }
        }
    }

    deinit {
        source?.cancel()
        close(fd)
    }
}
