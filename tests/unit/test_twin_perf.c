/* test_twin_perf.c - the Linux twin's counters (tools/twin/perfcount.c, perf.c) over a fake perf (perf_fake.h):
 * the raw events opened are those kernel/measure/pmu.c plans for real CPUs
 * (CPU 0 of tests/fixtures/cpuid, and of two more InstLatx64 dumps), the
 * reasons when the OS refuses, and group reads turned into per-event deltas.
 *
 * Expected event codes come from the manuals (Intel SDM vol. 3B table
 * "Architectural Performance Events"; AMD family 10h BKDG, PPRs 17h/19h and
 * the L3 PMC tables) through Linux's raw formats: Intel config = umask << 8 |
 * event; AMD core config:0-7,32-35 = event, config:8-15 = umask. */
#include <stdlib.h>

#include "check.h"
#include "cpuid_snap.h"
#include "lib.h"
#include "msr.h"
#include "perf_fake.h"
#include "perfcount.h"
#include "pmu.h"
#include "twin_cpus.h"

#define CPU_TYPE_FILE "/sys/bus/event_source/devices/cpu/type"
#define L3_TYPE_FILE "/sys/bus/event_source/devices/amd_l3/type"
#define PARANOID_FILE "/proc/sys/kernel/perf_event_paranoid"
#define L3_TYPE 11
#define L3_CPU 5
/* PERF_CTL bits that say what is counted (event, umask, AMD event[11:8]); the rest says how. */
#define SEL_EVENT_BITS (0xffffull | 0xfull << PERFEVTSEL_AMD_EVENT_HI_SHIFT)

/* ---- Expected events ----------------------------------------------------------- */
struct want_ev {
	const char *name;
	uint64_t config;
	bool l3;
};

struct want_plan {
	enum pmu_goal goal;
	struct want_ev ev[PMU_MAX_EVENTS];	/* up to the first without a name */
};

#define ZEN_CYC { "cycles", 0x0076, false }       /* PMCx076 LsNotHaltedCyc / CPU clocks not halted */
#define ZEN_INS { "instructions", 0x00c0, false } /* PMCx0C0 ExRetInstr / retired instructions */
#define ZEN_COMMON                                                                                       \
	{ PMU_GOAL_CYCLES_INSNS, { ZEN_CYC, ZEN_INS } },                                                 \
	{ PMU_GOAL_L1L2, { { "l1d_misses", 0xc860, false }, { "l2_misses", 0x0864, false }, ZEN_CYC, ZEN_INS } }, \
	{ PMU_GOAL_TLB, { { "dtlb_misses", 0xff45, false }, { "dtlb_walks", 0xf045, false }, ZEN_CYC, ZEN_INS } }
#define ZEN4_LLC { PMU_GOAL_LLC, { { "llc_references", 0xff04, true }, { "llc_misses", 0x0104, true }, ZEN_CYC, ZEN_INS } }

