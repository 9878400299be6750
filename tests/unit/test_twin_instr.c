/* test_twin_instr.c - the Linux twin's kernel/run/instr.h (tools/twin/instr.c) end to end over a fake perf (perf_fake.h):
 * a repetition's counters are the deltas of the plan's events on the
 * thread, an AMD L3 is counted by the run's first CPU on it only, an SMI
 * flags the repetition, and where perf refuses, the records say why (the
 * state record, instr_pmu_why, instr_source_why). Stubs stand in for the
 * twin's CPUs, the TSC frequency, the topology and the console. */
#include "check.h"
#include "console.h"
#include "hostcpu.h"
#include "instr.h"
#include "lib.h"
#include "perf_fake.h"
#include "topo_online.h"
#include "tsc.h"
#include "twin_cpus.h"

#define MSR_DIR "/sys/bus/event_source/devices/msr/"
#define SMI_CONFIG 4

/* ---- Stubs ------------------------------------------------------------------ */
struct hostcpu hostcpu[QB_MAX_CPUS];
static uint32_t self;
static struct topo T;
static uint32_t cpu_of[QB_MAX_CPUS] = { 0, 1 };
static char state_rec[4096];
static struct rec open_rec;

uint32_t hostcpu_self(void) { return self; }

/* The flush check's part of the state record (kernel/run/flushcheck.c, its own test). */
void flushcheck_rec(struct rec *r)
{
	rec_obj_begin(r, "flush_check");
	rec_str(r, "verdict", "stub");
	rec_obj_end(r);
}
uint64_t tsc_hz(void) { return 2000000000ull; }
const struct topo *topo_online(void) { return &T; }
const uint32_t *topo_online_cpu_of_topo(void) { return cpu_of; }

struct rec *console_rec_open(const char *kind)
{
	rec_begin(&open_rec, state_rec, sizeof(state_rec), kind);
	return &open_rec;
}

void console_rec_emit(struct rec *r)
{
	size_t len;
	CHECK(rec_finish(r, &len) != NULL);
}

/* ---- Helpers ---------------------------------------------------------------- */
/* Two CPUs (Linux's 0 and 3) sharing one L3, with the snapshot loaded in twin_cpus.h's M. */
static void machine(void)
{
	memset(hostcpu, 0, sizeof(hostcpu));
	memset(&T, 0, sizeof(T));
	cpuid_snap_fill(&hostcpu[0].snap, query, NULL);
	hostcpu[1].snap = hostcpu[0].snap;
	hostcpu[0].os_cpu = 0;
	hostcpu[1].os_cpu = 3;
	T.ncpu = 2;
	T.ncaches = 1;
	T.cache[0].level = 3;
	T.cache[0].type = TOPO_CACHE_UNIFIED;
	T.cache[0].shared_by.bits[0] = 3;
	self = 0;
}

static struct fake_event *event_with(uint32_t type, uint64_t config, int pid, int cpu)
{
	for (unsigned i = fake.n_ev; i-- > 0;)
		if (fake.ev[i].open && fake.ev[i].a.type == type && fake.ev[i].a.config == config &&
		    fake.ev[i].pid == pid && fake.ev[i].cpu == cpu)
			return &fake.ev[i];
	return NULL;
}

static int find_name(const char *name)
{
	for (unsigned k = 0; k < instr_pmu_events(); k++)
		if (!strcmp(instr_pmu_name(k), name))
			return (int)k;
	return -1;
}

