/* test_gaps.c - host tests of the noise loop both platforms compile (kernel/measure/gaps.c) on a fake clock with known gaps: their count, the time lost, the longest and when, the histogram's buckets, rtla's 1 us and 5 us thresholds, each CPU judged by its own minimum iteration, two CPUs pooled, what is excluded, a stall in the bookkeeping counted as lost, the loop's quantiles (attribution: test_gaps_attr.c). */
#include "check.h"
#include "gaps.h"
#include "gaps_fake.h"

/* ---- Stubs: the TSC's fence ------------------------------------------------- */
bool tsc_mfence, tsc_have_rdtscp;

/* ---- Tests ------------------------------------------------------------------ */

/* Three gaps of known length among ordinary iterations, and an iteration
 * that is slow but under the threshold; rtla's thresholds beside them. */
TEST(known_gaps_counted_binned_and_timed)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 250000);
	CHECK_EQ_U(cfg.base, 10);
	CHECK_EQ_U(cfg.threshold, 40);              /* GAPS_FACTOR x the minimum */
	CHECK_EQ_U(cfg.attr_threshold, 1000);
	CHECK_EQ_U(cfg.over[0], 1000);              /* 1 us and 5 us at 1 GHz */
	CHECK_EQ_U(cfg.over[1], 5000);
	CHECK_EQ_U(cfg.trigger, 40);
	CHECK_EQ_U(cfg.hist_n, 25);                 /* 10 x 2^24 = 167772160 is the first edge past 100 ms */
	CHECK_EQ_U(gaps_edge(&cfg, 0), 10);
	CHECK_EQ_U(gaps_edge(&cfg, 10), 10240);
	jump(100, 30, 0);                           /* 40 ticks: exactly the threshold, a gap */
	jump(150, 20, 0);                           /* 30 ticks: slow, not a gap */
	jump(200, 990, 0);                          /* 1000 ticks: exactly rtla's 1 us */
	jump(300, 200000, 0);                       /* 200010 ticks */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.first, 10);
	CHECK(c.last >= 250000 && c.last < 250000 + STEP);
	CHECK_EQ_U(c.count, 3);
	CHECK_EQ_U(c.lost, 30 + 990 + 200000);      /* each gap beyond one ordinary iteration */
	CHECK_EQ_U(c.longest, 200010);
	CHECK_EQ_U(c.longest_at, 10 * 300 + 30 + 20 + 990 + 200000);
	CHECK_EQ_U(c.excluded, 3 * STEP);           /* one fresh read after each gap */
	CHECK_EQ_U(c.stalls, 0);
	CHECK_EQ_U(c.min, STEP);
	CHECK_EQ_U(c.over_count[0], 2);             /* 1000 and 200010: at or over 1 us */
	CHECK_EQ_U(c.over_lost[0], 1000 + 200010);  /* whole lengths, as rtla sums them */
	CHECK_EQ_U(c.over_count[1], 1);
	CHECK_EQ_U(c.over_lost[1], 200010);
	CHECK_EQ_U(c.hist[2], 1);                   /* [40, 80) */
	CHECK_EQ_U(c.hist[6], 1);                   /* [640, 1280) */
	CHECK_EQ_U(c.hist[14], 1);                  /* [163840, 327680) */
	uint64_t all = 0;
	for (unsigned k = 0; k < GAPS_HIST_MAX; k++)
		all += c.hist[k];
	CHECK_EQ_U(all, 3);
	CHECK_EQ_U(gaps_observed(&c), c.last - c.first - 3 * STEP);
	CHECK(approx(gaps_ppm(&c), 201020.0 / (double)gaps_observed(&c) * 1e6));
	CHECK(approx(gaps_over_ppm(&c, 0), 201010.0 / (double)gaps_observed(&c) * 1e6));
	CHECK_EQ_U(c.attributed, 2);                /* 1000 and 200010: at or over attr_threshold */
	CHECK_EQ_U(c.unexplained, 2);               /* nothing counted them */
	CHECK_EQ_U(c.reads, 0);                     /* nothing to read */
	CHECK_EQ_U(c.iters + 1 + c.count, fc.calls); /* every read but the first is an iteration, plus one per gap */
}

