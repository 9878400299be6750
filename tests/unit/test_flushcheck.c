/* test_flushcheck.c - the run's flush check (kernel/run/flushcheck.c) end to end over a fake platform: a model cache that a chase warms and CLFLUSH empties, under a WBINVD that works, one that does nothing, and no visible caches (an emulator), on bare metal and on Linux (whose own flush is the eviction read). Checked: the verdicts, the fallback and when it cannot happen, the state record's flush_check and each result's params. The real cold.c judges; the runner, the allocator, the eviction buffer and the timed chase are stubs. */
#include <stdarg.h>
#include <stdlib.h>

#include "check.h"
#include "chase.h"
#include "console.h"
#include "evict.h"
#include "flushcheck.h"
#include "json_check.h"
#include "lib.h"
#include "pmm.h"
#include "record.h"
#include "run.h"
#include "tsc.h"

/* ---- The fake platform ------------------------------------------------------ */
#define WARM_TICKS 20000ull
#define COLD_TICKS 120000ull

static struct {
	bool caches;            /* a chase after CLFLUSH is slower than a warm one */
	bool wbinvd_works;      /* the platform's own flush empties the cache */
	bool evict_works;       /* the fallback's eviction read does */
	bool evict_memory;      /* evict_setup finds memory */
	bool run_fails;         /* every run_on fails */
	uint32_t fail_n;        /* a run_on over this many CPUs fails (0: none) */
	uint32_t noise_pct;     /* each chase varies by up to this, pseudo-randomly */
	bool cached;            /* the model: the set is in the cache */
	uint64_t x;             /* the noise's generator */
	bool fell_back;
	unsigned evict_setups, platform_flushes, evict_reads;
} fake;

uint64_t run_default_timeout_ms = 60000;
bool tsc_have_rdtscp, tsc_mfence;

uint64_t tsc_overhead(void) { return 0; }
uint64_t tsc_hz(void) { return 0; }
uint64_t tsc_to_us(uint64_t ticks) { return ticks / 1000; }
void kprintf(const char *fmt, ...) { (void)fmt; }

void chase_make(volatile uint64_t *set, uint64_t lines) { (void)set; (void)lines; }
uint64_t chase_want(uint64_t lines) { return lines; }

uint64_t chase_pass(const volatile uint64_t *set, uint64_t lines, uint64_t *sum)
{
	(void)set;
	uint64_t t = fake.caches && !fake.cached ? COLD_TICKS : WARM_TICKS;
	if (fake.noise_pct) {
		fake.x = fake.x * 6364136223846793005ull + 1442695040888963407ull;
		t += t * ((fake.x >> 33) % (fake.noise_pct + 1)) / 100;
	}
	fake.cached = true;
	*sum = lines;
	return t;
}

void run_evict_lines(const volatile void *p, uint64_t bytes)
{
	(void)p;
	(void)bytes;
	fake.cached = false;
}

void run_flush_here(enum run_flush_way w)
{
	if (w == RUN_FLUSH_EVICTION || (w == RUN_FLUSH_RUNS && fake.fell_back)) {
		fake.evict_reads++;
		fake.cached = fake.cached && !fake.evict_works;
	} else {
		fake.platform_flushes++;
		fake.cached = fake.cached && !fake.wbinvd_works;
	}
}

void run_flush_fallback(bool on) { fake.fell_back = on; }
bool run_flush_fell_back(void) { return fake.fell_back; }

enum run_status run_on(const struct cpuset *set, run_fn fn, void *arg, unsigned flags, uint64_t timeout_ms,
		       struct run_result *res)
{
	(void)flags;
	(void)timeout_ms;
	(void)res;
	if (fake.run_fails || (fake.fail_n && set->n == fake.fail_n))
		return RUN_NO_START;
	static volatile uint8_t overran;
	for (uint32_t t = 0; t < set->n; t++) {
		struct run_thread th = { t, set->cpu[t], set->n, arg, ~0ull, &overran };
		fn(&th);
	}
	return RUN_OK;
}

bool evict_setup(const struct topo *t)
{
	(void)t;
	fake.evict_setups++;
	return fake.evict_memory;
}

