/* flushcheck_fake.c - the fake platform test_flushcheck drives the run's flush check over: a model cache per domain that a chase warms, CLFLUSH empties and the platform's flush empties wholly, partly, on some domains or not at all; a neighbour that empties a set between its warming and its chase; a runner that gives every CPU a thread of its own, released together; the allocator, the eviction buffers and the timed chase as stubs. See flushcheck_fake.h. */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

#include "chase.h"
#include "console.h"
#include "disturb.h"
#include "evict.h"
#include "flushcheck_fake.h"
#include "lib.h"
#include "pmm.h"
#include "run.h"
#include "tsc.h"

/* ---- The fake platform ------------------------------------------------------ */

struct fake_platform fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread uint32_t this_cpu_no;  /* the fake runner's thread: the CPU it plays */

const uint64_t run_default_timeout_ms = 60000;
bool tsc_have_rdtscp, tsc_mfence;

uint64_t tsc_overhead(void) { return 0; }
uint64_t tsc_hz(void) { return FAKE_HZ; }
uint64_t tsc_to_us(uint64_t ticks) { return ticks / 1000; }
void kprintf(const char *fmt, ...) { (void)fmt; }

static int set_of(const volatile uint64_t *set)
{
	for (uint32_t i = 0; i < fake.n_sets; i++)
		if (fake.set[i].set == set)
			return (int)i;
	return -1;
}

void chase_make(volatile uint64_t *set, uint64_t lines)
{
	(void)lines;
	pthread_mutex_lock(&fake.lock);
	int i = set_of(set);
	if (i < 0 && fake.n_sets < MAX_SETS)
		i = (int)fake.n_sets++;
	if (i >= 0) {
		fake.set[i].set = set;
		fake.set[i].cached = 0;
		fake.set[i].chases = 0;
	}
	pthread_mutex_unlock(&fake.lock);
}

uint64_t chase_want(uint64_t lines) { return lines; }

uint64_t chase_pass(const volatile uint64_t *set, uint64_t lines, uint64_t *sum)
{
	int i = set_of(set);
	if (i >= 0)
		fake.set[i].cached = 1;
	*sum = lines;
	return fake.warm_ticks;
}

uint64_t chase_pass_pieces(const volatile uint64_t *set, uint64_t lines, uint64_t piece, uint64_t *sum,
			   uint64_t *longest)
{
	(void)piece;
	int i = set_of(set);
	*longest = 1000;
	*sum = lines;
	if (i < 0)
		return 0;
	/* The probe's chases come warm, cold, after, round by round. */
	unsigned n = fake.set[i].chases++;
	bool after = n % 3 == 2, busy_round = fake.busy_every && (n / 3) % fake.busy_every == 0;
	if (after && busy_round && fake.busy != CALM) {
		fake.set[i].cached = 0;  /* the neighbour streamed through the cache */
		if (fake.busy == BY_SWITCH)
			__atomic_add_fetch(&fake.switches[this_cpu_no], 1, __ATOMIC_RELAXED);
		else
			*longest = LONG_PIECE;
	}
	double cached = fake.caches ? fake.set[i].cached : 1;
	uint64_t t = fake.warm_ticks + (uint64_t)((double)(COLD_TICKS - fake.warm_ticks) * (1 - cached));
	if (fake.noise_pct) {
		pthread_mutex_lock(&fake.lock);
		fake.x = fake.x * 6364136223846793005ull + 1442695040888963407ull;
		t += t * ((fake.x >> 33) % (fake.noise_pct + 1)) / 100;
		pthread_mutex_unlock(&fake.lock);
	}
	fake.set[i].cached = 1;
	return t;
}

void run_evict_lines(const volatile void *p, uint64_t bytes)
{
	(void)bytes;
	int i = set_of(p);
	if (i >= 0)
		fake.set[i].cached = 0;
}

void run_flush_here(enum run_flush_way w)
{
	pthread_mutex_lock(&fake.lock);
	bool fallback = w == RUN_FLUSH_EVICTION || (w == RUN_FLUSH_RUNS && fake.fell_back);
	for (uint32_t i = 0; i < fake.n_sets; i++) {
		double share = fallback ? (fake.evict_works ? 1 : 0) : fake.platform_evicts[i];
		if (fake.set[i].cached > 1 - share)  /* the same lines every time, from whichever CPU */
			fake.set[i].cached = 1 - share;
	}
	if (fallback)
		fake.evict_reads++;
	else
		fake.platform_flushes++;
	pthread_mutex_unlock(&fake.lock);
}

void run_flush_fallback(bool on) { fake.fell_back = on; }
bool run_flush_fell_back(void) { return fake.fell_back; }
bool run_flush_partial_target(const volatile void *p, uint64_t bytes) { (void)p; (void)bytes; return true; }
void run_flush_partial_clear(void) {}

struct fake_thread {
	pthread_t id;
	struct run_thread th;
};