/* A quiet loop: no gap, nothing lost, a ppm of 0 over what it observed. */
TEST(quiet_loop_loses_nothing)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 100000);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.count, 0);
	CHECK_EQ_U(c.lost, 0);
	CHECK_EQ_U(c.longest, 0);
	CHECK(gaps_observed(&c) > 0);
	CHECK(gaps_ppm(&c) == 0);
	CHECK(gaps_over_ppm(&c, 0) == 0);
	CHECK_EQ_U(c.iters, (100000 - 10) / STEP);  /* from the first read at 10 to the end */
}

/* A loop whose end had passed before it started observed nothing: its ppm
 * is no number (negative), never a 0 that reads as a quiet CPU; pooled
 * with nothing else, the run's is none too. */
TEST(nothing_observed_has_no_ppm)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 0);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(gaps_observed(&c), 0);
	CHECK(gaps_ppm(&c) < 0);
	CHECK(gaps_over_ppm(&c, 1) < 0);
	struct gaps_sum s;
	memset(&s, 0, sizeof(s));
	gaps_sum_add(&s, &c);
	CHECK(gaps_sum_ppm(&s) < 0);
	CHECK(gaps_sum_ppm_mean(&s) < 0);
	CHECK(gaps_sum_over_ppm(&s, 0) < 0);
	CHECK_EQ_U(s.observed_cpus, 0);
}

/* A clock that goes back is counted apart, never as a gap of 2^64 ticks. */
TEST(clock_going_back_is_not_a_gap)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 3000);
	jump(50, -100, 0);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.backwards, 1);
	CHECK_EQ_U(c.count, 0);
	CHECK_EQ_U(c.longest, 0);
}

/* Two CPUs of different observed spans, pooled: the run's ppm is all their
 * ticks lost over all their ticks observed, not the mean of their ratios;
 * rtla's figures pool the same way. The fake clock reads 10 n ticks at its
 * n-th read, plus the jumps before it. */
TEST(two_cpus_pooled)
{
	struct gaps_cfg cfg;
	struct gaps_cpu a, b;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	/* CPU a: a 1000-tick gap at read 100 and a 5000-tick one at read 200;
	 * 10 n + 990 + 4990 reaches 50000 at read 4402, exactly. */
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 50000);
	jump(100, 990, 0);
	jump(200, 4990, 0);
	gaps_spin(&a, &cfg, &ops);
	CHECK_EQ_U(a.first, 10);
	CHECK_EQ_U(a.last, 50000);
	CHECK_EQ_U(a.excluded, 2 * STEP);           /* the fresh read after each gap */
	CHECK_EQ_U(gaps_observed(&a), 49970);
	CHECK_EQ_U(a.lost, 990 + 4990);
	/* CPU b: a 3000-tick gap at read 50; 10 n + 2990 reaches 20000 at read 1701. */
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 20000);
	jump(50, 2990, 0);
	gaps_spin(&b, &cfg, &ops);
	CHECK_EQ_U(b.last, 20000);
	CHECK_EQ_U(gaps_observed(&b), 19980);
	CHECK_EQ_U(b.lost, 2990);
	struct gaps_sum s;
	memset(&s, 0, sizeof(s));
	gaps_sum_add(&s, &a);
	gaps_sum_add(&s, &b);
	CHECK_EQ_U(s.observed, 49970 + 19980);
	CHECK_EQ_U(s.lost, 5980 + 2990);
	double pooled = (5980.0 + 2990.0) / (49970.0 + 19980.0) * 1e6;  /* 128234.45 */
	double mean = (5980.0 / 49970.0 + 2990.0 / 19980.0) / 2 * 1e6; /* 134660.73 */
	CHECK(approx(gaps_sum_ppm(&s), pooled));
	CHECK(approx(gaps_sum_ppm_mean(&s), mean));
	CHECK(gaps_sum_ppm(&s) < gaps_sum_ppm_mean(&s) - 6000); /* not the mean of ratios */
	CHECK(approx(s.ppm_max, 2990.0 / 19980.0 * 1e6));
	/* rtla's 1 us: a's 1000 and 5000, b's 3000, whole lengths; 5 us: a's 5000 alone. */
	CHECK_EQ_U(s.over_count[0], 3);
	CHECK_EQ_U(s.over_count[1], 1);
	CHECK(approx(gaps_sum_over_ppm(&s, 0), (1000.0 + 5000.0 + 3000.0) / 69950.0 * 1e6));
	CHECK(approx(gaps_sum_over_ppm(&s, 1), 5000.0 / 69950.0 * 1e6));
	CHECK_EQ_U(s.over_longest, 5000);
	CHECK_EQ_U(s.longest, 5000);
	CHECK_EQ_U(s.longest_cpu, 0);
	CHECK_EQ_U(s.count, 3);
}

