/* instr.c (twin) - kernel/run/instr.h for Linux: the kernel's counter plans counted through perf_event_open on each workload thread (perfcount.c), SMIs and APERF/MPERF from perf's msr PMU (perfnoise.c), and what Linux itself does to a thread (context switches, migrations, interrupts through perf's irq tracepoints (perfirq.c), page faults); boost and NUMA balancing as asked (hostsys.c). Whatever the OS refuses is "unavailable" with its reason. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>

#include "instr.h"
#include "console.h"
#include "flushcheck.h"
#include "hostcpu.h"
#include "hostsys.h"
#include "lib.h"
#include "perfcount.h"
#include "perfirq.h"
#include "perfnoise.h"
#include "topo_online.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define NO_MSR_WRITES "unavailable: user space cannot write MSRs"
#define NO_THERM "unavailable: user space reads no thermal status MSR (perf's msr PMU has no throttle log)"
#define STATE_LEN (4 * PERF_WHY_LEN)
#define FAULTS_SOURCE "getrusage(RUSAGE_THREAD): minor and major faults"

/* ---- Private Variables ---------------------------------------------------- */
static struct pmu_caps caps;                  /* CPU 0's, from CPUID without the hypervisor gate */
static struct perfnoise_caps ncaps;
static struct perfcount_choice choice;        /* the current goal's: what is counted */
static struct perfcount_choice boot_core, boot_l3; /* tried at start: for the state record */
static bool counting, have_core, initialized;
static const char *turbo_option = "keep";
static uint32_t gen = 1;                      /* bumped per goal: each thread reopens its group */

/* Each thread's events, opened by the thread itself (pid 0). */
static struct slot {
	uint32_t gen;
	struct perfcount_group core;
	bool noise_tried;
	struct perfnoise_group noise;
	bool irq_tried;
	struct perfirq_group irq;
} slot[QB_MAX_CPUS];

/* Each L3's events (system-wide, on the L3's first online CPU), by L3 number. */
static struct perfcount_group l3grp[QB_MAX_CPUS];
static int l3_os_cpu[QB_MAX_CPUS];
static uint32_t n_l3;
static uint32_t l3_id[QB_MAX_CPUS];           /* each CPU's L3 number (topo_l3s), or TOPO_NO_L3 */
static bool l3_counts[QB_MAX_CPUS];           /* counts its L3 in the current run */
static volatile bool in_run;

/* The first refusal on a worker thread, kept for instr_pmu_why. */
static char thread_why[PERF_WHY_LEN];
static int thread_why_taken;

