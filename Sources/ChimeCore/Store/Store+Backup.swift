import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The backup: made while chimed runs, restored when nothing of a damaged store can be read.
extension Store {
    /// The backup chimed falls back on when nothing of the store can be read.
    public var backupURL: URL { directory.appending(path: Self.backupName, directoryHint: .notDirectory) }

    static let backupName = "chime.sqlite.backup"

    /// Copies the store to ``backupURL`` (0600) with SQLite's online backup, through a
    /// temporary file, so an interrupted copy never replaces a good backup. Returns how
    /// long it took.
    @discardableResult
    public func backUp() throws(StoreError) -> Duration {
        let started = ContinuousClock.now
        let temporary = backupURL.path + ".tmp"
        Self.removeDatabaseFiles(temporary)
        do {
            // Created 0600 before SQLite opens it, whatever the umask.
            let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw StoreError.cannotOpen(temporary, Self.cause(ofErrno: errno)) }
            Glibc.close(descriptor)
            let destination = try Database(path: temporary)
            defer { destination.close() }
            try destination.copy(from: database)
            // A copy in rollback-journal mode: reading it (read-only) leaves no -wal or -shm behind.
            try destination.texts("PRAGMA journal_mode = DELETE")
            // A page copy carries damage along: a store damaged since it was opened must
            // not replace the last good backup.
            let problems = try destination.texts("PRAGMA quick_check")
            destination.close()
            guard problems == ["ok"] else {
                throw StoreError.failed("the store seems damaged (\(problems.prefix(3).joined(separator: "; "))), so the last backup "
                    + "is kept; restart chimed to recover it")
            }
            guard rename(temporary, backupURL.path) == 0 else { throw StoreError.cannotOpen(backupURL.path, Self.cause(ofErrno: errno)) }
            Self.syncFolder(directory.path)
        } catch {
            Self.removeDatabaseFiles(temporary)
            if let error = error as? StoreError { throw error }
            throw writeError(error)
        }
        lastBackup = Date()
        return ContinuousClock.now - started
    }

    /// Copies the backup to `temporary` and checks it; false when the backup is damaged
    /// too. Other errors (a full disk) are thrown: the backup may be good.
    static func restore(_ backup: URL, to temporary: URL) throws -> Bool {
        do {
            let destination = try Database(path: temporary.path)
            defer { destination.close() }
            let source = try Database(path: backup.path, readOnly: true)
            defer { source.close() }
            try destination.copy(from: source)
            source.close()
            destination.close()
            // Its quick check and migrations: a backup of an older version is brought up to date.
            try openDatabase(temporary).close()
            return true
        } catch where damage(in: error) != nil {
            return false
        }
    }
}
