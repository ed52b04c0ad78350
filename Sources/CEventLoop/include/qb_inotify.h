#ifndef QB_INOTIFY_H
#define QB_INOTIFY_H
// Watching the data directory for other programs' writes (inotify.c).

/// An inotify fd (non-blocking) watching the directory `path` for files written, created,
/// removed or renamed in it, or -errno.
int qb_inotify_directory(const char *path);

/// Reads every queued inotify event; returns how many there were.
int qb_inotify_drain(int fd);

/// Reads every queued inotify event; returns how many were about a file whose name begins
/// with `prefix` (a lost queue, IN_Q_OVERFLOW, counts as one: anything may have changed).
int qb_inotify_drain_named(int fd, const char *prefix);

#endif