static const struct want_plan w_zen2[] = {	/* family 17h: PMCx043 LsRefillsFromSys 0x12, L3PMCx06 RequestMiss */
	ZEN_COMMON,
	{ PMU_GOAL_LLC, { { "llc_references", 0xff04, true }, { "llc_misses", 0x0106, true }, ZEN_CYC, ZEN_INS } },
	{ PMU_GOAL_COHERENCE, { { "coherence_fills", 0x1243, false }, { "l2_misses", 0x0864, false }, ZEN_CYC, ZEN_INS } },
};
static const struct want_plan w_zen3[] = {	/* family 19h model 21h: L3PMCx06 up to Zen 3 */
	ZEN_COMMON,
	{ PMU_GOAL_LLC, { { "llc_references", 0xff04, true }, { "llc_misses", 0x0106, true }, ZEN_CYC, ZEN_INS } },
	{ PMU_GOAL_COHERENCE, { { "coherence_fills", 0x1643, false }, { "l2_misses", 0x0864, false }, ZEN_CYC, ZEN_INS } },
};
static const struct want_plan w_zen4[] = {	/* family 19h model 61h: L3PMCx04 L3Miss from Zen 4 */
	ZEN_COMMON,
	ZEN4_LLC,
	{ PMU_GOAL_COHERENCE, { { "coherence_fills", 0x1643, false }, { "l2_misses", 0x0864, false }, ZEN_CYC, ZEN_INS } },
};
static const struct want_plan w_zen5[] = {	/* family 1Ah: no PMCx043 table in pmu.c, coherence via l2_misses */
	ZEN_COMMON,
	ZEN4_LLC,
	{ PMU_GOAL_COHERENCE, { { "l2_misses", 0x0864, false }, ZEN_CYC, ZEN_INS } },
};
static const struct want_plan w_k10[] = {	/* family 10h BKDG: legacy counters, no L3 PMC */
	{ PMU_GOAL_CYCLES_INSNS, { ZEN_CYC, ZEN_INS } },
	{ PMU_GOAL_LLC, { { "l2_requests", 0x037d, false }, { "l2_misses", 0x037e, false }, ZEN_CYC, ZEN_INS } },
	{ PMU_GOAL_COHERENCE, { { "l2_misses", 0x037e, false }, ZEN_CYC, ZEN_INS } },
	{ PMU_GOAL_L1L2, { { "l1d_misses", 0x0141, false }, { "l2_misses", 0x037e, false }, ZEN_CYC, ZEN_INS } },
	{ PMU_GOAL_TLB, { { "dtlb_misses", 0x0746, false }, ZEN_CYC, ZEN_INS } },
};
#define INTEL_CYC { "cycles", 0x003c, false }       /* UnHalted Core Cycles (fixed counter 1) */
#define INTEL_INS { "instructions", 0x00c0, false } /* Instructions Retired (fixed counter 0) */
static const struct want_plan w_intel[] = {
	{ PMU_GOAL_CYCLES_INSNS, { INTEL_CYC, INTEL_INS } },
	{ PMU_GOAL_LLC, { { "llc_references", 0x4f2e, false }, { "llc_misses", 0x412e, false }, INTEL_CYC, INTEL_INS } },
	{ PMU_GOAL_COHERENCE, { { "llc_misses", 0x412e, false }, INTEL_CYC, INTEL_INS } },
	{ PMU_GOAL_L1L2, { { 0 } } },	/* no architectural event: nothing planned */
	{ PMU_GOAL_TLB, { { 0 } } },
};

struct machine {
	const char *what, *fixture;
	const struct leaf *extra;
	size_t n_extra;
	const struct want_plan *plans;
	size_t n_plans;
};

#define MACHINE(what, fx, extra, plans) { what, fx, extra, ARRAY_SIZE(extra), plans, ARRAY_SIZE(plans) }
#define MACHINE0(what, fx, plans) { what, fx, NULL, 0, plans, ARRAY_SIZE(plans) }

static const struct machine machines[] = {
	MACHINE0("epyc 7742 (zen 2)", "epyc-7742-2p", w_zen2),
	MACHINE("ryzen 9 5900x (zen 3)", NULL, x_ryzen_5900x, w_zen3),
	MACHINE("ryzen 5 7600 (zen 4)", "ryzen-7600", x_ryzen_7600, w_zen4),
	MACHINE0("epyc 9654 (zen 4)", "epyc-9654-2p", w_zen4),
	MACHINE0("ryzen 9 9950x (zen 5)", "ryzen-9950x", w_zen5),
	MACHINE("phenom ii x4 940 (family 10h)", NULL, x_phenom_940, w_k10),
	MACHINE("core i9-14900k", "core-i9-14900k", x_i9_14900k, w_intel),
	MACHINE("xeon w9-3475x", "xeon-w9-3475x", x_w9_3475x, w_intel),
};

/* A perf with a core PMU and (on AMD) amd_l3 that accepts everything. */
static void perf_all(void)
{
	fake_reset();
	fake_file(CPU_TYPE_FILE, "4");
	fake_file(L3_TYPE_FILE, "11");
	perf_use(&fake_ops);
}

/* ---- Tests --------------------------------------------------------------------- */

