import Glibc

/// Reports changes to one file (`inotify`): rewritten in place, its attributes changed,
/// or replaced by another file under the same name.
///
/// The watch is on the file itself, not on its directory: a directory watch on `/etc`
/// woke the daemon at every write anywhere in `/etc`. A symbolic link is watched as a
/// link (`IN_DONT_FOLLOW`), since `/etc/localtime`'s meaning is where it points.
/// Tools replace such files by rename (`timedatectl` swaps the `/etc/localtime` link
/// that way): the kernel then reports a link-count change (`IN_ATTRIB`) on the old
/// inode, and the watch moves to whatever has the name now. Only while the name is
/// missing is its directory watched, for the name's creation alone.
public final class FileWatcher {
    private let fd: Int32
    private let path: String
    private let directory: String
    private let name: String
    private var source: Source?
    /// The watch on the file, or -1 while it is missing.
    private var fileWatch: Int32 = -1
    /// The watch on the directory, only while the file is missing.
    private var directoryWatch: Int32 = -1

    private static let fileMask = UInt32(IN_DONT_FOLLOW | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)
    private static let directoryMask = UInt32(IN_ONLYDIR | IN_CREATE | IN_MOVED_TO)

    /// Calls `handler` with `path` whenever the file at `path` (absolute) changes or is
    /// replaced, created or removed.
    public init(loop: EventLoop, path: String, handler: @escaping (String) -> Void) throws(LoopError) {
        guard let slash = path.lastIndex(of: "/"), path.index(after: slash) < path.endIndex else {
            throw .system(call: "inotify_add_watch \(path)", errno: EINVAL)
        }
        self.path = path
        directory = slash == path.startIndex ? "/" : String(path[..<slash])
        name = String(path[path.index(after: slash)...])
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw .system(call: "inotify_init1", errno: errno) }
        do throws(LoopError) {
            try follow()
        } catch {
            close(fd)
            throw error
        }
        source = loop.watch(fd: fd, events: .readable) { [unowned self] _ in
            guard self.readEvents() else { return }
            // Watch what has the name now before saying so, so a change right after the
            // handler has looked is not missed.
            try? self.follow()
            handler(self.path)
        }
    }

    /// The inotify descriptor: readable exactly when something is to be reported.
    var descriptor: Int32 { fd }

    /// Watches the file that has the name now, or its directory while there is none.
    private func follow() throws(LoopError) {
        let watch = inotify_add_watch(fd, path, Self.fileMask)
        if watch >= 0 {
            // Adding a watch for an inode already watched returns the same descriptor.
            if fileWatch >= 0 && fileWatch != watch { _ = inotify_rm_watch(fd, fileWatch) }
            fileWatch = watch
            if directoryWatch >= 0 { _ = inotify_rm_watch(fd, directoryWatch) }
            directoryWatch = -1
            return
        }
        let code = errno
        guard code == ENOENT else { throw .system(call: "inotify_add_watch \(path)", errno: code) }
        if fileWatch >= 0 { _ = inotify_rm_watch(fd, fileWatch) }
        fileWatch = -1
        guard directoryWatch < 0 else { return }
        directoryWatch = inotify_add_watch(fd, directory, Self.directoryMask)
        guard directoryWatch >= 0 else { throw .system(call: "inotify_add_watch \(directory)", errno: errno) }
    }

    /// Drains the queued events; true when one of them concerns the file.
    private func readEvents() -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[]; }
            while offset + 16 <= count {
                let (watch, mask, length) = buffer.withUnsafeBytes { bytes in
                    (bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were lost: the file may have changed.
                    relevant = true
                } else if watch == fileWatch && mask & ~UInt32(IN_IGNORED) != 0 {
                    relevant = true
                } else if watch == directoryWatch {
                    let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                    if String(decoding: nameBytes, as: UTF8.self) == name { relevant = true }
                }
                offset += 16 + length
            }
        }
        return relevant
    }

    deinit {
        source?.cancel()
        close(fd)
    }
}
