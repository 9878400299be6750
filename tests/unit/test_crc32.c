/* test_crc32.c - host tests for kernel/lib/crc32.c against published vectors and a bitwise reference. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "crc32.h"

#define REF_POLY 0xedb88320u
#define RANDOM_BUFS 200
#define RANDOM_MAX_LEN 4096

/* The textbook one-bit-at-a-time CRC-32, written independently of the table. */
static uint32_t ref_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ REF_POLY : crc >> 1;
	}
	return ~crc;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

TEST(known_vectors)
{
	uint8_t zeros[32] = { 0 }, ones[32], all[256];

	memset(ones, 0xff, sizeof(ones));
	for (unsigned i = 0; i < sizeof(all); i++)
		all[i] = (uint8_t)i;
	CHECK_EQ_U(crc32("123456789", 9), 0xcbf43926u);
	CHECK_EQ_U(crc32("", 0), 0);
	CHECK_EQ_U(crc32(NULL, 0), 0);
	CHECK_EQ_U(crc32("a", 1), 0xe8b7be43u);
	CHECK_EQ_U(crc32("The quick brown fox jumps over the lazy dog", 43),
		   0x414fa339u);
	CHECK_EQ_U(crc32(zeros, sizeof(zeros)), 0x190a55adu);
	CHECK_EQ_U(crc32(ones, sizeof(ones)), 0xff6cab0bu);
	CHECK_EQ_U(crc32(all, sizeof(all)), 0x29058c73u);
}

TEST(update_from_zero_is_oneshot)
{
	CHECK_EQ_U(crc32_update(0, "123456789", 9), crc32("123456789", 9));
	CHECK_EQ_U(crc32_update(0, "", 0), 0);
	/* An empty update leaves any CRC unchanged. */
	CHECK_EQ_U(crc32_update(0xcbf43926u, "", 0), 0xcbf43926u);
}

TEST(incremental_every_split)
{
	static const char msg[] = "QuietBench records are checksummed line by line";
	size_t n = sizeof(msg) - 1;
	uint32_t whole = crc32(msg, n);

	for (size_t cut = 0; cut <= n; cut++) {
		uint32_t c = crc32_update(0, msg, cut);

		CHECK_EQ_U(crc32_update(c, msg + cut, n - cut), whole);
	}
	/* Byte by byte. */
	uint32_t c = 0;

	for (size_t i = 0; i < n; i++)
		c = crc32_update(c, msg + i, 1);
	CHECK_EQ_U(c, whole);
}

TEST(random_buffers_match_reference)
{
	static uint8_t buf[RANDOM_MAX_LEN];

	for (int t = 0; t < RANDOM_BUFS; t++) {
		size_t n = (size_t)(rng() % RANDOM_MAX_LEN);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rng();
		CHECK_EQ_U(crc32(buf, n), ref_crc32(buf, n));
		size_t cut = n ? (size_t)(rng() % n) : 0;

		CHECK_EQ_U(crc32_update(crc32(buf, cut), buf + cut, n - cut),
			   ref_crc32(buf, n));
	}
}

int main(void)
{
	RUN(known_vectors);
	RUN(update_from_zero_is_oneshot);
	RUN(incremental_every_split);
	RUN(random_buffers_match_reference);
	return check_summary("crc32");
}
