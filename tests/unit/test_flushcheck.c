/* test_flushcheck.c - the run's flush check (kernel/run/flushcheck.c over kernel/run/flushprobe.c) end to end over a fake platform: a model cache per domain that a chase warms, CLFLUSH empties and the platform's flush empties wholly, partly, on some domains only or not at all; a busy neighbour that empties a set between its warming and its chase, seen by the thread's counters or only as a gap in its chase; no visible caches (an emulator); bare metal and Linux (whose own flush is the eviction read). Every flush built to fool the verdict (a no-op, a 30% flush, a disturbed one, an uneven one) must get ineffective, partial or cannot tell, never effective. Checked too: the fallback and when it cannot happen, the state record's flush_check and each result's params, the set's size and the probing CPUs. The real cold.c judges; the runner (real threads, released together), the allocator, the eviction buffers and the timed chase are stubs. */
#include "check.h"
#include "chase.h"
#include "flushcheck.h"
#include "flushprobe.h"
#include "flushcheck_fake.h"
#include "flushset.h"
#include "json_check.h"
#include "lib.h"
#include "record.h"
#include "run.h"

/* ---- Helpers ---------------------------------------------------------------- */
static char buf[16384];

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

/* The verdict of the run's flush as the state record gives it ("run_flush":..., "verdict":"..."). */
static bool run_verdict_is(const char *v)
{
	char want[160];
	snprintf(want, sizeof(want), ",\"verdict\":\"%s", v);
	const char *s = state(), *at = strstr(s, "\"run_flush\":");
	return at && strstr(at, want) == strchr(at, ',');
}

/* ---- Tests ------------------------------------------------------------------ */
/* Bare metal, a WBINVD that works: both WBINVD flushes effective, no fallback. */
TEST(wbinvd_that_works)
{
	platform(true, 1, true, 1);
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"method\":\"wbinvd-all\",\"used_for\":\"the run's flush\",\"cpus\":2"));
	CHECK(has(s, "\"method\":\"wbinvd-per-domain\",\"used_for\":\"flush's wbinvd-per-domain\",\"cpus\":1"));
	CHECK(has(s, "\"cold_pct\":100.0,\"rounds\":7,\"disturbed\":0,\"measured_twice\":false,\"verdict\":\"effective\""));
	CHECK(has(s, "\"domains\":[{\"cpu\":1,\"warm_ticks\":20000.0,\"clflush_ticks\":120000.0,\"after_ticks\":120000.0,"
		     "\"cold_pct\":100.0,\"rounds\":7,\"disturbed\":0,\"verdict\":\"effective\"}]"));
	CHECK(has(s, "\"run_flush\":\"wbinvd\",\"verdict\":\"effective\",\"fallback\":null"));
	CHECK(has(s, "\"flush_check\":{\"set_bytes\":524288,\"set_why\":\"twice the largest cache below the LLC (256 KiB), "
		     "within a 32nd to a quarter of the shared LLC (4096 KiB)\",\"domains\":1,\"domains_total\":1,"
		     "\"rounds\":7,\"took_s\":0.000,\"methods\":["));
	CHECK(!strstr(s, "ineffective") && !strstr(s, "eviction-read"));
	CHECK(!fake.fell_back);
	CHECK_STR(flushcheck_run_flush(), "wbinvd");
	const char *p = params(true, 0);
	CHECK(has(p, "\"flush\":\"wbinvd\",\"flush_verdict\":\"effective\"}"));
	CHECK(has(params(true, "-each-iteration"), "\"flush\":\"wbinvd-each-iteration\""));
	CHECK(has(params(false, 0), "\"params\":{\"flush\":\"none\"}"));
	CHECK(fake.platform_flushes > 0);
}

/* Bare metal, a WBINVD that does nothing (a hypervisor ignores it): ineffective,
 * and the run falls back to the fallback's eviction read, judged in turn. */
