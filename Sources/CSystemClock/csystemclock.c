#include "csystemclock.h"
#include <string.h>
#include <time.h>
#include <sys/timex.h>

int questbox_wall_clock_synchronized(void) {
    struct timex tx;
    memset(&tx, 0, sizeof tx);  // modes = 0: read only, needs no privilege
    int state = adjtimex(&tx);
    if (state == -1) return -1;
    // TIME_ERROR (and STA_UNSYNC) is what the kernel reports until timesyncd/chrony sync it.
    if (state == TIME_ERROR || (tx.status & STA_UNSYNC)) return 0;
    return 1;
}

int64_t questbox_monotonic_nanos(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return -1;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
