/* evict.c - the eviction reads of shared/seeds/000 and 001 on both platforms: the platform's buffer and the fallback's, each larger than the LLC, read from each CPU; see evict.h. */
#include "evict.h"
#include "lib.h"
#include "pmm.h"

/* ---- Constants ------------------------------------------------------------ */
#define SEED_BYTES (64ull << 20)     /* the seeds' s_garbageSize */
#define LARGE (2ull << 20)
#define LINE 64ull
#define FILL_MUL 6364136223846793005ull /* Knuth, MMIX: "some random data", as the seed says */
#define FILL_ADD 1442695040888963407ull

/* ---- Types ---------------------------------------------------------------- */
struct evict_buf {
	const volatile uint64_t *buf;
	uint64_t bytes;
};

/* ---- Private Variables ---------------------------------------------------- */
static struct evict_buf platform, fallback;

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t largest_cache(const struct topo *t)
{
	uint64_t largest = 0;
	for (uint32_t i = 0; t && i < t->ncaches; i++)
		if (t->cache[i].type != TOPO_CACHE_INSTRUCTION)
			largest = MAX(largest, t->cache[i].size);
	return largest;
}

/* What evict_setup reads: twice the largest cache, at least the seeds' 64 MiB. */
static uint64_t platform_bytes(const struct topo *t)
{
	return MAX(ALIGN_UP(2 * largest_cache(t), LARGE), SEED_BYTES);
}

static bool fill(struct evict_buf *b, uint64_t want)
{
	if (b->buf)
		return true;
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
	b->buf = w;
	b->bytes = want;
	return true;
}

/* ---- Public Functions ----------------------------------------------------- */
bool evict_setup(const struct topo *t)
{
	return fill(&platform, platform_bytes(t));
}

bool evict_fallback_setup(const struct topo *t)
{
	uint64_t want = MAX(ALIGN_UP(EVICT_FALLBACK_CACHES * largest_cache(t), LARGE), 2 * platform_bytes(t));
	return fill(&fallback, want);
}

uint64_t evict_fallback_bytes(void)
{
	return fallback.bytes;
}

void evict_fallback_run(void)
{
	uint64_t s = evict_read(fallback.buf, fallback.buf ? fallback.bytes : 0);
	__asm__ volatile("" : : "r"(s));
}

uint64_t evict_bytes(void)
{
	return platform.bytes;
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
	uint64_t s = evict_read(platform.buf, platform.buf ? platform.bytes : 0);
	__asm__ volatile("" : : "r"(s));
}
