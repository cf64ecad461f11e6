import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Why the store could not do what was asked.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The data folder (first) cannot be made, for a reason (second).
    case cannotCreate(String, String)
    /// Another chimed holds the folder's lock.
    case inUse(String)
    /// The file (first) cannot be opened now, for a reason (second: a clause) that may
    /// pass: nothing was moved or changed.
    case cannotOpen(String, String)
    /// A write found the disk holding the store (the folder) full; nothing was changed.
    case diskFull(String)
    /// Anything else SQLite refused, in its words.
    case failed(String)

    /// The error as one sentence, for the log and the bus.
    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "Cannot create the data directory \(path): \(reason)"
        case .inUse(let path): "Another chimed is already using \(path); only one may run per data directory."
        case .cannotOpen(let path, let reason):
            "Cannot open the store \(path): \(reason). Nothing was moved or deleted; the next start opens it."
        case .diskFull(let path): "The disk holding \(path) is full."
        case .failed(let reason): "The store failed: \(reason)"
        }
    }

    /// The reason as a clause, to follow "Not scheduled:" and the like.
    public var clause: String {
        switch self {
        case .diskFull(let path): "the disk holding \(path) is full."
        case .failed(let reason): "the store failed: \(reason)"
        default: description
        }
    }

    /// Whether the cause may pass by itself (space freed, a mode restored): the daemon
    /// exits with a status its unit restarts on, and nothing is moved aside.
    public var mayPass: Bool {
        switch self {
        case .cannotOpen, .diskFull, .cannotCreate: true
        case .inUse, .failed: false
        }
    }
}

// MARK: - Why a store cannot be opened: not now, or damaged

/// The quick check found damage that SQLite's own errors did not.
struct Damage: Error {
    var details: String
}

extension Store {
    /// What is damaged, when `error` says the file is damaged: SQLite finds it corrupt or
    /// not a database, or the quick check failed. Anything else may pass (nil).
    static func damage(in error: any Error) -> String? {
        if let damage = error as? Damage { return damage.details }
        guard let error = error as? SQLiteError, error.code == SQLiteError.corrupt || error.code == SQLiteError.notADatabase else {
            return nil
        }
        return error.message
    }

    /// Why `url` cannot be opened now, as a clause. SQLite's own message ("unable to open
    /// database file", "disk I/O error") does not say why: the file system does.
    static func cause(of error: any Error, at url: URL) -> String {
        let folder = url.deletingLastPathComponent().path
        let sqlite = error as? SQLiteError
        if sqlite?.code == SQLiteError.full { return cause(ofErrno: ENOSPC) }
        if let sqlite, sqlite.code == SQLiteError.busy || sqlite.code == SQLiteError.locked {
            return "another program holds a lock on it (SQLite: \(sqlite.message))"
        }
        // SQLite needs the file read-write and the folder writable, for its -wal and -shm files.
        var descriptor = open(url.path, O_RDWR | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT { descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if descriptor < 0 { return cause(ofErrno: errno) }
        Glibc.close(descriptor)
        if access(folder, W_OK | X_OK) != 0 { return cause(ofErrno: errno) }
        if diskIsFull(folder) { return cause(ofErrno: ENOSPC) }
        if let sqlite { return "SQLite says \(sqlite.message) (code \(sqlite.extendedCode))" }
        return "\(error)"
    }

    /// The clause for a system error number.
    static func cause(ofErrno code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: "the disk is full"
        case EACCES, EPERM: "permission denied (the file and its folder must be readable and writable by this user)"
        case EROFS: "the file system is read-only"
        case EIO: "the disk reports an input/output error"
        default: String(cString: strerror(code)).lowercased()
        }
    }

    /// Whether the file system holding `path` has no room left for SQLite to write a page
    /// and its shared-memory index (32 KiB).
    static func diskIsFull(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 64 * 1024
    }
}
