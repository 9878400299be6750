/* instr.c - per-repetition noise and counters, and turbo/prefetch set and restore, on each CPU (Intel SDM vol. 3B ch. 18-20, vol. 4; AMD APM vol. 2 §13.2); see instr.h. */
#include "instr.h"
#include "console.h"
#include "cpu.h"
#include "lib.h"
#include "machine.h"
#include "mstate.h"
#include "msr.h"
#include "percpu.h"
#include "run.h"
#include "smp.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define FREQ_SAMPLE_US 2000          /* APERF/MPERF window for the per-CPU state record */
#define BIOS_SIGN_ID_REV_SHIFT 32    /* Intel: IA32_BIOS_SIGN_ID[63:32] is the revision */
#define AMD_PATCH_LEVEL_MASK 0xffffffffull
#define CPUID_16_EAX_BASE_MHZ CPUID_MASK(15, 0) /* Intel SDM vol. 2A, CPUID leaf 16H */

/* ---- Private Variables ---------------------------------------------------- */
static struct noise_caps ncaps[QB_MAX_CPUS];
static struct pmu_caps pcaps[QB_MAX_CPUS];
static struct pmu_plan plans[QB_MAX_CPUS];
static bool l3_leader[QB_MAX_CPUS];
static struct mstate_saved saved[QB_MAX_CPUS];
static struct mstate_caps mcaps;
static struct mstate_plan mplan;
static bool safe_mode, counting;
static enum mstate_turbo want_turbo;
static enum mstate_prefetch want_prefetch;
static volatile uint64_t msr_writes;
static enum pmu_goal goal;

/* Read on each CPU for its `state` record. */
static struct cpu_readout {
	bool have_microcode;
	uint64_t microcode;
	bool have_freq;
	double freq_mhz;
	uint64_t turbo_bits, prefetch_bits;
	uint32_t writes;            /* MSR writes made to read the state (microcode) */
} cstate[QB_MAX_CPUS];

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t rd(uint32_t msr)
{
	return rdmsr(msr);
}

static void wr(uint32_t msr, uint64_t v)
{
	__atomic_add_fetch(&msr_writes, 1, __ATOMIC_RELAXED);
	wrmsr(msr, v);
}

static void sample(const struct noise_caps *c, struct noise_sample *s)
{
	s->tsc = tsc_read();
	if (c->aperf) {
		s->mperf = rdmsr(MSR_IA32_MPERF);
		s->aperf = rdmsr(MSR_IA32_APERF);
	}
	if (c->smi)
		s->smi = rdmsr(MSR_SMI_COUNT);
	if (c->therm)
		s->therm = rdmsr(MSR_IA32_THERM_STATUS);
	if (c->pkg_therm)
		s->pkg_therm = rdmsr(MSR_IA32_PACKAGE_THERM_STATUS);
}

static void apply_fn(const struct run_thread *t)
{
	mstate_apply(&mplan, rd, wr, &saved[t->cpu]);
}

static void restore_fn(const struct run_thread *t)
{
	mstate_restore(&saved[t->cpu], rd, wr);
}

/* What this CPU's state is: microcode, frequency, the controls' bits. */
static void read_state_fn(const struct run_thread *t)
{
	struct cpu_readout *cs = &cstate[t->cpu];
	const struct cpuid_snap *s = &percpu[t->cpu].snap;
	bool hyp = cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR);
	enum cpu_vendor v = cpuid_snap_vendor(s);
	cs->have_microcode = false;
	if (!hyp && v == CPU_VENDOR_INTEL && !safe_mode) {
		/* SDM vol. 3A §10.11.7.1: write 0, execute CPUID(1), read the revision. */
		wr(MSR_IA32_BIOS_SIGN_ID, 0);
		cs->writes++;
		struct cpuid_regs r;
		cpuid_raw(CPUID_LEAF_FEATURES, 0, &r);
		cs->microcode = rdmsr(MSR_IA32_BIOS_SIGN_ID) >> BIOS_SIGN_ID_REV_SHIFT;
		cs->have_microcode = true;
	} else if (!hyp && cpu_vendor_is_amd(v)) {
		cs->microcode = rdmsr(MSR_IA32_BIOS_SIGN_ID) & AMD_PATCH_LEVEL_MASK; /* MSR8B PatchLevel */
		cs->have_microcode = true;
	}
	const struct noise_caps *c = &ncaps[t->cpu];
	cs->have_freq = c->aperf && tsc_hz();
	if (cs->have_freq) {
		struct noise_sample a, b;
		sample(c, &a);
		tsc_delay_us(FREQ_SAMPLE_US);
		sample(c, &b);
		uint64_t dm = b.mperf - a.mperf, da = b.aperf - a.aperf;
		cs->freq_mhz = dm ? (double)tsc_hz() * (double)da / (double)dm / 1e6 : 0;
	}
	if (mcaps.turbo.msr)
		cs->turbo_bits = rdmsr(mcaps.turbo.msr) & mcaps.turbo.disable_bits;
	if (mcaps.prefetch.msr)
		cs->prefetch_bits = rdmsr(mcaps.prefetch.msr) & mcaps.prefetch.disable_bits;
}

