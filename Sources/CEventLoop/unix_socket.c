#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

// The box's local socket: listening, accepting, connecting, the peer's user, sending.

static int fill_address(struct sockaddr_un *address, const char *path) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address->sun_path) return -ENAMETOOLONG;
    strcpy(address->sun_path, path);
    return 0;
}

int qb_unix_connect(const char *path) {
    struct sockaddr_un address;
    int r = fill_address(&address, path);
    if (r < 0) return r;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

int qb_unix_listen(const char *path, int mode, int backlog) {
    struct sockaddr_un address;
    int r = fill_address(&address, path);
    if (r < 0) return r;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) return -EEXIST;  // never remove a file that is not a socket
        int probe = qb_unix_connect(path);
        if (probe >= 0) {
            close(probe);
            return -EADDRINUSE;  // another box answers there
        }
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    // Bind under a tight umask, then set the mode: no moment where others may connect.
    mode_t old = umask(0177);
    int bound = bind(fd, (struct sockaddr *)&address, sizeof address);
    int e = errno;
    umask(old);
    if (bound < 0 || chmod(path, (mode_t)mode) < 0 || listen(fd, backlog) < 0) {
        if (bound == 0) e = errno;
        close(fd);
        if (bound == 0) unlink(path);
        return -e;
    }
    return fd;
}

int qb_unix_accept(int fd) {
    int client = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    return client < 0 ? -errno : client;
}

int qb_peer_is_trusted(int fd) {
    struct ucred cred;
    socklen_t length = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) < 0) return 0;
    return cred.uid == 0 || cred.uid == getuid();
}

ssize_t qb_send(int fd, const void *bytes, size_t count) {
    ssize_t n = send(fd, bytes, count, MSG_NOSIGNAL | MSG_DONTWAIT);
    return n < 0 ? -errno : n;
}
