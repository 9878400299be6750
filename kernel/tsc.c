/* tsc.c - TSC frequency, invariance and timer overhead (Intel SDM vol. 3B §18.17, CPUID leaves 15h/16h); see tsc.h. */
#include "tsc.h"
#include "stats.h"
#include "timer.h"
#include "spinlock.h"

/* ---- Constants ------------------------------------------------------------ */
#define CALIB_ROUNDS 5
#define CALIB_DIVISOR 100          /* each round lasts 1/100 s of the reference clock */
#define CALIB_ROUND_MAX_MS 100 /* a round abandoned after this long (at the assumed 10 GHz) */
#define OVERHEAD_SAMPLES 1001
#define UNKNOWN_HZ_ASSUMED 10000000000ull /* for delays only: 10 GHz makes waits longer */
#define MHZ 1000000ull

/* ---- Private Variables ---------------------------------------------------- */
bool tsc_have_rdtscp;
static uint64_t hz, measured_hz, overhead_min, overhead_med;
static const char *source = "unknown";
static bool invariant;
static uint64_t samples[OVERHEAD_SAMPLES], scratch[OVERHEAD_SAMPLES];

/* ---- Private Functions ---------------------------------------------------- */
/* Leaf 15h gives TSC = crystal * EBX / EAX; a zero crystal may be filled from
 * leaf 16h's base frequency, as Linux does (native_calibrate_tsc). */
static void from_cpuid(const struct cpuid_snap *s)
{
	if (!s->have_leaf15 || s->leaf15.eax == 0 || s->leaf15.ebx == 0) {
		return;
	}
	uint64_t crystal = s->leaf15.ecx;
	if (crystal) {
		hz = crystal * s->leaf15.ebx / s->leaf15.eax;
		source = "cpuid-15h";
	} else if (s->have_leaf16 && (s->leaf16.eax & 0xffff)) {
		hz = (uint64_t)(s->leaf16.eax & 0xffff) * MHZ;
		source = "cpuid-16h";
	}
}

static uint64_t calibrate(void)
{
	uint64_t ref_hz = timer_hz();
	uint64_t results[CALIB_ROUNDS];
	unsigned n = 0;
	if (timer_kind() == TIMER_NONE || ref_hz == 0)
		return 0;
	for (unsigned round = 0; round < CALIB_ROUNDS; round++) {
		uint64_t want = ref_hz / CALIB_DIVISOR;
		uint64_t t0 = timer_read();
		uint64_t c0 = tsc_start();
		uint64_t t1 = t0;
		uint64_t give_up = spin_deadline_ms(CALIB_ROUND_MAX_MS);
		while (t1 - t0 < want && tsc_read() < give_up)
			t1 = timer_read();
		uint64_t c1 = tsc_end();
		if (t1 - t0 < want)
			continue;
		results[n++] = (c1 - c0) * ref_hz / (t1 - t0);
	}
	if (n == 0)
		return 0;
	struct stats st;
	uint64_t tmp[CALIB_ROUNDS];
	stats_compute(results, n, tmp, &st);
	return (uint64_t)st.median;
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
void tsc_init(const struct acpi_info *ai, const struct cpuid_snap *bsp)
{
	tsc_have_rdtscp = cpuid_snap_has(bsp, CPUID_FEAT_RDTSCP);
	invariant = cpuid_snap_has(bsp, CPUID_FEAT_INVTSC);
	from_cpuid(bsp);
	timer_init(ai);
	measured_hz = calibrate();
	if (!hz && measured_hz) {
		hz = measured_hz;
		source = timer_name();
	}
	spin_set_tsc_hz(hz);
	measure_overhead();
}

uint64_t tsc_hz(void) { return hz; }
const char *tsc_source(void) { return source; }
uint64_t tsc_measured_hz(void) { return measured_hz; }
bool tsc_invariant(void) { return invariant; }
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
