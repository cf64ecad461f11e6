import Glibc

/// Reports changes to the files of one folder (`inotify`): each name written and closed,
/// moved in or out, removed, or linked in; the folder itself going, and coming back.
///
/// Only what finishes a file is reported, not each write: a vdir's writers replace a file by
/// rename (`IN_MOVED_TO`), others write it in place and close it (`IN_CLOSE_WRITE`). A name
/// created is reported too: khal, todoman and vdirsyncer add a new item as a hard link to
/// their finished temporary file (Python's atomicwrites, link then unlink), whose only event
/// is `IN_CREATE`; a file created empty and still being written is read again at its close.
/// While the folder is missing, its parent is watched for the name's return.
public final class FolderWatcher {
    /// What changed.
    public enum Change: Equatable, Sendable {
        /// These names of the folder were written, replaced, removed or linked in.
        case names(Set<String>)
        /// Anything may have changed: events were lost, or the folder came back.
        case everything
        /// The folder was removed or moved away (or its file system unmounted).
        case gone
    }

    private let inotify: Inotify
    private let path: String
    private var source: Source?
    /// The watch on the folder, or -1 while it is missing.
    private var folderWatch: Int32 = -1
    /// The watch on its parent, only while the folder is missing.
    private var parentWatch: Int32 = -1

    private static let folderMask = UInt32(IN_ONLYDIR | IN_DONT_FOLLOW | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE
        | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_EXCL_UNLINK)
    private static let parentMask = UInt32(IN_ONLYDIR | IN_CREATE | IN_MOVED_TO)

    /// Calls `handler` with what changed in the folder at `path` (absolute, without a
    /// trailing slash). Throws when neither the folder nor its parent can be watched.
    public init(loop: EventLoop, path: String, handler: @escaping (Change) -> Void) throws(LoopError) {
        inotify = try Inotify(path: path)
        self.path = path
        do throws(LoopError) {
            _ = try follow()
        } catch {
            close(inotify.fd)
            throw error
        }
        source = loop.watch(fd: inotify.fd, events: .readable) { [unowned self] _ in
            for change in self.readEvents() { handler(change) }
        }
    }

    /// Whether the folder is there and watched.
    public var isWatching: Bool { folderWatch >= 0 }

    /// Watches the folder, or its parent while the folder is missing; true when the folder is watched.
    private func follow() throws(LoopError) -> Bool {
        let watch = inotify_add_watch(inotify.fd, path, Self.folderMask)
        if watch >= 0 {
            folderWatch = watch
            if parentWatch >= 0 { _ = inotify_rm_watch(inotify.fd, parentWatch) }
            parentWatch = -1
            return true
        }
        let code = errno
        guard code == ENOENT || code == ENOTDIR else { throw .system(call: "inotify_add_watch \(path)", errno: code) }
        folderWatch = -1
        guard parentWatch < 0 else { return false }
        parentWatch = inotify_add_watch(inotify.fd, inotify.parent, Self.parentMask)
        guard parentWatch >= 0 else { throw .system(call: "inotify_add_watch \(inotify.parent)", errno: errno) }
        return false
    }

    /// Drains the queued events into what they mean, in order.
    private func readEvents() -> [Change] {
        var names = Set<String>()
        var changes: [Change] = []
        for event in inotify.events() {
            if event.has(IN_Q_OVERFLOW) {
                changes.append(.everything)
            } else if event.watch == folderWatch, folderWatch >= 0 {
                if event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) {
                    changes.append(.names(names))
                    names = []
                    _ = inotify_rm_watch(inotify.fd, folderWatch)
                    folderWatch = -1
                    // It may be back already (a rename over it): then all of it is new.
                    changes.append((try? follow()) == true ? .everything : .gone)
                } else if !event.name.isEmpty {
                    names.insert(event.name)
                }
            } else if event.watch == parentWatch, parentWatch >= 0, event.name == inotify.name, (try? follow()) == true {
                changes.append(.everything)
            }
        }
        if !names.isEmpty { changes.append(.names(names)) }
        return changes.filter { $0 != .names([]) }
    }

    deinit {
        source?.cancel()
        close(inotify.fd)
    }
}
