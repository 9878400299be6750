/* test_gaps.c - host tests of the noise loop both platforms compile (kernel/measure/gaps.c) on a fake clock with known gaps: their count, the time lost, the longest and when, the histogram's buckets, what is excluded, the loop's quantiles; attribution from fake counters; and the bare-metal counters (kernel/run/disturb.c) with a fake MSR_SMI_COUNT that an SMI moves during a gap. */
#include "check.h"
#include "disturb.h"
#include "gaps.h"
#include "instr.h"
#include "msr.h"
#include "noise.h"
#include "percpu.h"
#include "topo_fixtures.h"

/* ---- Stubs: the TSC's fence, the CPU, MSRs -------------------------------- */
bool tsc_mfence, tsc_have_rdtscp;
struct percpu percpu[QB_MAX_CPUS];
static const char *smi_gp;              /* instr_source_why(SMI): a #GP reason, or NULL */

struct percpu *this_cpu(void)
{
	return &percpu[0];
}

const char *instr_source_why(enum instr_source k)
{
	return k == INSTR_SRC_SMI ? smi_gp : 0;
}

static uint64_t smi_count;             /* MSR_SMI_COUNT as the fake CPU holds it */
static bool smi_faults;                /* the MSR raises #GP (Bochs, some hypervisors) */

int msr_read_safe(uint32_t msr, uint64_t *val)
{
	if (msr != MSR_SMI_COUNT || smi_faults)
		return -1;
	*val = smi_count;
	return MSR_OK;
}

/* ---- The fake clock --------------------------------------------------------- */
#define MAX_JUMPS 8
#define STEP 10                         /* an ordinary iteration: 10 ticks */

static struct {
	uint64_t now, calls;
	uint64_t at[MAX_JUMPS];             /* the read that ends a gap (1: the first read) */
	int64_t by[MAX_JUMPS];              /* and how much longer than STEP it was */
	uint64_t *bump[MAX_JUMPS];          /* a counter that moves during that gap (or NULL) */
	unsigned n;
} fc;

static void clock_reset(void)
{
	memset(&fc, 0, sizeof(fc));
}

static void jump(uint64_t at, int64_t by, uint64_t *bump)
{
	fc.at[fc.n] = at;
	fc.by[fc.n] = by;
	fc.bump[fc.n++] = bump;
}

static uint64_t fake_clock(void *arg)
{
	(void)arg;
	fc.calls++;
	fc.now += STEP;
	for (unsigned i = 0; i < fc.n; i++)
		if (fc.at[i] == fc.calls) {
			fc.now = (uint64_t)((int64_t)fc.now + fc.by[i]);
			if (fc.bump[i])
				(*fc.bump[i])++;
		}
	return fc.now;
}

/* Fake counters, as a platform counts them. */
static uint64_t counter[GAPS_CAUSES];
static bool counts_fail;

static bool fake_counts(void *arg, uint64_t v[GAPS_CAUSES])
{
	(void)arg;
	if (counts_fail)
		return false;
	memcpy(v, counter, sizeof(counter));
	return true;
}

static void cfg_for(struct gaps_cfg *cfg, uint64_t attr, uint64_t end)
{
	gaps_setup(cfg, STEP, attr, STEP << 10); /* buckets 10 .. 10240 ticks, and beyond */
	cfg->end = end;
}

/* ---- Tests ------------------------------------------------------------------ */

/* Three gaps of known length among ordinary iterations, and an iteration
 * that is slow but under the threshold. */