uint64_t evict_bytes(void) { return fake.evict_memory ? 64ull << 20 : 0; }
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

/* ---- Helpers ---------------------------------------------------------------- */
static struct topo T;
static uint32_t cpu_of[QB_MAX_CPUS] = { 0, 1, 2, 3 };
static struct cpuset online = { 4, { 0, 1, 2, 3 } };
static char buf[8192];

/* Four CPUs sharing one 4 MiB L3 (the probe's set: 512 KiB). */
static void platform(bool caches, bool wbinvd_works, bool evict_works)
{
	memset(&fake, 0, sizeof(fake));
	fake.caches = caches;
	fake.wbinvd_works = wbinvd_works;
	fake.evict_works = evict_works;
	fake.evict_memory = true;
	fake.x = 1;
	memset(&T, 0, sizeof(T));
	T.ncpu = 4;
	T.ncaches = 1;
	T.cache[0].level = 3;
	T.cache[0].type = TOPO_CACHE_UNIFIED;
	T.cache[0].size = 4ull << 20;
	T.cache[0].shared_by.bits[0] = 0xf;
}

static void probe(bool has_wbinvd)
{
	struct flushcheck_cfg cfg = { &online, &T, cpu_of, false, has_wbinvd };
	flushcheck_run(&cfg);
}

/* The state record's flush_check and a result's params, as JSON text. */
static const char *state(void)
{
	static struct rec r;
	size_t len;
	rec_begin(&r, buf, sizeof(buf), "state");
	flushcheck_rec(&r);
	const char *line = rec_finish(&r, &len);
	CHECK(line != NULL);
	return line ? line : "";
}

static const char *params(bool flushed, const char *suffix)
{
	static char pbuf[1024];
	static struct rec r;
	size_t len;
	rec_begin(&r, pbuf, sizeof(pbuf), "result");
	rec_obj_begin(&r, "params");
	flushcheck_params(&r, flushed, suffix);
	rec_obj_end(&r);
	const char *line = rec_finish(&r, &len);
	CHECK(line != NULL);
	return line ? line : "";
}

static bool has(const char *text, const char *part)
{
	bool ok = strstr(text, part) != NULL;
	if (!ok)
		printf("  missing %s in %s\n", part, text);
	return ok;
}

/* The record's JSON object, without the "@qb " prefix and the CRC after it. */
static bool valid_json(const char *line)
{
	const char *open = strchr(line, '{'), *close = strrchr(line, '}');
	return open && close && json_object_valid(open, (size_t)(close - open + 1));
}

/* ---- Tests ------------------------------------------------------------------ */
/* Bare metal, a WBINVD that works: both WBINVD flushes effective, no fallback. */
TEST(wbinvd_that_works)
{
	platform(true, true, true);
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"method\":\"wbinvd-all\",\"used_for\":\"the run's flush\",\"cpus\":4"));
	CHECK(has(s, "\"method\":\"wbinvd-per-domain\",\"used_for\":\"flush's wbinvd-per-domain\",\"cpus\":1"));
	CHECK(has(s, "\"cold_pct\":100.0,\"verdict\":\"effective\""));
	CHECK(has(s, "\"run_flush\":\"wbinvd\",\"verdict\":\"effective\",\"fallback\":null"));
	CHECK(has(s, "\"flush_check\":{\"set_bytes\":524288,\"rounds\":7,\"took_s\":null,\"methods\":["));
	CHECK(!strstr(s, "ineffective") && !strstr(s, "eviction-read"));
	CHECK_EQ_U(fake.evict_setups, 0);
	CHECK(!fake.fell_back);
	CHECK_STR(flushcheck_run_flush(), "wbinvd");
	const char *p = params(true, 0);
	CHECK(has(p, "\"flush\":\"wbinvd\",\"flush_verdict\":\"effective\"}"));
	CHECK(has(params(true, "-each-iteration"), "\"flush\":\"wbinvd-each-iteration\""));
	CHECK(has(params(false, 0), "\"params\":{\"flush\":\"none\"}"));
	CHECK(fake.platform_flushes > 0);
}

