import Glibc

/// An inotify descriptor and what both watchers need of it: a path cut into its folder
/// and name, and the queued events read whole.
struct Inotify {
    /// One event: the watch it concerns, what happened, and the name in a watched folder.
    struct Event {
        var watch: Int32
        var mask: UInt32
        var name: String

        func has(_ flags: Int32) -> Bool { mask & UInt32(flags) != 0 }
    }

    let fd: Int32
    /// The folder a path is in, and its name there.
    let parent: String
    let name: String

    /// A non-blocking descriptor for watching `path`, an absolute path that names something.
    init(path: String) throws(LoopError) {
        guard let slash = path.lastIndex(of: "/"), path.index(after: slash) < path.endIndex else {
            throw .system(call: "inotify_add_watch \(path)", errno: EINVAL)
        }
        parent = slash == path.startIndex ? "/" : String(path[..<slash])
        name = String(path[path.index(after: slash)...])
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw .system(call: "inotify_init1", errno: errno) }
    }

    /// Drains the queued events, in order.
    func events() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
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
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                events.append(Event(watch: watch, mask: mask, name: String(decoding: nameBytes, as: UTF8.self)))
                offset += 16 + length
            }
        }
        return events
    }
}
