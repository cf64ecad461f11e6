// The Swift floor with chimed's libraries: trivial-service.swift, but it links FoundationEssentials
// as chimed does, and before it owns its name it opens an SQLite file through SQLite's C
// API as chimed's store does (a busy timeout, WAL with FULL sync) and reads one row.
// Linked by SwiftPM exactly as chimed is, so its size, memory and start are what those
// libraries cost any service, before Chime's own work.
import CDBus
import CSQLite
import FoundationEssentials
import Glibc

/// Swift 6 refuses Glibc's `stderr` (a global C variable), so the line goes to fd 2 itself.
func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: \(arguments[0]) NAME STORE", status: 2) }
var database: OpaquePointer?
guard sqlite3_open_v2(arguments[2], &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
    fail("\(arguments[2]): cannot open")
}
sqlite3_busy_timeout(database, 5_000)
for sql in [
    "PRAGMA synchronous = FULL", "PRAGMA journal_mode = WAL",
    "CREATE TABLE IF NOT EXISTS notification (id TEXT PRIMARY KEY, due INTEGER NOT NULL)",
    "SELECT count(*) FROM notification",
] where sqlite3_exec(database, sql, nil, nil, nil) != SQLITE_OK {
    fail("\(arguments[2]): \(String(cString: sqlite3_errmsg(database)))")
}
// What chimed's start reads of FoundationEssentials: the time.
_ = Date().timeIntervalSince1970
var error = DBusError()
dbus_error_init(&error)
guard let connection = dbus_bus_get(DBUS_BUS_SESSION, &error) else { fail(String(cString: error.message)) }
guard dbus_bus_request_name(connection, arguments[1], UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
    == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER else { fail("cannot own \(arguments[1])") }
while dbus_connection_read_write_dispatch(connection, -1) != 0 {}
