import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The data folder and the files in it, through plain system calls.
extension Store {
    /// `mkdir -p` with mode 0700 for what it creates. Plain mkdir(2): FileManager's
    /// first use costs chimed about 2 ms of start-up, a tenth of a first call through
    /// bus activation.
    static func makeDirectory(_ path: String) throws(StoreError) {
        var parent = ""
        for component in path.split(separator: "/") {
            parent += "/" + component
            guard mkdir(parent, 0o700) != 0 else { continue }
            let error = errno
            var status = stat()
            guard error == EEXIST, stat(parent, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw .cannotCreate(path, String(cString: strerror(error == EEXIST ? ENOTDIR : error)))
            }
        }
    }

    /// Tightens the data folder to 0700 and the files in it to 0600 when they are looser
    /// (made by an older version, a copy, or a hand); returns what it changed, for the log.
    /// Symbolic links and other people's files are left alone.
    static func tightenModes(in path: String) -> [String] {
        var changed: [String] = []
        func tighten(_ path: String, to mode: mode_t, what: String) {
            var status = stat()
            guard lstat(path, &status) == 0, status.st_uid == geteuid(), status.st_mode & 0o077 != 0 else { return }
            let kind = status.st_mode & S_IFMT
            guard kind == (mode == 0o700 ? S_IFDIR : S_IFREG) else { return }
            let old = String(status.st_mode & 0o7777, radix: 8)
            if chmod(path, mode) == 0 {
                changed.append("The \(what) \(path) had mode \(old); it is now \(String(mode, radix: 8)), private to its owner.")
            } else {
                changed.append("The \(what) \(path) has mode \(old) and cannot be made private: \(String(cString: strerror(errno))).")
            }
        }
        tighten(path, to: 0o700, what: "data folder")
        guard let folder = opendir(path) else { return changed }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard name != ".", name != ".." else { continue }
            tighten(path + "/" + name, to: 0o600, what: "file")
        }
        return changed
    }

    /// The file's modification time; nil when it does not exist.
    static func modificationDate(of path: String) -> Date? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
    }

    /// Moves the -wal and -shm beside the database at `path` to beside `destination` when
    /// the WAL holds frames, which belong to that file; removes them when it is empty, as
    /// SQLite keeps it between opens (``Database/keepWALFiles(of:)``): then the -shm beside
    /// it is only an index.
    static func moveWALFiles(of path: String, to destination: String) {
        var wal = stat()
        let holdsFrames = stat(path + "-wal", &wal) == 0 && wal.st_size > 0
        for suffix in ["-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            if holdsFrames { rename(path + suffix, destination + suffix) } else { unlink(path + suffix) }
        }
    }

    /// Removes a database file and its companions (a leftover of an interrupted recovery).
    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// Makes renames in `path` durable.
    static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        Glibc.close(descriptor)
    }
}