static void *fake_thread_main(void *arg)
{
	struct fake_thread *f = arg;
	this_cpu_no = f->th.cpu;
	((run_fn)f->th.arg)(&f->th);
	return 0;
}

/* Every CPU of the set a thread of its own, released together, as the runner does. */
enum run_status run_on(const struct cpuset *set, run_fn fn, void *arg, unsigned flags, uint64_t timeout_ms,
		       struct run_result *res)
{
	(void)flags;
	(void)res;
	(void)arg;
	if (fake.run_fails || (fake.fail_n && set->n == fake.fail_n))
		return RUN_NO_START;
	static volatile uint8_t overran;
	static struct fake_thread t[QB_MAX_CPUS];
	overran = 0;
	uint64_t deadline = tsc_read() + timeout_ms * 3000000ull;
	for (uint32_t k = 0; k < set->n; k++) {
		t[k].th = (struct run_thread){ k, set->cpu[k], set->n, (void *)fn, deadline, &overran };
		if (pthread_create(&t[k].id, 0, fake_thread_main, &t[k]))
			abort();
	}
	for (uint32_t k = 0; k < set->n; k++)
		pthread_join(t[k].id, 0);
	return overran ? RUN_OVERRUN : RUN_OK;
}

uint32_t disturb_open(void) { return 1u << GAPS_SWITCH; }
void disturb_close(void) {}
bool disturb_read(void *arg, uint64_t v[GAPS_CAUSES])
{
	(void)arg;
	memset(v, 0, GAPS_CAUSES * sizeof(v[0]));
	v[GAPS_SWITCH] = __atomic_load_n(&fake.switches[this_cpu_no], __ATOMIC_RELAXED);
	return true;
}

bool evict_fallback_setup(const struct topo *t)
{
	(void)t;
	return fake.evict_memory;
}
uint64_t evict_fallback_bytes(void) { return fake.evict_memory ? 128ull << 20 : 0; }
uint64_t evict_bytes(void) { return 64ull << 20; }
uint64_t evict_read(const volatile uint64_t *buf, uint64_t bytes) { (void)buf; return bytes; }

uint64_t pmm_alloc(uint64_t pages, int node, uint64_t align, uint64_t max_end, enum pmm_owner owner)
{
	(void)node;
	(void)max_end;
	(void)owner;
	void *p = 0;
	return posix_memalign(&p, align, pages * PMM_PAGE) ? 0 : (uint64_t)(uintptr_t)p;
}

void pmm_free(uint64_t base, uint64_t pages, enum pmm_owner owner)
{
	(void)pages;
	(void)owner;
	free((void *)(uintptr_t)base);
}

/* ---- The machine ------------------------------------------------------------ */
struct topo T;
uint32_t cpu_of[QB_MAX_CPUS] = { 0, 1, 2, 3 };
struct cpuset online;

/* ncpu CPUs, each its own core with a 256 KiB L2; domains 1: one 4 MiB L3
 * over all of them (the probe's set: 512 KiB); domains 2: two L3s, each
 * over half the CPUs; domains 0: no L3. platform_evict: the share of every
 * set the platform's own flush empties. */
void platform_n(bool caches, double platform_evict, bool evict_works, uint32_t domains, uint32_t ncpu)
{
	pthread_mutex_t lock = fake.lock;
	memset(&fake, 0, sizeof(fake));
	fake.lock = lock;
	fake.caches = caches;
	for (uint32_t i = 0; i < MAX_SETS; i++)
		fake.platform_evicts[i] = platform_evict;
	fake.evict_works = evict_works;
	fake.evict_memory = true;
	fake.warm_ticks = WARM_TICKS;
	fake.x = 1;
	memset(&T, 0, sizeof(T));
	T.ncpu = ncpu;
	online.n = ncpu;
	for (uint32_t k = 0; k < ncpu; k++) {
		online.cpu[k] = k;
		T.cpu[k].core = k;
		struct topo_cache *c = &T.cache[T.ncaches++];
		c->level = 2;
		c->type = TOPO_CACHE_UNIFIED;
		c->size = 256ull << 10;
		c->shared_by.bits[0] = 1ull << k;
	}
	uint64_t all = (1ull << ncpu) - 1, low = (1ull << (ncpu / 2)) - 1;
	for (uint32_t d = 0; d < domains; d++) {
		struct topo_cache *c = &T.cache[T.ncaches++];
		c->level = 3;
		c->type = TOPO_CACHE_UNIFIED;
		c->size = 4ull << 20;
		c->shared_by.bits[0] = domains == 1 ? all : d == 0 ? low : all & ~low;
	}
}

/* Two CPUs (as many threads as the host has cores): CPU 1 probes, CPU 0
 * flushes for wbinvd-per-domain. */
void platform(bool caches, double platform_evict, bool evict_works, uint32_t domains)
{
	platform_n(caches, platform_evict, evict_works, domains, domains == 2 ? 4 : 2);
}