/* ---- Private Functions ---------------------------------------------------- */
/* Context switches of the calling thread so far, voluntary and not, and its page faults, minor and major. */
static uint64_t thread_switches(bool *ok, uint64_t *faults)
{
	struct rusage ru;
	*ok = getrusage(RUSAGE_THREAD, &ru) == 0;
	*faults = *ok ? (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt : 0;
	return *ok ? (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw : 0;
}

static void keep_thread_why(int err)
{
	if (__atomic_exchange_n(&thread_why_taken, 1, __ATOMIC_ACQ_REL) == 0)
		perf_why(thread_why, sizeof(thread_why), -err, true);
}

/* Each CPU's L3 and each L3's first online CPU, by the walk the kernel's instr_init takes (topo_l3s). */
static void find_l3s(void)
{
	static uint32_t first[QB_MAX_CPUS];
	n_l3 = topo_l3s(topo_online(), topo_online_cpu_of_topo(), l3_id, first);
	for (uint32_t i = 0; i < n_l3; i++)
		l3_os_cpu[i] = (int)hostcpu[first[i]].os_cpu;
}

static bool plan_has(enum pmu_scope scope)
{
	for (uint32_t i = 0; i < choice.plan.n; i++)
		if (choice.plan.ev[i].scope == scope)
			return true;
	return false;
}

/* On the calling thread: its groups for the current goal, opened once per goal. */
static struct slot *ensure_open(void)
{
	struct slot *s = &slot[hostcpu_self()];
	uint32_t now = __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
	if (s->gen != now) {
		perfcount_close(&s->core);
		int err = have_core ? perfcount_open(&s->core, &caps, &choice.plan, PMU_SCOPE_THREAD, PERF_TYPE_RAW, 0, -1,
						     choice.user_only) : 0;
		if (err)
			keep_thread_why(err);
		s->gen = now;
	}
	if (!s->noise_tried) {
		s->noise_tried = true;
		int err = perfnoise_open(&ncaps, &s->noise);
		(void)err;                    /* a thread whose msr events fail reports the TSC alone */
	}
	if (!s->irq_tried) {
		s->irq_tried = true;
		perfirq_open(perfirq_system(), &s->irq); /* refused: its interrupts are counted per configuration */
	}
	return s;
}

static void close_all(void)
{
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++)
		perfcount_close(&slot[c].core);
	for (uint32_t i = 0; i < n_l3; i++)
		perfcount_close(&l3grp[i]);
}

/* A noise source in the state record: true, or why not. */
static void source(struct rec *r, const char *key, bool have, const char *why)
{
	if (have)
		rec_bool(r, key, true);
	else
		rec_str(r, key, why);
}

static void emit_state(const char *phase)
{
	char text[STATE_LEN];
	struct rec *r = console_rec_open("state");
	rec_str(r, "scope", "run");
	rec_str(r, "phase", phase);
	rec_bool(r, "safe", false);
	rec_str(r, "turbo_option", turbo_option);
	rec_str(r, "turbo", hostsys_boost_status());
	rec_str(r, "turbo_control", hostsys_boost_control());
	rec_str(r, "boost", hostsys_boost());
	rec_str(r, "numa_balancing", hostsys_numa());
	rec_str(r, "prefetch_option", "keep");
	rec_str(r, "prefetch", "kept");
	rec_str(r, "prefetch_control", NO_MSR_WRITES);
	rec_u64(r, "msr_writes", 0);
	rec_str(r, "idle_wait", "futex");
	rec_str(r, "idle_wait_why", "linux: an idle thread spins 20 ms, then sleeps on its mailbox's futex");
	rec_str(r, "pmu", boot_core.plan.n ? pmu_describe(&caps) : "none");
	rec_str(r, "pmu_cpuid", pmu_describe(&caps));
	if (!boot_core.plan.n) {
		rec_str(r, "pmu_counters", boot_core.why);
	} else {
		int n = snprintf(text, sizeof(text), "perf_event_open: raw events per thread, %s",
				 boot_core.user_only ? "ring 3 only (the kernel is not counted)" : "rings 0 and 3");
		if (boot_l3.has_l3 && n > 0 && (size_t)n < sizeof(text))
			snprintf(text + n, sizeof(text) - (size_t)n, "; l3: the amd_l3 PMU on each L3's first CPU");
		else if (boot_l3.l3_why[0] && n > 0 && (size_t)n < sizeof(text))
			snprintf(text + n, sizeof(text) - (size_t)n, "; l3: %s", boot_l3.l3_why);
		rec_str(r, "pmu_counters", text);
	}
	rec_obj_begin(r, "noise_sources");
	source(r, "aperf_mperf", ncaps.freq, ncaps.freq_why);
	rec_str(r, "clock", ncaps.freq ? "aperf/mperf: perf's msr PMU" : ncaps.cycles ? "cycles against ref-cycles: perf"
									       : ncaps.clock_why);
	const struct perfirq_caps *irq = perfirq_system();
	if (irq->ok) {
		snprintf(text, sizeof(text), "perf's irq tracepoints per thread: irq:irq_handler_entry and %u irq_vectors "
			 "entry events", irq->n - 1);
		rec_str(r, "interrupts", text);
	} else {
		snprintf(text, sizeof(text), "per configuration from /proc/interrupts, not per repetition (%s)", irq->why);
		rec_str(r, "interrupts", text);
	}
	rec_str(r, "faults", FAULTS_SOURCE);
	source(r, "smi_count", ncaps.smi, ncaps.smi_why);
	source(r, "thermal", false, NO_THERM);
	source(r, "package_thermal", false, NO_THERM);
	rec_bool(r, "context_switches", true);
	rec_bool(r, "migrations", true);
	rec_obj_end(r);
	flushcheck_rec(r);                   /* each flush judged at the start, and the fallback */
	console_rec_emit(r);
}

/* ---- Public Functions ----------------------------------------------------- */
void instr_init(enum instr_setting turbo, enum instr_setting prefetch, bool safe)
{
	turbo_option = turbo == INSTR_OFF ? "off" : turbo == INSTR_ON ? "on" : "keep";
	(void)prefetch;
	(void)safe;
	caps = pmu_detect_os(&hostcpu[0].snap);
	find_l3s();
	memset(slot, 0, sizeof(slot));
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++) {
		perfcount_init(&slot[c].core);
		perfnoise_init(&slot[c].noise);
		perfcount_init(&l3grp[c]);
	}
	thread_why_taken = 0;
	counting = have_core = false;
	perfnoise_detect(&ncaps);
	perfirq_system();
	perfcount_choose(&caps, PMU_GOAL_CYCLES_INSNS, -1, &boot_core);
	perfcount_choose(&caps, PMU_GOAL_LLC, n_l3 ? l3_os_cpu[0] : -1, &boot_l3);
	snprintf(choice.why, sizeof(choice.why), "unavailable: no goal");
	initialized = true;
}

