#ifndef QB_PROCESS_H
#define QB_PROCESS_H
// The process and its threads: systemd, code read ahead, memory, nice, SCHED_FIFO (process.c).

/// Sends `message` (e.g. "READY=1") to $NOTIFY_SOCKET as systemd expects. 1 sent, 0 when no
/// socket is set, -1 on error.
int qb_sd_notify(const char *message);

/// Hands memory freed after start-up back to the system (glibc malloc_trim); no-op elsewhere.
void qb_release_free_memory(void);

/// For a server whose requests read large blocks in bursts (the web app): big blocks are
/// mapped and unmapped, so a burst leaves no heap behind (glibc mallopt); no-op elsewhere.
void qb_malloc_for_bursts(void);

/// Sets the calling thread's nice value (0 or errno).
int qb_nice_this_thread(int nice);

/// Asks the kernel to read the process's executable and libraries into the page cache
/// (POSIX_FADV_WILLNEED), so the first reveal does not wait on code paged in from the SD
/// card. Resident memory is unchanged: pages are cached, not mapped. Returns the number of
/// files advised, -1 if /proc/self/maps cannot be read.
int qb_prefetch_mapped_code(void);

/// Unmaps the pages of code and read-only data the process has touched so far, in the program
/// and its libraries (MADV_DONTNEED on their read-only segments; writable and RELRO segments
/// are left alone). The page cache keeps them: what runs next maps its pages again with a minor
/// fault. Called once start-up is done, so the code only start-up ran (opening the store, the
/// board profile, time zone and locale) stops counting against the box (#36). Returns the
/// number of segments released, -1 if the page size is unknown.
int qb_release_code_mappings(void);

/// The process's resident memory in KiB (/proc/self/statm), -1 if unreadable.
long qb_resident_kb(void);

/// Puts the calling thread on SCHED_FIFO at `priority` with SCHED_RESET_ON_FORK (threads and
/// processes it starts get the normal policy). 0 on success, else the errno (EPERM when
/// neither root, CAP_SYS_NICE nor RLIMIT_RTPRIO allow it).
int qb_loop_realtime(int priority);

#endif