/* Each machine, each goal: what the twin opens is the plan, event for event, as Linux's raw format. */
TEST(test_raw_events_are_the_kernels_plan)
{
	for (size_t m = 0; m < ARRAY_SIZE(machines); m++) {
		const struct machine *mc = &machines[m];
		if (!load(mc->fixture, mc->extra, mc->n_extra)) {
			printf("  cannot load %s\n", mc->fixture);
			CHECK(false);
			continue;
		}
		struct pmu_caps c = caps_os();
		CHECK(c.kind != PMU_NONE);
		for (size_t p = 0; p < mc->n_plans; p++) {
			const struct want_plan *w = &mc->plans[p];
			struct perfcount_choice ch;
			perf_all();
			perfcount_choose(&c, w->goal, L3_CPU, &ch);
			unsigned n_want = 0;
			while (n_want < PMU_MAX_EVENTS && w->ev[n_want].name)
				n_want++;
			if (ch.plan.n != n_want)
				printf("  %s, goal %s: %u events, want %u (%s)\n", mc->what, pmu_goal_name(w->goal),
				       ch.plan.n, n_want, ch.why);
			CHECK_EQ_U(ch.plan.n, n_want);
			CHECK_EQ_U(fake_open_count(), 0);   /* the trial leaves nothing open */
			/* The trial opened the core group, then the L3 group: in plan order within each. */
			unsigned k = 0;
			for (int l3 = 0; l3 < 2; l3++) {
				unsigned lead = k;
				for (unsigned i = 0; i < n_want && i < ch.plan.n; i++) {
					if (w->ev[i].l3 != l3)
						continue;
					CHECK_STR(ch.plan.ev[i].name, w->ev[i].name);
					if (k >= fake.n_ev) {
						CHECK(k < fake.n_ev);
						break;
					}
					const struct fake_event *e = &fake.ev[k];
					CHECK_EQ_U(e->a.config, w->ev[i].config);
					CHECK_EQ_U(e->a.type, l3 ? L3_TYPE : PERF_TYPE_RAW);
					CHECK_EQ_U(e->pid, l3 ? -1 : 0);
					CHECK_EQ_U(e->cpu, l3 ? L3_CPU : -1);
					CHECK_EQ_U(e->a.exclude_kernel, 0);
					CHECK_EQ_U(e->a.read_format, PERF_FORMAT_GROUP);
					CHECK_EQ_U(e->group_fd, k == lead ? -1 : FAKE_FD0 + (int)lead);
					CHECK_EQ_U(e->a.pinned, k == lead);
					k++;
				}
			}
			CHECK_EQ_U(k, fake.n_ev);
		}
	}
	perf_use(NULL);
}

/* Every planned event's raw config is the event part of the select the kernel writes. */
TEST(test_config_is_the_select_the_kernel_writes)
{
	for (size_t m = 0; m < ARRAY_SIZE(machines); m++) {
		const struct machine *mc = &machines[m];
		CHECK(load(mc->fixture, mc->extra, mc->n_extra));
		struct pmu_caps c = caps_os();
		for (int g = 0; g < PMU_GOAL_COUNT; g++) {
			struct pmu_plan p;
			pmu_plan(&c, (enum pmu_goal)g, &p);
			for (uint32_t i = 0; i < p.n; i++) {
				const struct pmu_event *e = &p.ev[i];
				uint64_t cfg = perfcount_config(&c, e);
				if (e->fixed)   /* the select is FIXED_CTR_CTRL's: the arch event code stands for it */
					CHECK_EQ_U(cfg, !strcmp(e->name, "cycles") ? 0x3cu : 0xc0u);
				else
					CHECK_EQ_U(cfg, e->sel_value & SEL_EVENT_BITS);
			}
		}
	}
}

/* AMD's 12-bit event selects: Linux's amd format puts event[11:8] at config[35:32], as PERF_CTL does. */
TEST(test_amd_event_high_bits)
{
	struct pmu_caps c = { .kind = PMU_AMD_CORE_EXT, .vendor = CPU_VENDOR_AMD, .family = 0x19 };
	struct pmu_event e = { .name = "x", .event = 0x1c1, .umask = 0x3f, .scope = PMU_SCOPE_THREAD };
	CHECK_EQ_U(perfcount_config(&c, &e), 0xc1u | 0x3fu << 8 | 1ull << 32);
	e.scope = PMU_SCOPE_L3;    /* amd_l3: event config:0-7 */
	e.event = 0x06;
	CHECK_EQ_U(perfcount_config(&c, &e), 0x3f06u);
	c.vendor = CPU_VENDOR_INTEL;
	e.scope = PMU_SCOPE_THREAD;
	e.event = 0x2e;
	e.umask = 0x41;
	CHECK_EQ_U(perfcount_config(&c, &e), 0x412eu);
}