/* Each CPU is judged by its own minimum iteration: a CPU whose loop takes
 * 25 ticks (a slower core, or another clock) does not see its ordinary
 * jitter as gaps because the fastest CPU's loop takes 10. */
TEST(each_cpu_its_own_base)
{
	struct gaps_loop la, lb;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset(10);
	gaps_loop_time(&ops, GAPS_MIN_ITERS, &la);
	clock_reset(25);
	gaps_loop_time(&ops, GAPS_MIN_ITERS, &lb);
	CHECK_EQ_U(la.p1, 10);
	CHECK_EQ_U(lb.p1, 25);
	struct gaps_cfg run, ca, cb;
	gaps_setup(&run, la.p1 < lb.p1 ? la.p1 : lb.p1, 1000, FAKE_HZ);
	ca = run;
	cb = run;
	gaps_setup_cpu(&ca, la.p1);
	gaps_setup_cpu(&cb, lb.p1);
	CHECK_EQ_U(ca.threshold, 40);
	CHECK_EQ_U(cb.threshold, 100);
	CHECK_EQ_U(cb.hist_base, 10);               /* the run's histogram stays on the least minimum */
	CHECK_EQ_U(cb.over[0], 1000);               /* rtla's thresholds are absolute */
	/* The same two iterations on each: 70 ticks, and 150 ticks. */
	struct gaps_cpu a, b;
	clock_reset(10);
	ca.end = cb.end = 20000;
	jump(100, 60, 0);
	jump(200, 140, 0);
	gaps_spin(&a, &ca, &ops);
	clock_reset(25);
	jump(100, 45, 0);
	jump(200, 125, 0);
	gaps_spin(&b, &cb, &ops);
	CHECK_EQ_U(a.count, 2);                     /* 70 and 150 are past 40 */
	CHECK_EQ_U(a.lost, 60 + 140);
	CHECK_EQ_U(b.count, 1);                     /* 70 is under 100: b's own jitter, not a gap */
	CHECK_EQ_U(b.lost, 150 - 25);               /* beyond b's own iteration */
	CHECK_EQ_U(b.hist[3], 1);                   /* 150 in [80, 160) of the run's buckets */
	CHECK_EQ_U(a.base, 10);
	CHECK_EQ_U(b.base, 25);
	CHECK_EQ_U(b.threshold, 100);
	struct gaps_sum s;
	memset(&s, 0, sizeof(s));
	gaps_sum_add(&s, &a);
	gaps_sum_add(&s, &b);
	CHECK_EQ_U(s.base_min, 10);
	CHECK_EQ_U(s.base_max, 25);
}

/* The bookkeeping after a gap is timed: its calibrated cost (the median of
 * timed calls, one of them stalled) is left out, and a stall inside it is
 * counted as lost, as a gap of its own: it never vanishes. */
