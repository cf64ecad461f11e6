import Glibc
import Synchronization

/// The parsed content of one zone: transitions, their offsets, and the rule for later instants.
final class ZoneRules: Sendable {
    /// Transition instants, strictly ascending (RFC 8536 §3.2).
    let transitions: [Int64]
    /// `offsets[i]` is in force from `transitions[i]` until the next transition.
    let offsets: [Int32]
    /// In force before the first transition: time type 0 (RFC 8536 §3.2).
    let initialOffset: Int32
    /// Applies after the last transition (RFC 8536 §3.3).
    let footer: PosixRule?

    init(transitions: [Int64], offsets: [Int32], initialOffset: Int32, footer: PosixRule?) {
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.footer = footer
    }

    convenience init(posixRule: PosixRule) {
        self.init(transitions: [], offsets: [], initialOffset: Int32(posixRule.standardOffset), footer: posixRule)
    }

    static func fixed(offset: Int32) -> ZoneRules {
        ZoneRules(transitions: [], offsets: [], initialOffset: offset, footer: nil)
    }

    convenience init?(contentsOfFile path: String) {
        guard let bytes = FileReader.contents(of: path, limit: TZifParser.maximumFileSize) else { return nil }
        self.init(tzif: bytes)
    }

    /// The rules of the zone file at `path`, parsed once for as long as the file is the
    /// same (its inode, size and modification time): every zoned time read or computed
    /// needs its zone, and parsing the file each time was half of a 5,000-event import.
    /// A file replaced by a tzdata update is read again. The system's zone files are looked
    /// at once a second at most (a stat per zone asked for was a tenth of a 5,000-event
    /// import, and tzdata changes by package updates); those of another folder (`$TZDIR`)
    /// at every call.
    static func cached(contentsOfFile path: String) -> ZoneRules? {
        let now = monotonicNanoseconds()
        if path.hasPrefix(ZoneDirectory.defaultPath + "/"), let hit = cache.withLock({ $0[path] }),
           now &- hit.checked < 1_000_000_000 { return hit.rules }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let stamp = FileStamp(status)
        if let hit = cache.withLock({ $0[path] }), hit.stamp == stamp {
            cache.withLock { $0[path]?.checked = now }
            return hit.rules
        }
        guard let rules = ZoneRules(contentsOfFile: path) else { return nil }
        cache.withLock { entries in
            // A process reads a handful of zones; a bound keeps a caller naming many from growing it.
            if entries.count >= 64 { entries.removeAll() }
            entries[path] = (stamp, rules, now)
        }
        return rules
    }

    private static let cache = Mutex<[String: (stamp: FileStamp, rules: ZoneRules, checked: UInt64)]>([:])

    private static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// What tells one version of a file from the next without reading it.
    private struct FileStamp: Equatable, Sendable {
        let device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

        init(_ status: stat) {
            (device, inode, size) = (UInt64(status.st_dev), UInt64(status.st_ino), Int64(status.st_size))
            (seconds, nanoseconds) = (status.st_mtim.tv_sec, status.st_mtim.tv_nsec)
        }
    }

    convenience init?(tzif bytes: [UInt8]) {
        guard let parsed = TZifParser.parse(bytes) else { return nil }
        self.init(transitions: parsed.transitions, offsets: parsed.offsets,
                  initialOffset: parsed.initialOffset, footer: parsed.footer)
    }

    func secondsFromGMT(at instant: Int) -> Int {
        guard let last = transitions.last else {
            return footer?.secondsFromGMT(at: instant) ?? Int(initialOffset)
        }
        if instant > last, let footer {
            return footer.secondsFromGMT(at: instant)
        }
        let count = transitionsNotAfter(instant)
        return count == 0 ? Int(initialOffset) : Int(offsets[count - 1])
    }

    /// How many transitions happen at or before `instant`.
    private func transitionsNotAfter(_ instant: Int) -> Int {
        let target = Int64(instant)
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = low + (high - low) / 2
            if transitions[middle] <= target {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
