internal import CSQLite

/// One SQLite connection, through SQLite's C API: the store's, or one of its own for a
/// short job beside it (checking the history file, writing or restoring the backup,
/// reading a damaged file).
///
/// chimed is one thread, so the connection has no queue and no lock: it is opened
/// `NOMUTEX`, and its statements are compiled once and kept (``cachedStatement(sql:)``).
/// A library with queues would start libdispatch's worker pool, whose monitor wakes the
/// process every second while it runs; and it would bring Foundation, which this layer
/// does not need.
final class Database {
    private(set) var handle: OpaquePointer?
    private var cache: [String: Statement] = [:]

    /// Opens (creating unless `readOnly`) the file at `path`.
    init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let code = sqlite3_open_v2(path, &handle, access | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else {
            let error = self.error(code)
            close()
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        // Another program (sqlite3, a backup tool) may hold a lock for a moment.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { close() }

    /// Keeps `schema`'s -wal and -shm files when the last connection closes
    /// (SQLITE_FCNTL_PERSIST_WAL), so that the next open finds them instead of creating
    /// and initialising both: 0.4 of the 2.6 ms the store took of chimed's start-up
    /// before its first answer (measured by hand, step by step).
    ///
    /// With a journal size limit, SQLite empties the kept WAL as the last connection
    /// closes, after its checkpoint, as it would have deleted it: a file put in the
    /// database's place while chimed is stopped never meets a WAL written for another.
    /// After a crash the WAL keeps what it holds, as it did before. The limit (16 MiB)
    /// also shrinks a WAL that a large change grew, at the next commit after a checkpoint.
    func keepWALFiles(of schema: String) throws(SQLiteError) {
        var on: Int32 = 1
        sqlite3_file_control(handle, schema, SQLITE_FCNTL_PERSIST_WAL, &on)
        try execute(sql: "PRAGMA \(schema).journal_size_limit = \(16 << 20)")
    }

    /// Lets go of the file; the connection can do nothing after.
    func close() {
        cache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    // MARK: - Statements

    /// `sql`, compiled once for the connection's life: compiling a statement anew was a
    /// fifth of the cost of a schedule.
    func cachedStatement(sql: String) throws(SQLiteError) -> Statement {
        if let statement = cache[sql] { return statement }
        let statement = try makeStatement(sql: sql)
        cache[sql] = statement
        return statement
    }

    /// `sql` compiled; it must be one statement.
    func makeStatement(sql: String) throws(SQLiteError) -> Statement {
        var compiled: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &compiled, nil)
        guard code == SQLITE_OK, let compiled else { throw error(code, sql: sql) }
        return Statement(compiled, in: self, sql: sql)
    }

    /// Runs `sql` with `arguments`; without arguments it may be several statements.
    func execute(sql: String, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) {
        if arguments.isEmpty {
            let code = sqlite3_exec(handle, sql, nil, nil, nil)
            guard code == SQLITE_OK else { throw error(code, sql: sql) }
        } else {
            try makeStatement(sql: sql).execute(arguments: arguments)
        }
    }

    /// The first column of every row `sql` returns, as text (NULL as ""); for pragmas.
    @discardableResult
    func texts(_ sql: String) throws(SQLiteError) -> [String] {
        let cursor = try makeStatement(sql: sql).cursor()
        var texts: [String] = []
        while let row = try cursor.next() { texts.append(row.values.first.flatMap { String(sqliteValue: $0) } ?? "") }
        return texts
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changesCount: Int { Int(sqlite3_changes(handle)) }
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    // MARK: - Transactions

    /// Whether a transaction is open. Some errors (a full disk, an I/O error) end it
    /// whole, not only the statement or savepoint that met them.
    var isInsideTransaction: Bool { handle != nil && sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it
    /// throws. IMMEDIATE: the write lock is taken at the start, so a reader that came in
    /// between (sqlite3 at a terminal) cannot make the commit fail half-way.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute(sql: "BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute(sql: "COMMIT")
            return result
        } catch {
            if isInsideTransaction { try? execute(sql: "ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a savepoint: when it throws, what it wrote is undone and the rest
    /// of the transaction stays.
    func inSavepoint(_ body: () throws -> Void) throws {
        try execute(sql: "SAVEPOINT change")
        do {
            try body()
            try execute(sql: "RELEASE SAVEPOINT change")
        } catch {
            if isInsideTransaction {
                try? execute(sql: "ROLLBACK TO SAVEPOINT change")
                try? execute(sql: "RELEASE SAVEPOINT change")
            }
            throw error
        }
    }

    // MARK: - Copies

    /// Makes this file a copy of the main database of `source` (SQLite's online backup).
    func copy(from source: Database) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else { throw error(sqlite3_errcode(handle)) }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else { throw error(stepped) }
        guard finished == SQLITE_OK else { throw error(finished) }
    }

    func error(_ code: Int32, sql: String? = nil) -> SQLiteError {
        // The connection's own code is the extended one, when it is this error's.
        let extended = handle.map { sqlite3_extended_errcode($0) }.flatMap { $0 & 0xff == code & 0xff ? $0 : nil } ?? code
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return SQLiteError(extendedCode: extended, message: message, sql: sql)
    }
}

/// What SQLite refused, with its code and message.
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code (SQLITE_IOERR_WRITE, …).
    var extendedCode: Int32
    var message: String
    /// The statement, when one was running.
    var sql: String?

    /// The primary result code (SQLITE_CORRUPT, SQLITE_FULL, …).
    var code: Int32 { extendedCode & 0xff }

    var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "")
    }

    static let corrupt = SQLITE_CORRUPT, notADatabase = SQLITE_NOTADB, full = SQLITE_FULL, ioError = SQLITE_IOERR
    static let busy = SQLITE_BUSY, locked = SQLITE_LOCKED
}

/// One compiled statement. A cached one is reset after each use, so it holds no read
/// transaction open between calls.
final class Statement {
    let handle: OpaquePointer
    private unowned let database: Database
    private let sql: String
    /// Column names to indexes, shared by the rows it returns.
    private(set) lazy var columns = Row.Columns(self.columnNames)

    fileprivate init(_ handle: OpaquePointer, in database: Database, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    private var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// Runs the statement to its end with `arguments`.
    func execute(arguments: [any SQLiteConvertible] = []) throws(SQLiteError) {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw database.error(code, sql: sql) }
        }
    }

    /// The rows the statement returns with `arguments`, read one by one.
    func cursor(arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> RowCursor {
        try bind(arguments)
        return RowCursor(self)
    }

    /// The next row, or nil at the end (the statement is then reset, as on an error).
    fileprivate func step() throws(SQLiteError) -> Row? {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return Row(columns: columns, values: (0..<columns.names.count).map(value)) }
        sqlite3_reset(handle)
        if code == SQLITE_DONE { return nil }
        throw database.error(code, sql: sql)
    }

    fileprivate func reset() { sqlite3_reset(handle) }

    private func value(_ index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(sqlite3_column_text(handle, column).map { String(cString: $0) } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func bind(_ arguments: [any SQLiteConvertible]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 = switch argument.sqliteValue {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let value): sqlite3_bind_int64(handle, index, value)
            case .real(let value): sqlite3_bind_double(handle, index, value)
            case .text(let value): csqlite_bind_text(handle, index, value, Int32(value.utf8.count))
            case .blob(let bytes): bytes.withUnsafeBytes { csqlite_bind_blob(handle, index, $0.baseAddress, Int32($0.count)) }
            }
            guard code == SQLITE_OK else { throw database.error(code, sql: sql) }
        }
    }
}

/// The rows of a running statement. It is reset when the rows end, when a step fails,
/// and when the cursor is let go, so an abandoned read holds no snapshot of the file.
final class RowCursor {
    private let statement: Statement
    private var done = false

