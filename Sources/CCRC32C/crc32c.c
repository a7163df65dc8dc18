// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI, ext4 and LevelDB.
// A hardware path (SSE4.2 `crc32` instruction, 8 bytes per step) chosen once at load time,
// and a portable slicing-by-8 path. See docs/format.md for the measurement behind the choice.
#include "crc32c.h"

#include <string.h>

static uint32_t table[8][256];

static void build_tables(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = table[0][n];
        for (int k = 1; k < 8; k++) {
            crc = table[0][crc & 0xff] ^ (crc >> 8);
            table[k][n] = crc;
        }
    }
}

uint32_t blobstore_crc32c_extend_portable(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = data;
    crc = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        word ^= crc;
        crc = table[7][word & 0xff] ^ table[6][(word >> 8) & 0xff] ^ table[5][(word >> 16) & 0xff] ^
              table[4][(word >> 24) & 0xff] ^ table[3][(word >> 32) & 0xff] ^
              table[2][(word >> 40) & 0xff] ^ table[1][(word >> 48) & 0xff] ^ table[0][word >> 56];
        p += 8;
        length -= 8;
    }
    while (length--) crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t extend_sse42(uint32_t crc, const void *data,
                                                                size_t length) {
    const uint8_t *p = data;
    uint64_t c = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length--) c32 = __builtin_ia32_crc32qi(c32, *p++);
    return ~c32;
}
#endif

static uint32_t (*extend_impl)(uint32_t, const void *, size_t) = blobstore_crc32c_extend_portable;

__attribute__((constructor)) static void crc32c_init(void) {
    build_tables();
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) extend_impl = extend_sse42;
#endif
}

uint32_t blobstore_crc32c_extend(uint32_t crc, const void *data, size_t length) {
    return extend_impl(crc, data, length);
}

int blobstore_crc32c_is_hardware(void) {
    return extend_impl != blobstore_crc32c_extend_portable;
}
