#ifndef CSYSTEMCLOCK_H
#define CSYSTEMCLOCK_H
#include <stdint.h>

/// 1 when the kernel reports the wall clock synchronized (NTP), 0 when not, -1 when the
/// state cannot be read.
int questbox_wall_clock_synchronized(void);

/// CLOCK_MONOTONIC in nanoseconds (the clock of GPIO edge timestamps), or -1.
int64_t questbox_monotonic_nanos(void);

#endif
