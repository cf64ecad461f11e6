import ChimeAPI
import ChimeCore
import DBus
import EventLoop
import FoundationEssentials
import Glibc
import ICS
import Logging

/// A calendar folder in the vdir format (one `.ics` file per item, as vdirsyncer, khal and
/// todoman keep them), followed live: read whole when chimed starts, then file by file as
/// inotify reports them written, replaced or removed. Nothing polls: an idle folder wakes
/// chimed 0 times.
///
/// One bad file costs only itself: it is named (``problems``) and what it made before is
/// kept, so that an editor's typo or a file caught half-written never cancels a reminder.
/// A file that is gone takes its reminders with it; a folder that is gone does not (an
/// unmounted disk is not a deletion): they wait for it to come back.
final class VdirFolder {
    /// Where the folder stands.
    enum State: Equatable {
        /// Being read whole.
        case reading
        /// Read, and watched for changes.
        case watching
        /// The folder is not there; its reminders are kept.
        case missing
        /// It cannot be read or watched: the sentence says why.
        case failed(String)
    }

    /// The calendar as stored.
    let calendar: CalendarSource
    private(set) var state = State.reading
    /// The files not read, or read in part, each with its sentences.
    fileprivate(set) var problems: [String: [String]] = [:]
    /// When it was last read whole.
    private(set) var lastRead: Date?
    /// Called after each batch of files is merged into the schedule (the tests await it).
    var onRead: (() -> Void)?

    private let parts: Calendars.Context
    private var watcher: FolderWatcher?
    /// Names reported and not read yet; `everything` when all must be read again.
    private var pending = Set<String>()
    private var everything = true
    private var delay: Source?
    private var reading = false
    private var stopped = false
    /// Who waits for the first reading to end (AddCalendar's answer).
    private var waiting: [() -> Void] = []
    /// The folder's path with its links resolved: a link in it may lead only inside it.
    private var resolved: String

    /// How long changes are gathered before they are read: a writer's temporary file,
    /// its rename and a second writer's change then come to one read.
    static let gatherMilliseconds = 100
    /// Files read in one turn of the loop: calls to chimed are answered between batches.
    static let batchSize = 500

    init(_ calendar: CalendarSource, parts: Calendars.Context) {
        self.calendar = calendar
        self.parts = parts
        resolved = calendar.location
    }

    /// Calls `body` once the folder has been read whole (or found unreadable).
    func whenRead(_ body: @escaping () -> Void) {
        if state == .reading { waiting.append(body) } else { body() }
    }

    /// Runs those waiting, once the reading has ended.
    private func settle() {
        guard state != .reading, !waiting.isEmpty else { return }
        let callbacks = waiting
        waiting = []
        for callback in callbacks { callback() }
    }

    /// Starts watching the folder, and reads it whole.
    func start() {
        do {
            watcher = try FolderWatcher(loop: parts.loop, path: calendar.location) { [unowned self] change in self.heard(change) }
        } catch {
            state = .failed("it cannot be watched: \(error)")
            parts.logger.warning("Calendar \(calendar.name): \(error).")
            return settle()
        }
        everything = true
        readSoon(afterMilliseconds: 0)
    }

    /// Stops watching; nothing more is read, not even the rest of a reading under way (its
    /// calendar was removed: what it read must not come back).
    func stop() {
        stopped = true
        watcher = nil
        delay?.cancel()
        delay = nil
    }

    private func heard(_ change: FolderWatcher.Change) {
        switch change {
        case .names(let names): pending.formUnion(names)
        case .everything: everything = true
        case .gone:
            state = .missing
            parts.logger.warning("Calendar \(calendar.name): the folder \(calendar.location) is gone; its reminders are kept.")
            return
        }
        readSoon(afterMilliseconds: Self.gatherMilliseconds)
    }

    private func readSoon(afterMilliseconds milliseconds: Int) {
        guard delay == nil, !reading, !stopped else { return }
        delay = parts.loop.timeout(afterMilliseconds: milliseconds) { [unowned self] in
            self.delay = nil
            self.readPending()
        }
    }

