/* reps.c - collecting repetitions and writing their statistics, noise and counters into result records; see reps.h. */
#include "reps.h"
#include "disturb.h"
#include "lib.h"
#include "options.h"
#include "report.h"
#include "stats_rec.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define FLAG_KINDS NOISE_FLAG_COUNT
#define KHZ_PER_MHZ 1000.0
#define FLAG_BIT(f) (__builtin_ctz(f))           /* flagged_by's index of a NOISE_FLAG_* bit */
#define IRQ_MISSED "not counted: a thread's irq tracepoints could not be opened or read (the open-file limit?)"

_Static_assert(OPT_REPS_MAX == REPS_MAX, "reps= must accept exactly what a result can keep");

/* ---- Private Variables ---------------------------------------------------- */
static struct reps the_log;
static uint64_t one_thread[1][REPS_MAX];  /* until the platform gives room for all */
static uint64_t (*thread_store)[REPS_MAX] = one_thread;
static uint32_t thread_cap = 1;
static bool keep_samples;
static bool faults_measured;
static struct reps_tally tally;
static uint64_t scratch[2 * REPS_MAX];
static uint64_t column[REPS_MAX];

/* ---- Private Functions ---------------------------------------------------- */
/* The platform counts interrupts per thread (the twin with irq tracepoints). */
static bool irq_expected(void)
{
	return (disturb_causes() >> GAPS_INTERRUPT) & 1;
}

/* Interrupts counted on every thread of every repetition: a sum of some would be an undercount. */
static bool irq_counted(const struct reps *r)
{
	return r->have_irq && !r->irq_missed;
}

/* What "clean" was checked for: the detectors that really ran on this
 * result's CPUs (a source the CPU lacks, or whose MSR faulted, is not one). */
static void write_detectors(struct rec *rec, const struct reps *r)
{
	rec_arr_begin(rec, "detectors");
	if (r->have_freq)
		rec_str(rec, 0, "aperf_mperf");
	if (r->have_smi)
		rec_str(rec, 0, "smi");
	if (r->have_therm)
		rec_str(rec, 0, "thermal");
	if (r->have_sched) {
		rec_str(rec, 0, "context_switches");
		rec_str(rec, 0, "migrations");
	}
	if (irq_counted(r))
		rec_str(rec, 0, "interrupts");
	if (r->have_faults && !faults_measured)
		rec_str(rec, 0, "faults");
	rec_str(rec, 0, "tsc_backwards");
	rec_arr_end(rec);
	const char *why = r->have_therm ? instr_therm_note() : 0;
	if (why)
		rec_str(rec, "thermal_note", why);
}

/* Fold one thread's view of a repetition into the repetition's flags. */
static uint32_t thread_flags(struct reps *r, const struct noise_rep *n, double *freq_sum, uint32_t *freq_n)
{
	uint32_t f = n->flags & ~NOISE_FLAG_FREQ; /* frequency is judged against the result's own reference */
	if (faults_measured)
		f &= ~NOISE_FLAG_FAULT;           /* the workload's own faults are what it measures */
	if (n->have_freq) {
		r->have_freq = true;
		*freq_sum += n->freq_mhz;
		(*freq_n)++;
	}
	if (n->have_smi) {
		r->have_smi = true;
		r->smis += n->smis;
	}
	if (n->have_therm || n->have_pkg_therm)
		r->have_therm = true;
	if (n->have_sched)
		r->have_sched = true;
	if (n->have_irq) {
		r->have_irq = true;
		r->irqs += n->irqs;
	} else {
		r->irq_missed++;
	}
	if (n->have_faults) {
		r->have_faults = true;
		r->faults += n->faults;
	}
	return f;
}

/* ---- Public Functions ----------------------------------------------------- */
void reps_keep_samples(bool on)
{
	keep_samples = on;
}

void reps_faults_measured(bool on)
{
	faults_measured = on;
}

double reps_clock_mhz(const struct reps *r)
{
	struct stats st;
	if (!r->n_freq)
		return 0;
	stats_compute(r->freq_khz, r->n_freq, scratch, &st);
	return st.median / KHZ_PER_MHZ;
}

const char *reps_clock_why(void)
{
	const char *why = instr_source_why(INSTR_SRC_FREQ);
	return why ? why : "unavailable: no APERF/MPERF readings (CPUID.06H:ECX[0] clear, or MPERF did not count)";
}

