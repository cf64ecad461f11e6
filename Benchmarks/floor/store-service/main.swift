// The Swift floor with the store's dependency: trivial-service.swift, but before it owns
// its name it opens an SQLite file through GRDB as chimed's store does (a queue, a busy
// timeout, WAL with FULL sync) and reads one row. Linked by SwiftPM exactly as chimed
// is, so its size, memory and start are what the design's store library costs any
// service, before Chime's own work.
import CDBus
import GRDB
import Glibc

/// Swift 6 refuses Glibc's `stderr` (a global C variable), so the line goes to fd 2 itself.
func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: \(arguments[0]) NAME STORE", status: 2) }
do {
    var configuration = Configuration()
    configuration.busyMode = .timeout(5)
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    let queue = try DatabaseQueue(path: arguments[2], configuration: configuration)
    _ = try queue.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
    _ = try queue.write { db in
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS notification (id TEXT PRIMARY KEY, due INTEGER NOT NULL)")
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM notification")
    }
} catch {
    fail("\(arguments[2]): \(error)")
}
var error = DBusError()
dbus_error_init(&error)
guard let connection = dbus_bus_get(DBUS_BUS_SESSION, &error) else { fail(String(cString: error.message)) }
guard dbus_bus_request_name(connection, arguments[1], UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
    == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER else { fail("cannot own \(arguments[1])") }
while dbus_connection_read_write_dispatch(connection, -1) != 0 {}
