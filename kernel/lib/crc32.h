/* crc32.h - CRC-32 as in IEEE 802.3 and zlib (reflected polynomial 0xEDB88320). */
#ifndef QB_KERNEL_CRC32_H
#define QB_KERNEL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 of n bytes at p; identical to zlib's crc32(0, p, n). */
uint32_t crc32(const void *p, size_t n);

/*
 * Continue a CRC-32: crc is the value returned for the bytes before p
 * (0 to start), so crc32_update(crc32(a), b) == crc32(a followed by b).
 */
uint32_t crc32_update(uint32_t crc, const void *p, size_t n);

#endif