/* Under a hypervisor the kernel plans nothing; the twin plans the same events as on bare metal. */
TEST(test_hypervisor_gate_only_in_the_kernel)
{
	struct cpuid_snap s;
	struct pmu_plan bare, guest;
	CHECK(load(NULL, x_ryzen_5900x, ARRAY_SIZE(x_ryzen_5900x)));
	cpuid_snap_fill(&s, query, NULL);
	struct pmu_caps c = pmu_detect(&s);
	CHECK_EQ_U(c.kind, PMU_AMD_CORE_EXT);
	pmu_plan(&c, PMU_GOAL_COHERENCE, &bare);
	M.hypervisor = true;
	cpuid_snap_fill(&s, query, NULL);
	c = pmu_detect(&s);
	CHECK_EQ_U(c.kind, PMU_NONE);
	CHECK(c.why && !strncmp(c.why, "hypervisor", 10));
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &guest), 0);
	c = pmu_detect_os(&s);
	CHECK_EQ_U(c.kind, PMU_AMD_CORE_EXT);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &guest), bare.n);
	for (uint32_t i = 0; i < bare.n && i < guest.n; i++) {
		CHECK_STR(guest.ev[i].name, bare.ev[i].name);
		CHECK_EQ_U(guest.ev[i].sel_value, bare.ev[i].sel_value);
	}
}

static struct pmu_caps zen4(void)
{
	load("ryzen-7600", x_ryzen_7600, ARRAY_SIZE(x_ryzen_7600));
	return caps_os();
}

/* What the OS says, said exactly: the reason and the errno. */
TEST(test_refusals_give_the_reason)
{
	struct pmu_caps c = zen4();
	struct perfcount_choice ch;

	fake_reset();                         /* no devices/cpu: no PMU driver, as on this project's VM */
	fake.policy = refuse_enoent;
	perf_use(&fake_ops);
	perfcount_choose(&c, PMU_GOAL_CYCLES_INSNS, -1, &ch);
	CHECK_EQ_U(ch.plan.n, 0);
	CHECK_STR(ch.why, "unavailable: no PMU driver (perf_event_open: ENOENT)");

	fake_file(CPU_TYPE_FILE, "4");        /* a driver that does not know the event */
	perfcount_choose(&c, PMU_GOAL_CYCLES_INSNS, -1, &ch);
	CHECK_STR(ch.why, "unavailable: the PMU does not know the event (perf_event_open: ENOENT)");

	fake_file(PARANOID_FILE, "3");
	fake.policy = refuse_eacces;
	perfcount_choose(&c, PMU_GOAL_TLB, -1, &ch);
	CHECK_EQ_U(ch.plan.n, 0);
	CHECK_STR(ch.why, "unavailable: perf_event_paranoid=3 (perf_event_open: EACCES)");

	fake.policy = refuse_eopnotsupp;
	perfcount_choose(&c, PMU_GOAL_L1L2, -1, &ch);
	CHECK_STR(ch.why, "unavailable: the event is not supported (perf_event_open: EOPNOTSUPP)");
	CHECK_EQ_U(ch.note[0], 0);
	CHECK_EQ_U(fake_open_count(), 0);

	/* Intel has no architectural L1/L2 event: the plan's own reason, nothing opened. */
	load("core-i9-14900k", x_i9_14900k, ARRAY_SIZE(x_i9_14900k));
	struct pmu_caps i9 = caps_os();
	perf_all();
	perfcount_choose(&i9, PMU_GOAL_L1L2, -1, &ch);
	CHECK_STR(ch.why, "unavailable: intel: no architectural L1/L2 event");
	CHECK_EQ_U(fake.n_ev, 0);
	perf_use(NULL);
}

/* perf_event_paranoid=2 without CAP_PERFMON: ring 3 alone is counted, the
 * note says so; the L3 (system-wide) is left out with its reason. */
TEST(test_paranoid2_counts_ring3_without_the_l3)
{
	struct pmu_caps c = zen4();
	struct perfcount_choice ch;
	perf_all();
	fake_file(PARANOID_FILE, "2");
	fake.policy = paranoid2;
	perfcount_choose(&c, PMU_GOAL_LLC, L3_CPU, &ch);
	CHECK_EQ_U(ch.plan.n, 2);
	CHECK_STR(ch.plan.ev[0].name, "cycles");
	CHECK_STR(ch.plan.ev[1].name, "instructions");
	CHECK(ch.user_only);
	CHECK(!ch.has_l3);
	CHECK_STR(ch.l3_why, "unavailable: perf_event_paranoid=2 (perf_event_open: EACCES)");
	CHECK(strstr(ch.note, "ring 3 only: the kernel is not counted (perf_event_paranoid=2 (perf_event_open: EACCES))"));
	CHECK(strstr(ch.note, "l3 events left out: perf_event_paranoid=2 (perf_event_open: EACCES)"));
	CHECK_EQ_U(ch.why[0], 0);
	/* The events that stayed were opened with exclude_kernel. */
	bool user = false;
	for (unsigned i = 0; i < fake.n_ev; i++)
		user |= fake.ev[i].a.type == PERF_TYPE_RAW && fake.ev[i].a.exclude_kernel;
	CHECK(user);
	CHECK_EQ_U(fake_open_count(), 0);

	/* No amd_l3 PMU at all: said so. */
	perf_all();
	fake.n_files = 1;                     /* devices/cpu only */
	perfcount_choose(&c, PMU_GOAL_LLC, L3_CPU, &ch);
	CHECK_EQ_U(ch.plan.n, 2);
	CHECK_STR(ch.l3_why, "unavailable: no amd_l3 PMU in perf (/sys/bus/event_source/devices/amd_l3)");
	perf_use(NULL);
}

