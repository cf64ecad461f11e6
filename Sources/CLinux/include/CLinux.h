#ifndef CHIME_CLINUX_H
#define CHIME_CLINUX_H

// Glibc's Swift module has no timerfd, signalfd or pidfd, and hides a few glibc
// extensions: these thin wrappers expose them with plain C types, and name the flag
// values Swift cannot import from macros.

#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <time.h>

extern const int clinux_TFD_CLOEXEC;
extern const int clinux_TFD_NONBLOCK;
extern const int clinux_TFD_TIMER_ABSTIME;
extern const int clinux_TFD_TIMER_CANCEL_ON_SET;
extern const int clinux_SFD_CLOEXEC;
extern const int clinux_SFD_NONBLOCK;

int clinux_timerfd_create(int clockid, int flags);
/// Arms `fd` to expire once at `value` (no interval); a zero `value` disarms it.
int clinux_timerfd_settime(int fd, int flags, struct timespec value);

/// A signalfd for exactly `signals` (a zero-terminated list); blocks them for the
/// calling thread first, since a signalfd only sees blocked signals.
int clinux_signalfd(const int *signals, int flags);
/// Reads one pending signal from a signalfd: its number, 0 when none, -1 on error.
int clinux_signalfd_read(int fd);

/// A pidfd for `pid` (Linux 5.3): readable once the child has exited, so it can be reaped
/// from a poll loop without a SIGCHLD handler. Close-on-exec, as the kernel always makes it.
int clinux_pidfd_open(pid_t pid);
/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), which Swift's Glibc module hides:
/// the child closes every descriptor from `from` up, whatever opened it without O_CLOEXEC.
int clinux_spawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int from);
/// A GSpawnChildSetupFunc: in a child between fork and exec, unblocks every signal, since
/// the daemon blocks SIGTERM, SIGINT and SIGHUP for its signalfd and a mask survives exec.
void clinux_child_setup_unblock_signals(void *unused);
/// A GSpawnChildSetupFunc for GIO's launches: unblocks every signal (as above) and
/// sets the umask `data` carries (a mode_t cast to a pointer), both inherited otherwise
/// from the daemon, whose umask keeps its store private.
void clinux_child_setup_session(void *data);
/// Sends one datagram `state` (such as "WATCHDOG=1") to the sd_notify socket at
/// `address`: a path, or an abstract name written with a leading '@'. Never blocks.
/// Returns 0, or a negative errno.
int clinux_notify_socket_send(const char *address, const char *state);
/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so no child spawned
/// meanwhile inherits them.
int clinux_pipe_cloexec(int fds[2]);

/// malloc_trim(0): gives the heap's free pages back to the system (glibc; Swift's Glibc
/// module leaves malloc.h out).
int clinux_malloc_trim(void);

#endif
