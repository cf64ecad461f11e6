// Every binary links libdbus from its archive (CDBus's module map says why). Debian's
// libdbus-1.a calls these two libsystemd functions from _dbus_listen_systemd_sockets, which
// only a bus server listening on a "systemd:" address reaches, and Debian ships no
// libsystemd.a. A client never calls them; if one did, it would be told that no sockets
// were passed.
#include <errno.h>

int sd_listen_fds(int unset_environment)
{
    (void)unset_environment;
    return 0;
}

int sd_is_socket(int fd, int family, int type, int listening)
{
    (void)fd, (void)family, (void)type, (void)listening;
    return -ENOSYS;
}
