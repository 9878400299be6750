/* test_gaps_attr.c - host tests of what the noise loop (kernel/measure/gaps.c) credits a long gap to, on a fake clock and fake counters: what moved in the gap, never what moved in another gap, in a calm stretch read since, or in a stall of its bookkeeping (which is a gap of its own); and the bare-metal counters (kernel/run/disturb.c) with a fake MSR_SMI_COUNT that an SMI moves during a gap. */
#include "check.h"
#include "disturb.h"
#include "gaps.h"
#include "gaps_fake.h"
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

#define COUNTED (1u << GAPS_INTERRUPT | 1u << GAPS_SWITCH)

static void counters_reset(void)
{
	memset(counter, 0, sizeof(counter));
	counts_fail = false;
}

/* ---- Tests ------------------------------------------------------------------ */

/* An attributed gap names each counter that moved in it; one that moved in
 * a shorter gap went to that gap's read, and is not credited to the next. */
TEST(attribution_names_what_moved_in_the_gap)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, fake_counts, COUNTED, 0 };
	clock_reset(STEP);
	counters_reset();
	cfg_for(&cfg, 500, 20000);
	jump(100, 2000, &counter[GAPS_INTERRUPT]);  /* an interrupt: attributed to it */
	jump(200, 2000, &counter[GAPS_SWITCH]);     /* a context switch */
	jump(300, 2000, 0);                         /* nothing counted it: unexplained */
	jump(400, 100, &counter[GAPS_INTERRUPT]);   /* under 500 ticks: not attributed ... */
	jump(500, 2000, 0);                         /* ... nor credited to this one: unexplained */
	jump(600, 2000, &counter[GAPS_FAULT]);      /* a fault, not counted here (not in mask) */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.count, 6);
	CHECK_EQ_U(c.attributed, 5);
	CHECK_EQ_U(c.cause[GAPS_INTERRUPT], 1);
	CHECK_EQ_U(c.cause[GAPS_SWITCH], 1);
	CHECK_EQ_U(c.cause[GAPS_FAULT], 0);
	CHECK_EQ_U(c.unexplained, 3);               /* the 300th, 500th and 600th */
	CHECK_EQ_U(c.unread, 0);
	CHECK_EQ_U(c.reads, 6);                     /* after every gap, the short one too */
	CHECK_EQ_U(c.excluded, 6 * STEP);
	CHECK_EQ_U(c.seen[GAPS_INTERRUPT], 2);

	/* Counters that cannot be read: the gap is counted, not attributed. */
	clock_reset(STEP);
	counts_fail = true;
	jump(100, 2000, &counter[GAPS_INTERRUPT]);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.attributed, 1);
	CHECK_EQ_U(c.unread, 1);
	CHECK_EQ_U(c.cause[GAPS_INTERRUPT], 0);
	CHECK_EQ_U(c.unexplained, 0);
	counts_fail = false;
}

/* A counter that moved in a calm stretch, with no gap, is not credited to
 * a gap long after it: the counters are read afresh every `rebase` ticks of
 * calm loop. Without those reads (rebase 0) it would be. */
TEST(calm_stretch_is_not_credited)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, fake_counts, COUNTED, 0 };
	for (int with = 1; with >= 0; with--) {
		clock_reset(STEP);
		counters_reset();
		cfg_for(&cfg, 500, 20000);
		cfg.rebase = with ? 500 : 0;        /* a read every 50 ordinary iterations */
		jump(150, 0, &counter[GAPS_INTERRUPT]); /* it moved, and the loop lost nothing */
		jump(300, 2000, 0);                 /* a gap that nothing counted */
		gaps_spin(&c, &cfg, &ops);
		CHECK_EQ_U(c.count, 1);
		CHECK_EQ_U(c.attributed, 1);
		CHECK_EQ_U(c.cause[GAPS_INTERRUPT], with ? 0 : 1);
		CHECK_EQ_U(c.unexplained, with ? 1 : 0);
		CHECK(with ? c.reads > 30 : c.reads == 1); /* 20000 ticks of reads every 510 */
		CHECK_EQ_U(c.stalls, 0);
		CHECK_EQ_U(c.lost, 2000);           /* the reads cost no lost time */
	}
}

/* A stall in the bookkeeping after a gap is a gap of its own, credited with
 * what moved in it; the gap before it keeps only what moved in itself. */
TEST(stall_is_credited_with_what_moved_in_it)
{
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, fake_counts, COUNTED, 0 };
	clock_reset(STEP);
	counters_reset();
	cfg_for(&cfg, 500, 20000);
	jump(100, 2000, 0);                         /* a gap nothing counted ... */
	jump(101, 3000, &counter[GAPS_INTERRUPT]);  /* ... and an interrupt while it was noted */
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.stalls, 1);
	CHECK_EQ_U(c.count, 2);
	CHECK_EQ_U(c.attributed, 2);
	CHECK_EQ_U(c.cause[GAPS_INTERRUPT], 1);
	CHECK_EQ_U(c.unexplained, 1);
	CHECK_EQ_U(c.lost, 2000 + 3010);            /* the gap beyond base, the stall's excess over its cost (0) */
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
	clock_reset(STEP);
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
	/* Nothing counted: no read after a gap, none on a calm stretch, every long gap unexplained. */
	struct gaps_cfg cfg;
	struct gaps_cpu c;
	struct gaps_ops ops = { fake_clock, disturb_read, 0, 0 };
	clock_reset(STEP);
	cfg_for(&cfg, 1000, 100000);
	cfg.rebase = 500;
	jump(100, 50000, &smi_count);
	gaps_spin(&c, &cfg, &ops);
	CHECK_EQ_U(c.reads, 0);
	CHECK_EQ_U(c.unexplained, 1);
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
	RUN(attribution_names_what_moved_in_the_gap);
	RUN(calm_stretch_is_not_credited);
	RUN(stall_is_credited_with_what_moved_in_it);
	RUN(bare_metal_attributes_smis);
	RUN(bare_metal_without_an_smi_counter);
	return check_summary("gaps_attr");
}
