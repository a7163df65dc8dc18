#ifndef BLOBSTORE_CLINUX_H
#define BLOBSTORE_CLINUX_H

/// Linux calls that Swift's Glibc module does not import (they are declared under _GNU_SOURCE,
/// or their name is taken by a struct), declared here once instead of `@_silgen_name`.

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>

/// memfd_create(2): an anonymous file in memory, freed when its last descriptor closes.
static inline int blobstore_memfd_create(const char *name, unsigned int flags) {
    return memfd_create(name, flags);
}

/// MFD_CLOEXEC.
static inline unsigned int blobstore_mfd_cloexec(void) { return MFD_CLOEXEC; }

/// O_TMPFILE: open(2) of a directory with it makes an unnamed file there.
static inline int blobstore_o_tmpfile(void) { return O_TMPFILE; }

/// flock(2): Swift's Glibc module exposes only `struct flock` under that name.
static inline int blobstore_flock(int fd, int operation) {
    return flock(fd, operation);
}

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE over the whole file: starts the writeback of
/// its dirty pages without waiting for it.
static inline int blobstore_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

#endif
