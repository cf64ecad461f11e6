#include "CLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

// Older kernel headers may lack the cancel flag; its value is fixed by the ABI.
#ifndef TFD_TIMER_CANCEL_ON_SET
#define TFD_TIMER_CANCEL_ON_SET (1 << 1)
#endif

const int clinux_TFD_CLOEXEC = TFD_CLOEXEC;
const int clinux_TFD_NONBLOCK = TFD_NONBLOCK;
const int clinux_TFD_TIMER_ABSTIME = TFD_TIMER_ABSTIME;
const int clinux_TFD_TIMER_CANCEL_ON_SET = TFD_TIMER_CANCEL_ON_SET;
const int clinux_SFD_CLOEXEC = SFD_CLOEXEC;
const int clinux_SFD_NONBLOCK = SFD_NONBLOCK;

int clinux_timerfd_create(int clockid, int flags) {
    return timerfd_create(clockid, flags);
}

int clinux_timerfd_settime(int fd, int flags, struct timespec value) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value = value;
    return timerfd_settime(fd, flags, &spec, NULL);
}

int clinux_signalfd(const int *signals, int flags) {
    sigset_t set;
    sigemptyset(&set);
    for (const int *s = signals; *s != 0; s++) sigaddset(&set, *s);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, flags);
}

int clinux_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return -1;
}

int clinux_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

// glibc declares it only with _GNU_SOURCE/_DEFAULT_SOURCE, which this target's C mode lacks.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

int clinux_spawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

void clinux_child_setup_unblock_signals(void *unused) {
    (void)unused;
    sigset_t set;
    sigemptyset(&set);
    sigprocmask(SIG_SETMASK, &set, NULL);
}

void clinux_child_setup_session(void *data) {
    clinux_child_setup_unblock_signals(NULL);
    umask((mode_t)(uintptr_t)data);
}

int clinux_notify_socket_send(const char *address, const char *state) {
    struct sockaddr_un where;
    memset(&where, 0, sizeof where);
    where.sun_family = AF_UNIX;
    size_t length = strlen(address);
    if (length < 2 || length >= sizeof where.sun_path || (address[0] != '/' && address[0] != '@')) return -EINVAL;
    memcpy(where.sun_path, address, length);
    // An abstract name has no terminating NUL: its length is all there is.
    socklen_t size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length);
    if (address[0] == '@') where.sun_path[0] = 0;
    else size += 1;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    ssize_t sent = sendto(fd, state, strlen(state), MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&where, size);
    int error = sent < 0 ? errno : 0;
    close(fd);
    return -error;
}

// Declared by glibc only with _GNU_SOURCE, like posix_spawn_file_actions_addclosefrom_np.
extern int pipe2(int fds[2], int flags);

int clinux_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

#include <malloc.h>

int clinux_malloc_trim(void)
{
    return malloc_trim(0);
}
