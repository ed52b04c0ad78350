#define _GNU_SOURCE
#include "ceventloop.h"

#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

// Waking the loop from elsewhere: an eventfd another thread signals, a signalfd for
// SIGTERM and SIGINT.

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