TEST(known_gaps_counted_binned_and_timed)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset();
	cfg_for(&cfg, 1000, 250000);
	CHECK_EQ_U(cfg.base, 10);
	CHECK_EQ_U(cfg.threshold, 40);              /* GAPS_FACTOR x the minimum */
	CHECK_EQ_U(cfg.attr_threshold, 1000);
	CHECK_EQ_U(cfg.hist_n, 11);                 /* 10 x 2^10 = 10240 is the last edge */
	CHECK_EQ_U(gaps_edge(&cfg, 0), 10);
	CHECK_EQ_U(gaps_edge(&cfg, 10), 10240);
	jump(100, 30, 0);                           /* 40 ticks: exactly the threshold, a gap */
	jump(150, 20, 0);                           /* 30 ticks: slow, not a gap */
	jump(200, 990, 0);                          /* 1000 ticks */
	jump(300, 200000, 0);                       /* 200010 ticks: past the last edge */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.first, 10);
	CHECK(c.last >= 250000 && c.last < 250000 + STEP);
	CHECK_EQ_U(c.count, 3);
	CHECK_EQ_U(c.lost, 30 + 990 + 200000);      /* each gap beyond one ordinary iteration */
	CHECK_EQ_U(c.longest, 200010);
	CHECK_EQ_U(c.longest_at, 10 * 300 + 30 + 20 + 990 + 200000);
	CHECK_EQ_U(c.excluded, 3 * STEP);           /* one fresh read after each gap */
	CHECK_EQ_U(c.min, STEP);
	CHECK_EQ_U(c.hist[2], 1);                   /* [40, 80) */
	CHECK_EQ_U(c.hist[6], 1);                   /* [640, 1280) */
	CHECK_EQ_U(c.hist[10], 1);                  /* [10240, beyond) */
	uint64_t all = 0;
	for (unsigned k = 0; k < GAPS_HIST_MAX; k++)
		all += c.hist[k];
	CHECK_EQ_U(all, 3);
	CHECK_EQ_U(gaps_observed(&c), c.last - c.first - 3 * STEP);
	double ppm = gaps_ppm(&c);
	CHECK(ppm > 201020.0 / (double)gaps_observed(&c) * 1e6 - 1e-6 &&
	      ppm < 201020.0 / (double)gaps_observed(&c) * 1e6 + 1e-6);
	CHECK_EQ_U(c.attributed, 2);                /* 1000 and 200010: at or over attr_threshold */
	CHECK_EQ_U(c.unexplained, 2);               /* nothing counted them */
	CHECK_EQ_U(c.iters + 1 + c.count, fc.calls); /* every read but the first is an iteration, plus one per gap */
}

/* A quiet loop: no gap, nothing lost, a ppm of 0 over what it observed. */
TEST(quiet_loop_loses_nothing)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset();
	cfg_for(&cfg, 1000, 100000);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.count, 0);
	CHECK_EQ_U(c.lost, 0);
	CHECK_EQ_U(c.longest, 0);
	CHECK(gaps_observed(&c) > 0);
	CHECK(gaps_ppm(&c) == 0);
	CHECK_EQ_U(c.iters, (100000 - 10) / STEP);  /* from the first read at 10 to the end */
}

/* A loop whose end had passed before it started observed nothing: its ppm
 * is no number (negative), never a 0 that reads as a quiet CPU. */
TEST(nothing_observed_has_no_ppm)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset();
	cfg_for(&cfg, 1000, 0);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(gaps_observed(&c), 0);
	CHECK(gaps_ppm(&c) < 0);
}

/* A clock that goes back is counted apart, never as a gap of 2^64 ticks. */
TEST(clock_going_back_is_not_a_gap)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset();
	cfg_for(&cfg, 1000, 3000);
	jump(50, -100, 0);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.backwards, 1);
	CHECK_EQ_U(c.count, 0);
	CHECK_EQ_U(c.longest, 0);
}

/* An attributed gap names each counter that moved since the last read: one
 * that moved during a shorter gap is named with the next attributed one. */
