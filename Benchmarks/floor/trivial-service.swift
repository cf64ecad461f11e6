// The activation benchmark's Swift floor: trivial-service.c line for line, built with
// the same static Swift runtime as chimed and nothing else (no Foundation). What it
// costs over the C service is what any Swift service pays before its own work.
import CDBus
import Glibc

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    fputs("usage: \(arguments[0]) NAME\n", stderr)
    exit(2)
}
var error = DBusError()
dbus_error_init(&error)
guard let connection = dbus_bus_get(DBUS_BUS_SESSION, &error) else {
    fputs("\(String(cString: error.message))\n", stderr)
    exit(1)
}
guard dbus_bus_request_name(connection, arguments[1], UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
    == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER else {
    fputs("cannot own \(arguments[1])\n", stderr)
    exit(1)
}
while dbus_connection_read_write_dispatch(connection, -1) != 0 {}