void instr_state_apply(void)
{
	hostsys_apply();
	emit_state("set");
}

void instr_state_restore(void)
{
	close_all();
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++) {
		perfnoise_close(&slot[c].noise);
		perfirq_close(&slot[c].irq);
	}
	hostsys_restore();
	emit_state("restored");
}

void instr_goal(enum pmu_goal g)
{
	if (!initialized)
		return;
	close_all();
	__atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL);
	counting = have_core = false;
	if (g >= PMU_GOAL_COUNT) {
		memset(&choice, 0, sizeof(choice));
		snprintf(choice.why, sizeof(choice.why), "unavailable: no goal");
		return;
	}
	perfcount_choose(&caps, g, n_l3 ? l3_os_cpu[0] : -1, &choice);
	for (uint32_t i = 0; choice.has_l3 && i < n_l3; i++) {
		int err = perfcount_open(&l3grp[i], &caps, &choice.plan, PMU_SCOPE_L3, choice.l3_type, -1, l3_os_cpu[i], false);
		if (err)
			keep_thread_why(err);
	}
	have_core = plan_has(PMU_SCOPE_THREAD);
	counting = choice.plan.n != 0;
}

void instr_run_set(const uint32_t *cpus, uint32_t n)
{
	static uint32_t l3_of[QB_MAX_CPUS];
	static bool seen[QB_MAX_CPUS], counts[QB_MAX_CPUS];
	for (uint32_t k = 0; k < n && k < QB_MAX_CPUS; k++)
		l3_of[k] = l3_id[cpus[k]];
	pmu_l3_counting(l3_of, MIN(n, (uint32_t)QB_MAX_CPUS), seen, QB_MAX_CPUS, counts);
	for (uint32_t k = 0; k < n && k < QB_MAX_CPUS; k++) {
		l3_counts[cpus[k]] = counts[k];
		perfirq_config_cpus(&hostcpu[cpus[k]].os_cpu, 1);
	}
	in_run = true;
}

void instr_run_done(void)
{
	in_run = false;
}

/* Before the barrier: the thread's groups are opened here, outside the timed start. */
void instr_prepare(void)
{
	if (initialized)
		ensure_open();
}

void instr_begin(struct instr_mark *m)
{
	memset(m, 0, sizeof(*m));
	struct slot *s = initialized ? ensure_open() : 0;
	uint32_t c = hostcpu_self();
	m->switches = thread_switches(&m->sched_ok, &m->faults);
	m->cpu = sched_getcpu();
	m->irq_ok = s && perfirq_read(&s->irq, &m->irqs);
	if (s && counting) {
		uint32_t l3 = l3_id[c];
		m->with_l3 = choice.has_l3 && l3 != TOPO_NO_L3 && (in_run ? l3_counts[c] : true);
		m->counting = (!have_core || perfcount_read(&s->core, m->pmu_start) == 0) &&
			      (!m->with_l3 || perfcount_read(&l3grp[l3], m->pmu_start) == 0);
	}
	m->perf_noise = s && perfnoise_sample(&s->noise, &m->s);
	m->s.tsc = tsc_read();
}

