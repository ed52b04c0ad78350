#ifndef QB_WAKEUPS_H
#define QB_WAKEUPS_H
// Waking the loop: from another thread, and on SIGTERM/SIGINT (wakeups.c).

/// An eventfd for waking the loop from another thread, or -1.
int qb_eventfd_create(void);

void qb_eventfd_signal(int fd);

void qb_eventfd_drain(int fd);

/// Blocks SIGTERM and SIGINT for the process and returns a signalfd that reports them, or -1.
int qb_signalfd_term(void);

/// Reads one signal from the signalfd: its number, or 0.
int qb_signalfd_read(int fd);

#endif