/* A group read is one read; its values become per-event deltas by plan index. */
TEST(test_group_read_deltas)
{
	struct pmu_caps c = zen4();
	struct perfcount_choice ch;
	struct perfcount_group core, l3;
	uint64_t before[PMU_MAX_EVENTS] = { 0 }, after[PMU_MAX_EVENTS] = { 0 }, d[PMU_MAX_EVENTS] = { 0 };
	perf_all();
	perfcount_choose(&c, PMU_GOAL_LLC, L3_CPU, &ch);
	CHECK_EQ_U(ch.plan.n, 4);        /* llc_references, llc_misses (L3), cycles, instructions */
	CHECK_EQ_U(perfcount_open(&core, &c, &ch.plan, PMU_SCOPE_THREAD, PERF_TYPE_RAW, 0, -1, false), 0);
	CHECK_EQ_U(perfcount_open(&l3, &c, &ch.plan, PMU_SCOPE_L3, ch.l3_type, -1, L3_CPU, false), 0);
	CHECK_EQ_U(core.n, 2);
	CHECK_EQ_U(l3.n, 2);
	CHECK_EQ_U(core.ev[0], 2);
	CHECK_EQ_U(l3.ev[0], 0);
	fake_of(core.fd[0])->value = 1000;   /* cycles */
	fake_of(core.fd[1])->value = 700;    /* instructions */
	fake_of(l3.fd[0])->value = 50;
	fake_of(l3.fd[1])->value = 5;
	CHECK_EQ_U(perfcount_read(&core, before), 0);
	CHECK_EQ_U(perfcount_read(&l3, before), 0);
	CHECK_EQ_U(before[2], 1000);
	CHECK_EQ_U(before[1], 5);
	fake_of(core.fd[0])->value = 1000 + 123456;
	fake_of(core.fd[1])->value = 700 + 98765;
	fake_of(l3.fd[0])->value = 50 + 4096;
	fake_of(l3.fd[1])->value = 5 + 1024;
	CHECK_EQ_U(perfcount_read(&core, after), 0);
	CHECK_EQ_U(perfcount_read(&l3, after), 0);
	perfcount_delta(&core, before, after, d);
	CHECK_EQ_U(d[0], 0);               /* an L3 event: only its own group fills it */
	perfcount_delta(&l3, before, after, d);
	CHECK_EQ_U(d[0], 4096);
	CHECK_EQ_U(d[1], 1024);
	CHECK_EQ_U(d[2], 123456);
	CHECK_EQ_U(d[3], 98765);
	fake.unschedulable = true;         /* a pinned group perf could not schedule: no numbers */
	CHECK_EQ_U(perfcount_read(&core, after), (uint64_t)-ENODATA);
	fake.unschedulable = false;
	fake_close(core.fd[1]);            /* a member gone: the count does not match */
	CHECK_EQ_U(perfcount_read(&core, after), (uint64_t)-EIO);
	perfcount_close(&core);
	perfcount_close(&l3);
	CHECK_EQ_U(fake_open_count(), 0);
	CHECK_EQ_U(perfcount_read(&core, after), (uint64_t)-ENODATA);
	perf_use(NULL);
}

int main(void)
{
	RUN(test_raw_events_are_the_kernels_plan);
	RUN(test_config_is_the_select_the_kernel_writes);
	RUN(test_amd_event_high_bits);
	RUN(test_hypervisor_gate_only_in_the_kernel);
	RUN(test_refusals_give_the_reason);
	RUN(test_paranoid2_counts_ring3_without_the_l3);
	RUN(test_group_read_deltas);
	return check_summary("twin_perf");
}