TEST(noop_flush)
{
	platform(true, 0, true, 1);
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"method\":\"wbinvd-all\",\"used_for\":\"the run's flush\",\"cpus\":2,\"warm_ticks\":20000.0,"
		     "\"clflush_ticks\":120000.0,\"after_ticks\":20000.0"));
	CHECK(has(s, "\"cold_pct\":0.0,\"rounds\":7,\"disturbed\":0,\"measured_twice\":false,\"verdict\":\"ineffective\""));
	CHECK(has(s, "\"method\":\"eviction-read-large\",\"used_for\":\"the fallback\",\"cpus\":2,\"evict_bytes\":134217728"));
	CHECK(has(s, "\"run_flush\":\"clflush+eviction-read\",\"verdict\":\"effective\","
		     "\"fallback\":\"clflush+eviction-read: wbinvd-all was ineffective\",\"evict_bytes\":134217728"));
	CHECK(fake.fell_back && fake.evict_reads > 0);
	CHECK_STR(flushcheck_run_flush(), "clflush+eviction-read");
	CHECK(has(params(true, 0), "\"flush\":\"clflush+eviction-read\",\"flush_verdict\":\"effective\","
				   "\"flush_fallback\":\"wbinvd-all was ineffective\"}"));
	CHECK(has(params(false, 0), "\"params\":{\"flush\":\"none\"}"));
	/* a later run that finds it effective again takes the fallback back */
	platform(true, 1, true, 1);
	probe(true);
	CHECK(!fake.fell_back);
	CHECK_STR(flushcheck_run_flush(), "wbinvd");
}

/* A flush that empties 30% of the set (as CLFLUSH of a random 30% did):
 * partial, measured twice, then fallen back from as from an ineffective
 * one. Likewise 60%; 75% with some rounds warm is partial too. */
TEST(partial_flush)
{
	static const double shares[] = { 0.3, 0.6 };
	for (unsigned k = 0; k < ARRAY_SIZE(shares); k++) {
		platform(true, shares[k], true, 1);
		probe(true);
		const char *s = state();
		CHECK(valid_json(s));
		CHECK(has(s, "\"measured_twice\":true,\"verdict\":\"partial\""));
		CHECK(has(s, "\"fallback\":\"clflush+eviction-read: wbinvd-all was partial\""));
		CHECK(fake.fell_back);
		CHECK(has(params(true, 0), "\"flush_verdict\":\"effective\",\"flush_fallback\":\"wbinvd-all was partial\"}"));
	}
	/* neither partial flush nor a fallback that works: the results start warm, and say so */
	platform(true, 0.3, false, 1);
	probe(true);
	CHECK(run_verdict_is("no effective flush: results start warm"));
	CHECK(has(params(true, 0), "\"flush_verdict\":\"no effective flush: results start warm\","
				   "\"flush_fallback\":\"wbinvd-all was partial\"}"));
}

/* A no-op flush beside a busy neighbour that empties the set between its
 * warming and its chase: without the disturbance seen, it reads as
 * effective. Seen by the thread's context switches, or only as a gap in its
 * chase: every round disturbed gives "cannot tell: disturbed"; every third
 * gives ineffective from the rest. Never effective. */
TEST(disturbed_noop)
{
	static const enum disturb_how hows[] = { BY_SWITCH, BY_GAP_ONLY };
	for (unsigned k = 0; k < ARRAY_SIZE(hows); k++) {
		platform(true, 0, true, 1);
		fake.busy = hows[k];
		fake.busy_every = 1;
		probe(true);
		const char *s = state();
		CHECK(valid_json(s));
		CHECK(has(s, "\"rounds\":21,\"disturbed\":21,\"measured_twice\":false,"
			     "\"verdict\":\"cannot tell: disturbed (21 of 21 rounds)\""));
		CHECK(run_verdict_is("cannot tell: disturbed (21 of 21 rounds)"));
		CHECK(has(s, "\"rounds\":21,\"disturbed\":21,\"verdict\":\"cannot tell: disturbed (21 of 21 rounds)\"}]"));
		CHECK(!fake.fell_back);
		CHECK(!strstr(s, "\"effective\""));
		platform(true, 0, true, 1);
		fake.busy = hows[k];
		fake.busy_every = 3;
		probe(true);
		s = state();
		CHECK(has(s, "\"cold_pct\":0.0,\"rounds\":10,\"disturbed\":3,\"measured_twice\":false,"
			     "\"verdict\":\"ineffective\""));
		CHECK(fake.fell_back);
	}
	/* the same neighbour, unseen (what the old check did): the no-op reads as effective */
	platform(true, 0, true, 1);
	fake.busy = BY_SWITCH;
	fake.busy_every = 1;
	/* ... which the model shows: a chase after it is as cold as CLFLUSH leaves it */
	uint64_t set[8], lines = 1, sum, longest;
	chase_make(set, lines);
	chase_pass(set, lines, &sum);
	chase_pass_pieces(set, lines, 64, &sum, &longest);
	chase_pass_pieces(set, lines, 64, &sum, &longest);
	CHECK_EQ_U(chase_pass_pieces(set, lines, 64, &sum, &longest), COLD_TICKS);
}

