/*
 * The smallest useful D-Bus service, the floor of the activation benchmark: it owns
 * the name given as its argument and answers what libdbus answers by itself
 * (org.freedesktop.DBus.Peer). The bus starts it from an activation file.
 */
#include <dbus/dbus.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s NAME\n", argv[0]);
        return 2;
    }
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_bus_get(DBUS_BUS_SESSION, &error);
    if (connection == NULL) {
        fprintf(stderr, "%s\n", error.message);
        return 1;
    }
    if (dbus_bus_request_name(connection, argv[1], DBUS_NAME_FLAG_DO_NOT_QUEUE, &error)
        != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "cannot own %s\n", argv[1]);
        return 1;
    }
    while (dbus_connection_read_write_dispatch(connection, -1)) {
    }
    return 0;
}
