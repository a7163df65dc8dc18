#ifndef BLOBSTORE_CLINUX_H
#define BLOBSTORE_CLINUX_H

/// Linux calls that Swift's Glibc module does not import (they are declared under _GNU_SOURCE,
/// or their name is taken by a struct), declared here once instead of `@_silgen_name`.

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

/// memfd_create(2): an anonymous file in memory, freed when its last descriptor closes.
static inline int blobstore_memfd_create(const char *name, unsigned int flags) {
    return memfd_create(name, flags);
}

/// MFD_CLOEXEC.
static inline unsigned int blobstore_mfd_cloexec(void) { return MFD_CLOEXEC; }

/// flock(2): Swift's Glibc module exposes only `struct flock` under that name.
static inline int blobstore_flock(int fd, int operation) {
    return flock(fd, operation);
}

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE over the whole file: starts the writeback of
/// its dirty pages without waiting for it.
static inline int blobstore_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

/// epoll_ctl(2) EPOLL_CTL_ADD of `fd`, readable and level-triggered, with the descriptor's
/// number as its data (struct epoll_event is packed on x86-64: it stays on this side).
static inline int blobstore_epoll_watch(int epoll, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.fd = fd;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

/// epoll_ctl(2) EPOLL_CTL_DEL of `fd`.
static inline int blobstore_epoll_unwatch(int epoll, int fd) {
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
}

/// epoll_wait(2) for at most 256 descriptors, written as their numbers into `fds`.
static inline int blobstore_epoll_wait(int epoll, int *fds, int max, int timeout) {
    struct epoll_event events[256];
    int count = epoll_wait(epoll, events, max < 256 ? max : 256, timeout);
    for (int index = 0; index < count; index++) fds[index] = events[index].data.fd;
    return count;
}

#endif
