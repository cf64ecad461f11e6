internal import GRDB
internal import GRDBSQLite

/// One SQLite connection of its own, for a short job beside the store's: checking the
/// history file, writing or restoring the backup.
///
/// GRDB's `DatabaseQueue` would do, but letting one go starts libdispatch's worker pool
/// (the queue's specific keys are released on a global queue), and on Linux the pool's
/// monitor then wakes chimed every second for as long as it runs. This connection has
/// no queue. Its errors are GRDB's `DatabaseError`, so damage and causes read the same.
final class SQLiteFile {
    private var handle: OpaquePointer?

    init(path: String, readOnly: Bool = false) throws {
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let code = sqlite3_open_v2(path, &handle, access | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else {
            let error = self.error(code)
            close()
            throw error
        }
        // Another program (sqlite3, a backup tool) may hold a lock for a moment, as for the store.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { close() }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// The first column of every row `sql` returns, as text; `sql` is one statement.
    @discardableResult
    func rows(_ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK else { throw error(prepared) }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw error(code) }
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    /// Runs `sql`, which may be several statements.
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Makes this file a copy of the main database of `source` (SQLite's online backup).
    func copy(from source: OpaquePointer) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source, "main") else { throw error(sqlite3_errcode(handle)) }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else { throw error(stepped) }
        guard finished == SQLITE_OK else { throw error(finished) }
    }

    /// Makes this file a copy of the SQLite file `source`, opened read-only.
    func copy(fromFile source: String) throws {
        let file = try SQLiteFile(path: source, readOnly: true)
        defer { file.close() }
        guard let handle = file.handle else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed") }
        try copy(from: handle)
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: handle.map { String(cString: sqlite3_errmsg($0)) })
    }
}