struct reps_tally reps_tally_take(void)
{
	struct reps_tally t = tally;
	memset(&tally, 0, sizeof(tally));
	return t;
}

bool reps_samples_on(void)
{
	return keep_samples;
}

void reps_set_storage(uint64_t (*buf)[REPS_MAX], uint32_t threads)
{
	if (buf && threads) {
		thread_store = buf;
		thread_cap = MIN(threads, (uint32_t)QB_MAX_CPUS);
	}
}

struct reps *reps_begin(uint32_t threads)
{
	memset(&the_log, 0, offsetof(struct reps, thread));
	the_log.thread = thread_store;
	the_log.threads = MIN(threads, thread_cap);
	the_log.pmu_n = ~0u;
	disturb_config_begin(); /* the twin without irq tracepoints counts the configuration's interrupts */
	return &the_log;
}

void reps_add(struct reps *r, const uint64_t *ticks, const struct instr_thread *instr)
{
	if (r->n >= REPS_MAX)
		return;
	uint32_t k = r->n++;
	uint64_t worst = 0;
	for (uint32_t t = 0; t < r->threads; t++) {
		uint64_t v = ticks[t] > tsc_overhead() ? ticks[t] - tsc_overhead() : 0;
		r->thread[t][k] = v;
		worst = MAX(worst, v);
	}
	r->slowest[k] = worst;

	uint32_t flags = 0, freq_n = 0;
	double freq_sum = 0;
	uint32_t pmu_n = instr ? ~0u : 0;
	memset(r->pmu[k], 0, sizeof(r->pmu[k]));
	for (uint32_t t = 0; instr && t < r->threads; t++) {
		flags |= thread_flags(r, &instr[t].noise, &freq_sum, &freq_n);
		pmu_n = MIN(pmu_n, instr[t].pmu_n);
		for (uint32_t e = 0; e < instr[t].pmu_n && e < PMU_MAX_EVENTS; e++)
			r->pmu[k][e] += instr[t].pmu[e];
	}
	r->pmu_n = MIN(r->pmu_n, pmu_n == ~0u ? 0 : pmu_n);
	if (freq_n) {
		double f = freq_sum / freq_n;
		if (k == 0 || r->ref_mhz <= 0)
			r->ref_mhz = f;
		else if (f > r->ref_mhz * (1 + NOISE_FREQ_TOLERANCE) || f < r->ref_mhz * (1 - NOISE_FREQ_TOLERANCE))
			flags |= NOISE_FLAG_FREQ;
		r->freq_min = k == 0 ? f : MIN(r->freq_min, f);
		r->freq_max = k == 0 ? f : MAX(r->freq_max, f);
		r->freq_khz[r->n_freq++] = (uint64_t)(f * KHZ_PER_MHZ + 0.5);
	}
	r->flagged[k] = flags != 0;
	r->flags |= flags;
	for (uint32_t b = 0; b < FLAG_KINDS; b++)
		r->flagged_by[b] += (flags >> b) & 1;
}

const struct stats *reps_stats(struct reps *r)
{
	struct noise_summary ns;
	noise_stats(r->slowest, r->flagged, r->n, scratch, &ns);
	r->stats = ns.all;
	r->clean = ns.clean;
	r->n_clean = (uint32_t)ns.n_clean;
	r->noisy = r->n && 2 * ns.n_clean < r->n;
	return &r->stats;
}

const struct stats *reps_figure(struct reps *r)
{
	reps_stats(r);
	return r->noisy ? &r->stats : &r->clean;
}

double reps_thread_median(struct reps *r, uint32_t t)
{
	struct stats st;
	bool clean_only = !reps_figure(r)->n ? false : !r->noisy;
	uint32_t k = 0;
	for (uint32_t i = 0; i < r->n; i++)
		if (!clean_only || !r->flagged[i])
			column[k++] = r->thread[t][i];
	stats_compute(column, k, scratch, &st);
	return st.median;
}

/* "noisy": false, or what made it so: the clean count of all, and the flags. */
static void write_noisy(struct rec *rec, bool noisy, uint64_t clean, uint64_t n, uint32_t flags)
{
	if (!noisy) {
		rec_bool(rec, "noisy", false);
		return;
	}
	rec_obj_begin(rec, "noisy");
	rec_u64(rec, "clean", clean);
	rec_u64(rec, "reps", n);
	rec_arr_begin(rec, "flags");
	for (uint32_t b = 0; b < FLAG_KINDS; b++)
		if ((flags >> b) & 1)
			rec_str(rec, 0, noise_flag_name(1u << b));
	rec_arr_end(rec);
	rec_obj_end(rec);
}

