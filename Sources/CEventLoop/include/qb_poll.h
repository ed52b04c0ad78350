#ifndef QB_POLL_H
#define QB_POLL_H
// One poll over every descriptor the loop watches (poll.c).

/// Waits for any of `fds` to be readable (timeout_ms < 0: forever). Sets ready[i] to 1 for
/// each readable fd. Returns the number ready, 0 on timeout, -1 on error (EINTR retried).
int qb_poll_readable(const int *fds, int count, int timeout_ms, int *ready);

/// Like qb_poll_readable, but fds whose want_write[i] is 1 are also watched for room, and those
/// whose want_write[i] is 4 only for POLLPRI (a file that is always readable and says it
/// changed that way: /proc/self/mountinfo)
/// to write. ready[i]: bit 1 readable (or hung up, or in error), bit 2 writable.
int qb_poll(const int *fds, const int *want_write, int count, int timeout_ms, int *ready);

/// Work done in the same C call the moment poll returns, before the caller's code runs (#49:
/// a press's edge read, and its LED set, without waiting for the loop's Swift). It is given
/// the descriptors and their ready flags as qb_poll writes them.
typedef void (*qb_after_poll)(const int *fds, const int *ready, int count, void *context);

/// qb_poll, then `after(fds, ready, count, context)` when something is ready (NULL: nothing).
int qb_poll_then(const int *fds, const int *want_write, int count, int timeout_ms, int *ready, qb_after_poll after,
                 void *context);

#endif
