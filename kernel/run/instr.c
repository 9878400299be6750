/* instr.c - per-repetition noise and counters, and turbo/prefetch set and restore, on each CPU (Intel SDM vol. 3B ch. 18-20, vol. 4; AMD APM vol. 2 §13.2); see instr.h. */
#include "instr.h"
#include "console.h"
#include "cpu.h"
#include "flushcheck.h"
#include "fmt.h"
#include "idle.h"
#include "iommu.h"
#include "lib.h"
#include "topo_online.h"
#include "mstate.h"
#include "msr.h"
#include "percpu.h"
#include "run.h"
#include "smp.h"
#include "tsc.h"
#include "usb_handoff.h"

/* ---- Constants ------------------------------------------------------------ */
#define FREQ_SAMPLE_US 2000          /* APERF/MPERF window for the per-CPU state record */
#define BIOS_SIGN_ID_REV_SHIFT 32    /* Intel: IA32_BIOS_SIGN_ID[63:32] is the revision */
#define AMD_PATCH_LEVEL_MASK 0xffffffffull
#define CPUID_16_EAX_BASE_MHZ CPUID_MASK(15, 0) /* Intel SDM vol. 2A, CPUID leaf 16H */

/* ---- Private Variables ---------------------------------------------------- */
static struct noise_caps ncaps[QB_MAX_CPUS];
static struct pmu_caps pcaps[QB_MAX_CPUS];
static struct pmu_plan plans[QB_MAX_CPUS];
static bool l3_leader[QB_MAX_CPUS];   /* the first CPU of each L3: probes its counters */
static uint32_t l3_id[QB_MAX_CPUS];    /* each CPU's L3 (topo_l3s' number), or TOPO_NO_L3 */
static bool l3_counts[QB_MAX_CPUS];    /* counts its L3 in the current run */
static volatile bool in_run;           /* between instr_run_set and instr_run_done */
static struct mstate_saved saved[QB_MAX_CPUS];
static struct mstate_caps mcaps;
static struct mstate_plan mplan;
static bool safe_mode, counting;
static enum mstate_turbo want_turbo;
static enum mstate_prefetch want_prefetch;
static volatile uint64_t msr_writes;
static enum pmu_goal goal;

/* What the probe found on each CPU: the noise sources and controls whose
 * MSRs raised #GP (NULL where they work), and the first MSR that faulted
 * during a state change. */
static struct cpu_probe {
	const char *src_why[INSTR_SRC_COUNT];
	const char *turbo_why, *prefetch_why;
	const char *pmu_why;
	char pmu_busy[80];            /* the PMU is in someone else's use, or ignores writes */
	volatile uint32_t gp_msr;     /* first MSR that faulted in rd/wr after the probe, 0: none */
} probe[QB_MAX_CPUS];

/* Read on each CPU for its `state` record. */
static struct cpu_readout {
	bool have_microcode;
	uint64_t microcode;
	bool have_freq;
	double freq_mhz;
	const char *microcode_why;  /* when !have_microcode */
	uint64_t turbo_bits, prefetch_bits;
	const char *turbo_why, *prefetch_why; /* the control's MSR raised #GP here */
	uint32_t writes;            /* MSR writes made to read the state (microcode) */
} cstate[QB_MAX_CPUS];

/* ---- Private Functions ---------------------------------------------------- */
/* The MSR glue for mstate.c and pmu.c: every access may fault (the probe
 * found the MSRs, but a write can still be refused); a fault is remembered
 * for this CPU, a read then gives 0 and a write does nothing. */