/* Two L3 domains; WBINVD reaches one and not the other (as one issued on
 * one socket may not reach another): each domain gets its verdict, probed
 * by its own highest CPU, and the flush's is the worst of them. */
TEST(uneven_domains)
{
	platform(true, 1, true, 2);
	fake.platform_evicts[1] = 0;
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"domains\":2,\"domains_total\":2"));
	CHECK(has(s, "\"method\":\"wbinvd-all\""));
	CHECK(has(s, "\"domains\":[{\"cpu\":1,\"warm_ticks\":20000.0,\"clflush_ticks\":120000.0,\"after_ticks\":120000.0,"
		     "\"cold_pct\":100.0,\"rounds\":7,\"disturbed\":0,\"verdict\":\"effective\"},{\"cpu\":3,"
		     "\"warm_ticks\":20000.0,\"clflush_ticks\":120000.0,\"after_ticks\":20000.0,\"cold_pct\":0.0,"
		     "\"rounds\":7,\"disturbed\":0,\"verdict\":\"ineffective\"}]"));
	CHECK(has(s, "\"cold_pct\":0.0,\"rounds\":7,\"disturbed\":0,\"measured_twice\":false,\"verdict\":\"ineffective\""));
	CHECK(fake.fell_back);
	/* both reached: effective on each, and no fallback */
	platform(true, 1, true, 2);
	probe(true);
	s = state();
	CHECK(!strstr(s, "ineffective") && !strstr(s, "partial"));
	CHECK(run_verdict_is("effective"));
	CHECK(!fake.fell_back);
}

/* No memory for the fallback's buffer: the results say no flush was effective. */
TEST(no_memory_for_the_fallback)
{
	platform(true, 0, true, 1);
	fake.evict_memory = false;
	probe(true);
	const char *s = state();
	CHECK(has(s, "\"run_flush\":\"wbinvd\",\"verdict\":\"no effective flush: results start warm\","
		     "\"fallback\":\"none possible: no memory for the eviction buffer\""));
	CHECK(!fake.fell_back);
	CHECK(has(params(true, 0), "\"flush\":\"wbinvd\",\"flush_verdict\":\"no effective flush: results start warm\"}"));
}

/* An emulator (QEMU TCG): CLFLUSH makes no difference, so nothing is judged
 * (after FLUSHCHECK_EARLY_ROUNDS rounds: no more are needed)
 * and nothing replaced, even on a noisy host (chases up to 10% slower at
 * random) and even when a neighbour disturbs every round: "no visible
 * caches" is decided before "disturbed". */
TEST(no_visible_caches)
{
	platform(false, 1, true, 1);
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"cold_pct\":null,\"rounds\":3,\"disturbed\":0,\"measured_twice\":false,"
		     "\"verdict\":\"cannot tell: no visible caches\""));
	CHECK(has(s, "\"run_flush\":\"wbinvd\",\"verdict\":\"cannot tell: no visible caches\",\"fallback\":null"));
	CHECK(!strstr(s, "\"effective\"") && !strstr(s, "ineffective"));
	CHECK(has(params(true, 0), "\"flush\":\"wbinvd\",\"flush_verdict\":\"cannot tell: no visible caches\"}"));
	platform(false, 0, true, 1);
	fake.busy = BY_SWITCH;
	fake.busy_every = 1;
	probe(true);
	CHECK(run_verdict_is("cannot tell: no visible caches"));
	CHECK(has(state(), "\"rounds\":3,\"disturbed\":3,"));
	unsigned claimed = 0;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		platform(false, (double)(seed % 2), true, 1 + seed % 2);
		fake.noise_pct = 10;
		fake.x = seed;
		probe(true);
		claimed += !!strstr(state(), "effective\"");
		claimed += !!strstr(state(), "partial\"");
		claimed += fake.fell_back;
	}
	CHECK_EQ_U(claimed, 0);
}

