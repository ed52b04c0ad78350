#ifndef QB_UNIX_SOCKET_H
#define QB_UNIX_SOCKET_H
// The box's local socket (unix_socket.c).
#include <sys/types.h>

/// A listening Unix stream socket at `path` (non-blocking, close-on-exec) with the file mode
/// `mode`, or -errno. A socket file left by a process that is gone is replaced; one that a
/// live process still answers is not (-EADDRINUSE). -ENAMETOOLONG past sun_path's size.
int qb_unix_listen(const char *path, int mode, int backlog);

/// Accepts one connection (non-blocking, close-on-exec), or -errno (-EAGAIN: none waiting).
int qb_unix_accept(int fd);

/// Connects to the Unix stream socket at `path` (blocking, close-on-exec), or -errno.
int qb_unix_connect(const char *path);

/// 1 when the connected peer runs as root or as this process's own user (the box's own
/// services and a parent's `sudo -u questbox`), else 0 (SO_PEERCRED).
int qb_peer_is_trusted(int fd);

/// send() without SIGPIPE on a closed peer; -errno on failure.
ssize_t qb_send(int fd, const void *bytes, size_t count);

#endif