static void note_gp(uint32_t msr)
{
	uint32_t none = 0;
	__atomic_compare_exchange_n(&probe[this_cpu()->index].gp_msr, &none, msr, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static uint64_t rd(uint32_t msr)
{
	uint64_t v;
	if (msr_read_safe(msr, &v) != MSR_OK)
		note_gp(msr);
	return v;
}

static void wr(uint32_t msr, uint64_t v)
{
	__atomic_add_fetch(&msr_writes, 1, __ATOMIC_RELAXED);
	if (msr_write_safe(msr, v) != MSR_OK)
		note_gp(msr);
}

/* True if the MSR can be read on this CPU; else *why says why not. */
static bool readable(uint32_t msr, const char **why)
{
	uint64_t v;
	if (msr_read_safe(msr, &v) == MSR_OK)
		return true;
	if (!*why)
		*why = msr_gp_reason(msr);
	return false;
}

/* True if the MSR can be read and written back unchanged (not in safe mode,
 * where nothing is written and only the read is tried). */
static bool writable(uint32_t msr, const char **why)
{
	uint64_t v;
	if (msr_read_safe(msr, &v) != MSR_OK || (!safe_mode && msr_write_safe(msr, v) != MSR_OK)) {
		if (!*why)
			*why = msr_gp_reason(msr);
		return false;
	}
	return true;
}

static void sample(const struct noise_caps *c, struct noise_sample *s)
{
	s->tsc = tsc_read();
	if (c->aperf) {
		msr_read_safe(MSR_IA32_MPERF, &s->mperf);
		msr_read_safe(MSR_IA32_APERF, &s->aperf);
	}
	if (c->smi)
		msr_read_safe(MSR_SMI_COUNT, &s->smi);
	if (c->therm)
		msr_read_safe(MSR_IA32_THERM_STATUS, &s->therm);
	if (c->pkg_therm)
		msr_read_safe(MSR_IA32_PACKAGE_THERM_STATUS, &s->pkg_therm);
}

/* On each CPU, before anything is measured or changed: try every MSR that
 * CPUID promised. A source or control whose MSR raises #GP is dropped with
 * the reason; the run goes on without it. */
static void probe_fn(const struct run_thread *t)
{
	uint32_t c = t->cpu;
	struct cpu_probe *p = &probe[c];
	struct noise_caps *n = &ncaps[c];
	if (n->aperf && !(readable(MSR_IA32_MPERF, &p->src_why[INSTR_SRC_FREQ]) &&
			  readable(MSR_IA32_APERF, &p->src_why[INSTR_SRC_FREQ])))
		n->aperf = false;
	if (n->smi && !readable(MSR_SMI_COUNT, &p->src_why[INSTR_SRC_SMI]))
		n->smi = false;
	if (n->therm && !readable(MSR_IA32_THERM_STATUS, &p->src_why[INSTR_SRC_THERM]))
		n->therm = false;
	if (n->pkg_therm && !readable(MSR_IA32_PACKAGE_THERM_STATUS, &p->src_why[INSTR_SRC_PKG_THERM]))
		n->pkg_therm = false;
	if (mcaps.turbo.msr)
		readable(mcaps.turbo.msr, &p->turbo_why);
	if (mcaps.prefetch.msr)
		readable(mcaps.prefetch.msr, &p->prefetch_why);
	/* Every counter any goal would program, as that goal programs it. */
	struct pmu_caps *pc = &pcaps[c];
	for (int g = 0; pc->kind != PMU_NONE && g < PMU_GOAL_COUNT; g++) {
		struct pmu_plan plan_here; /* about 360 bytes: on this CPU's stack, not 1024 copies in the image */
		struct pmu_plan *pl = &plan_here;
		if (pmu_plan(pc, (enum pmu_goal)g, pl) <= 0)
			continue;
		bool ok = !pl->global_msr || writable(pl->global_msr, &p->pmu_why);
		for (uint32_t e = 0; ok && e < pl->n; e++) {
			if (pl->ev[e].scope == PMU_SCOPE_L3 && !l3_leader[c])
				continue;
			ok = readable(pl->ev[e].sel_msr, &p->pmu_why) && readable(pl->ev[e].ctr_msr, &p->pmu_why);
		}
		/* Before the first write: a counter already counting belongs to
		 * someone else (firmware, a BMC agent), as Linux's check_hw_exists. */
		uint32_t busy = ok ? pmu_in_use(pl, l3_leader[c], rd) : 0;
		if (busy) {
			fmt_snprintf(p->pmu_busy, sizeof(p->pmu_busy),
				     "in use by the firmware: MSR 0x%x was counting before QuietBench", busy);
			p->pmu_why = p->pmu_busy;
			ok = false;
		}
		for (uint32_t e = 0; ok && e < pl->n; e++) {
			if (pl->ev[e].scope == PMU_SCOPE_L3 && !l3_leader[c])
				continue;
			ok = writable(pl->ev[e].sel_msr, &p->pmu_why) && writable(pl->ev[e].ctr_msr, &p->pmu_why);
		}
		if (ok && !safe_mode && !pmu_counter_holds(pl, rd, wr)) {
			fmt_snprintf(p->pmu_busy, sizeof(p->pmu_busy),
				     "counters do not hold a written value (an emulated PMU?)");
			p->pmu_why = p->pmu_busy;
			ok = false;
		}
		if (!ok) {
			pc->kind = PMU_NONE;
			pc->why = p->pmu_why;
		}
	}
}

/* Why the turbo (or prefetch) control cannot be used on some online CPU, or NULL. */
static const char *control_why(bool turbo)
{
	for (uint32_t c = 0; c < smp_cpu_slots(); c++) {
		const char *w = turbo ? probe[c].turbo_why : probe[c].prefetch_why;
		if (percpu[c].state == CPU_ONLINE && w)
			return w;
	}
	return 0;
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
	cs->microcode_why = 0;
	uint64_t sign;
	if (!hyp && v == CPU_VENDOR_INTEL && !safe_mode) {
		/* SDM vol. 3A §10.11.7.1: write 0, execute CPUID(1), read the revision. */
		__atomic_add_fetch(&msr_writes, 1, __ATOMIC_RELAXED);
		cs->writes++;
		struct cpuid_regs r;
		if (msr_write_safe(MSR_IA32_BIOS_SIGN_ID, 0) == MSR_OK) {
			cpuid_raw(CPUID_LEAF_FEATURES, 0, &r);
			cs->have_microcode = msr_read_safe(MSR_IA32_BIOS_SIGN_ID, &sign) == MSR_OK;
			cs->microcode = sign >> BIOS_SIGN_ID_REV_SHIFT;
		}
	} else if (!hyp && cpu_vendor_is_amd(v)) {
		cs->have_microcode = msr_read_safe(MSR_IA32_BIOS_SIGN_ID, &sign) == MSR_OK;
		cs->microcode = sign & AMD_PATCH_LEVEL_MASK; /* MSR8B PatchLevel */
	} else {
		cs->microcode_why = hyp ? "unavailable: hypervisor" : safe_mode ? "unavailable: safe mode (reading it is an MSR write)"
										 : "unavailable: unknown vendor";
	}
	if (!cs->have_microcode && !cs->microcode_why)
		cs->microcode_why = msr_gp_reason(MSR_IA32_BIOS_SIGN_ID);
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
	uint64_t bits = 0;
	cs->turbo_why = cs->prefetch_why = 0;
	if (mcaps.turbo.msr && msr_read_safe(mcaps.turbo.msr, &bits) != MSR_OK)
		cs->turbo_why = msr_gp_reason(mcaps.turbo.msr);
	cs->turbo_bits = mcaps.turbo.msr ? bits & mcaps.turbo.disable_bits : 0;
	bits = 0;
	if (mcaps.prefetch.msr && msr_read_safe(mcaps.prefetch.msr, &bits) != MSR_OK)
		cs->prefetch_why = msr_gp_reason(mcaps.prefetch.msr);
	cs->prefetch_bits = mcaps.prefetch.msr ? bits & mcaps.prefetch.disable_bits : 0;
}

static const char *control_state(const struct mstate_ctl *c, uint64_t disable_bits)
{
	if (!c->msr)
		return c->why ? c->why : "unavailable";
	if (disable_bits == 0)
		return "enabled";
	return disable_bits == c->disable_bits ? "disabled" : "partly disabled";
}

/* A noise source: true, or why not (the #GP reason, else the CPUID one, else false). */
static void source(struct rec *r, const char *key, bool have, enum instr_source k, const char *absent)
{
	const char *gp = probe[0].src_why[k];
	if (have)
		rec_bool(r, key, true);
	else if (gp)
		rec_str(r, key, gp);
	else if (absent)
		rec_str(r, key, absent);
	else
		rec_bool(r, key, false);
}

/* The USB controller's handoff (instr_usb_handoff): SMIs stop when the BIOS lets go of it. */
static struct {
	const char *how;
	int64_t before, after;
} usb = { "not attempted: no results file on a USB stick", -1, -1 };

static void rec_count(struct rec *r, const char *key, int64_t v)
{
	if (v >= 0)
		rec_u64(r, key, (uint64_t)v);
	else
		rec_null(r, key);
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
	rec_str(r, "idle_wait", idle_method_name());
	rec_str(r, "idle_wait_why", idle_method_why());
	rec_str(r, "pmu", pmu_describe(&pcaps[0]));
	if (pcaps[0].kind == PMU_NONE && probe[0].pmu_why)
		rec_str(r, "pmu_counters", probe[0].pmu_why);
	rec_obj_begin(r, "noise_sources");
	source(r, "aperf_mperf", ncaps[0].aperf, INSTR_SRC_FREQ, 0);
	source(r, "smi_count", ncaps[0].smi, INSTR_SRC_SMI, ncaps[0].smi_why ? ncaps[0].smi_why : "unavailable");
	source(r, "thermal", ncaps[0].therm, INSTR_SRC_THERM, 0);
	source(r, "package_thermal", ncaps[0].pkg_therm, INSTR_SRC_PKG_THERM, 0);
	rec_obj_end(r);
	/* Every MSR that raised #GP on any CPU, for the reader who wonders why. */
	uint32_t gp[16];
	uint32_t n = msr_faulted(gp, ARRAY_SIZE(gp));
	rec_arr_begin(r, "msr_gp");
	for (uint32_t i = 0; i < n && i < ARRAY_SIZE(gp); i++)
		rec_hex(r, 0, gp[i]);
	rec_arr_end(r);
	if (n > ARRAY_SIZE(gp))
		rec_u64(r, "msr_gp_more", n - ARRAY_SIZE(gp));
	rec_obj_begin(r, "usb_handoff");
	rec_str(r, "how", usb.how);
	rec_count(r, "smi_count_before", usb.before);
	rec_count(r, "smi_count_after", usb.after);
	uint64_t now = 0;
	bool readable = usb.after >= 0 && msr_read_safe(MSR_SMI_COUNT, &now) == MSR_OK;
	rec_count(r, "smis_since", readable ? (int64_t)((now & 0xffffffffu) - (uint64_t)usb.after) : -1);
	rec_obj_end(r);
	flushcheck_rec(r);                        /* each flush judged at the start, and the fallback */
	usb_handoff_rec(r);                       /* every USB controller, as taken at start-up */
	iommu_rec(r);                             /* and every DMA remapping unit */
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
			rec_str(r, "microcode", cs->microcode_why);
		if (cs->have_freq)
			rec_f64(r, "freq_mhz", cs->freq_mhz, 1);
		else if (probe[c].src_why[INSTR_SRC_FREQ])
			rec_str(r, "freq_mhz", probe[c].src_why[INSTR_SRC_FREQ]);
		else
			rec_null(r, "freq_mhz");
		const struct cpuid_snap *s = &percpu[c].snap;
		if (s->have_leaf16 && CPUID_FIELD(s->leaf16.eax, CPUID_16_EAX_BASE_MHZ))
			rec_u64(r, "base_mhz", CPUID_FIELD(s->leaf16.eax, CPUID_16_EAX_BASE_MHZ));
		else
			rec_null(r, "base_mhz");
		if (cs->turbo_why)
			rec_str(r, "turbo", cs->turbo_why);
		else if (mcaps.turbo.msr && !mcaps.turbo_reported && !cs->turbo_bits)
			rec_str(r, "turbo", "absent: CPUID reports no boost");
		else
			rec_str(r, "turbo", control_state(&mcaps.turbo, cs->turbo_bits));
		rec_str(r, "prefetchers", cs->prefetch_why ? cs->prefetch_why
				       : control_state(&mcaps.prefetch, cs->prefetch_bits));
		rec_u64(r, "msr_writes", saved[c].msr_writes + cs->writes);
		console_rec_emit(r);
	}
}

/* ---- Public Functions ----------------------------------------------------- */
void instr_usb_handoff(const char *how, int64_t smi_before, int64_t smi_after)
{
	usb.how = how;
	usb.before = smi_before;
	usb.after = smi_after;
}

void instr_init(enum instr_setting turbo, enum instr_setting prefetch, bool safe)
{
	safe_mode = safe;
	want_turbo = turbo == INSTR_OFF ? MSTATE_TURBO_OFF : turbo == INSTR_ON ? MSTATE_TURBO_ON : MSTATE_TURBO_KEEP;
	want_prefetch = prefetch == INSTR_OFF ? MSTATE_PREFETCH_OFF
		      : prefetch == INSTR_ON ? MSTATE_PREFETCH_ON : MSTATE_PREFETCH_KEEP;
	/* From the snapshots taken at boot, before anything was changed. */
	mcaps = mstate_detect(&percpu[0].snap);
	for (uint32_t c = 0; c < smp_cpu_slots(); c++) {
		ncaps[c] = noise_detect(&percpu[c].snap);
		pcaps[c] = pmu_detect(&percpu[c].snap);
	}
	/* Each L3's counters are one set, shared by its CPUs: the first CPU of
	 * it probes them, and in each run the run's first CPU on it counts them. */
	static uint32_t first[QB_MAX_CPUS];
	uint32_t n_l3 = topo_l3s(topo_online(), topo_online_cpu_of_topo(), l3_id, first);
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++)
		l3_leader[c] = l3_id[c] != TOPO_NO_L3 && l3_id[c] < n_l3 && first[l3_id[c]] == c;
	/* What CPUID promised, tried on every CPU: a #GP drops that part. */
	static struct cpuset all;
	run_online_set(&all, 0);
	memset(probe, 0, sizeof(probe));
	if (run_on(&all, probe_fn, 0, 0, run_default_timeout_ms, 0) != RUN_OK)
		console_error("state", "could not probe the MSRs on every CPU");
	const char *w;
	if (mcaps.turbo.msr && (w = control_why(true))) {
		mcaps.turbo.msr = 0;
		mcaps.turbo.why = w;
	}
	if (mcaps.prefetch.msr && (w = control_why(false))) {
		mcaps.prefetch.msr = 0;
		mcaps.prefetch.why = w;
	}
	mstate_plan(&mcaps, want_turbo, want_prefetch, safe, &mplan);
	uint32_t gp[1];
	if (msr_faulted(gp, 1))
		kprintf("state: MSRs that raised #GP are left out; see the state record\n");
}