/* ---- Tests ------------------------------------------------------------------ */
/* Zen 4 with a PMU driver, amd_l3 and an Intel-style msr PMU: everything counted. */
TEST(test_counts_deltas_and_l3_once)
{
	load("ryzen-7600", x_ryzen_7600, ARRAY_SIZE(x_ryzen_7600));
	machine();
	fake_reset();
	fake_file("/sys/bus/event_source/devices/cpu/type", "4");
	fake_file("/sys/bus/event_source/devices/amd_l3/type", "11");
	fake_file(MSR_DIR "type", "9");
	fake_file(MSR_DIR "format/event", "config:0-63");
	fake_file(MSR_DIR "events/smi", "event=0x04");
	perf_use(&fake_ops);
	instr_init(INSTR_KEEP, INSTR_KEEP, false);
	instr_state_apply();
	CHECK(strstr(state_rec, "\"pmu\":\"amd perfmon v2, 6 gp, l3 6\""));
	CHECK(strstr(state_rec, "\"smi_count\":true"));
	CHECK(strstr(state_rec, "l3: the amd_l3 PMU on each L3's first CPU"));
	CHECK(strstr(state_rec, "\"flush_check\":{\"verdict\":\"stub\"}"));
	CHECK_EQ_U(fake_open_count(), 0);

	instr_goal(PMU_GOAL_LLC);
	CHECK_EQ_U(instr_pmu_events(), 4);
	CHECK(instr_pmu_why() == NULL);
	int refs = find_name("llc_references"), cycles = find_name("cycles");
	CHECK(refs >= 0 && cycles >= 0);
	uint32_t cpus[2] = { 0, 1 };
	instr_run_set(cpus, 2);
	struct instr_mark m0, m1;
	struct instr_thread t0, t1;
	self = 1;
	instr_prepare();                     /* thread 1 opens its group before the barrier */
	instr_begin(&m1);
	self = 0;
	instr_begin(&m0);
	struct fake_event *l3ref = event_with(11, 0xff04, -1, 0);   /* on the L3's first CPU, Linux's 0 */
	struct fake_event *cyc0 = event_with(PERF_TYPE_RAW, 0x76, 0, -1);
	struct fake_event *smi0 = event_with(9, SMI_CONFIG, 0, -1);
	CHECK(l3ref && cyc0 && smi0);
	if (!l3ref || !cyc0 || !smi0)
		return;
	l3ref->value += 5000;
	smi0->value += 1;                      /* one SMI: on both threads' events (the fake does not tell threads) */
	for (unsigned i = 0; i < fake.n_ev; i++)
		if (fake.ev[i].open && fake.ev[i].a.type == PERF_TYPE_RAW && fake.ev[i].a.config == 0x76)
			fake.ev[i].value += 777;
	instr_end(&m0, &t0);
	self = 1;
	instr_end(&m1, &t1);
	instr_run_done();
	CHECK_EQ_U(t0.pmu_n, 4);
	CHECK_EQ_U(t1.pmu_n, 4);
	CHECK_EQ_U(t0.pmu[refs], 5000);        /* the run's first CPU on the L3 counts it */
	CHECK_EQ_U(t1.pmu[refs], 0);           /* the other CPU of that L3 does not: summed, the L3 counts once */
	CHECK_EQ_U(t0.pmu[cycles], 777);
	CHECK_EQ_U(t1.pmu[cycles], 777);
	CHECK(t0.noise.have_smi);
	CHECK_EQ_U(t0.noise.smis, 1);
	CHECK(t0.noise.flags & NOISE_FLAG_SMI);
	CHECK(t0.noise.flagged);
	CHECK(instr_source_why(INSTR_SRC_SMI) == NULL);
	CHECK(instr_source_why(INSTR_SRC_THERM) != NULL);

	/* A new goal: the old groups are closed, each thread reopens. */
	unsigned before = fake.n_ev;
	instr_goal(PMU_GOAL_TLB);
	self = 0;
	instr_begin(&m0);
	CHECK(event_with(PERF_TYPE_RAW, 0xff45, 0, -1) != NULL);
	CHECK(event_with(11, 0xff04, -1, 0) == NULL);
	CHECK(fake.n_ev > before);
	instr_end(&m0, &t0);
	CHECK_EQ_U(t0.pmu_n, 4);
	CHECK_EQ_U(t0.noise.flags, 0);
	instr_state_restore();
	CHECK(strstr(state_rec, "\"phase\":\"restored\""));
	CHECK_EQ_U(fake_open_count(), 0);
	perf_use(NULL);
}

/* This project's VM: no PMU driver, the msr PMU with tsc alone. */
TEST(test_no_pmu_driver_says_why_everywhere)
{
	load("ryzen-7600", x_ryzen_7600, ARRAY_SIZE(x_ryzen_7600));
	M.hypervisor = true;
	machine();
	fake_reset();
	fake_file(MSR_DIR "type", "9");
	fake_file(MSR_DIR "format/event", "config:0-63");
	fake_file(MSR_DIR "events/tsc", "event=0x00");
	fake.policy = refuse_enoent;
	perf_use(&fake_ops);
	instr_init(INSTR_KEEP, INSTR_KEEP, false);
	instr_state_apply();
	CHECK(strstr(state_rec, "\"pmu\":\"none\""));
	CHECK(strstr(state_rec, "\"pmu_cpuid\":\"amd perfmon v2, 6 gp, l3 6\""));
	CHECK(strstr(state_rec, "\"pmu_counters\":\"unavailable: no PMU driver (perf_event_open: ENOENT)\""));
	CHECK(strstr(state_rec, "\"smi_count\":\"unavailable: perf's msr PMU has no smi event"));
	instr_goal(PMU_GOAL_COHERENCE);
	CHECK_EQ_U(instr_pmu_events(), 0);
	CHECK_STR(instr_pmu_why(), "unavailable: no PMU driver (perf_event_open: ENOENT)");
	CHECK(!strncmp(instr_source_why(INSTR_SRC_SMI), "unavailable: perf's msr PMU has no smi event", 44));
	struct instr_mark m;
	struct instr_thread t;
	instr_begin(&m);
	instr_end(&m, &t);
	CHECK_EQ_U(t.pmu_n, 0);
	CHECK(!t.noise.have_smi && !t.noise.have_freq);
	CHECK_EQ_U(t.noise.flags & (NOISE_FLAG_SMI | NOISE_FLAG_FREQ | NOISE_FLAG_THROTTLE), 0);
	instr_goal(PMU_GOAL_COUNT);
	CHECK_STR(instr_pmu_why(), "unavailable: no goal");
	instr_state_restore();
	perf_use(NULL);
}

int main(void)
{
	RUN(test_counts_deltas_and_l3_once);
	RUN(test_no_pmu_driver_says_why_everywhere);
	return check_summary("twin_instr");
}
