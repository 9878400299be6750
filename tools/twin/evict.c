/* evict.c - the user-mode cache flush of shared/seeds/000 and 001: read a buffer larger than the LLC from each CPU; see evict.h. */
#define _GNU_SOURCE
#include "evict.h"
#include <sys/mman.h>
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEED_BYTES (64ull << 20)     /* the seeds' s_garbageSize */
#define ROUND (2ull << 20)
#define LINE 64ull
#define FILL_MUL 6364136223846793005ull /* Knuth, MMIX: "some random data", as the seed says */
#define FILL_ADD 1442695040888963407ull

/* ---- Private Variables ---------------------------------------------------- */
static const volatile uint64_t *buf;
static uint64_t bytes;

/* ---- Public Functions ----------------------------------------------------- */
bool evict_setup(const struct topo *t)
{
	uint64_t largest = 0;
	for (uint32_t i = 0; i < t->ncaches; i++)
		if (t->cache[i].type != TOPO_CACHE_INSTRUCTION)
			largest = MAX(largest, t->cache[i].size);
	uint64_t want = MAX(ALIGN_UP(2 * largest, ROUND), SEED_BYTES);
	void *p = mmap(0, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	uint64_t *w = p, x = 1;
	for (uint64_t i = 0; i < want / sizeof(uint64_t); i++) {
		x = x * FILL_MUL + FILL_ADD;
		w[i] = x;
	}
	buf = p;
	bytes = want;
	return true;
}

uint64_t evict_bytes(void)
{
	return bytes;
}

/* Plain loads, not instrumented: this is a flush, not workload code. */
__attribute__((no_sanitize_address)) void evict_run(void)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < bytes / sizeof(uint64_t); i += LINE / sizeof(uint64_t))
		s += buf[i];
	__asm__ volatile("" : : "r"(s));
}
