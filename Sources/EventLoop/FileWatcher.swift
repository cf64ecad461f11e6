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
    private let inotify: Inotify
    private let path: String
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
        inotify = try Inotify(path: path)
        self.path = path
        do throws(LoopError) {
            try follow()
        } catch {
            close(inotify.fd)
            throw error
        }
        source = loop.watch(fd: inotify.fd, events: .readable) { [unowned self] _ in
            guard self.readEvents() else { return }
            // Watch what has the name now before saying so, so a change right after the
            // handler has looked is not missed.
            try? self.follow()
            handler(self.path)
        }
    }

    /// The inotify descriptor: readable exactly when something is to be reported.
    var descriptor: Int32 { inotify.fd }

    /// Watches the file that has the name now, or its directory while there is none.
    private func follow() throws(LoopError) {
        let watch = inotify_add_watch(inotify.fd, path, Self.fileMask)
        if watch >= 0 {
            // Adding a watch for an inode already watched returns the same descriptor.
            if fileWatch >= 0 && fileWatch != watch { _ = inotify_rm_watch(inotify.fd, fileWatch) }
            fileWatch = watch
            if directoryWatch >= 0 { _ = inotify_rm_watch(inotify.fd, directoryWatch) }
            directoryWatch = -1
            return
        }
        let code = errno
        guard code == ENOENT else { throw .system(call: "inotify_add_watch \(path)", errno: code) }
        if fileWatch >= 0 { _ = inotify_rm_watch(inotify.fd, fileWatch) }
        fileWatch = -1
        guard directoryWatch < 0 else { return }
        directoryWatch = inotify_add_watch(inotify.fd, inotify.parent, Self.directoryMask)
        guard directoryWatch >= 0 else { throw .system(call: "inotify_add_watch \(inotify.parent)", errno: errno) }
    }

    /// Drains the queued events; true when one of them concerns the file.
    private func readEvents() -> Bool {
        inotify.events().contains { event in
            // Events were lost (IN_Q_OVERFLOW): the file may have changed.
            event.has(IN_Q_OVERFLOW)
                || (event.watch == fileWatch && event.mask & ~UInt32(IN_IGNORED) != 0)
                || (event.watch == directoryWatch && event.name == inotify.name)
        }
    }

    deinit {
        source?.cancel()
        close(inotify.fd)
    }
}
