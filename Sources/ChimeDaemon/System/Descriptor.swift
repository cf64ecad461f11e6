import Glibc

/// Writing to a file descriptor without stdio.
enum Descriptor {
    /// Writes `bytes` from `start` on, retrying after a signal, until all is written or
    /// the descriptor would block or fails; returns how much of `bytes` is written in all.
    static func write(_ bytes: [UInt8], from start: Int, to fd: Int32) -> Int {
        var offset = start
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                offset += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return offset
    }
}

/// The process's standard error, written without stdio (Glibc's `stderr` is shared
/// mutable state to Swift 6).
public enum StandardError {
    /// Writes `text` whole: in one write where the pipe or socket takes it, so lines of
    /// one record are not interleaved with a child's.
    public static func write(_ text: String) {
        _ = Descriptor.write(Array(text.utf8), from: 0, to: STDERR_FILENO)
    }
}
