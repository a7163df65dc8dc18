#ifndef BLOBSTORE_SHARED_COUNTER_H
#define BLOBSTORE_SHARED_COUNTER_H
#include <stdint.h>

/// Atomic operations on a 64-bit counter in memory shared between processes (a MAP_SHARED
/// mapping of the store's LOCK file). Swift has no atomics on a raw address, so they live here.

/// Reads the counter (acquire: what the writer did before its bump is visible after).
static inline uint64_t blobstore_counter_load(const uint64_t *counter) {
    return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

/// Adds one to the counter (release) and returns the value before.
static inline uint64_t blobstore_counter_bump(uint64_t *counter) {
    return __atomic_fetch_add(counter, 1, __ATOMIC_ACQ_REL);
}

/// Adds `amount` to a statistics counter (relaxed: the counts order nothing).
static inline void blobstore_counter_add(uint64_t *counter, uint64_t amount) {
    __atomic_fetch_add(counter, amount, __ATOMIC_RELAXED);
}

/// Reads a statistics counter (relaxed).
static inline uint64_t blobstore_counter_peek(const uint64_t *counter) {
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

#endif