static const char *control_state(const struct mstate_ctl *c, uint64_t disable_bits)
{
	if (!c->msr)
		return c->why ? c->why : "unavailable";
	if (disable_bits == 0)
		return "enabled";
	return disable_bits == c->disable_bits ? "disabled" : "partly disabled";
}

static void emit_run_state(const char *phase)
{
	struct rec *r = console_rec_open("state");
	rec_str(r, "scope", "run");
	rec_str(r, "phase", phase);
	rec_bool(r, "safe", safe_mode);
	rec_str(r, "turbo_option", mstate_turbo_name(want_turbo));
	rec_str(r, "turbo", mplan.turbo_status ? mplan.turbo_status : "kept");
	rec_str(r, "turbo_control", mcaps.turbo.msr ? mcaps.turbo.name : mcaps.turbo.why);
	rec_str(r, "prefetch_option", mstate_prefetch_name(want_prefetch));
	rec_str(r, "prefetch", mplan.prefetch_status ? mplan.prefetch_status : "kept");
	rec_str(r, "prefetch_control", mcaps.prefetch.msr ? mcaps.prefetch.name : mcaps.prefetch.why);
	rec_u64(r, "msr_writes", msr_writes);
	rec_str(r, "pmu", pmu_describe(&pcaps[0]));
	rec_obj_begin(r, "noise_sources");
	rec_bool(r, "aperf_mperf", ncaps[0].aperf);
	if (ncaps[0].smi)
		rec_bool(r, "smi_count", true);
	else
		rec_str(r, "smi_count", ncaps[0].smi_why ? ncaps[0].smi_why : "unavailable");
	rec_bool(r, "thermal", ncaps[0].therm);
	rec_bool(r, "package_thermal", ncaps[0].pkg_therm);
	rec_obj_end(r);
	console_rec_emit(r);
}

static void emit_cpu_states(void)
{
	for (uint32_t c = 0; c < smp_cpu_slots(); c++) {
		if (percpu[c].state != CPU_ONLINE)
			continue;
		const struct cpu_readout *cs = &cstate[c];
		struct rec *r = console_rec_open("state");
		rec_str(r, "scope", "cpu");
		rec_u64(r, "cpu", c);
		if (cs->have_microcode)
			rec_hex(r, "microcode", cs->microcode);
		else
			rec_null(r, "microcode");
		if (cs->have_freq)
			rec_f64(r, "freq_mhz", cs->freq_mhz, 1);
		else
			rec_null(r, "freq_mhz");
		const struct cpuid_snap *s = &percpu[c].snap;
		if (s->have_leaf16 && CPUID_FIELD(s->leaf16.eax, CPUID_16_EAX_BASE_MHZ))
			rec_u64(r, "base_mhz", CPUID_FIELD(s->leaf16.eax, CPUID_16_EAX_BASE_MHZ));
		else
			rec_null(r, "base_mhz");
		if (mcaps.turbo.msr && !mcaps.turbo_reported && !cs->turbo_bits)
			rec_str(r, "turbo", "absent: CPUID reports no boost");
		else
			rec_str(r, "turbo", control_state(&mcaps.turbo, cs->turbo_bits));
		rec_str(r, "prefetchers", control_state(&mcaps.prefetch, cs->prefetch_bits));
		rec_u64(r, "msr_writes", saved[c].msr_writes + cs->writes);
		console_rec_emit(r);
	}
}