TEST(stall_in_the_bookkeeping_is_lost)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 100000);
	jump(4, 700, 0);                            /* the 2nd call's closing read: a stall while it is timed */
	gaps_book_time(&cfg, &ops);
	CHECK_EQ_U(fc.calls, 2 * GAPS_BOOK_CALLS);  /* a read before and after each call */
	CHECK_EQ_U(cfg.book, STEP);                 /* the median: one read, the stall left out */
	clock_reset(STEP);
	jump(100, 990, 0);                          /* a 1000-tick gap, ending at read 100 ... */
	jump(101, 5000, 0);                         /* ... and its bookkeeping stalled 5000 ticks */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.book, STEP);
	CHECK_EQ_U(c.stalls, 1);
	CHECK_EQ_U(c.stall_lost, 5000);             /* the stretch (5010) beyond its cost (10) */
	CHECK_EQ_U(c.count, 2);                     /* the gap, and the stall */
	CHECK_EQ_U(c.lost, 990 + 5000);
	CHECK_EQ_U(c.longest, 5000 + STEP);         /* the excess, plus one ordinary iteration */
	CHECK_EQ_U(c.over_count[0], 2);
	CHECK_EQ_U(c.over_count[1], 1);             /* the stall alone reached 5 us */
	CHECK_EQ_U(c.over_lost[1], 5010);
	CHECK_EQ_U(c.excluded, STEP + STEP);        /* the stalled stretch's cost, and the next stretch */
	CHECK_EQ_U(c.last - c.first - c.excluded, gaps_observed(&c));
	/* Both the stall and the gap were attributed (at or over 1000 ticks): unexplained here. */
	CHECK_EQ_U(c.attributed, 2);
	/* Before: the whole stretch was left out, and the 5000 ticks vanished from lost and observed alike. */
	CHECK(approx(gaps_ppm(&c), 5990.0 / (double)gaps_observed(&c) * 1e6));
	CHECK(gaps_observed(&c) > c.last - c.first - 5020);
	/* A bookkeeping as slow as its own cost again plus a gap's threshold is a stall; less is jitter. */
	clock_reset(STEP);
	jump(100, 990, 0);
	jump(101, 39, 0);                           /* 49 ticks: under 10 + max(40, 10) */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.stalls, 0);
	CHECK_EQ_U(c.excluded, 49);
	clock_reset(STEP);
	jump(100, 990, 0);
	jump(101, 40, 0);                           /* 50 ticks: a stall of 40 */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.stalls, 1);
	CHECK_EQ_U(c.lost, 990 + 40);
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
	gaps_setup(&cfg, 30, 1000, 3000000000ull);
	CHECK_EQ_U(cfg.hist_n, 25);
	CHECK(gaps_edge(&cfg, cfg.hist_n - 1) >= top);
	CHECK(gaps_edge(&cfg, cfg.hist_n - 2) < top);
	CHECK_EQ_U(cfg.attr_threshold, 3000);
	CHECK_EQ_U(cfg.over[1], 15000);
	CHECK_EQ_U(cfg.rebase, 3000000);            /* 1 ms */
	/* An attribution threshold under the gap threshold is raised to it. */
	gaps_setup(&cfg, 30, 10, 3000000000ull);
	CHECK_EQ_U(cfg.attr_threshold, 120);
	/* Without the TSC's rate there is no 1 us: rtla's figures are unknown, and the trigger is the threshold. */
	gaps_setup(&cfg, 30, 1000, 0);
	CHECK_EQ_U(cfg.over[0], 0);
	CHECK_EQ_U(cfg.trigger, 120);
	CHECK_EQ_U(cfg.rebase, 0);
	/* A loop slower than 250 ns: every iteration of 1 us or more counts for rtla, gap or not. */
	gaps_setup(&cfg, 300, 1000, FAKE_HZ);
	CHECK_EQ_U(cfg.threshold, 1200);
	CHECK_EQ_U(cfg.trigger, 1000);
	/* The merged histogram adds each CPU's. */
	uint64_t run[GAPS_HIST_MAX] = { 0 };
	struct gaps_cpu a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.hist[0] = 2;
	a.hist[24] = 1;
	b.hist[0] = 3;
	gaps_merge(run, &a, 25);
	gaps_merge(run, &b, 25);
	CHECK_EQ_U(run[0], 5);
	CHECK_EQ_U(run[24], 1);
}

/* A loop slower than 1 us / GAPS_FACTOR: an iteration of 1 us or more, under
 * the CPU's own threshold, counts at rtla's threshold but is no gap. */
TEST(rtla_counts_what_the_loop_threshold_does_not)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, 0, 0, 0 };
	clock_reset(300);
	gaps_setup(&cfg, 300, 1000, FAKE_HZ);
	cfg.end = 100000;
	jump(50, 800, 0);                           /* 1100 ticks: past 1 us, under 1200 */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.count, 0);
	CHECK_EQ_U(c.lost, 0);
	CHECK_EQ_U(c.over_count[0], 1);
	CHECK_EQ_U(c.over_lost[0], 1100);
	CHECK_EQ_U(c.over_longest, 1100);
}

int main(void)
{
	RUN(known_gaps_counted_binned_and_timed);
	RUN(quiet_loop_loses_nothing);
	RUN(nothing_observed_has_no_ppm);
	RUN(clock_going_back_is_not_a_gap);
	RUN(two_cpus_pooled);
	RUN(each_cpu_its_own_base);
	RUN(stall_in_the_bookkeeping_is_lost);
	RUN(loop_time_ignores_a_stepping_clock);
	RUN(histogram_reaches_100_ms);
	RUN(rtla_counts_what_the_loop_threshold_does_not);
	return check_summary("gaps");
}
