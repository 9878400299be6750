/* crc32.c - table-driven CRC-32 per IEEE 802.3 clause 3.2.9, bit-compatible with zlib. */
#include "crc32.h"

/* ---- Constants ------------------------------------------------------------ */

#define CRC32_NIBBLE_BITS 4
#define CRC32_NIBBLE_MASK 0xfu

/*
 * crc32_nibble[i] is i pushed through four steps of the reflected shift
 * register with polynomial 0xEDB88320; a 16-entry table keeps the kernel
 * image small and is fast enough for the record lines it checksums.
 */
static const uint32_t crc32_nibble[1u << CRC32_NIBBLE_BITS] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
	0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

/* ---- Public Functions ----------------------------------------------------- */

uint32_t crc32_update(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	/* zlib keeps the register inverted between calls: pre- and post-invert. */
	crc = ~crc;
	while (n--) {
		crc ^= *b++;
		crc = (crc >> CRC32_NIBBLE_BITS) ^
		      crc32_nibble[crc & CRC32_NIBBLE_MASK];
		crc = (crc >> CRC32_NIBBLE_BITS) ^
		      crc32_nibble[crc & CRC32_NIBBLE_MASK];
	}
	return ~crc;
}

uint32_t crc32(const void *p, size_t n)
{
	return crc32_update(0, p, n);
}
