#ifndef BLOBSTORE_CLINUX_H
#define BLOBSTORE_CLINUX_H
/// Linux calls that Swift's Glibc module does not import (they are declared under _GNU_SOURCE).
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>

/// memfd_create(2): an anonymous file in memory, freed when its last descriptor closes.
static inline int blobstore_memfd_create(const char *name, unsigned int flags) {
    return memfd_create(name, flags);
}

/// MFD_CLOEXEC.
static inline unsigned int blobstore_mfd_cloexec(void) { return MFD_CLOEXEC; }

#endif
