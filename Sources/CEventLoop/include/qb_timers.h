#ifndef QB_TIMERS_H
#define QB_TIMERS_H
// The loop's clocks: a CLOCK_MONOTONIC timerfd for the machine's timers and the LED and
// buzzer steps, a CLOCK_REALTIME one for calendar wake-ups (timers.c).
#include <stdint.h>

/// A CLOCK_MONOTONIC timerfd (non-blocking, close-on-exec), or -1.
int qb_timerfd_create(void);

/// Arms `fd` to fire once at the absolute CLOCK_MONOTONIC time `at_ns`; `at_ns` < 0 disarms.
int qb_timerfd_arm(int fd, int64_t at_ns);

/// Consumes the expiration count of a fired timerfd.
void qb_timerfd_drain(int fd);

/// A CLOCK_REALTIME timerfd for calendar wake-ups (non-blocking), or -1.
int qb_wallclock_timerfd_create(void);

/// Arms it for the wall time `unix_seconds`, cancelled early if the wall clock is set (an NTP
/// step): so one fd reports both "midnight" and "the clock changed" without polling.
int qb_wallclock_timerfd_arm(int fd, double unix_seconds);

/// After it polled readable: 1 the time came, 2 the clock was set, 0 nothing.
int qb_wallclock_timerfd_read(int fd);

#endif
