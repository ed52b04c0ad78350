#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>

// One poll over every descriptor the loop watches.

int qb_poll(const int *fds, const int *want_write, int count, int timeout_ms, int *ready) {
    return qb_poll_then(fds, want_write, count, timeout_ms, ready, NULL, NULL);
}

int qb_poll_then(const int *fds, const int *want_write, int count, int timeout_ms, int *ready, qb_after_poll after,
                 void *context) {
    struct pollfd stack[64];
    if (count > 64) {
        errno = EINVAL;
        return -1;
    }
    for (int i = 0; i < count; i++) {
        stack[i].fd = fds[i];
        // 4: a file that says it changed by POLLPRI and is always readable (the mount table).
        int wants = want_write ? want_write[i] : 0;
        stack[i].events = (wants & 4) ? POLLPRI : (POLLIN | ((wants & 1) ? POLLOUT : 0));
        stack[i].revents = 0;
        ready[i] = 0;
    }
    int n;
    do { n = poll(stack, (nfds_t)count, timeout_ms); } while (n < 0 && errno == EINTR);
    if (n <= 0) return n;
    for (int i = 0; i < count; i++) {
        ready[i] = ((stack[i].revents & (POLLIN | POLLPRI | POLLHUP | POLLERR | POLLNVAL)) ? 1 : 0) | ((stack[i].revents & POLLOUT) ? 2 : 0);
    }
    if (after) {
        int saved = errno;
        after(fds, ready, count, context);
        errno = saved;
    }
    return n;
}

int qb_poll_readable(const int *fds, int count, int timeout_ms, int *ready) {
    return qb_poll(fds, NULL, count, timeout_ms, ready);
}