    /// Reads what is pending, a batch per turn of the loop.
    private func readPending() {
        var names: [String]
        if everything {
            everything = false
            pending = []
            guard let listed = listing() else { return settle() }
            state = .reading
            names = listed
        } else {
            // A writer's temporary file (ours among them) is no item.
            names = pending.filter(Self.isItemName).sorted()
            pending = []
        }
        guard !names.isEmpty else { return finishedReading() }
        reading = true
        readBatch(names[...])
    }

    private func readBatch(_ names: ArraySlice<String>) {
        guard !stopped else { return }
        let batch = names.prefix(Self.batchSize)
        parts.logger.debug("Calendar \(calendar.name): reading \(batch.joined(separator: ", ")).")
        read(Array(batch)) { [unowned self] changes in
            let left = batch.filter { self.problems[$0] != nil }.count
            self.parts.logger.info("Calendar \(self.calendar.name): read \(batch.count) files: \(changes.new) new, \(changes.updated) updated, \(changes.removed) removed, \(left) with problems.")
            self.onRead?()
            let rest = names.dropFirst(batch.count)
            guard !rest.isEmpty else {
                self.reading = false
                self.finishedReading()
                return
            }
            self.delay = self.parts.loop.timeout(afterMilliseconds: 0) { [unowned self] in
                self.delay = nil
                self.readBatch(rest)
            }
        }
    }

    private func finishedReading() {
        if state == .reading {
            state = watcher?.isWatching == true ? .watching : .missing
            lastRead = parts.now()
            parts.logger.info("Calendar \(calendar.name): watching \(calendar.location); \(problems.count) files with problems.")
        }
        settle()
        // Changes heard while reading are read next.
        if everything || !pending.isEmpty { readSoon(afterMilliseconds: 0) }
    }

    /// The folder's `.ics` files, and those it had (they may be gone); nil when the folder
    /// cannot be listed (its state says why).
    private func listing() -> [String]? {
        guard let real = realpath(calendar.location, nil) else {
            state = errno == ENOENT ? .missing : .failed("it cannot be read: \(String(cString: strerror(errno)))")
            return nil
        }
        resolved = String(cString: real)
        free(real)
        guard access(calendar.location, R_OK | X_OK) == 0 else {
            state = errno == ENOENT ? .missing : .failed("it cannot be read: \(String(cString: strerror(errno)))")
            return nil
        }
        var names = Set<String>()
        Calendars.eachEntry(of: calendar.location) { name, _ in if Self.isItemName(name) { names.insert(name) } }
        let known = (try? parts.commits.read { () throws(StoreError) in try parts.store.linkedIDs(inFolder: calendar.location) }) ?? [:]
        names.formUnion(known.keys.compactMap(calendar.file(ofSource:)))
        names.formUnion(problems.keys)
        return names.sorted()
    }

    /// A vdir item's file name: `.ics`, and not hidden (writers keep their temporary files so).
    static func isItemName(_ name: String) -> Bool {
        name.hasSuffix(".ics") && !name.hasPrefix(".") && name.count > 4
    }

    // MARK: - Reading files

    private enum Item {
        case text(String)
        case missing
        case ignored
        case problem(String)
    }

    /// What reading a batch of files changed: notifications new, updated and removed.
    private typealias Changes = (new: Int, updated: Int, removed: Int)

    /// Reads `names` into the schedule as one change; `done` hears what changed once it is
    /// stored (nothing, when it is refused).
    private func read(_ names: [String], done: @escaping (Changes) -> Void) {
        var texts: [(name: String, text: String)] = []
        var gone = Set<String>()
        for name in names {
            problems[name] = nil
            switch item(name) {
            case .ignored: continue
            case .missing: gone.insert(name)
            case .problem(let reason): problems[name] = ["\(name) \(reason)."]
            case .text(let text): texts.append((name, text))
            }
        }
        CalendarReading.merge(texts, gone: gone, of: calendar, parts: parts) { [weak self] result, found in
            guard let self else { return }
            self.problems.merge(found) { _, new in new }
            switch result {
            case .success(let changes):
                done((changes.new, changes.updated, changes.removed))
            case .failure(.unreadable(let sentence)):
                self.state = .failed(sentence)
                done((0, 0, 0))
            case .failure(.notStored(let error)):
                // Read again at the next change, or at the next start.
                for (name, _) in texts { self.problems[name] = ["\(name) was read but not stored: \(error.clause)"] }
                self.parts.logger.error("Calendar \(self.calendar.name): \(error).")
                done((0, 0, 0))
            }
        }
    }

