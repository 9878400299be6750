/* evict.c - the eviction read of shared/seeds/000 and 001 on both platforms: a buffer larger than the LLC, read from each CPU; see evict.h. */
#include "evict.h"
#include "lib.h"
#include "pmm.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEED_BYTES (64ull << 20)     /* the seeds' s_garbageSize */
#define LARGE (2ull << 20)
#define LINE 64ull
#define FILL_MUL 6364136223846793005ull /* Knuth, MMIX: "some random data", as the seed says */
#define FILL_ADD 1442695040888963407ull

/* ---- Private Variables ---------------------------------------------------- */
static const volatile uint64_t *buf;
static uint64_t bytes;

/* ---- Public Functions ----------------------------------------------------- */
bool evict_setup(const struct topo *t)
{
	if (buf)
		return true;
	uint64_t largest = 0;
	for (uint32_t i = 0; t && i < t->ncaches; i++)
		if (t->cache[i].type != TOPO_CACHE_INSTRUCTION)
			largest = MAX(largest, t->cache[i].size);
	uint64_t want = MAX(ALIGN_UP(2 * largest, LARGE), SEED_BYTES);
	uint64_t p = pmm_alloc(want / PMM_PAGE, PMM_ANY_NODE, LARGE, 0, PMM_WORKLOAD);
	if (!p)
		p = pmm_alloc(want / PMM_PAGE, PMM_ANY_NODE, PMM_PAGE, 0, PMM_WORKLOAD);
	if (!p)
		return false;
	volatile uint64_t *w = (volatile uint64_t *)(uintptr_t)p; /* RAM is identity-mapped; the twin's is its own */
	uint64_t x = 1;
	for (uint64_t i = 0; i < want / sizeof(uint64_t); i++) {
		x = x * FILL_MUL + FILL_ADD;
		w[i] = x;
	}
	buf = w;
	bytes = want;
	return true;
}

uint64_t evict_bytes(void)
{
	return bytes;
}

/* Plain loads, not instrumented: this is a flush, not workload code. */
__attribute__((no_sanitize_address)) uint64_t evict_read(const volatile uint64_t *b, uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n / sizeof(uint64_t); i += LINE / sizeof(uint64_t))
		s += b[i];
	return s;
}

void evict_run(void)
{
	uint64_t s = evict_read(buf, buf ? bytes : 0);
	__asm__ volatile("" : : "r"(s));
}