/* The warm set did not stay warm (a warm chase over a quarter of the cold
 * one): cannot tell, whatever the flush did, and nothing replaced. */
TEST(warm_not_warm)
{
	platform(true, 0, true, 1);
	fake.warm_ticks = 40000;
	probe(true);
	CHECK(run_verdict_is("cannot tell: the warm set was not warm"));
	CHECK(!fake.fell_back);
}

/* Linux: the run's flush is the eviction read; a no-op one (flush_noop=on)
 * is ineffective and the run falls back to the fallback's larger read. */
TEST(linux_eviction_read)
{
	platform(true, 1, true, 1);
	probe(false);
	const char *s = state();
	CHECK(has(s, "\"methods\":[{\"method\":\"eviction-read\",\"used_for\":\"the run's flush\",\"cpus\":2,"
		     "\"evict_bytes\":67108864"));
	CHECK(!strstr(s, "wbinvd"));
	CHECK(has(s, "\"run_flush\":\"eviction-read\",\"verdict\":\"effective\",\"fallback\":null"));
	CHECK(has(params(true, 0), "\"flush\":\"eviction-read\",\"flush_verdict\":\"effective\"}"));
	platform(true, 0, true, 1);
	probe(false);
	s = state();
	CHECK(has(s, "\"verdict\":\"ineffective\",\"domains\":["));
	CHECK(has(s, "{\"method\":\"eviction-read-large\",\"used_for\":\"the fallback\",\"cpus\":2,"
		     "\"evict_bytes\":134217728"));
	CHECK(has(s, "\"fallback\":\"clflush+eviction-read: eviction-read was ineffective\""));
	CHECK(has(params(true, 0), "\"flush\":\"clflush+eviction-read\",\"flush_verdict\":\"effective\","
				   "\"flush_fallback\":\"eviction-read was ineffective\"}"));
	/* a fallback that does nothing either: the results start warm, and say so */
	platform(true, 0, false, 1);
	probe(false);
	CHECK(has(params(true, 0), "\"flush\":\"clflush+eviction-read\",\"flush_verdict\":\"no effective flush: "
				   "results start warm\",\"flush_fallback\":\"eviction-read was ineffective\"}"));
}

/* A flush whose run fails: not checked, with the reason, and no fallback. */
TEST(failed_run)
{
	platform(true, 0, true, 1);
	fake.fail_n = 2;
	probe(true);
	const char *s = state();
	CHECK(has(s, "\"warm_ticks\":null,\"clflush_ticks\":null,\"after_ticks\":null,\"flush_ticks\":null,"
		     "\"cold_pct\":null,\"rounds\":0,\"disturbed\":0,\"measured_twice\":false,"
		     "\"verdict\":\"not checked: the flush's run failed\""));
	CHECK(!fake.fell_back);
	CHECK(has(params(true, 0), "\"flush_verdict\":\"not checked: the flush's run failed\""));
	/* the probing CPUs cannot even be set up */
	platform(true, 0, true, 1);
	fake.run_fails = true;
	probe(true);
	CHECK(run_verdict_is("not checked: the probing CPUs' run failed"));
}

/* One row's run fails (three CPUs; per-domain's run is its flushing CPU 0
 * and its probe, CPU 2: two CPUs, where wbinvd-all's is three): that row
 * alone is not checked; the run's flush is still judged, and its fallback
 * taken. */
TEST(one_row_fails)
{
	platform_n(true, 0, true, 1, 3);
	fake.fail_n = 2;
	probe(true);
	const char *s = state();
	CHECK(valid_json(s));
	CHECK(has(s, "\"method\":\"wbinvd-per-domain\",\"used_for\":\"flush's wbinvd-per-domain\",\"cpus\":1,"
		     "\"warm_ticks\":null,\"clflush_ticks\":null,\"after_ticks\":null,\"flush_ticks\":null,"
		     "\"cold_pct\":null,\"rounds\":0,\"disturbed\":0,\"measured_twice\":false,"
		     "\"verdict\":\"not checked: the flush's run failed\""));
	CHECK(has(s, "\"method\":\"wbinvd-all\",\"used_for\":\"the run's flush\",\"cpus\":3,\"warm_ticks\":20000.0,"));
	CHECK(has(s, "\"cold_pct\":0.0,\"rounds\":7,\"disturbed\":0,\"measured_twice\":false,\"verdict\":\"ineffective\""));
	CHECK(has(s, "\"domains\":[{\"cpu\":2,"));
	CHECK(fake.fell_back);
	CHECK_STR(flushcheck_run_flush(), "clflush+eviction-read");
}

