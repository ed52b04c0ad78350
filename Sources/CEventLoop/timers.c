#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

// The loop's clocks: a CLOCK_MONOTONIC timerfd for the machine's timers and the LED and
// buzzer steps, and a CLOCK_REALTIME one for calendar wake-ups that also fires when the
// wall clock is set.

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
