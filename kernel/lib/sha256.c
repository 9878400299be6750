/* sha256.c - SHA-256 as FIPS 180-4 section 6.2 gives it; see sha256.h. */
#include "sha256.h"

/* ---- Constants ------------------------------------------------------------ */

/* 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* 5.3.3: the initial hash value, from the square roots of the first 8 primes. */
static const uint32_t h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

#define PAD_FIRST 0x80             /* 5.1.1: the bit "1" after the message */
#define LENGTH_AT (SHA256_BLOCK - 8) /* the message's length in bits ends the last block */

/* ---- Private Functions ---------------------------------------------------- */

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* 6.2.2: one block into the chaining value. */
static void compress(uint32_t h[8], const uint8_t *b)
{
	uint32_t w[64];
	for (unsigned t = 0; t < 16; t++)
		w[t] = (uint32_t)b[4 * t] << 24 | (uint32_t)b[4 * t + 1] << 16 | (uint32_t)b[4 * t + 2] << 8 | b[4 * t + 3];
	for (unsigned t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (unsigned t = 0; t < 64; t++) {
		uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[t] + w[t];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = bb;
		bb = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += bb;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

/* ---- Public Functions ----------------------------------------------------- */

void sha256_init(struct sha256 *c)
{
	for (unsigned i = 0; i < 8; i++)
		c->h[i] = h0[i];
	c->bytes = 0;
	c->used = 0;
}

void sha256_update(struct sha256 *c, const void *p, size_t n)
{
	const uint8_t *s = p;
	c->bytes += n;
	while (n) {
		uint32_t take = SHA256_BLOCK - c->used;
		if (take > n)
			take = (uint32_t)n;
		for (uint32_t i = 0; i < take; i++)
			c->block[c->used + i] = s[i];
		c->used += take;
		s += take;
		n -= take;
		if (c->used == SHA256_BLOCK) {
			compress(c->h, c->block);
			c->used = 0;
		}
	}
}

void sha256_final(struct sha256 *c, uint8_t out[SHA256_BYTES])
{
	uint64_t bits = c->bytes * 8;
	c->block[c->used++] = PAD_FIRST;
	if (c->used > LENGTH_AT) {
		while (c->used < SHA256_BLOCK)
			c->block[c->used++] = 0;
		compress(c->h, c->block);
		c->used = 0;
	}
	while (c->used < LENGTH_AT)
		c->block[c->used++] = 0;
	for (unsigned i = 0; i < 8; i++)
		c->block[LENGTH_AT + i] = (uint8_t)(bits >> (56 - 8 * i));
	compress(c->h, c->block);
	for (unsigned i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void sha256(const void *p, size_t n, uint8_t out[SHA256_BYTES])
{
	struct sha256 c;
	sha256_init(&c);
	sha256_update(&c, p, n);
	sha256_final(&c, out);
}

void sha256_hex(const void *p, size_t n, char *out, unsigned digits)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t d[SHA256_BYTES];
	sha256(p, n, d);
	if (digits > 2 * SHA256_BYTES)
		digits = 2 * SHA256_BYTES;
	for (unsigned i = 0; i < digits; i++)
		out[i] = hex[(d[i / 2] >> (i % 2 ? 0 : 4)) & 15];
	out[digits] = 0;
}
