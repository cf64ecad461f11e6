import CLinux
import Glibc

/// Reports changes to chosen names in one directory (`inotify`).
///
/// Watching the directory rather than the file catches the way tools replace files:
/// `timedatectl` swaps the `/etc/localtime` symlink by rename, which a watch on the old
/// file would never see.
public final class FileWatcher {
    private let fd: Int32
    private var source: Source?

    /// Calls `handler` with the name whenever one of `names` in `directory` is created,
    /// replaced, written or has its attributes changed.
    public init(loop: EventLoop, directory: String, names: Set<String>, handler: @escaping (String) -> Void) throws(LoopError) {
        fd = clinux_inotify_init(clinux_IN_CLOEXEC | clinux_IN_NONBLOCK)
        guard fd >= 0 else { throw .system(call: "inotify_init1", errno: errno) }
        let mask = clinux_IN_CLOSE_WRITE | clinux_IN_MOVED_TO | clinux_IN_CREATE | clinux_IN_ATTRIB
        guard clinux_inotify_add_watch(fd, directory, mask) >= 0 else {
            let code = errno
            close(fd)
            throw .system(call: "inotify_add_watch \(directory)", errno: code)
        }
        source = loop.watch(fd: fd, events: .readable) { [fd] _ in
            var changed: Set<String> = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                var offset = 0
                // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[]; }
                while offset + 16 <= count {
                    let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                    let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if names.contains(name) { changed.insert(name) }
                    offset += 16 + length
                }
            }
            for name in changed.sorted() { handler(name) }
        }
    }

    deinit {
        source?.cancel()
        close(fd)
    }
}