void instr_end(const struct instr_mark *m, struct instr_thread *out)
{
	uint64_t now = tsc_read();
	struct slot *s = &slot[hostcpu_self()];
	struct noise_sample after = m->s;
	after.tsc = now;
	static const struct perfnoise_group tsc_only = { { -1, -1, -1 }, 0, -1, -1, -1, { -1, -1 } };
	bool noise_ok = m->perf_noise && perfnoise_sample(&s->noise, &after);
	uint64_t end[PMU_MAX_EVENTS];
	bool pmu_ok = m->counting && (!have_core || perfcount_read(&s->core, end) == 0) &&
		      (!m->with_l3 || perfcount_read(&l3grp[l3_id[hostcpu_self()]], end) == 0);
	uint64_t irqs = 0, faults;
	bool irq_ok = m->irq_ok && perfirq_read(&s->irq, &irqs);
	int cpu = sched_getcpu();
	bool ok;
	uint64_t sw = thread_switches(&ok, &faults);

	memset(out, 0, sizeof(*out));
	perfnoise_delta(noise_ok ? &s->noise : &tsc_only, &m->s, &after, tsc_hz(), &out->noise);
	struct noise_rep *n = &out->noise;
	n->have_sched = ok && m->sched_ok && cpu >= 0 && m->cpu >= 0;
	if (n->have_sched) {
		n->switches = sw - m->switches;
		n->migrated = cpu != m->cpu;
		n->flags |= (n->switches ? NOISE_FLAG_SWITCH : 0) | (n->migrated ? NOISE_FLAG_MIGRATION : 0);
		n->have_faults = true;
		n->faults = faults - m->faults;
		n->flags |= n->faults ? NOISE_FLAG_FAULT : 0;  /* reps.c unflags it where faults are the measurement */
	}
	n->have_irq = irq_ok;
	if (irq_ok) {
		n->irqs = irqs - m->irqs;
		n->flags |= n->irqs ? NOISE_FLAG_INTERRUPT : 0;
	}
	n->flagged = n->flags != 0;
	if (pmu_ok) {
		if (have_core)
			perfcount_delta(&s->core, m->pmu_start, end, out->pmu);
		if (m->with_l3)
			perfcount_delta(&l3grp[l3_id[hostcpu_self()]], m->pmu_start, end, out->pmu);
		out->pmu_n = choice.plan.n;  /* an L3 event of a thread that does not count its L3 stays 0 */
	}
}

const char *instr_therm_note(void)
{
	return 0;
}

uint32_t instr_pmu_events(void)
{
	return counting ? choice.plan.n : 0;
}

const char *instr_pmu_name(unsigned k)
{
	return k < choice.plan.n ? choice.plan.ev[k].name : "?";
}

const char *instr_pmu_note(void)
{
	return counting && choice.note[0] ? choice.note : 0;
}

const char *instr_pmu_why(void)
{
	if (!initialized)
		return "unavailable: counters not set up";
	if (!counting)
		return choice.why[0] ? choice.why : "unavailable: nothing to count";
	return __atomic_load_n(&thread_why_taken, __ATOMIC_ACQUIRE) ? thread_why : 0;
}

uint64_t instr_msr_writes(void)
{
	return 0;
}

const char *instr_source_why(enum instr_source k)
{
	switch (k) {
	case INSTR_SRC_FREQ:
		return ncaps.freq || ncaps.cycles ? 0 : ncaps.clock_why;
	case INSTR_SRC_SMI:
		return ncaps.smi ? 0 : ncaps.smi_why;
	case INSTR_SRC_THERM:
	case INSTR_SRC_PKG_THERM:
		return NO_THERM;
	default:
		return 0;
	}
}
