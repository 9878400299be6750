/* test_locality.c - host tests of the locality workload's loops (workloads/locality_loops.c): every element summed exactly once, the gist's 32-bit slots wrapping as its ints do, the seed's data. */
#include <stdlib.h>
#include "check.h"
#include "locality_loops.h"

#define MAX_N 97

static uint32_t a[MAX_N + 8];
static uint32_t slots[16];

typedef uint64_t (*priv_fn)(const uint32_t *, uint64_t, uint32_t, uint32_t);
typedef void (*shared_fn)(const uint32_t *, uint64_t, uint32_t, uint32_t, uint32_t *);

static const struct {
	const char *name;
	priv_fn priv;
	shared_fn shared;
} variants[] = {
	{ "interleaved", loc_interleaved_private, loc_interleaved_shared },
	{ "blocked-strided", loc_blocked_strided_private, loc_blocked_strided_shared },
	{ "blocked", loc_blocked_private, loc_blocked_shared },
};

/* Sum over all threads of one variant, both accumulators; they must agree
 * (each thread's slot modulo 2^32, as the gist's int slots). */
static uint64_t total(unsigned v, uint64_t n, uint32_t p)
{
	uint64_t priv = 0, shared = 0;
	for (uint32_t t = 0; t < p; t++) {
		uint64_t mine = variants[v].priv(a, n, p, t);
		priv += mine;
		slots[t % 16] = 0;
		variants[v].shared(a, n, p, t, &slots[t % 16]);
		if (slots[t % 16] != (uint32_t)mine) {
			printf("  %s n=%llu p=%u t=%u: slot %u != private %llu mod 2^32\n", variants[v].name,
			       (unsigned long long)n, p, t, slots[t % 16], (unsigned long long)mine);
			return ~0ull;
		}
		shared += slots[t % 16];
	}
	if (priv != shared) {
		printf("  %s n=%llu p=%u: private %llu != shared %llu\n", variants[v].name,
		       (unsigned long long)n, p, (unsigned long long)priv, (unsigned long long)shared);
		return ~0ull;
	}
	return priv;
}

/* With a single 1 at index k, the total is the number of times k was summed. */
TEST(every_element_exactly_once)
{
	static const uint32_t ps[] = { 1, 2, 3, 4, 5, 7, 8, 16, 100 };
	static const uint64_t ns[] = { 0, 1, 2, 3, 7, 8, 64, 97 };
	for (unsigned v = 0; v < 3; v++)
		for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			for (unsigned j = 0; j < sizeof(ps) / sizeof(ps[0]); j++) {
				uint64_t n = ns[i];
				uint32_t p = ps[j];
				memset(a, 0, sizeof(a));
				a[n] = 1000; /* just past the end: must never be read */
				for (uint64_t k = 0; k < n; k++) {
					a[k] = 1;
					uint64_t got = total(v, n, p);
					if (got != 1)
						printf("  %s n=%llu p=%u: element %llu summed %llu times\n",
						       variants[v].name, (unsigned long long)n, p,
						       (unsigned long long)k, (unsigned long long)got);
					CHECK_EQ_U(got, 1);
					a[k] = 0;
				}
				CHECK_EQ_U(total(v, n, p), 0);
			}
}

TEST(blocks_tile_the_array)
{
	static const uint64_t ns[] = { 0, 1, 10, 97, 1000003, 0xffffffffffull };
	for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (uint32_t p = 1; p <= 130; p++) {
			uint64_t prev_end = 0, s, e;
			for (uint32_t t = 0; t < p; t++) {
				loc_block(ns[i], p, t, &s, &e);
				CHECK_EQ_U(s, prev_end);
				CHECK(e >= s);
				CHECK(e - s <= ns[i] / p + 1);
				prev_end = e;
			}
			CHECK_EQ_U(prev_end, ns[i]);
		}
}

TEST(sums_match_a_reference)
{
	srand(42);
	uint64_t want = 0;
	for (unsigned i = 0; i < MAX_N; i++) {
		a[i] = (uint32_t)(rand() % 100);
		want += a[i];
	}
	for (unsigned v = 0; v < 3; v++)
		for (uint32_t p = 1; p <= 12; p++)
			CHECK_EQ_U(total(v, MAX_N, p), want);
}

/* A thread whose sum passes 2^32: its 32-bit slot wraps (the gist's int
 * would too), the private 64-bit sum does not, and they agree modulo 2^32.
 * The slot starts with what it held: the loop adds to it, as `*r +=` does. */
TEST(slot_wraps_modulo_2_32)
{
	static uint32_t big[6] = { 0xfffffff0u, 0x20u, 0xffffffffu, 1, 0x80000000u, 0x80000000u };
	for (unsigned v = 0; v < 3; v++)
		for (uint32_t p = 1; p <= 3; p++)
			for (uint32_t t = 0; t < p; t++) {
				uint32_t slot = 7;
				variants[v].shared(big, 6, p, t, &slot);
				uint64_t mine = variants[v].priv(big, 6, p, t);
				CHECK_EQ_U(slot, (uint32_t)(mine + 7));
			}
	uint32_t slot = 0;
	loc_blocked_shared(big, 6, 1, 0, &slot);
	CHECK_EQ_U(loc_blocked_private(big, 6, 1, 0), 0x300000010ull);
	CHECK_EQ_U(slot, 0x10u);
}

/* The seed's data: Knuth's MMIX LCG from 42, the high bits mod 100 (the
 * first values worked out apart from the code), every value in range and
 * each of the 100 present; the total is the plain sum. */
TEST(the_seed_data_and_its_total)
{
	static uint32_t big[10000];
	static const uint32_t first[6] = { 34, 26, 38, 3, 94, 56 };
	loc_fill(big, 10000);
	for (unsigned i = 0; i < 6; i++)
		CHECK_EQ_U(big[i], first[i]);
	unsigned seen[100] = { 0 };
	uint64_t sum = 0;
	for (unsigned i = 0; i < 10000; i++) {
		CHECK(big[i] < 100);
		if (big[i] < 100)
			seen[big[i]]++;
		sum += big[i];
	}
	for (unsigned v = 0; v < 100; v++)
		CHECK(seen[v] > 0);
	CHECK_EQ_U(loc_total(big, 10000), sum);
	CHECK_EQ_U(loc_total(big, 0), 0);
	CHECK_EQ_U(loc_total(big, 3), 34 + 26 + 38);
	/* The generator's own total (several nodes: no array to add up) is the array's. */
	CHECK_EQ_U(loc_fill_total(10000), sum);
	CHECK_EQ_U(loc_fill_total(3), 34 + 26 + 38);
	CHECK_EQ_U(loc_fill_total(0), 0);
}

int main(void)
{
	RUN(every_element_exactly_once);
	RUN(blocks_tile_the_array);
	RUN(sums_match_a_reference);
	RUN(slot_wraps_modulo_2_32);
	RUN(the_seed_data_and_its_total);
	return check_summary("locality");
}
