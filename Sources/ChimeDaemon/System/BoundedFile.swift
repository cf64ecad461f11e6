import Glibc

/// Opens files that chimed reads on its loop (the config, a local sound) so that no
/// file can stall or swamp it: only regular files, up to a size, opened without blocking.
///
/// `open` on a FIFO with no writer blocks until one appears, and a read from a device
/// may never end; `O_NONBLOCK` makes the open return at once, and `fstat` on what was
/// opened (not on the name, which could be swapped in between) decides.
enum BoundedFile {
    /// Why a file was not read; ``description`` completes "The config …" or "The sound file … ".
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case missing
        case notRegular(kind: String)
        case tooLarge(size: Int, limit: Int)
        case unreadable(String)

        var description: String {
            switch self {
            case .missing: "does not exist"
            case .notRegular(let kind): "is \(kind), not a regular file, so it was not read"
            case .tooLarge(let size, let limit):
                "has \(size) bytes, more than the \(limit) (\(BoundedFile.describe(limit))) Chime reads, so it was not read"
            case .unreadable(let reason): "cannot be read: \(reason)"
            }
        }
    }

    /// Opens `path` read-only; the descriptor (close-on-exec) is the caller's to close.
    static func open(_ path: String, limit: Int) -> Result<Int32, Refusal> {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            return .failure(code == ENOENT ? .missing : .unreadable(String(cString: strerror(code))))
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            close(fd)
            return .failure(.unreadable(String(cString: strerror(code))))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return .failure(.notRegular(kind: kind(of: status.st_mode)))
        }
        guard Int(status.st_size) <= limit else {
            close(fd)
            return .failure(.tooLarge(size: Int(status.st_size), limit: limit))
        }
        return .success(fd)
    }

    /// Reads the whole of `path`, a regular file of at most `limit` bytes.
    static func read(_ path: String, limit: Int) -> Result<[UInt8], Refusal> {
        let fd: Int32
        switch open(path, limit: limit) {
        case .success(let opened): fd = opened
        case .failure(let refusal): return .failure(refusal)
        }
        defer { close(fd) }
        var status = stat()
        let size = fstat(fd, &status) == 0 ? min(Int(status.st_size), limit) : limit
        // One byte more than its size shows a file that grew since fstat; it is read on
        // up to the limit (a file that says 0 bytes, in /proc, may hold more).
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, $0.count - total) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(String(cString: strerror(errno))))
            }
            total += count
            if total == bytes.count, total <= limit { bytes += [UInt8](repeating: 0, count: min(max(total, 4096), limit + 1 - total)) }
        }
        guard total <= limit else { return .failure(.tooLarge(size: total, limit: limit)) }
        return .success(Array(bytes[..<total]))
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        default: "of an unknown kind"
        }
    }

    /// 262144 → "256 KiB".
    static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}
