#ifndef BLOBSTORE_CEPOLL_H
#define BLOBSTORE_CEPOLL_H

/// epoll(7), eventfd(2) and accept4(2) for the caching proxy's event loops, which Swift's Glibc module does
/// not import. A module of its own, without _GNU_SOURCE (which CLinux defines): these headers
/// bring in <sys/select.h>, whose fd_set must read as Foundation's modules read it.

#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// <sys/socket.h> declares accept4(2) only with _GNU_SOURCE; glibc has it whatever the macros.
int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// accept4(2) of the next connection on `listener`, non-blocking and closed on exec.
static inline int blobstore_accept(int listener, struct sockaddr *address, socklen_t *length) {
    return accept4(listener, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/// epoll_ctl(2) EPOLL_CTL_ADD of `fd`, readable and level-triggered, with the descriptor's
/// number as its data (struct epoll_event is packed on x86-64: it stays on this side).
static inline int blobstore_epoll_watch(int epoll, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = fd;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

/// epoll_ctl(2) EPOLL_CTL_ADD of `fd`, readable (urgent data too) and writable and
/// edge-triggered: each change reports once (every arrival of bytes, every freeing of room after a
/// send that filled the socket's buffer), so that a socket stays in the set for its whole life,
/// whoever reads it. Closing the descriptor takes it out.
static inline int blobstore_epoll_follow(int epoll, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    event.data.fd = fd;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

/// The events of blobstore_epoll_wait that make a descriptor readable (an end of stream, a
/// hang-up, an error or urgent data too: the read that follows reports them) or writable.
static const unsigned blobstore_epoll_readable = EPOLLIN | EPOLLPRI | EPOLLRDHUP | EPOLLHUP | EPOLLERR;
/// The events after which a read may return fewer bytes than the socket holds: one returns the
/// bytes before an end of stream or an error, and only the next returns the end; one stops at
/// the mark of urgent data.
static const unsigned blobstore_epoll_short_reads = EPOLLPRI | EPOLLRDHUP | EPOLLHUP | EPOLLERR;
static const unsigned blobstore_epoll_writable = EPOLLOUT | EPOLLHUP | EPOLLERR;

/// epoll_wait(2) for at most 256 descriptors, written as their numbers into `fds` and their
/// events into `masks`.
static inline int blobstore_epoll_wait(int epoll, int *fds, unsigned *masks, int max, int timeout) {
    struct epoll_event events[256];
    int count = epoll_wait(epoll, events, max < 256 ? max : 256, timeout);
    for (int index = 0; index < count; index++) {
        fds[index] = events[index].data.fd;
        masks[index] = events[index].events;
    }
    return count;
}

#endif