/* Bare metal, a WBINVD that does nothing (a hypervisor ignores it): ineffective,
 * and the run falls back to the eviction read, judged in turn. */
TEST(wbinvd_that_does_nothing)
{
	platform(true, false, true);
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"method\":\"wbinvd-all\",\"used_for\":\"the run's flush\",\"cpus\":4,\"warm_ticks\":20000.0,"
		     "\"clflush_ticks\":120000.0,\"after_ticks\":20000.0"));
	CHECK(has(s, "\"cold_pct\":0.0,\"verdict\":\"ineffective\""));
	CHECK(has(s, "\"method\":\"eviction-read\",\"used_for\":\"the fallback\",\"cpus\":4"));
	CHECK(has(s, "\"run_flush\":\"clflush+eviction-read\",\"verdict\":\"effective\","
		     "\"fallback\":\"clflush+eviction-read: wbinvd-all was ineffective\",\"evict_bytes\":67108864"));
	CHECK_EQ_U(fake.evict_setups, 1);
	CHECK(fake.fell_back && fake.evict_reads > 0);
	CHECK_STR(flushcheck_run_flush(), "clflush+eviction-read");
	CHECK(has(params(true, 0), "\"flush\":\"clflush+eviction-read\",\"flush_verdict\":\"effective\","
				   "\"flush_fallback\":\"wbinvd-all was ineffective\"}"));
	CHECK(has(params(false, 0), "\"params\":{\"flush\":\"none\"}"));
	/* a later run that finds it effective again takes the fallback back */
	platform(true, true, true);
	probe(true);
	CHECK(!fake.fell_back);
	CHECK_STR(flushcheck_run_flush(), "wbinvd");
}

/* No memory for the eviction buffer: the verdict stands, nothing is claimed. */
TEST(no_memory_for_the_fallback)
{
	platform(true, false, true);
	fake.evict_memory = false;
	probe(true);
	const char *s = state();
	CHECK(has(s, "\"run_flush\":\"wbinvd\",\"verdict\":\"ineffective\","
		     "\"fallback\":\"none possible: no memory for the eviction buffer\""));
	CHECK(!fake.fell_back);
	CHECK(has(params(true, 0), "\"flush\":\"wbinvd\",\"flush_verdict\":\"ineffective\"}"));
}

/* An emulator (QEMU TCG): CLFLUSH makes no difference, so nothing is judged
 * and nothing replaced, even on a noisy host (chases up to 10% slower at
 * random, over a hundred probes). */
TEST(no_visible_caches)
{
	platform(false, true, true);
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"cold_pct\":null,\"verdict\":\"cannot tell: no visible caches\""));
	CHECK(has(s, "\"run_flush\":\"wbinvd\",\"verdict\":\"cannot tell: no visible caches\",\"fallback\":null"));
	CHECK(!strstr(s, "\"effective\"") && !strstr(s, "ineffective"));
	CHECK(has(params(true, 0), "\"flush\":\"wbinvd\",\"flush_verdict\":\"cannot tell: no visible caches\"}"));
	unsigned claimed = 0;
	for (uint64_t seed = 1; seed <= 100; seed++) {
		platform(false, seed % 2, true);
		fake.noise_pct = 10;
		fake.x = seed;
		probe(true);
		claimed += !!strstr(state(), "effective\"");
		claimed += fake.fell_back;
	}
	CHECK_EQ_U(claimed, 0);
}

/* Linux: the run's flush is the eviction read; a no-op one (flush_noop=on)
 * is ineffective and the run falls back to the shared eviction read. */