TEST(attribution_from_fake_counters)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, fake_counts, 1u << GAPS_INTERRUPT | 1u << GAPS_SWITCH, 0 };
	clock_reset();
	memset(counter, 0, sizeof(counter));
	counts_fail = false;
	cfg_for(&cfg, 500, 20000);
	jump(100, 2000, &counter[GAPS_INTERRUPT]);  /* an interrupt: attributed to it */
	jump(200, 2000, &counter[GAPS_SWITCH]);     /* a context switch */
	jump(300, 2000, 0);                         /* nothing counted it: unexplained */
	jump(400, 100, &counter[GAPS_INTERRUPT]);   /* under 500 ticks: not attributed now ... */
	jump(500, 2000, 0);                         /* ... but named with this one */
	jump(600, 2000, &counter[GAPS_FAULT]);      /* a fault, not counted here (not in mask) */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.count, 6);
	CHECK_EQ_U(c.attributed, 5);
	CHECK_EQ_U(c.cause[GAPS_INTERRUPT], 2);
	CHECK_EQ_U(c.cause[GAPS_SWITCH], 1);
	CHECK_EQ_U(c.cause[GAPS_FAULT], 0);
	CHECK_EQ_U(c.unexplained, 2);               /* the 300th and 600th */
	CHECK_EQ_U(c.unread, 0);
	CHECK_EQ_U(c.excluded, 6 * STEP);

	/* Counters that cannot be read: the gap is counted, not attributed. */
	clock_reset();
	counts_fail = true;
	jump(100, 2000, &counter[GAPS_INTERRUPT]);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.attributed, 1);
	CHECK_EQ_U(c.unread, 1);
	CHECK_EQ_U(c.cause[GAPS_INTERRUPT], 0);
	CHECK_EQ_U(c.unexplained, 0);
	counts_fail = false;
}

/* A fake clock whose deltas are scripted, for gaps_loop_time. */
static const uint64_t *script;
static uint64_t script_n, script_i, script_now;

static uint64_t script_clock(void *arg)
{
	(void)arg;
	script_now += script_i < script_n ? script[script_i] : 26;
	script_i++;
	return script_now;
}

/* The loop's minimum is its 1st percentile of the iterations that moved the
 * clock: a TSC that steps by 26 ticks (this project's AMD host) reads the
 * same value now and then, and an emulator's once read a tick apart. */
TEST(loop_time_ignores_a_stepping_clock)
{
	static uint64_t d[1 + GAPS_MIN_ITERS];
	for (unsigned i = 0; i <= GAPS_MIN_ITERS; i++)
		d[i] = i % 3 ? 52 : 26;
	for (unsigned i = 1; i <= 100; i++)
		d[i * 7] = 0;                       /* 100 reads that did not step */
	d[5] = 1;                                   /* one read a tick apart */
	d[9] = 5000;                                /* one gap */
	script = d;
	script_n = 1 + GAPS_MIN_ITERS;
	script_i = script_now = 0;
	struct gaps_ops ops = { script_clock, 0, 0, 0 };
	struct gaps_loop l;
	gaps_loop_time(&ops, GAPS_MIN_ITERS, &l);
	CHECK_EQ_U(l.zero, 100);
	CHECK_EQ_U(l.n, GAPS_MIN_ITERS - 100);
	CHECK_EQ_U(l.min, 1);
	CHECK_EQ_U(l.p1, 26);
	CHECK_EQ_U(l.median, 52);
	/* Nothing ever stepped: 1 tick, never 0. */
	static const uint64_t still[4] = { 0, 0, 0, 0 };
	script = still;
	script_n = 4;
	script_i = script_now = 0;
	gaps_loop_time(&ops, 3, &l);
	CHECK_EQ_U(l.min, 1);
	CHECK_EQ_U(l.n, 0);
}

/* Buckets from the loop's minimum to 100 ms and beyond: at 3 GHz with a
 * 30-tick loop, 30 x 2^24 ticks is 168 ms, the first edge past 100 ms. */