void reps_report(struct rec *rec, struct reps *r)
{
	const struct stats *fig = reps_figure(r);
	report_stats(rec, "ticks", &r->stats);
	tally.results++;
	tally.flagged += r->n_clean != r->n;
	tally.noisy += r->noisy;
	tally.unchecked += !(r->have_freq || r->have_smi || r->have_therm || r->have_sched);
	if (r->stats.n > 1)
		tally.max_cv = MAX(tally.max_cv, fig->cv);
	rec_obj_begin(rec, "clean");
	rec_u64(rec, "reps", r->n_clean);
	rec_u64(rec, "flagged", r->n - r->n_clean);
	write_detectors(rec, r);
	stats_rec(rec, &r->clean);
	rec_obj_end(rec);
	write_noisy(rec, r->noisy, r->n_clean, r->n, r->flags);
	const char *of = !r->n ? 0 : r->noisy ? "all" : "clean";
	if (of)
		rec_str(rec, "figure", of);
	else
		rec_null(rec, "figure");
	report_figure_set(fig, of, r->noisy);
	if (keep_samples) {
		rec_arr_begin(rec, "samples");
		for (uint32_t k = 0; k < r->n; k++)
			rec_u64(rec, 0, r->slowest[k]);
		rec_arr_end(rec);
		rec_arr_begin(rec, "samples_flagged");
		for (uint32_t k = 0; k < r->n; k++)
			if (r->flagged[k])
				rec_u64(rec, 0, k);
		rec_arr_end(rec);
	}

	reps_report_noise(rec, r);
}

void reps_span_figure(struct rec *rec, const struct stats *st, const struct instr_thread *it)
{
	uint32_t flags = it ? it->noise.flags : 0;
	if (faults_measured)
		flags &= ~NOISE_FLAG_FAULT;
	bool noisy = flags != 0;
	write_noisy(rec, noisy, noisy ? 0 : 1, 1, flags);
	if (st->n)
		rec_str(rec, "figure", "all");
	else
		rec_null(rec, "figure");
	report_figure_set(st, "all", noisy);
	if (it)
		report_clock_set(it->noise.have_freq ? it->noise.freq_mhz : 0, reps_clock_why());
	tally.results++;
	tally.noisy += noisy;
	tally.flagged += noisy;
}

void reps_span_samples(struct rec *rec, const uint64_t *v, uint64_t n)
{
	if (!keep_samples)
		return;
	uint64_t stride = n > REPS_MAX ? (n + REPS_MAX - 1) / REPS_MAX : 1;
	rec_arr_begin(rec, "samples");
	for (uint64_t k = 0; k < n; k += stride)
		rec_u64(rec, 0, v[k]);
	rec_arr_end(rec);
	rec_u64(rec, "samples_stride", stride);
}

/* The Linux twin's interrupts and page faults in the timed repetitions;
 * without irq tracepoints, the configuration's interrupts, said as such;
 * where some thread could not count them (its tracepoints not opened, the
 * open-file limit, or not read), none: null with why. */
static void write_os_counts(struct rec *rec, const struct reps *r)
{
	uint64_t n;
	const char *how;
	if (irq_counted(r)) {
		rec_u64(rec, "interrupts", r->irqs);
		rec_u64(rec, "interrupted_reps", r->flagged_by[FLAG_BIT(NOISE_FLAG_INTERRUPT)]);
	} else if (irq_expected() && r->n && r->threads) {
		rec_null(rec, "interrupts");
		rec_str(rec, "interrupts_note", IRQ_MISSED);
	} else if (disturb_config_interrupts(&n, &how)) {
		rec_u64(rec, "interrupts_config", n);
		rec_str(rec, "interrupts_note", how);
	}
	if (r->have_faults) {
		rec_u64(rec, "faults", r->faults);
		rec_u64(rec, "faulted_reps", r->flagged_by[FLAG_BIT(NOISE_FLAG_FAULT)]);
		if (faults_measured)
			rec_str(rec, "faults_note", "not flagged: this workload measures page faults");
	}
}

/* What a record says for a noise source it cannot give: why, if known. */
static const char *unavailable(enum instr_source k)
{
	const char *why = instr_source_why(k);
	return why ? why : "unavailable";
}

