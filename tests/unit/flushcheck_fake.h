/* flushcheck_fake.h - the fake platform of test_flushcheck (flushcheck_fake.c): the model the tests set and read, and the machines they build. */
#ifndef QB_TESTS_FLUSHCHECK_FAKE_H
#define QB_TESTS_FLUSHCHECK_FAKE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "run.h"
#include "topo.h"

#define WARM_TICKS 20000ull
#define COLD_TICKS 120000ull
#define MAX_SETS 8
#define LONG_PIECE (1ull << 40) /* a chase piece no memory explains */
/* A clock so fast that no real pause of the test's threads (more of them than
 * the host has cores) reads as a gap: the gaps the tests want are injected
 * through the chase. */
#define FAKE_HZ 1000000000000000ull

enum disturb_how { CALM, BY_SWITCH, BY_GAP_ONLY };

struct fake_platform {
	bool caches;            /* a chase after CLFLUSH is slower than a warm one */
	double platform_evicts[MAX_SETS]; /* the share of each domain's set the platform's flush empties */
	bool evict_works;       /* the fallback's eviction read does */
	bool evict_memory;      /* evict_fallback_setup finds memory */
	bool run_fails;         /* every run_on fails */
	uint32_t fail_n;        /* a run_on over this many CPUs fails (0: none) */
	uint32_t noise_pct;     /* each chase varies by up to this, pseudo-randomly */
	uint64_t warm_ticks;    /* a warm chase (WARM_TICKS unless set) */
	enum disturb_how busy;  /* a neighbour empties the set before each "after" chase */
	uint32_t busy_every;    /* ... in every busy_every-th round (1: all) */
	uint64_t x;             /* the noise's generator */
	bool fell_back;
	unsigned platform_flushes, evict_reads;
	/* the model, one entry per set chase_make laid out */
	uint32_t n_sets;
	struct { const volatile uint64_t *set; double cached; unsigned chases; } set[MAX_SETS];
	uint64_t switches[QB_MAX_CPUS];
	pthread_mutex_t lock;
};
extern struct fake_platform fake;

extern struct topo T;                    /* the machine platform_n built */
extern uint32_t cpu_of[QB_MAX_CPUS];
extern struct cpuset online;

/* ncpu CPUs, each its own core with a 256 KiB L2; domains 1: one 4 MiB L3
 * over all of them (the probe's set: 512 KiB); domains 2: two L3s, each
 * over half the CPUs; domains 0: no L3. platform_evict: the share of every
 * set the platform's own flush empties. */
void platform_n(bool caches, double platform_evict, bool evict_works, uint32_t domains, uint32_t ncpu);

/* Two CPUs (as many threads as the host has cores), four with two domains. */
void platform(bool caches, double platform_evict, bool evict_works, uint32_t domains);

#endif
