#ifndef BLOBSTORE_CRC32C_H
#define BLOBSTORE_CRC32C_H
#include <stddef.h>
#include <stdint.h>

/// Extends `crc` (0 to start) with `length` bytes, using SSE4.2 when the CPU has it.
uint32_t blobstore_crc32c_extend(uint32_t crc, const void *data, size_t length);
/// The portable slicing-by-8 path, exposed for tests and measurement.
uint32_t blobstore_crc32c_extend_portable(uint32_t crc, const void *data, size_t length);
/// 1 when `blobstore_crc32c_extend` uses the CPU's CRC32 instruction.
int blobstore_crc32c_is_hardware(void);

#endif