void reps_report_noise(struct rec *rec, struct reps *r)
{
	report_clock_set(reps_clock_mhz(r), reps_clock_why());
	rec_obj_begin(rec, "noise");
	if (r->have_freq) {
		rec_f64(rec, "freq_mhz_min", r->freq_min, 1);
		rec_f64(rec, "freq_mhz_max", r->freq_max, 1);
	} else {
		rec_str(rec, "freq_mhz_min", unavailable(INSTR_SRC_FREQ));
		rec_str(rec, "freq_mhz_max", unavailable(INSTR_SRC_FREQ));
	}
	if (r->have_smi)
		rec_u64(rec, "smis", r->smis);
	else
		rec_str(rec, "smis", unavailable(INSTR_SRC_SMI));
	if (r->have_therm)
		rec_u64(rec, "throttled_reps", r->flagged_by[FLAG_BIT(NOISE_FLAG_THROTTLE)]);
	else
		rec_str(rec, "throttled_reps", unavailable(INSTR_SRC_THERM));
	rec_u64(rec, "tsc_backwards_reps", r->flagged_by[FLAG_BIT(NOISE_FLAG_TSC_BACKWARDS)]);
	if (r->have_sched) {
		rec_u64(rec, "switched_reps", r->flagged_by[FLAG_BIT(NOISE_FLAG_SWITCH)]);
		rec_u64(rec, "migrated_reps", r->flagged_by[FLAG_BIT(NOISE_FLAG_MIGRATION)]);
	}
	write_os_counts(rec, r);
	rec_arr_begin(rec, "flags");
	for (uint32_t b = 0; b < FLAG_KINDS; b++)
		if ((r->flags >> b) & 1)
			rec_str(rec, 0, noise_flag_name(1u << b));
	rec_arr_end(rec);
	rec_obj_end(rec);

	if (r->pmu_n && r->pmu_n != ~0u) {
		rec_obj_begin(rec, "counters");
		for (uint32_t e = 0; e < r->pmu_n; e++) {
			for (uint32_t k = 0; k < r->n; k++)
				column[k] = r->pmu[k][e];
			struct stats st;
			stats_compute(column, r->n, scratch, &st);
			rec_f64(rec, instr_pmu_name(e), st.median, 0);
		}
		rec_obj_end(rec);
		if (instr_pmu_note())
			rec_str(rec, "counters_note", instr_pmu_note());
	} else {
		const char *why = instr_pmu_why();
		rec_str(rec, "counters", "unavailable");
		rec_str(rec, "counters_note", why ? why : "not counted");
	}
}

void reps_report_span(struct rec *rec, const struct instr_thread *it)
{
	/* Only the noise and counters of the span: its timing is the caller's. */
	report_clock_set(it->noise.have_freq ? it->noise.freq_mhz : 0, reps_clock_why());
	rec_obj_begin(rec, "noise");
	const struct noise_rep *n = &it->noise;
	if (n->have_freq)
		rec_f64(rec, "freq_mhz", n->freq_mhz, 1);
	else
		rec_str(rec, "freq_mhz", unavailable(INSTR_SRC_FREQ));
	if (n->have_smi)
		rec_u64(rec, "smis", n->smis);
	else
		rec_str(rec, "smis", unavailable(INSTR_SRC_SMI));
	if (n->have_therm || n->have_pkg_therm)
		rec_bool(rec, "throttled", n->throttled);
	else
		rec_str(rec, "throttled", unavailable(INSTR_SRC_THERM));
	rec_bool(rec, "tsc_backwards", n->tsc_backwards);
	if (n->have_irq) {
		rec_u64(rec, "interrupts", n->irqs);
	} else if (irq_expected()) {
		rec_null(rec, "interrupts");
		rec_str(rec, "interrupts_note", IRQ_MISSED);
	}
	if (n->have_faults)
		rec_u64(rec, "faults", n->faults);
	rec_obj_end(rec);
	if (it->pmu_n) {
		rec_obj_begin(rec, "counters");
		for (uint32_t e = 0; e < it->pmu_n; e++)
			rec_u64(rec, instr_pmu_name(e), it->pmu[e]);
		rec_obj_end(rec);
	} else {
		const char *why = instr_pmu_why();
		rec_str(rec, "counters", "unavailable");
		rec_str(rec, "counters_note", why ? why : "not counted");
	}
}