    fileprivate init(_ statement: Statement) { self.statement = statement }

    deinit { if !done { statement.reset() } }

    func next() throws(SQLiteError) -> Row? {
        guard !done else { return nil }
        do {
            guard let row = try statement.step() else {
                done = true
                return nil
            }
            return row
        } catch {
            done = true
            throw error
        }
    }
}

// MARK: - Values

/// A value as SQLite holds it.
enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift value that binds to a statement and reads back from a column.
protocol SQLiteConvertible {
    var sqliteValue: SQLiteValue { get }
    /// Nil when the column holds something else.
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValue: SQLiteConvertible {
    var sqliteValue: SQLiteValue { self }
    init?(sqliteValue: SQLiteValue) { self = sqliteValue }
}

extension String: SQLiteConvertible {
    var sqliteValue: SQLiteValue { .text(self) }
    init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .text(let text): self = text
        case .blob(let bytes): self.init(decoding: bytes, as: UTF8.self)
        default: return nil
        }
    }
}

extension Int64: SQLiteConvertible {
    var sqliteValue: SQLiteValue { .integer(self) }
    init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .integer(let value): self = value
        // A REAL column's whole numbers read as REAL.
        case .real(let value): self.init(exactly: value)
        default: return nil
        }
    }
}

extension Int: SQLiteConvertible {
    var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    init?(sqliteValue: SQLiteValue) {
        guard let value = Int64(sqliteValue: sqliteValue) else { return nil }
        self.init(value)
    }
}

