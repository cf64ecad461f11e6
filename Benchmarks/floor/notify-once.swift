// The `chime notify` benchmark's Swift floor: a static Swift program (no Foundation) that
// sends the one Notify notify-send sends and waits for its reply. No Swift client can
// show a notification in less; `chime notify` makes one call too, to chimed.
import CDBus
import Glibc

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    fputs("usage: \(arguments[0]) TITLE BODY\n", stderr)
    exit(2)
}
var error = DBusError()
dbus_error_init(&error)
guard let connection = dbus_bus_get(DBUS_BUS_SESSION, &error),
      let call = dbus_message_new_method_call("org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                              "org.freedesktop.Notifications", "Notify") else {
    fputs("no session bus\n", stderr)
    exit(1)
}
var iter = DBusMessageIter()
dbus_message_iter_init_append(call, &iter)
func append(_ text: String) {
    text.withCString { pointer in
        var value: UnsafePointer<CChar>? = pointer
        _ = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_STRING, &value)
    }
}
var replaces: UInt32 = 0
var timeout: Int32 = -1
append("notify-once")
_ = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_UINT32, &replaces)
append("")
append(arguments[1])
append(arguments[2])
var inner = DBusMessageIter()
_ = dbus_message_iter_open_container(&iter, CDBUS_TYPE_ARRAY, "s", &inner)
_ = dbus_message_iter_close_container(&iter, &inner)
_ = dbus_message_iter_open_container(&iter, CDBUS_TYPE_ARRAY, "{sv}", &inner)
_ = dbus_message_iter_close_container(&iter, &inner)
_ = dbus_message_iter_append_basic(&iter, CDBUS_TYPE_INT32, &timeout)
guard dbus_connection_send_with_reply_and_block(connection, call, -1, &error) != nil else {
    fputs("\(String(cString: error.message))\n", stderr)
    exit(1)
}