TEST(histogram_reaches_100_ms)
{
	struct gaps_cfg cfg;
	uint64_t top = 300000000;                   /* 100 ms at 3 GHz */
	gaps_setup(&cfg, 30, 3000, top);
	CHECK_EQ_U(cfg.hist_n, 25);
	CHECK(gaps_edge(&cfg, cfg.hist_n - 1) >= top);
	CHECK(gaps_edge(&cfg, cfg.hist_n - 2) < top);
	/* An attribution threshold under the gap threshold is raised to it. */
	gaps_setup(&cfg, 30, 50, top);
	CHECK_EQ_U(cfg.attr_threshold, 120);
	/* The merged histogram adds each CPU's. */
	uint64_t run[GAPS_HIST_MAX] = { 0 };
	struct gaps_cpu a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.hist[0] = 2;
	a.hist[24] = 1;
	b.hist[0] = 3;
	gaps_merge(run, &a, cfg.hist_n);
	gaps_merge(run, &b, cfg.hist_n);
	CHECK_EQ_U(run[0], 5);
	CHECK_EQ_U(run[24], 1);
}

/* Bare metal: an SMI during a long gap moves MSR_SMI_COUNT, and the gap is
 * attributed to it; a gap without one is unexplained. */
TEST(bare_metal_attributes_smis)
{
	struct fx_cpu cpu = { .apic = 0, .model = &m_skylake, .over = 0, .nover = 0 };
	fx_snap(&cpu, &percpu[0].snap);
	smi_faults = false;
	smi_gp = 0;
	smi_count = 41;
	uint32_t mask = disturb_open();
	CHECK_EQ_U(mask, 1u << GAPS_SMI);
	CHECK_EQ_U(disturb_causes(), 1u << GAPS_SMI);
	CHECK(disturb_why(GAPS_SMI) == NULL);
	CHECK(strstr(disturb_why(GAPS_INTERRUPT), "interrupts are off"));
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, disturb_read, mask, 0 };
	clock_reset();
	cfg_for(&cfg, 1000, 100000);
	jump(100, 50000, &smi_count);               /* an SMI of 50000 ticks */
	jump(200, 3000, 0);                         /* something no counter sees */
	gaps_spin(&c, &cfg, &ops);
	disturb_close();
	CHECK_EQ_U(c.cause[GAPS_SMI], 1);
	CHECK_EQ_U(c.unexplained, 1);
	CHECK_EQ_U(c.seen[GAPS_SMI], 42);
	uint64_t n;
	const char *how;
	CHECK(!disturb_config_interrupts(&n, &how)); /* interrupts are off: nothing per configuration */
}

/* Bare metal: where MSR_SMI_COUNT raises #GP (Bochs), nothing is counted and every gap is unexplained. */
TEST(bare_metal_without_an_smi_counter)
{
	struct fx_cpu cpu = { .apic = 0, .model = &m_skylake, .over = 0, .nover = 0 };
	fx_snap(&cpu, &percpu[0].snap);
	smi_faults = true;
	smi_gp = "unavailable: #GP on MSR 0x34";
	CHECK_EQ_U(disturb_open(), 0);
	CHECK_EQ_U(disturb_causes(), 0);
	CHECK_STR(disturb_why(GAPS_SMI), "unavailable: #GP on MSR 0x34");
	uint64_t v[GAPS_CAUSES];
	CHECK(!disturb_read(0, v));
	/* And an AMD CPU has no SMI counter at all: CPUID says so. */
	struct fx_cpu amd = { .apic = 0, .model = &m_zen3, .over = 0, .nover = 0 };
	fx_snap(&amd, &percpu[0].snap);
	smi_faults = false;
	smi_gp = 0;
	CHECK_EQ_U(disturb_open(), 0);
	CHECK_STR(disturb_why(GAPS_SMI), "no SMI counter on this vendor");
}

int main(void)
{
	RUN(known_gaps_counted_binned_and_timed);
	RUN(quiet_loop_loses_nothing);
	RUN(nothing_observed_has_no_ppm);
	RUN(clock_going_back_is_not_a_gap);
	RUN(attribution_from_fake_counters);
	RUN(loop_time_ignores_a_stepping_clock);
	RUN(histogram_reaches_100_ms);
	RUN(bare_metal_attributes_smis);
	RUN(bare_metal_without_an_smi_counter);
	return check_summary("gaps");
}