extension Double: SQLiteConvertible {
    var sqliteValue: SQLiteValue { .real(self) }
    init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let value): self = value
        case .integer(let value): self.init(value)
        default: return nil
        }
    }
}

extension Array: SQLiteConvertible where Element == UInt8 {
    var sqliteValue: SQLiteValue { .blob(self) }
    init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .blob(let bytes): self = bytes
        case .text(let text): self = Array(text.utf8)
        default: return nil
        }
    }
}

extension Optional: SQLiteConvertible where Wrapped: SQLiteConvertible {
    var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
    init?(sqliteValue: SQLiteValue) {
        if sqliteValue == .null {
            self = .none
        } else if let value = Wrapped(sqliteValue: sqliteValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

// MARK: - Rows

/// One row a statement returned, its values read when it was stepped to.
struct Row {
    /// A statement's column names, looked up by name.
    final class Columns {
        let names: [String]
        private let indexes: [String: Int]

        init(_ names: [String]) {
            self.names = names
            var indexes: [String: Int] = [:]
            // The first of two columns of one name, as SQLite's own lookup by name.
            for (index, name) in names.enumerated() where indexes[name] == nil { indexes[name] = index }
            self.indexes = indexes
        }

        func index(of name: String) -> Int? { indexes[name] }
    }

    let columns: Columns
    let values: [SQLiteValue]

    /// Whether the row has a column `name` (a table from an older schema may not).
    func has(_ name: String) -> Bool { columns.index(of: name) != nil }

    /// The column `name` as `T`; throws when there is no such column or it holds no `T`
    /// (a damaged page can read as anything).
    subscript<T: SQLiteConvertible>(_ name: String) -> T {
        get throws(SQLiteError) {
            guard let index = columns.index(of: name) else { throw Self.mismatch("no column \(name)") }
            return try self[index]
        }
    }

    /// The column at `index` as `T`.
    subscript<T: SQLiteConvertible>(_ index: Int) -> T {
        get throws(SQLiteError) {
            guard values.indices.contains(index) else { throw Self.mismatch("no column \(index)") }
            guard let value = T(sqliteValue: values[index]) else {
                throw Self.mismatch("column \(columns.names[index]) holds \(values[index]), not \(T.self)")
            }
            return value
        }
    }

    private static func mismatch(_ message: String) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISMATCH, message: message)
    }
}

// MARK: - Fetching

extension SQLiteConvertible {
    static func fetchAll(_ db: Database, sql: String, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> [Self] {
        let cursor = try db.makeStatement(sql: sql).cursor(arguments: arguments)
        var result: [Self] = []
        while let row = try cursor.next() { result.append(try row[0]) }
        return result
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    static func fetchOne(_ db: Database, sql: String, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> Self? {
        let cursor = try db.makeStatement(sql: sql).cursor(arguments: arguments)
        guard let row = try cursor.next() else { return nil }
        let value: Self? = try row[0]
        return value
    }
}

extension Row {
    static func fetchAll(_ db: Database, sql: String, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> [Row] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }

    static func fetchOne(_ db: Database, sql: String, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> Row? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    static func fetchOne(_ statement: Statement, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> Row? {
        try statement.cursor(arguments: arguments).next()
    }

    static func fetchAll(_ statement: Statement, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> [Row] {
        let cursor = try statement.cursor(arguments: arguments)
        var rows: [Row] = []
        while let row = try cursor.next() { rows.append(row) }
        return rows
    }

    static func fetchCursor(_ db: Database, sql: String, arguments: [any SQLiteConvertible] = []) throws(SQLiteError) -> RowCursor {
        try db.makeStatement(sql: sql).cursor(arguments: arguments)
    }
}

extension String {
    /// The name quoted for SQL, whatever it holds.
    var quotedIdentifier: String { "\"" + replacing("\"", with: "\"\"") + "\"" }
}