/* ---- Public Functions ----------------------------------------------------- */
void instr_init(enum instr_setting turbo, enum instr_setting prefetch, bool safe)
{
	safe_mode = safe;
	want_turbo = turbo == INSTR_OFF ? MSTATE_TURBO_OFF : turbo == INSTR_ON ? MSTATE_TURBO_ON : MSTATE_TURBO_KEEP;
	want_prefetch = prefetch == INSTR_OFF ? MSTATE_PREFETCH_OFF
		      : prefetch == INSTR_ON ? MSTATE_PREFETCH_ON : MSTATE_PREFETCH_KEEP;
	/* From the snapshots taken at boot, before anything was changed. */
	mcaps = mstate_detect(&percpu[0].snap);
	mstate_plan(&mcaps, want_turbo, want_prefetch, safe, &mplan);
	const struct topo *t = machine_topo();
	const uint32_t *cpu_of = machine_cpu_of_topo();
	for (uint32_t c = 0; c < smp_cpu_slots(); c++) {
		ncaps[c] = noise_detect(&percpu[c].snap);
		pcaps[c] = pmu_detect(&percpu[c].snap);
	}
	/* One CPU per L3 counts the L3's own events. */
	for (uint32_t i = 0; i < t->ncaches; i++) {
		const struct topo_cache *k = &t->cache[i];
		if (k->level != 3 || k->type == TOPO_CACHE_INSTRUCTION)
			continue;
		for (uint32_t n = 0; n < t->ncpu; n++)
			if (topo_cpuset_has(&k->shared_by, n)) {
				l3_leader[cpu_of[n]] = true;
				break;
			}
	}
}

void instr_state_apply(void)
{
	static struct cpuset all;
	run_online_set(&all, 0);
	if (mplan.n && run_on(&all, apply_fn, 0, 0, run_default_timeout_ms, 0) != RUN_OK)
		console_error("state", "could not set turbo/prefetchers on every CPU");
	run_on(&all, read_state_fn, 0, 0, run_default_timeout_ms, 0);
	emit_run_state("set");
	emit_cpu_states();
}

void instr_state_restore(void)
{
	static struct cpuset all;
	run_online_set(&all, 0);
	if (mplan.n && run_on(&all, restore_fn, 0, 0, run_default_timeout_ms, 0) != RUN_OK)
		console_error("state", "could not restore turbo/prefetchers on every CPU");
	emit_run_state("restored");
}

void instr_goal(enum pmu_goal g)
{
	goal = g;
	counting = false;
	for (uint32_t c = 0; c < smp_cpu_slots(); c++) {
		plans[c].n = 0;
		plans[c].why = safe_mode ? "safe mode: counters are MSR writes" : "no goal";
		if (safe_mode || g >= PMU_GOAL_COUNT || percpu[c].state != CPU_ONLINE)
			continue;
		pmu_plan(&pcaps[c], g, &plans[c]);
		counting |= plans[c].n != 0;
	}
}

void instr_begin(struct instr_mark *m)
{
	uint32_t c = this_cpu()->index;
	m->counting = counting && plans[c].n;
	if (m->counting)
		pmu_start(&plans[c], l3_leader[c], rd, wr);
	sample(&ncaps[c], &m->s);
}

void instr_end(const struct instr_mark *m, struct instr_thread *out)
{
	uint32_t c = this_cpu()->index;
	struct noise_sample after;
	sample(&ncaps[c], &after);
	out->pmu_n = 0;
	if (m->counting) {
		pmu_read(&plans[c], rd, out->pmu);
		pmu_stop(&plans[c], l3_leader[c], rd, wr);
		out->pmu_n = plans[c].n;
	}
	/* The frequency is compared within a result (kernel/reps.c), not here. */
	noise_delta(&ncaps[c], &m->s, &after, tsc_hz(), 0, &out->noise);
}

uint32_t instr_pmu_events(void)
{
	return counting ? plans[0].n : 0;
}

const char *instr_pmu_name(unsigned k)
{
	return k < plans[0].n ? plans[0].ev[k].name : "?";
}

const char *instr_pmu_note(void)
{
	return counting ? plans[0].note : 0;
}

const char *instr_pmu_why(void)
{
	if (counting)
		return 0;
	return plans[0].why ? plans[0].why : pcaps[0].why ? pcaps[0].why : "no performance counters";
}

uint64_t instr_msr_writes(void)
{
	return msr_writes;
}
