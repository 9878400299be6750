/* tsc.c - TSC frequency (measured, or CPUID leaf 15h when it gives the crystal), RDTSC ordering, invariance and timer overhead (Intel SDM vol. 3B §18.17); see tsc.h. */
#include "tsc.h"
#include "console.h"
#include "lfence.h"
#include "stats.h"
#include "timer.h"
#include "tsc_choice.h"
#include "spinlock.h"

/* ---- Constants ------------------------------------------------------------ */
#define CALIB_MS 200               /* the calibration spans at least this much reference time */
#define CALIB_MAX_MS 1000          /* and gives up after this (at the assumed 10 GHz before the frequency is known) */
#define READ_COST_SAMPLES 31       /* reference reads timed to learn what one costs */
#define READ_SLOW_FACTOR 4         /* a read taking more than 4x the median cost was interrupted (SMI, host) */
#define READ_TRIES 64              /* slow reads in a row before the bound is doubled */
#define MS_PER_S 1000ull
#define OVERHEAD_SAMPLES 1001
#define UNKNOWN_HZ_ASSUMED 10000000000ull /* for delays only: 10 GHz makes waits longer */
#define MHZ 1000000ull

/* ---- Types ---------------------------------------------------------------- */
/* A reference clock reading and the TSC at its middle. */
struct ref_sample {
	uint64_t ref, tsc;
};

/* ---- Private Variables ---------------------------------------------------- */
bool tsc_have_rdtscp;
bool tsc_mfence;
static uint64_t hz, measured_hz, overhead_min, overhead_med;
static const char *source = "unknown";
static bool invariant, allow_msr_writes;
static struct tsc_cpuid_freq cpuid_freq;
static struct tsc_pick pick;
static enum tsc_fence fence = TSC_FENCE_LFENCE_ARCH;
static const char *fence_why;          /* why MFENCE;LFENCE, when it is */
static uint64_t calib_ref_ticks, calib_ref_hz, read_cost, read_bound;
static uint32_t calib_retries;
static uint64_t samples[OVERHEAD_SAMPLES], scratch[OVERHEAD_SAMPLES];

/* ---- Private Functions ---------------------------------------------------- */
/* Order RDTSC on this CPU as its CPUID needs; the worst answer of any CPU wins. */
static void set_fence(const struct cpuid_snap *s)
{
	enum tsc_fence_need need = tsc_choice_fence_need(s);
	enum tsc_de_cfg de = TSC_DE_CFG_NOT_TRIED;
	if (need == TSC_FENCE_NEED_DE_CFG && allow_msr_writes)
		de = lfence_make_serialising();
	enum tsc_fence f = tsc_choice_fence(need, de);
	if (f == TSC_FENCE_MFENCE_LFENCE) {
		fence_why = tsc_choice_fence_why(need, de);
		__atomic_store_n(&tsc_mfence, true, __ATOMIC_RELEASE);
		__atomic_store_n(&fence, f, __ATOMIC_RELEASE);
	} else if (!tsc_mfence && f != TSC_FENCE_LFENCE_ARCH) {
		fence = f;
		fence_why = tsc_choice_fence_why(need, de); /* the twin: what it relies on Linux for */
	}
}

/* One reference read, bracketed by ordered TSC reads; a pair that spans more
 * than read_bound had something come in between, and is read again. */
static bool ref_sample(struct ref_sample *out, uint64_t give_up)
{
	for (;;) {
		for (unsigned i = 0; i < READ_TRIES; i++) {
			uint64_t a = tsc_start();
			uint64_t r = timer_read();
			uint64_t b = tsc_end();
			if (b - a <= read_bound) {
				out->ref = r;
				out->tsc = a + (b - a) / 2;
				return true;
			}
			calib_retries++;
			if (tsc_read() >= give_up)
				return false;
		}
		read_bound *= 2; /* the median was luckier than the clock can be now */
	}
}

/* What one bracketed reference read costs: the median of a few. */
static void learn_read_cost(void)
{
	uint64_t cost[READ_COST_SAMPLES], tmp[READ_COST_SAMPLES];
	for (unsigned i = 0; i < READ_COST_SAMPLES; i++) {
		uint64_t a = tsc_start();
		(void)timer_read();
		cost[i] = tsc_end() - a;
	}
	struct stats st;
	stats_compute(cost, READ_COST_SAMPLES, tmp, &st);
	read_cost = (uint64_t)st.median;
	read_bound = READ_SLOW_FACTOR * (read_cost ? read_cost : 1);
}

/* TSC ticks per second of the reference clock, over at least CALIB_MS of it;
 * 0 without a clock or when it does not advance in CALIB_MAX_MS. */
static uint64_t calibrate(void)
{
	uint64_t ref_hz = timer_hz();
	if (timer_kind() == TIMER_NONE || ref_hz == 0)
		return 0;
	uint64_t give_up = spin_deadline_ms(CALIB_MAX_MS);
	learn_read_cost();
	struct ref_sample s0, s1;
	if (!ref_sample(&s0, give_up))
		return 0;
	uint64_t want = ref_hz * CALIB_MS / MS_PER_S, now = s0.ref;
	while (now - s0.ref < want && tsc_read() < give_up)
		now = timer_read(); /* read often: a 24-bit PM timer wraps every 4.7 s */
	if (now - s0.ref < want || !ref_sample(&s1, give_up) || s1.ref <= s0.ref)
		return 0;
	calib_ref_ticks = s1.ref - s0.ref;
	calib_ref_hz = ref_hz;
	return (uint64_t)((double)(s1.tsc - s0.tsc) * (double)ref_hz / (double)calib_ref_ticks + 0.5);
}