TEST(linux_eviction_read)
{
	platform(true, true, true);
	probe(false);
	const char *s = state();
	CHECK(has(s, "\"methods\":[{\"method\":\"eviction-read\",\"used_for\":\"the run's flush\""));
	CHECK(!strstr(s, "wbinvd"));
	CHECK(has(s, "\"run_flush\":\"eviction-read\",\"verdict\":\"effective\",\"fallback\":null"));
	CHECK(has(params(true, 0), "\"flush\":\"eviction-read\",\"flush_verdict\":\"effective\"}"));
	platform(true, false, true);
	probe(false);
	s = state();
	CHECK(has(s, "\"verdict\":\"ineffective\"},{\"method\":\"eviction-read\",\"used_for\":\"the fallback\""));
	CHECK(has(s, "\"fallback\":\"clflush+eviction-read: eviction-read was ineffective\""));
	CHECK(has(params(true, 0), "\"flush\":\"clflush+eviction-read\",\"flush_verdict\":\"effective\","
				   "\"flush_fallback\":\"eviction-read was ineffective\"}"));
	/* a fallback that does nothing either is said so, not claimed */
	platform(true, false, false);
	probe(false);
	CHECK(has(params(true, 0), "\"flush\":\"clflush+eviction-read\",\"flush_verdict\":\"ineffective\","
				   "\"flush_fallback\":\"eviction-read was ineffective\"}"));
}

/* A flush whose run fails: not checked, with the reason, and no fallback. */
TEST(failed_run)
{
	platform(true, false, true);
	fake.run_fails = true;
	probe(true);
	const char *s = state();
	CHECK(has(s, "\"warm_ticks\":null,\"clflush_ticks\":null,\"after_ticks\":null,\"flush_ticks\":null,"
		     "\"cold_pct\":null,\"verdict\":\"not checked: the flush's run failed\""));
	CHECK(!fake.fell_back);
	CHECK(has(params(true, 0), "\"flush_verdict\":\"not checked: the flush's run failed\""));
}

/* One row's run fails (per-domain, on one CPU): that row alone is not
 * checked; the run's flush is still judged, and its fallback taken. */
TEST(one_row_fails)
{
	platform(true, false, true);
	fake.fail_n = 1;
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"method\":\"wbinvd-per-domain\",\"used_for\":\"flush's wbinvd-per-domain\",\"cpus\":1,"
		     "\"warm_ticks\":null,\"clflush_ticks\":null,\"after_ticks\":null,\"flush_ticks\":null,"
		     "\"cold_pct\":null,\"verdict\":\"not checked: the flush's run failed\""));
	CHECK(has(s, "\"method\":\"wbinvd-all\",\"used_for\":\"the run's flush\",\"cpus\":4,\"warm_ticks\":20000.0,"));
	CHECK(has(s, "\"cold_pct\":0.0,\"verdict\":\"ineffective\""));
	CHECK(fake.fell_back);
	CHECK_STR(flushcheck_run_flush(), "clflush+eviction-read");
}

/* The sizes flush shares: an eighth of the LLC, at most 512 KiB when quick,
 * 8 MiB assumed without a cache; one CPU per LLC. */
TEST(sizes_and_domains)
{
	platform(true, true, true);
	CHECK_EQ_U(flushcheck_llc_bytes(&T), 4ull << 20);
	CHECK_EQ_U(flushcheck_set_bytes(4ull << 20, false), 512ull << 10);
	CHECK_EQ_U(flushcheck_set_bytes(32ull << 20, true), 512ull << 10);
	CHECK_EQ_U(flushcheck_set_bytes(32ull << 20, false), 4ull << 20);
	struct topo empty = { 0 };
	CHECK_EQ_U(flushcheck_llc_bytes(&empty), FLUSHCHECK_FALLBACK_LLC);
	struct cpuset d;
	T.ncaches = 2;
	T.cache[0].shared_by.bits[0] = 0x3;
	T.cache[1] = T.cache[0];
	T.cache[1].shared_by.bits[0] = 0xc;
	flushcheck_domains(&T, cpu_of, &online, &d);
	CHECK(d.n == 2 && d.cpu[0] == 0 && d.cpu[1] == 2);
	flushcheck_domains(&empty, cpu_of, &online, &d);
	CHECK(d.n == 1 && d.cpu[0] == 0);
}

int main(void)
{
	RUN(wbinvd_that_works);
	RUN(wbinvd_that_does_nothing);
	RUN(no_memory_for_the_fallback);
	RUN(one_row_fails);
	RUN(no_visible_caches);
	RUN(linux_eviction_read);
	RUN(failed_run);
	RUN(sizes_and_domains);
	return check_summary("flushcheck");
}
