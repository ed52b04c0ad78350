#ifndef CEVENTLOOP_H
#define CEVENTLOOP_H
// The Linux primitives the box's single event loop is built from.
#include <stdint.h>

/// A CLOCK_MONOTONIC timerfd (non-blocking, close-on-exec), or -1.
int qb_timerfd_create(void);
/// Arms `fd` to fire once at the absolute CLOCK_MONOTONIC time `at_ns`; `at_ns` < 0 disarms.
int qb_timerfd_arm(int fd, int64_t at_ns);
/// Consumes the expiration count of a fired timerfd.
void qb_timerfd_drain(int fd);

/// An eventfd for waking the loop from another thread, or -1.
int qb_eventfd_create(void);
void qb_eventfd_signal(int fd);
void qb_eventfd_drain(int fd);

/// Blocks SIGTERM and SIGINT for the process and returns a signalfd that reports them, or -1.
int qb_signalfd_term(void);
/// Reads one signal from the signalfd: its number, or 0.
int qb_signalfd_read(int fd);

/// Sends `message` (e.g. "READY=1") to $NOTIFY_SOCKET as systemd expects. 1 sent, 0 when no
/// socket is set, -1 on error.
int qb_sd_notify(const char *message);

/// Waits for any of `fds` to be readable (timeout_ms < 0: forever). Sets ready[i] to 1 for
/// each readable fd. Returns the number ready, 0 on timeout, -1 on error (EINTR retried).
int qb_poll_readable(const int *fds, int count, int timeout_ms, int *ready);

#endif

#ifndef CEVENTLOOP_WALL_H
#define CEVENTLOOP_WALL_H
/// A CLOCK_REALTIME timerfd for calendar wake-ups (non-blocking), or -1.
int qb_wallclock_timerfd_create(void);
/// Arms it for the wall time `unix_seconds`, cancelled early if the wall clock is set (an NTP
/// step): so one fd reports both "midnight" and "the clock changed" without polling.
int qb_wallclock_timerfd_arm(int fd, double unix_seconds);
/// After it polled readable: 1 the time came, 2 the clock was set, 0 nothing.
int qb_wallclock_timerfd_read(int fd);
#endif

#ifndef CEVENTLOOP_MEM_H
#define CEVENTLOOP_MEM_H
/// Hands memory freed after start-up back to the system (glibc malloc_trim); no-op elsewhere.
void qb_release_free_memory(void);

/// For a server whose requests read large blocks in bursts (the web app): big blocks are
/// mapped and unmapped, so a burst leaves no heap behind (glibc mallopt); no-op elsewhere.
void qb_malloc_for_bursts(void);

/// Sets the calling thread's nice value (0 or errno).
int qb_nice_this_thread(int nice);
/// Asks the kernel to read the process's executable and libraries into the page cache
/// (POSIX_FADV_WILLNEED), so the first reveal does not wait on code paged in from the SD
/// card. Resident memory is unchanged: pages are cached, not mapped. Returns the number of
/// files advised, -1 if /proc/self/maps cannot be read.
int qb_prefetch_mapped_code(void);
/// Puts the calling thread on SCHED_FIFO at `priority` with SCHED_RESET_ON_FORK (threads and
/// processes it starts get the normal policy). 0 on success, else the errno (EPERM when
/// neither root, CAP_SYS_NICE nor RLIMIT_RTPRIO allow it).
int qb_loop_realtime(int priority);
#endif

#ifndef CEVENTLOOP_IO_H
#define CEVENTLOOP_IO_H
#include <sys/types.h>
/// Like qb_poll_readable, but fds whose want_write[i] is non-zero are also watched for room
/// to write. ready[i]: bit 1 readable (or hung up, or in error), bit 2 writable.
int qb_poll(const int *fds, const int *want_write, int count, int timeout_ms, int *ready);

/// An inotify fd (non-blocking) watching the directory `path` for files written, created,
/// removed or renamed in it, or -errno.
int qb_inotify_directory(const char *path);
/// Reads every queued inotify event; returns how many there were.
int qb_inotify_drain(int fd);

/// A listening Unix stream socket at `path` (non-blocking, close-on-exec) with the file mode
/// `mode`, or -errno. A socket file left by a process that is gone is replaced; one that a
/// live process still answers is not (-EADDRINUSE). -ENAMETOOLONG past sun_path's size.
int qb_unix_listen(const char *path, int mode, int backlog);
/// Accepts one connection (non-blocking, close-on-exec), or -errno (-EAGAIN: none waiting).
int qb_unix_accept(int fd);
/// Connects to the Unix stream socket at `path` (blocking, close-on-exec), or -errno.
int qb_unix_connect(const char *path);
/// 1 when the connected peer runs as root or as this process's own user (the box's own
/// services and a parent's `sudo -u questbox`), else 0 (SO_PEERCRED).
int qb_peer_is_trusted(int fd);
/// send() without SIGPIPE on a closed peer; -errno on failure.
ssize_t qb_send(int fd, const void *bytes, size_t count);
#endif