static void measure_overhead(void)
{
	for (unsigned i = 0; i < 16; i++) /* warm up */
		(void)(tsc_end() - tsc_start());
	for (unsigned i = 0; i < OVERHEAD_SAMPLES; i++) {
		uint64_t a = tsc_start();
		uint64_t b = tsc_end();
		samples[i] = b - a;
	}
	struct stats st;
	stats_compute(samples, OVERHEAD_SAMPLES, scratch, &st);
	overhead_min = st.min;
	overhead_med = (uint64_t)st.median;
}

/* ---- Public Functions ----------------------------------------------------- */
void tsc_init(const struct acpi_info *ai, const struct cpuid_snap *bsp, bool msr_writes)
{
	tsc_have_rdtscp = cpuid_snap_has(bsp, CPUID_FEAT_RDTSCP);
	invariant = cpuid_snap_has(bsp, CPUID_FEAT_INVTSC);
	allow_msr_writes = msr_writes;
	set_fence(bsp);
	tsc_choice_cpuid(bsp, &cpuid_freq);
	(void)ai; /* the reference clock was chosen by timer_init, before the firmware's USB was taken */
	measured_hz = calibrate();
	tsc_choice_pick(&cpuid_freq, measured_hz, timer_name(), &pick);
	hz = pick.hz;
	source = pick.source;
	spin_set_tsc_hz(hz);
	measure_overhead();
}

void tsc_init_ap(const struct cpuid_snap *s)
{
	set_fence(s);
}

void tsc_report_fields(struct rec *r)
{
	rec_u64(r, "tsc_hz", hz);
	rec_str(r, "tsc_source", source);
	rec_u64(r, "tsc_measured_hz", measured_hz);
	rec_str(r, "reference_timer", timer_name());
	if (cpuid_freq.hz) {
		rec_u64(r, "tsc_cpuid_hz", cpuid_freq.hz);
		rec_str(r, "tsc_cpuid_leaf", cpuid_freq.leaf);
		rec_bool(r, "tsc_cpuid_exact", cpuid_freq.exact);
	} else {
		rec_null(r, "tsc_cpuid_hz");
		rec_null(r, "tsc_cpuid_leaf");
		rec_null(r, "tsc_cpuid_exact");
	}
	if (pick.have_ppm)
		rec_u64(r, "tsc_disagree_ppm", pick.disagree_ppm);
	else
		rec_null(r, "tsc_disagree_ppm");
	if (calib_ref_hz)
		rec_f64(r, "tsc_calibration_ms", (double)calib_ref_ticks * 1000.0 / (double)calib_ref_hz, 1);
	else
		rec_null(r, "tsc_calibration_ms");
	rec_u64(r, "tsc_calibration_read_ticks", read_cost);
	rec_u64(r, "tsc_calibration_retries", calib_retries);
	rec_str(r, "rdtsc_fence", tsc_choice_fence_name(fence));
	if (fence_why)
		rec_str(r, "rdtsc_fence_why", fence_why);
	rec_bool(r, "tsc_invariant", invariant);
	rec_bool(r, "rdtscp", tsc_have_rdtscp);
	rec_u64(r, "timer_overhead_ticks", overhead_min);
	rec_u64(r, "timer_overhead_median_ticks", overhead_med);
}

void tsc_report_disagreement(void)
{
	if (!pick.disagree)
		return;
	kprintf("warning: tsc: CPUID leaf %s says %llu Hz, measured %llu Hz against %s (%llu ppm apart); using %s\n",
		cpuid_freq.leaf, (unsigned long long)cpuid_freq.hz, (unsigned long long)measured_hz, timer_name(),
		(unsigned long long)pick.disagree_ppm, source);
	struct rec *r = console_rec_open("error");
	rec_str(r, "what", "tsc disagreement");
	rec_str(r, "detail", "CPUID and the measured TSC frequency differ by more than 0.1%");
	rec_u64(r, "cpuid_hz", cpuid_freq.hz);
	rec_str(r, "cpuid_leaf", cpuid_freq.leaf);
	rec_u64(r, "measured_hz", measured_hz);
	rec_str(r, "reference_timer", timer_name());
	rec_u64(r, "ppm", pick.disagree_ppm);
	rec_str(r, "used", source);
	console_rec_emit(r);
}

uint64_t tsc_hz(void) { return hz; }
const char *tsc_source(void) { return source; }
uint64_t tsc_measured_hz(void) { return measured_hz; }
bool tsc_invariant(void) { return invariant; }
const char *tsc_fence_name(void) { return tsc_choice_fence_name(fence); }
uint64_t tsc_overhead(void) { return overhead_min; }
uint64_t tsc_overhead_median(void) { return overhead_med; }

static uint64_t delay_hz(void)
{
	return hz ? hz : UNKNOWN_HZ_ASSUMED;
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = tsc_read() + us * delay_hz() / MHZ;
	while (tsc_read() < end)
		__asm__ volatile("pause");
}

uint64_t tsc_deadline_ms(uint64_t ms)
{
	return tsc_read() + ms * (delay_hz() / 1000);
}

/* ticks * per_s / hz without 128-bit division: whole seconds, then the rest
 * (exact while hz < 2^64 / per_s, i.e. below 18 GHz for nanoseconds). */
static uint64_t scale(uint64_t ticks, uint64_t per_s)
{
	if (!hz)
		return 0;
	return ticks / hz * per_s + ticks % hz * per_s / hz;
}

uint64_t tsc_to_ns(uint64_t ticks)
{
	return scale(ticks, 1000000000ull);
}

uint64_t tsc_to_us(uint64_t ticks)
{
	return scale(ticks, MHZ);
}

double tsc_seconds(uint64_t ticks)
{
	return hz ? (double)ticks / (double)hz : 0;
}
