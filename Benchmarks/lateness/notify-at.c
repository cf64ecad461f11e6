/*
 * The floor of the lateness benchmark: a program that does nothing but send, at each
 * due second, the Notify calls due then, as chimed sends them for chime-bench's
 * reminders (same arguments), through libdbus on the session bus. No store, no
 * schedule, no decisions: what is left of its lateness is the kernel's timer, libdbus
 * building and writing the calls, the bus routing them and the machine's load.
 *
 * Reads "DUE COUNT" lines on standard input (DUE in seconds since the epoch, in order)
 * until end of file, then fires them; exits once the last is sent.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define MAX_DUE 4096

static void notify(DBusConnection *connection, long due)
{
    DBusMessage *message = dbus_message_new_method_call("org.freedesktop.Notifications",
        "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify");
    char summary[64];
    snprintf(summary, sizeof summary, "bench-due-%ld", due);
    const char *app = "Chime", *icon = "", *title = summary, *body = "", *urgency = "urgency";
    dbus_uint32_t replaces = 0;
    dbus_int32_t expire = -1;
    unsigned char level = 1;
    DBusMessageIter args, actions, hints, entry, variant;
    dbus_message_iter_init_append(message, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &app);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_UINT32, &replaces);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &icon);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &title);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &body);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "s", &actions);
    dbus_message_iter_close_container(&args, &actions);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &hints);
    dbus_message_iter_open_container(&hints, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &urgency);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "y", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_BYTE, &level);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&hints, &entry);
    dbus_message_iter_close_container(&args, &hints);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_INT32, &expire);
    // With a reply expected, as chimed sends it: the server's id is what it waits for.
    DBusPendingCall *pending = NULL;
    dbus_connection_send_with_reply(connection, message, &pending, -1);
    if (pending) dbus_pending_call_unref(pending);
    dbus_message_unref(message);
}

int main(void)
{
    static long dues[MAX_DUE];
    static int counts[MAX_DUE];
    int total = 0, sent = 0, n = 0;
    while (n < MAX_DUE && scanf("%ld %d", &dues[n], &counts[n]) == 2) total += counts[n++];
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (connection == NULL) {
        fprintf(stderr, "notify-at: %s\n", error.message);
        return 1;
    }
    int timer = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
    for (int i = 0; i < n; i++) {
        struct itimerspec at = { .it_value = { .tv_sec = dues[i], .tv_nsec = 0 } };
        timerfd_settime(timer, TFD_TIMER_ABSTIME, &at, NULL);
        uint64_t expiries;
        while (read(timer, &expiries, sizeof expiries) < 0 && errno == EINTR) {
        }
        for (int k = 0; k < counts[i]; k++) notify(connection, dues[i]);
        dbus_connection_flush(connection);
        sent += counts[i];
        // The replies of this second are read while the next one is waited for.
        while (dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS) {
        }
        dbus_connection_read_write(connection, 0);
    }
    dbus_connection_flush(connection);
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
    return sent == total ? 0 : 1;
}