    /// The text of file `name`, or why it is not read.
    private func item(_ name: String) -> Item {
        guard Self.isItemName(name) else { return .ignored }
        let path = calendar.location + "/" + name
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return errno == ENOENT ? .missing : .problem("cannot be read: \(String(cString: strerror(errno)))")
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            // A link may name another file of the folder, never a file elsewhere.
            guard let real = realpath(path, nil) else { return .problem("is a link to nothing, so it was not read") }
            defer { free(real) }
            guard String(cString: real).hasPrefix(resolved + "/") else {
                return .problem("is a link out of the folder, so it was not read")
            }
        }
        switch BoundedFile.read(path, limit: Limits.calendarFileBytes) {
        case .success(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
        case .failure(.missing): return .missing
        case .failure(let refusal): return .problem(refusal.description)
        }
    }
}

// MARK: - Writing back

extension VdirFolder {
    /// Why a press was not written into its file: the end of a sentence.
    struct WriteFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Patches file `name` and writes it back as the vdir format asks: a hidden temporary
    /// file in the folder, renamed over it. Never over a file that changed since it was
    /// read: then it is read and patched again, three times at most.
    func patch(file name: String, _ change: (inout CalendarPatch) throws(CalendarPatch.Failure) -> Void) throws(WriteFailure) {
        let path = calendar.location + "/" + name
        for _ in 0..<3 {
            var before = stat()
            guard lstat(path, &before) == 0 else { throw WriteFailure(description: "it cannot be read: \(String(cString: strerror(errno)))") }
            // A link's target may be another file of the folder; replacing the link would part them.
            guard before.st_mode & S_IFMT == S_IFREG else { throw WriteFailure(description: "it is not a regular file") }
            let text: String
            switch BoundedFile.read(path, limit: Limits.calendarFileBytes) {
            case .success(let bytes): text = String(decoding: bytes, as: UTF8.self)
            case .failure(let refusal): throw WriteFailure(description: "it \(refusal)")
            }
            var patch = CalendarPatch(text)
            do { try change(&patch) } catch { throw WriteFailure(description: error.description) }
            let patched = patch.text
            if patched == text { return }
            let temporary = calendar.location + "/.\(name).chime-\(getpid()).tmp"
            try write(patched, to: temporary, mode: before.st_mode & 0o7777)
            var now = stat()
            let same = lstat(path, &now) == 0 && now.st_ino == before.st_ino && now.st_size == before.st_size
                && now.st_mtim.tv_sec == before.st_mtim.tv_sec && now.st_mtim.tv_nsec == before.st_mtim.tv_nsec
            guard same else {
                unlink(temporary)
                continue
            }
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw WriteFailure(description: "it cannot be replaced: \(reason)")
            }
            return
        }
        throw WriteFailure(description: "it kept changing while Chime wrote it")
    }

    private func write(_ text: String, to path: String, mode: mode_t) throws(WriteFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else {
            throw WriteFailure(description: errno == EACCES || errno == EROFS ? "the folder is read-only" : "a file beside it cannot be made: \(String(cString: strerror(errno)))")
        }
        var bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(path)
                throw WriteFailure(description: "it cannot be written: \(reason)")
            }
            written += count
        }
        // On disk before the rename makes it the file: a crash leaves the old file or the new, whole.
        guard fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(path)
            throw WriteFailure(description: "it cannot be written: \(reason)")
        }
        close(fd)
    }

    /// Records that a press on an item of file `name` could not be written into it.
    func noteUnwritten(_ name: String, _ failure: WriteFailure) {
        problems[name, default: []].append("\(name): what was pressed was not written: \(failure).")
    }
}
