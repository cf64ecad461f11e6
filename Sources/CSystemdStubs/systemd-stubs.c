// For the binaries linked fully static: the release chime and make bench's static floor.
// Debian's libdbus-1.a calls these two libsystemd functions from
// _dbus_listen_systemd_sockets, which only a bus server listening on a "systemd:" address
// reaches, and Debian ships no libsystemd.a. A client never calls them; if one did, it
// would be told that no sockets were passed.
//
// Compiled only where CHIME_STATIC_LINK is defined (the release build of chime): in a
// dynamic link, libsystemd's own are there and these would stand in front of them.
#ifdef CHIME_STATIC_LINK
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
#endif
