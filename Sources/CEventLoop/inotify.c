#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

// Watching the data directory for other programs' writes.

int qb_inotify_directory(const char *path) {
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return -errno;
    if (inotify_add_watch(fd, path, IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int qb_inotify_drain_named(int fd, const char *prefix) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    size_t length = prefix ? strlen(prefix) : 0;
    int events = 0;
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        for (char *p = buffer; p < buffer + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            if ((e->mask & IN_Q_OVERFLOW) || length == 0 || (e->len > 0 && strncmp(e->name, prefix, length) == 0)) events++;
            p += sizeof(struct inotify_event) + e->len;
        }
    }
    return events;
}

int qb_inotify_drain(int fd) { return qb_inotify_drain_named(fd, NULL); }
