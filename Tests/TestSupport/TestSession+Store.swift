import CLinux
import Foundation
import Glibc

/// The store under faults: its files, chimed started by hand, a damaged page, a full disk.
extension TestSession {
    /// The store's database file.
    public var storeFile: URL { dataDirectory.appendingPathComponent("chime.sqlite") }

    /// The names in the data directory, sorted.
    public func dataFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dataDirectory.path).sorted()
    }

    /// Stops chimed cleanly: it closes its store (the WAL goes into the file) before it
    /// leaves the bus, which this waits for.
    public func stopDaemon() throws {
        try killDaemon(signal: SIGTERM)
    }

    /// Starts the built chimed by hand on this bus, after `prefix` (a tool that runs it in
    /// a namespace, say).
    public func spawnDaemon(after prefix: [String] = []) throws -> Spawned {
        try Spawned(prefix + [binDirectory.appendingPathComponent("chimed").path], environment: environment)
    }

    /// Schedules `count` reminders titled "Reminder 0" … in one shell, an hour from now.
    public func addReminders(_ count: Int, from first: Int = 0) throws {
        let chime = binDirectory.appendingPathComponent("chime").path
        let script = "i=\(first); while [ $i -lt \(first + count) ]; do \"$0\" add \"Reminder $i\" --in 1h >/dev/null || exit 1; i=$((i+1)); done"
        let result = try run(["sh", "-c", script, chime], timeout: 300)
        guard result.status == 0 else { throw TestFailure.failed("adding reminders failed: \(result)") }
    }

    /// The titles `chime list` shows, one per scheduled reminder.
    public func listedTitles() throws -> [String] {
        let result = try run(["chime", "list", "--json"])
        guard result.status == 0 else { throw TestFailure.failed("chime list failed: \(result)") }
        return result.stdout.components(separatedBy: "\"title\":").dropFirst().map { String($0.drop { $0 == " " || $0 == "\"" }.prefix { $0 != "\"" }) }
    }

    /// Waits until chimed's log contains `text` `times` times. The log has no event to
    /// wait on from here (the bus's standard error is read by TestSession), so this looks
    /// again at a short interval.
    public func waitForLog(_ text: String, times: Int = 1, timeout: TimeInterval = 60) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while daemonLog.components(separatedBy: text).count - 1 < times {
            guard Date() < deadline else { throw TestFailure.timeout("'\(text)' in chimed's log:\n\(daemonLog)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

/// What runs a process without the privileges that let root read any file: as root, an
/// empty capability bounding set (`setpriv`), so a file of mode 000 gives EACCES as it
/// would to its owner; as anyone else, nothing.
public var withoutFileCapabilities: [String] {
    getuid() == 0 ? ["setpriv", "--bounding-set", "-all", "--inh-caps", "-all", "--"] : []
}

/// Writes garbage over `count` table leaf pages containing `marker`, taken from the middle
/// of those pages (SQLite's file format: the page size at offset 16, a page's type byte
/// 0x0D for a table leaf, its cell count at offset 3). Returns how many rows they held.
@discardableResult
public func damageLeafPages(of file: URL, containing marker: String, count: Int) throws -> Int {
    let data = try Data(contentsOf: file)
    guard data.count >= 100 else { throw TestFailure.failed("\(file.path) is no SQLite database") }
    let declared = Int(data[16]) << 8 | Int(data[17])
    let pageSize = declared == 1 ? 65_536 : declared
    let needle = Data(marker.utf8)
    var leaves: [(offset: Int, cells: Int)] = []
    for offset in stride(from: 0, to: data.count - pageSize + 1, by: pageSize) {
        let header = offset == 0 ? 100 : offset
        let page = data[offset..<offset + pageSize]
        guard data[header] == 0x0d, page.range(of: needle) != nil else { continue }
        leaves.append((offset, Int(data[header + 3]) << 8 | Int(data[header + 4])))
    }
    guard leaves.count >= count + 2 else { throw TestFailure.failed("only \(leaves.count) leaf pages hold '\(marker)'") }
    let chosen = leaves.dropFirst((leaves.count - count) / 2).prefix(count)
    let handle = try FileHandle(forWritingTo: file)
    for page in chosen {
        try handle.seek(toOffset: UInt64(page.offset))
        try handle.write(contentsOf: Data(repeating: 0x5a, count: pageSize))
    }
    try handle.close()
    return chosen.map(\.cells).reduce(0, +)
}

/// A small tmpfs over a folder, seen only by the processes started through it: it lives
/// in a mount namespace of its own (with a user namespace when not root, so no privilege
/// is needed). The kernel unmounts it when the last of those processes exits, so it
/// never outlives a test, however the test ends.
public final class SmallDisk {
    public let folder: URL
    private let holder: Spawned
    private let enter: [String]

    /// Mounts `size` (as `mount -o size=` takes it) of tmpfs over `folder`.
    public init(over folder: URL, size: String = "1m") throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let root = getuid() == 0
        let unshare = root ? ["unshare", "--mount", "--propagation", "private"]
            : ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
        holder = try Spawned(unshare + ["sh", "-c", "mount -t tmpfs -o size=\(size),mode=0700 tmpfs \"$0\" && echo mounted && exec sleep infinity",
                                        folder.path], environment: ProcessInfo.processInfo.environment)
        guard holder.stdout.wait(timeout: 30, until: { $0.contains("mounted") }) else {
            throw TestFailure.failed("cannot mount a tmpfs over \(folder.path): \(holder.stderr.text)")
        }
        let pid = String(holder.process.processIdentifier)
        enter = root ? ["nsenter", "-t", pid, "-m"] : ["nsenter", "-t", pid, "-U", "-m", "--preserve-credentials"]
    }

    deinit { holder.stop() }

    /// What runs a command where it sees the tmpfs.
    public var prefix: [String] { enter }

    /// Runs a shell command where it sees the tmpfs; its folder is `$0`.
    @discardableResult
    public func shell(_ command: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProcessResult {
        try Spawned(enter + ["sh", "-c", command, folder.path], environment: environment).finish()
    }

    /// Fills the disk to the last byte.
    public func fill() throws {
        try shell("head -c 1G /dev/zero > \"$0/fill\"; true")
    }

    /// Frees what ``fill()`` took.
    public func free() throws {
        try shell("rm -f \"$0/fill\"")
    }

    /// The names in the folder, sorted, as seen on the tmpfs.
    public func files() throws -> [String] {
        try shell("ls -A \"$0\"").stdout.split(separator: "\n").map(String.init).sorted()
    }
}