/* A control whose write was refused on some CPU: its status says so. */
static void refused_writes(void)
{
	for (uint32_t c = 0; c < smp_cpu_slots(); c++) {
		uint32_t m = probe[c].gp_msr;
		if (!m || percpu[c].state != CPU_ONLINE)
			continue;
		if (m == mcaps.turbo.msr)
			mplan.turbo_status = msr_gp_reason(m);
		if (m == mcaps.prefetch.msr)
			mplan.prefetch_status = msr_gp_reason(m);
		probe[c].gp_msr = 0;
	}
}

void instr_state_apply(void)
{
	static struct cpuset all;
	run_online_set(&all, 0);
	if (mplan.n && run_on(&all, apply_fn, 0, 0, run_default_timeout_ms, 0) != RUN_OK)
		console_error("state", "could not set turbo/prefetchers on every CPU");
	refused_writes();
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

void instr_run_set(const uint32_t *cpus, uint32_t n)
{
	static uint32_t l3_of[QB_MAX_CPUS];
	static bool seen[QB_MAX_CPUS], counts[QB_MAX_CPUS];
	for (uint32_t k = 0; k < n; k++)
		l3_of[k] = l3_id[cpus[k]];
	pmu_l3_counting(l3_of, n, seen, QB_MAX_CPUS, counts);
	for (uint32_t k = 0; k < n; k++)
		l3_counts[cpus[k]] = counts[k];
	in_run = true;
}

void instr_run_done(void)
{
	in_run = false;
}

void instr_prepare(void)
{
	uint32_t c = this_cpu()->index;
	const struct noise_caps *n = &ncaps[c];
	uint64_t v;
	if (safe_mode)
		return;
	/* The log bits are sticky: cleared here, a bit set afterwards is this
	 * repetition's event (Intel SDM vol. 3B §15.8.5: software clears a log
	 * bit by writing 0 to it). */
	if (n->therm && msr_read_safe(MSR_IA32_THERM_STATUS, &v) == MSR_OK && noise_log_clear(n, false, v, &v))
		wr(MSR_IA32_THERM_STATUS, v);
	if (n->pkg_therm && msr_read_safe(MSR_IA32_PACKAGE_THERM_STATUS, &v) == MSR_OK &&
	    noise_log_clear(n, true, v, &v))
		wr(MSR_IA32_PACKAGE_THERM_STATUS, v);
}

void instr_begin(struct instr_mark *m)
{
	uint32_t c = this_cpu()->index;
	if (!in_run)
		instr_prepare();
	m->counting = counting && plans[c].n;
	m->with_l3 = in_run ? l3_counts[c] : l3_id[c] != TOPO_NO_L3;
	if (m->counting)
		pmu_start(&plans[c], m->with_l3, rd, wr);
	sample(&ncaps[c], &m->s);
}

void instr_end(const struct instr_mark *m, struct instr_thread *out)
{
	uint32_t c = this_cpu()->index;
	struct noise_sample after;
	sample(&ncaps[c], &after);
	out->pmu_n = 0;
	if (m->counting) {
		pmu_read(&plans[c], m->with_l3, rd, out->pmu);
		pmu_stop(&plans[c], m->with_l3, rd, wr);
		out->pmu_n = plans[c].n;
	}
	/* The frequency is compared within a result (kernel/run/reps.c), not here. */
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

const char *instr_therm_note(void)
{
	return safe_mode ? "undetectable after the first event: safe mode clears no thermal log bit" : 0;
}

uint64_t instr_msr_writes(void)
{
	return msr_writes;
}

const char *instr_source_why(enum instr_source k)
{
	return k < INSTR_SRC_COUNT ? probe[0].src_why[k] : 0;
}
