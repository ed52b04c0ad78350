#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/resource.h>
#include <sys/syscall.h>

int qb_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

int qb_timerfd_arm(int fd, int64_t at_ns) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (at_ns >= 0) {
        // 0 would disarm: an already-due deadline fires at the earliest possible moment.
        if (at_ns == 0) at_ns = 1;
        spec.it_value.tv_sec = at_ns / 1000000000LL;
        spec.it_value.tv_nsec = at_ns % 1000000000LL;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

void qb_timerfd_drain(int fd) {
    uint64_t expirations;
    while (read(fd, &expirations, sizeof expirations) == (ssize_t)sizeof expirations) {}
}

int qb_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void qb_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof one);
    (void)n;
}

void qb_eventfd_drain(int fd) {
    uint64_t value;
    while (read(fd, &value, sizeof value) == (ssize_t)sizeof value) {}
}

int qb_signalfd_term(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int qb_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    if (read(fd, &info, sizeof info) != (ssize_t)sizeof info) return 0;
    return (int)info.ssi_signo;
}

int qb_sd_notify(const char *message) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !path[0]) return 0;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len >= sizeof addr.sun_path) return -1;
    memcpy(addr.sun_path, path, len);
    if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    ssize_t sent = sendto(fd, message, strlen(message), MSG_NOSIGNAL, (struct sockaddr *)&addr,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
    close(fd);
    return sent < 0 ? -1 : 1;
}

int qb_poll_readable(const int *fds, int count, int timeout_ms, int *ready) {
    return qb_poll(fds, NULL, count, timeout_ms, ready);
}

int qb_wallclock_timerfd_create(void) { return timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC); }

int qb_wallclock_timerfd_arm(int fd, double unix_seconds) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (unix_seconds < 1) unix_seconds = 1;
    spec.it_value.tv_sec = (time_t)unix_seconds;
    spec.it_value.tv_nsec = (long)((unix_seconds - (double)(time_t)unix_seconds) * 1e9);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

int qb_wallclock_timerfd_read(int fd) {
    uint64_t expirations;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    if (n == (ssize_t)sizeof expirations) return 1;
    if (n < 0 && errno == ECANCELED) return 2;
    return 0;
}

int qb_prefetch_mapped_code(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    char line[4096], last[4096] = "";
    int advised = 0;
    while (fgets(line, sizeof line, maps)) {
        char perms[8], path[4096];
        /* start-end perms offset dev inode path */
        if (sscanf(line, "%*s %7s %*s %*s %*s %4095s", perms, path) != 2) continue;
        if (perms[2] != 'x' || path[0] != '/' || strcmp(path, last) == 0) continue;
        snprintf(last, sizeof last, "%s", path);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED) == 0) advised++;
        close(fd);
    }
    fclose(maps);
    return advised;
}

void qb_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

int qb_nice_this_thread(int nice) {
    // Linux: a thread's nice value is its own (setpriority on its thread id).
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice) == 0 ? 0 : errno;
}

void qb_malloc_for_bursts(void) {
#if defined(__GLIBC__)
    // A fixed mmap threshold: glibc would otherwise raise it to the largest block freed, and
    // every later read of the history would stay in the heap for good. Two arenas for the
    // server's threads, and free memory past 1 MiB at a heap's top given back.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, 2);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
#endif
}

int qb_loop_realtime(int priority) {
    struct sched_param p = { .sched_priority = priority };
    return sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) == 0 ? 0 : errno;
}
