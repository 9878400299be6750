/* sha256.h - SHA-256 (FIPS 180-4), for fingerprints of serial numbers and UUIDs that tell machines apart without printing them. */
#ifndef QB_KERNEL_SHA256_H
#define QB_KERNEL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32            /* a digest */
#define SHA256_BLOCK 64            /* bytes the compression function takes at once */

/* A hash in progress: sha256_init, sha256_update any number of times, sha256_final. */
struct sha256 {
	uint32_t h[8];             /* the chaining value */
	uint64_t bytes;            /* message bytes taken so far */
	uint8_t block[SHA256_BLOCK]; /* the partial block */
	uint32_t used;             /* bytes of it filled */
};

/* Start a hash (FIPS 180-4 5.3.3: the initial hash value). */
void sha256_init(struct sha256 *c);

/* Add n bytes of message. */
void sha256_update(struct sha256 *c, const void *p, size_t n);

/* Pad (5.1.1), finish, and write the 32-byte digest; c is spent. */
void sha256_final(struct sha256 *c, uint8_t out[SHA256_BYTES]);

/* The digest of n bytes at p, in one call. */
void sha256(const void *p, size_t n, uint8_t out[SHA256_BYTES]);

/* The first `digits` hex digits (lower case, at most 64) of the digest of n
 * bytes at p, NUL-terminated in out (digits + 1 bytes). */
void sha256_hex(const void *p, size_t n, char *out, unsigned digits);

#endif