/* The set: twice the largest cache below a shared LLC, within a 32nd to a
 * quarter of it, in both profiles; an eighth of the largest cache (quick at
 * most 512 KiB) where no cache is shared by two cores. The probes: the
 * highest CPU of each shared LLC, else the BSP; the per-domain flushers the
 * lowest. */
TEST(sizes_probes_and_domains)
{
	struct flushset_size z;
	platform_n(true, 1, true, 1, 4);
	flushset_size(&T, false, &z);
	CHECK(z.shared && z.llc == 4ull << 20 && z.below == 256ull << 10 && z.set == 512ull << 10);
	flushset_size(&T, true, &z);
	CHECK_EQ_U(z.set, 512ull << 10);
	T.cache[4].size = 32ull << 20;               /* a 32 MiB L3, 1 MiB L2s (Zen 4): 2 MiB in both profiles */
	for (uint32_t k = 0; k < 4; k++)
		T.cache[k].size = 1ull << 20;
	flushset_size(&T, true, &z);
	CHECK_EQ_U(z.set, 2ull << 20);
	T.cache[4].size = 105ull << 20;              /* a 105 MiB mesh L3: a 32nd, 3.3 MiB, over twice the L2 */
	flushset_size(&T, false, &z);
	CHECK_EQ_U(z.set, ALIGN_DOWN((105ull << 20) / 32, 4096));
	T.cache[4].size = 3ull << 20;                /* an L3 under twice the L2s: a quarter of it */
	flushset_size(&T, false, &z);
	CHECK_EQ_U(z.set, 768ull << 10);
	platform_n(true, 1, true, 0, 4);             /* no L3: the L2s, each its core's own */
	flushset_size(&T, false, &z);
	CHECK(!z.shared && z.set == 32ull << 10 && strstr(z.why, "no shared cache is visible"));
	T.cache[0].size = 8ull << 20;
	flushset_size(&T, true, &z);
	CHECK_EQ_U(z.set, 512ull << 10);
	flushset_size(&T, false, &z);
	CHECK_EQ_U(z.set, 1ull << 20);
	struct topo empty = { 0 };
	CHECK_EQ_U(flushset_llc_bytes(&empty), FLUSHSET_FALLBACK_LLC);

	struct cpuset d, p;
	int nodes[FLUSHSET_MAX_DOMAINS];
	uint32_t total;
	platform(true, 1, true, 2);
	T.cpu[3].node = 1;
	flushset_domains(&T, cpu_of, &online, &d);
	CHECK(d.n == 2 && d.cpu[0] == 0 && d.cpu[1] == 2);
	flushset_probes(&T, cpu_of, &online, &p, nodes, &total);
	CHECK(p.n == 2 && p.cpu[0] == 1 && p.cpu[1] == 3 && nodes[0] == 0 && nodes[1] == 1 && total == 2);
	platform_n(true, 1, true, 0, 4);
	flushset_probes(&T, cpu_of, &online, &p, nodes, &total);
	CHECK(p.n == 1 && p.cpu[0] == 0 && total == 1);
	flushset_domains(&empty, cpu_of, &online, &d);
	CHECK(d.n == 1 && d.cpu[0] == 0);
	flushset_probes(&empty, cpu_of, &online, &p, nodes, &total);
	CHECK(p.n == 1 && p.cpu[0] == 0);
}

int main(void)
{
	RUN(wbinvd_that_works);
	RUN(noop_flush);
	RUN(partial_flush);
	RUN(disturbed_noop);
	RUN(uneven_domains);
	RUN(no_memory_for_the_fallback);
	RUN(one_row_fails);
	RUN(no_visible_caches);
	RUN(warm_not_warm);
	RUN(linux_eviction_read);
	RUN(failed_run);
	RUN(sizes_probes_and_domains);
	return check_summary("flushcheck");
}
