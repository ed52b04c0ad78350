#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
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

int qb_inotify_drain(int fd) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int events = 0;
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        for (char *p = buffer; p < buffer + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            events++;
            p += sizeof(struct inotify_event) + e->len;
        }
    }
    return events;
}
