#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// The process and its threads: systemd's notify socket, code read ahead, memory given
// back, nice, SCHED_FIFO.

int qb_sd_notify(const char *message) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !path[0]) return 0;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len >= sizeof addr.sun_path) return -1;
    memcpy(addr.sun_path, path, len);
    if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    ssize_t sent = sendto(fd, message, strlen(message), MSG_NOSIGNAL, (struct sockaddr *)&addr,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
    close(fd);
    return sent < 0 ? -1 : 1;
}

int qb_prefetch_mapped_code(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    char line[4096], last[4096] = "";
    int advised = 0;
    while (fgets(line, sizeof line, maps)) {
        char perms[8], path[4096];
        /* start-end perms offset dev inode path */
        if (sscanf(line, "%*s %7s %*s %*s %*s %4095s", perms, path) != 2) continue;
        if (perms[2] != 'x' || path[0] != '/' || strcmp(path, last) == 0) continue;
        snprintf(last, sizeof last, "%s", path);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED) == 0) advised++;
        close(fd);
    }
    fclose(maps);
    return advised;
}

struct code_release {
    long page;
    int segments;
};

// Read-only segments only: a writable one (and the RELRO part the loader wrote and then made
// read-only) holds private copies of pages, which MADV_DONTNEED would throw away.
static int release_object_code(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct code_release *release = context;
    const char *name = info->dlpi_name;
    // The program itself (empty name) and the libraries it loaded from files; not the vDSO.
    if (name && name[0] && name[0] != '/') return 0;
    uintptr_t relro_start = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO) {
            relro_start = info->dlpi_addr + ph->p_vaddr;
            relro_end = relro_start + ph->p_memsz;
        }
        // An object with text relocations had its code pages written by the loader: they
        // are private copies too, so none of its segments is released.
        if (ph->p_type == PT_DYNAMIC) {
            for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr); d->d_tag != DT_NULL; d++) {
                if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL))) return 0;
            }
        }
    }
    uintptr_t page = (uintptr_t)release->page;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || ph->p_filesz == 0) continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_filesz;
        if (relro_end > relro_start && start < relro_end && relro_start < end) continue;
        // Whole pages inside the segment: a page it shares with a neighbour stays mapped.
        start = (start + page - 1) & ~(page - 1);
        end &= ~(page - 1);
        if (end <= start) continue;
        if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) release->segments++;
    }
    return 0;
}

int qb_release_code_mappings(void) {
    struct code_release release = { .page = sysconf(_SC_PAGESIZE), .segments = 0 };
    if (release.page <= 0) return -1;
    dl_iterate_phdr(release_object_code, &release);
    return release.segments;
}

long qb_resident_kb(void) {
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm) return -1;
    long size = 0, resident = -1;
    if (fscanf(statm, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(statm);
    long page = sysconf(_SC_PAGESIZE);
    return resident < 0 || page <= 0 ? -1 : resident * (page / 1024);
}

void qb_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

int qb_nice_this_thread(int nice) {
    // Linux: a thread's nice value is its own (setpriority on its thread id).
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice) == 0 ? 0 : errno;
}

void qb_malloc_for_bursts(void) {
#if defined(__GLIBC__)
    // A fixed mmap threshold: glibc would otherwise raise it to the largest block freed, and
    // every later read of the history would stay in the heap for good. Two arenas for the
    // server's threads, and free memory past 1 MiB at a heap's top given back.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, 2);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
#endif
}

int qb_loop_realtime(int priority) {
    struct sched_param p = { .sched_priority = priority };
    return sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) == 0 ? 0 : errno;
}
