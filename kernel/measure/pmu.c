/* pmu.c - counter detection and per-goal event plans from CPUID (Intel SDM
 * vol. 3B ch. 20 and its table of architectural events; AMD APM vol. 2
 * §13.2, the family 10h-16h BKDGs and 17h/19h PPRs; where the manuals leave
 * a choice, the events Linux programs in arch/x86/events/amd/core.c and
 * uncore.c). */
#include "pmu.h"
#include "fmt.h"
#include "lib.h"
#include "msr.h"

/* ---- Constants ------------------------------------------------------------- */

#define AMD_LEGACY_COUNTERS 4	/* PerfEvtSel0-3: every AMD64 processor */
#define AMD_EXT_COUNTERS 6	/* PerfCtrExtCore: PERF_CTL0-5 */
#define AMD_L3_COUNTERS 6	/* PerfCtrExtLLC: ChL3PmcCfg0-5 (Linux NUM_COUNTERS_L3) */
#define AMD_COUNTER_WIDTH 48	/* APM vol. 2 §13.2.1: 48-bit PerfCtr */
#define AMD_FAMILY_ZEN 0x17	/* 17h Zen/Zen 2, 18h Hygon, 19h Zen 3/4, 1Ah Zen 5 */
#define AMD_FAMILY_19H 0x19
#define AMD_FAMILY_1AH 0x1A
#define AMD_FAMILY_HYGON 0x18
#define INTEL_V2_FIXED_MIN 3	/* Linux: "v2 perfmon does not report fixed-purpose events" */

/* Every GP select counts in ring 0 and ring 3, enabled. */
#define EVTSEL_COUNT (PERFEVTSEL_USR | PERFEVTSEL_OS | PERFEVTSEL_EN)

/* Intel architectural events (SDM vol. 3B table "UnHalted Core Cycles" ...):
 * their bit in CPUID.0AH:EBX and the fixed counter that also counts them. */
enum { ARCH_CYCLES = 0, ARCH_INSNS = 1, ARCH_LLC_REF = 3, ARCH_LLC_MISS = 4 };
#define FIXED_INSNS 0		/* IA32_FIXED_CTR0: INST_RETIRED.ANY */
#define FIXED_CYCLES 1		/* IA32_FIXED_CTR1: CPU_CLK_UNHALTED.THREAD */
#define NO_FIXED (-1)

#define MAX_GOAL_EVENTS 3
#define PMU_TEST_VALUE 0xabcdull	/* written and read back, as Linux's check_hw_exists */

/* ---- Types ----------------------------------------------------------------- */

/* One event as the manuals name it. */
struct ev_code {
	const char *name;
	uint16_t event;		/* event select, up to 12 bits on AMD */
	uint8_t umask;
	int8_t arch_bit;	/* Intel: bit in CPUID.0AH:EBX; -1 for AMD */
	int8_t fixed;		/* Intel fixed counter, or NO_FIXED */
	bool l3;		/* AMD L3 PMC event */
};

/* A goal's events on one kind of PMU, the note that says what stands in for
 * what, and why the goal cannot be met at all. */
struct goal_def {
	const struct ev_code *ev[MAX_GOAL_EVENTS];
	const char *note;
	const char *why;
};

/* Planning state: the plan and the next free GP and L3 counters. */
struct plan_ctx {
	const struct pmu_caps *c;
	struct pmu_plan *p;
	uint32_t gp, l3;
};

/* ---- Private Variables ----------------------------------------------------- */

static const struct ev_code intel_cycles = { "cycles", 0x3C, 0x00, ARCH_CYCLES, FIXED_CYCLES, false };
static const struct ev_code intel_insns = { "instructions", 0xC0, 0x00, ARCH_INSNS, FIXED_INSNS, false };
static const struct ev_code intel_llc_ref = { "llc_references", 0x2E, 0x4F, ARCH_LLC_REF, NO_FIXED, false };
static const struct ev_code intel_llc_miss = { "llc_misses", 0x2E, 0x41, ARCH_LLC_MISS, NO_FIXED, false };

/* AMD family 17h and later (PPR 17h model 01h, 19h model 01h/11h). */
static const struct ev_code zen_cycles = { "cycles", 0x076, 0x00, -1, NO_FIXED, false };	/* LsNotHaltedCyc */
static const struct ev_code zen_insns = { "instructions", 0x0C0, 0x00, -1, NO_FIXED, false };	/* ExRetInstr */
/* PMCx060 L2RequestG1: RdBlkL 0x80 | RdBlkX 0x40 | ChangeToX 0x08, the L2
 * requests made by data cache misses (Linux's L1D read miss for 17h+). */
static const struct ev_code zen_l1d_miss = { "l1d_misses", 0x060, 0xC8, -1, NO_FIXED, false };
/* PMCx064 L2CacheReqStat LsRdBlkC 0x08: data cache requests that miss in L2. */
static const struct ev_code zen_l2_miss = { "l2_misses", 0x064, 0x08, -1, NO_FIXED, false };
/* PMCx045 LsL1DTlbMiss: all L1 DTLB misses 0xFF; the L2 DTLB misses (page
 * walks) are the four "L2 miss" reload types 0xF0. */
static const struct ev_code zen_dtlb_miss = { "dtlb_misses", 0x045, 0xFF, -1, NO_FIXED, false };
static const struct ev_code zen_dtlb_walk = { "dtlb_walks", 0x045, 0xF0, -1, NO_FIXED, false };
/* PMCx043 demand data cache fills served by another cache: 17h
 * LsRefillsFromSys LsMabRespLclCache 0x02 | LsMabRespRmtCache 0x10; 19h
 * LsDmndFillsFromSys IntCache 0x02 | ExtCacheLocal 0x04 | ExtCacheRemote 0x10. */
static const struct ev_code zen17_coh_fill = { "coherence_fills", 0x043, 0x12, -1, NO_FIXED, false };
static const struct ev_code zen19_coh_fill = { "coherence_fills", 0x043, 0x16, -1, NO_FIXED, false };
/* L3 PMC: L3PMCx04 L3LookupState 0xFF all requests; misses are
 * L3PMCx06 L3CombClstrState RequestMiss 0x01 up to Zen 3 and
 * L3PMCx04 L3LookupState L3Miss 0x01 from Zen 4 (perf amdzen3/4 tables). */
static const struct ev_code zen_l3_ref = { "llc_references", 0x04, 0xFF, -1, NO_FIXED, true };
static const struct ev_code zen3_l3_miss = { "llc_misses", 0x06, 0x01, -1, NO_FIXED, true };
static const struct ev_code zen4_l3_miss = { "llc_misses", 0x04, 0x01, -1, NO_FIXED, true };

/* AMD K8 .. family 16h (BKDGs; Linux amd_perfmon_event_map and
 * amd_hw_cache_event_ids). */
static const struct ev_code k8_cycles = { "cycles", 0x076, 0x00, -1, NO_FIXED, false };	/* CPU Clocks not Halted */
static const struct ev_code k8_insns = { "instructions", 0x0C0, 0x00, -1, NO_FIXED, false };	/* Retired Instructions */
static const struct ev_code k8_l1d_miss = { "l1d_misses", 0x041, 0x01, -1, NO_FIXED, false };	/* Data Cache Misses */
static const struct ev_code k8_l2_req = { "l2_requests", 0x07D, 0x03, -1, NO_FIXED, false };	/* Requests to L2: IC + DC */
static const struct ev_code k8_l2_miss = { "l2_misses", 0x07E, 0x03, -1, NO_FIXED, false };	/* L2 Cache Misses: IC + DC */
static const struct ev_code k8_dtlb_miss = { "dtlb_misses", 0x046, 0x07, -1, NO_FIXED, false };	/* L1 and L2 DTLB Miss */

static const char *const goal_names[PMU_GOAL_COUNT] = {
	[PMU_GOAL_CYCLES_INSNS] = "cycles",
	[PMU_GOAL_LLC] = "llc",
	[PMU_GOAL_COHERENCE] = "coherence",
	[PMU_GOAL_L1L2] = "l1l2",
	[PMU_GOAL_TLB] = "tlb",
};

/* ---- Private Functions ----------------------------------------------------- */

static bool amd_is_zen4_or_later(const struct pmu_caps *c)
{
	/* Linux bsp_init_amd(): 19h models 10h-1Fh and 60h-AFh are Zen 4. */
	if (c->family >= AMD_FAMILY_1AH)
		return true;
	return c->family == AMD_FAMILY_19H &&
	       ((c->model >= 0x10 && c->model <= 0x1F) ||
		(c->model >= 0x60 && c->model <= 0xAF));
}

/* The L3 PMC bits that count every slice and thread of the L3 (Linux
 * l3_thread_slice_mask()); 0 for a family whose format we do not know. */
static uint64_t amd_l3_all_mask(const struct pmu_caps *c)
{
	if (c->family == AMD_FAMILY_ZEN || c->family == AMD_FAMILY_HYGON)
		return L3_PMC_17H_SLICE_MASK | L3_PMC_17H_THREAD_MASK;
	if (c->family == AMD_FAMILY_19H || c->family == AMD_FAMILY_1AH)
		return L3_PMC_19H_EN_ALL_SLICES | L3_PMC_19H_EN_ALL_CORES |
		       L3_PMC_19H_THREAD_MASK;
	return 0;
}

static void amd_goal(const struct pmu_caps *c, enum pmu_goal g, struct goal_def *d)
{
	bool zen = c->family >= AMD_FAMILY_ZEN;
	bool l3 = zen && c->n_l3 && amd_l3_all_mask(c);

	memset(d, 0, sizeof(*d));
	switch (g) {
	case PMU_GOAL_CYCLES_INSNS:
		d->ev[0] = zen ? &zen_cycles : &k8_cycles;
		d->ev[1] = zen ? &zen_insns : &k8_insns;
		break;
	case PMU_GOAL_LLC:
		if (l3) {
			d->ev[0] = &zen_l3_ref;
			d->ev[1] = amd_is_zen4_or_later(c) ? &zen4_l3_miss : &zen3_l3_miss;
			d->note = "l3 counters count every core sharing the L3";
		} else if (zen) {
			d->ev[0] = &zen_l2_miss;
			d->note = c->n_l3 ? "llc via l2_misses: l3 event format unknown for this family"
					  : "llc via l2_misses: no l3 counters (PerfCtrExtLLC)";
		} else {
			d->ev[0] = &k8_l2_req;
			d->ev[1] = &k8_l2_miss;
			d->note = "llc via l2_requests and l2_misses";
		}
		break;
	case PMU_GOAL_COHERENCE:
		if (zen && c->family <= AMD_FAMILY_19H) {
			d->ev[0] = c->family == AMD_FAMILY_19H ? &zen19_coh_fill : &zen17_coh_fill;
			d->ev[1] = &zen_l2_miss;
			d->note = "coherence via demand fills from L3 or another core's cache (PMCx043)";
		} else {
			d->ev[0] = zen ? &zen_l2_miss : &k8_l2_miss;
			d->note = "coherence via l2_misses";
		}
		break;
	case PMU_GOAL_L1L2:
		d->ev[0] = zen ? &zen_l1d_miss : &k8_l1d_miss;
		d->ev[1] = zen ? &zen_l2_miss : &k8_l2_miss;
		break;
	case PMU_GOAL_TLB:
		d->ev[0] = zen ? &zen_dtlb_miss : &k8_dtlb_miss;
		d->ev[1] = zen ? &zen_dtlb_walk : NULL;
		break;
	default:
		d->why = "unknown goal";
		break;
	}
}

static void intel_goal(enum pmu_goal g, struct goal_def *d)
{
	memset(d, 0, sizeof(*d));
	switch (g) {
	case PMU_GOAL_CYCLES_INSNS:
		d->ev[0] = &intel_cycles;
		d->ev[1] = &intel_insns;
		d->why = "intel: cycles and instructions unavailable (CPUID.0AH)";
		break;
	case PMU_GOAL_LLC:
		d->ev[0] = &intel_llc_ref;
		d->ev[1] = &intel_llc_miss;
		d->why = "intel: LLC events unavailable (CPUID.0AH:EBX)";
		break;
	case PMU_GOAL_COHERENCE:
		/* No architectural event counts snoop hits on modified lines. */
		d->ev[0] = &intel_llc_miss;
		d->note = "coherence via llc_misses";
		d->why = "intel: llc_misses unavailable (CPUID.0AH:EBX)";
		break;
	case PMU_GOAL_L1L2:
		d->why = "intel: no architectural L1/L2 event";
		break;
	case PMU_GOAL_TLB:
		d->why = "intel: no architectural TLB event";
		break;
	default:
		d->why = "unknown goal";
		break;
	}
}

static bool intel_arch_has(const struct pmu_caps *c, int bit)
{
	return bit >= 0 && bit < c->arch_len && !((c->arch_unavail >> bit) & 1u);
}

static bool intel_fixed_has(const struct pmu_caps *c, int idx)
{
	return idx != NO_FIXED && c->version >= 2 && ((c->fixed_mask >> idx) & 1u);
}

static uint64_t evtsel(const struct ev_code *e)
{
	return (e->event & PERFEVTSEL_EVENT_MASK) |
	       (uint64_t)e->umask << PERFEVTSEL_UMASK_SHIFT |
	       (uint64_t)(e->event >> 8) << PERFEVTSEL_AMD_EVENT_HI_SHIFT;
}

static void gp_msrs(const struct pmu_caps *c, uint32_t i, uint32_t *sel, uint32_t *ctr)
{
	if (c->kind == PMU_INTEL_ARCH) {
		*sel = MSR_IA32_PERFEVTSEL0 + i;
		*ctr = MSR_IA32_PMC0 + i;
	} else if (c->kind == PMU_AMD_CORE_EXT) {
		*sel = MSR_AMD_PERF_CTL0 + 2 * i;
		*ctr = MSR_AMD_PERF_CTR0 + 2 * i;
	} else {
		*sel = MSR_AMD_PERF_LEGACY_CTL0 + i;
		*ctr = MSR_AMD_PERF_LEGACY_CTR0 + i;
	}
}

/* Adds e on a fixed, GP or L3 counter; returns false when it has none. */
static bool plan_add(struct plan_ctx *x, const struct ev_code *e)
{
	const struct pmu_caps *c = x->c;
	struct pmu_plan *p = x->p;
	struct pmu_event *ev;

	if (p->n >= PMU_MAX_EVENTS)
		return false;
	ev = &p->ev[p->n];
	memset(ev, 0, sizeof(*ev));
	ev->name = e->name;
	ev->event = e->event;
	ev->umask = e->umask;
	if (c->kind == PMU_INTEL_ARCH && intel_fixed_has(c, e->fixed)) {
		uint32_t shift = (uint32_t)e->fixed * FIXED_CTR_CTRL_BITS;

		ev->fixed = true;
		ev->sel_msr = MSR_IA32_FIXED_CTR_CTRL;
		ev->sel_mask = 0xFull << shift;
		ev->sel_value = (FIXED_CTR_CTRL_OS | FIXED_CTR_CTRL_USR) << shift;
		ev->ctr_msr = MSR_IA32_FIXED_CTR0 + (uint32_t)e->fixed;
		ev->width = c->fixed_width;
		p->global_value |= 1ull << (PERF_GLOBAL_CTRL_FIXED_SHIFT + e->fixed);
	} else if (e->l3) {
		if (x->l3 >= c->n_l3)
			return false;
		ev->scope = PMU_SCOPE_L3;
		ev->sel_msr = MSR_AMD_L3_PMC_CFG0 + 2 * x->l3;
		ev->ctr_msr = MSR_AMD_L3_PMC0 + 2 * x->l3;
		ev->sel_mask = ~0ull;
		/* The L3 PMC has no ring filter: only the event, mask and En. */
		ev->sel_value = evtsel(e) | PERFEVTSEL_EN | amd_l3_all_mask(c);
		ev->width = AMD_COUNTER_WIDTH;
		x->l3++;
	} else {
		if (x->gp >= c->n_gp ||
		    (c->kind == PMU_INTEL_ARCH && !intel_arch_has(c, e->arch_bit)))
			return false;
		gp_msrs(c, x->gp, &ev->sel_msr, &ev->ctr_msr);
		ev->sel_mask = ~0ull;
		ev->sel_value = evtsel(e) | EVTSEL_COUNT;
		ev->width = c->gp_width;
		p->global_value |= 1ull << x->gp;
		x->gp++;
	}
	p->n++;
	return true;
}

/* Bits set in v (no __builtin_popcount: without POPCNT it calls libgcc). */
static unsigned bit_count(uint32_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static void describe(struct pmu_caps *c)
{
	static const char *const amd_kind[] = { "amd legacy", "amd core ext", "amd perfmon v2" };
	size_t n;

	switch (c->kind) {
	case PMU_INTEL_ARCH:
		n = (size_t)fmt_snprintf(c->desc, sizeof(c->desc),
					 "intel arch v%u, %u gp x %u bit", c->version,
					 c->n_gp, c->gp_width);
		if (c->n_fixed && n < sizeof(c->desc))
			fmt_snprintf(c->desc + n, sizeof(c->desc) - n, ", %u fixed",
				     bit_count(c->fixed_mask));
		break;
	case PMU_AMD_LEGACY:
	case PMU_AMD_CORE_EXT: {
		const char *k = amd_kind[c->version >= 2 ? 2 : c->kind == PMU_AMD_CORE_EXT];

		n = (size_t)fmt_snprintf(c->desc, sizeof(c->desc), "%s, %u gp", k, c->n_gp);
		if (c->n_l3 && n < sizeof(c->desc))
			fmt_snprintf(c->desc + n, sizeof(c->desc) - n, ", l3 %u", c->n_l3);
		break;
	}
	default:
		fmt_snprintf(c->desc, sizeof(c->desc), "none");
		break;
	}
}

static void detect_intel(const struct cpuid_snap *s, struct pmu_caps *c)
{
	const struct cpuid_regs *a = &s->leafa;

	if (!s->have_leafa) {
		c->why = "no CPUID leaf 0xA";
		return;
	}
	c->version = (uint8_t)CPUID_FIELD(a->eax, CPUID_A_EAX_VERSION);
	if (c->version == 0) {
		c->why = "CPUID.0AH version 0";
		return;
	}
	c->n_gp = (uint8_t)CPUID_FIELD(a->eax, CPUID_A_EAX_GP_COUNT);
	c->gp_width = (uint8_t)CPUID_FIELD(a->eax, CPUID_A_EAX_GP_WIDTH);
	c->arch_len = (uint8_t)CPUID_FIELD(a->eax, CPUID_A_EAX_EBX_LEN);
	c->arch_unavail = a->ebx;
	if (c->version >= 2) {
		uint32_t nf = CPUID_FIELD(a->edx, CPUID_A_EDX_FIXED_COUNT);

		if (c->version == 2 && nf < INTEL_V2_FIXED_MIN)
			nf = INTEL_V2_FIXED_MIN;
		c->fixed_width = (uint8_t)CPUID_FIELD(a->edx, CPUID_A_EDX_FIXED_WIDTH);
		if (!c->fixed_width)
			c->fixed_width = c->gp_width;
		c->fixed_mask = nf >= 32 ? ~0u : (1u << nf) - 1;
		/* Version 5: fixed counter i exists if ECX[i] or EDX[4:0] > i. */
		if (c->version >= 5)
			c->fixed_mask |= a->ecx;
		c->n_fixed = (uint8_t)(c->fixed_mask ? 32 - __builtin_clz(c->fixed_mask) : 0);
		c->global_ctrl = true;
	}
	if (!c->n_gp && !c->fixed_mask) {
		c->why = "CPUID.0AH reports no counters";
		return;
	}
	c->kind = PMU_INTEL_ARCH;
}

static void detect_amd(const struct cpuid_snap *s, struct pmu_caps *c)
{
	uint32_t ecx = s->have_ext1 ? s->ext1.ecx : 0;

	c->kind = PMU_AMD_LEGACY;
	c->version = 1;
	c->n_gp = AMD_LEGACY_COUNTERS;
	c->gp_width = AMD_COUNTER_WIDTH;
	if ((ecx >> CPUID_E1_ECX_PERFCTR_CORE) & 1u) {
		c->kind = PMU_AMD_CORE_EXT;
		c->n_gp = AMD_EXT_COUNTERS;
		if (s->have_ext22 && ((s->ext22.eax >> CPUID_E22_EAX_PERFMON_V2) & 1u)) {
			uint32_t n = CPUID_FIELD(s->ext22.ebx, CPUID_E22_EBX_CORE_COUNT);

			c->version = 2;
			c->global_ctrl = true;
			if (n)
				c->n_gp = (uint8_t)n;
		}
	}
	/* Bit 28 named the L2I counters on family 16h; it is the L3 from 17h. */
	if (((ecx >> CPUID_E1_ECX_PERFCTR_LLC) & 1u) && c->family >= AMD_FAMILY_ZEN)
		c->n_l3 = AMD_L3_COUNTERS;
}

/* pmu_detect, with the hypervisor gate (the kernel) or without (under an OS). */
static struct pmu_caps detect(const struct cpuid_snap *s, bool gate_hypervisor)
{
	struct pmu_caps c;

	memset(&c, 0, sizeof(c));
	c.vendor = cpuid_snap_vendor(s);
	c.family = cpuid_snap_family(s);
	c.model = cpuid_snap_model(s);
	if (gate_hypervisor && cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR))
		c.why = "hypervisor: counters are virtual or absent";
	else if (c.vendor == CPU_VENDOR_INTEL)
		detect_intel(s, &c);
	else if (cpu_vendor_is_amd(c.vendor))
		detect_amd(s, &c);
	else
		c.why = "unknown vendor";
	if (c.kind == PMU_NONE) {
		c.version = 0;
		c.n_gp = c.n_fixed = c.n_l3 = 0;
		c.fixed_mask = 0;
		c.global_ctrl = false;
	}
	describe(&c);
	return c;
}

/* ---- Public Functions ------------------------------------------------------ */

struct pmu_caps pmu_detect(const struct cpuid_snap *s)
{
	return detect(s, true);
}

struct pmu_caps pmu_detect_os(const struct cpuid_snap *s)
{
	return detect(s, false);
}

const char *pmu_describe(const struct pmu_caps *c)
{
	return c->desc[0] ? c->desc : "none";
}

const char *pmu_goal_name(enum pmu_goal g)
{
	return (unsigned)g < PMU_GOAL_COUNT ? goal_names[g] : "?";
}

int pmu_plan(const struct pmu_caps *c, enum pmu_goal g, struct pmu_plan *out)
{
	struct plan_ctx x = { c, out, 0, 0 };
	struct goal_def d;
	bool intel = c->kind == PMU_INTEL_ARCH;

	memset(out, 0, sizeof(*out));
	if (c->kind == PMU_NONE) {
		out->why = c->why ? c->why : "no pmu";
		return 0;
	}
	if (intel)
		intel_goal(g, &d);
	else
		amd_goal(c, g, &d);
	for (size_t i = 0; i < MAX_GOAL_EVENTS; i++)
		if (d.ev[i])
			plan_add(&x, d.ev[i]);
	if (out->n == 0) {
		out->why = d.why ? d.why : "no free counter";
		return 0;
	}
	out->note = d.note;
	/* Cycles and instructions give every goal its rates. */
	if (g != PMU_GOAL_CYCLES_INSNS) {
		bool zen = c->family >= AMD_FAMILY_ZEN;

		plan_add(&x, intel ? &intel_cycles : zen ? &zen_cycles : &k8_cycles);
		plan_add(&x, intel ? &intel_insns : zen ? &zen_insns : &k8_insns);
	}
	if (c->global_ctrl)
		out->global_msr = intel ? MSR_IA32_PERF_GLOBAL_CTRL : MSR_AMD_PERF_CNTR_GLOBAL_CTL;
	else
		out->global_value = 0;
	return (int)out->n;
}

void pmu_start(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd,
	       pmu_wrmsr_fn wr)
{
	if (p->global_msr)
		wr(p->global_msr, 0);
	for (uint32_t i = 0; i < p->n; i++) {
		const struct pmu_event *e = &p->ev[i];

		if (e->scope == PMU_SCOPE_L3 && !with_l3)
			continue;
		if (e->fixed) {
			uint64_t v = rd(e->sel_msr) & ~e->sel_mask;

			wr(e->sel_msr, v);
			wr(e->ctr_msr, 0);
			wr(e->sel_msr, v | e->sel_value);
		} else {
			wr(e->sel_msr, 0);
			wr(e->ctr_msr, 0);
			wr(e->sel_msr, e->sel_value);
		}
	}
	if (p->global_msr)
		wr(p->global_msr, p->global_value);
}

void pmu_read(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd, uint64_t *vals)
{
	for (uint32_t i = 0; i < p->n; i++)
		vals[i] = p->ev[i].scope == PMU_SCOPE_L3 && !with_l3 ? 0 : rd(p->ev[i].ctr_msr);
}

void pmu_l3_counting(const uint32_t *l3_of, uint32_t n, bool *seen, uint32_t n_l3, bool *counts)
{
	for (uint32_t i = 0; i < n_l3; i++)
		seen[i] = false;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t l3 = l3_of[k];
		counts[k] = l3 < n_l3 && !seen[l3];
		if (counts[k])
			seen[l3] = true;
	}
}

void pmu_stop(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd,
	      pmu_wrmsr_fn wr)
{
	if (p->global_msr)
		wr(p->global_msr, 0);
	for (uint32_t i = 0; i < p->n; i++) {
		const struct pmu_event *e = &p->ev[i];

		if (e->scope == PMU_SCOPE_L3 && !with_l3)
			continue;
		if (e->fixed)
			wr(e->sel_msr, rd(e->sel_msr) & ~e->sel_mask);
		else
			wr(e->sel_msr, 0);
	}
}

/* The bits of an event's select that say it counts: a fixed counter's
 * OS/USR field, or a general-purpose or L3 select's enable bit. */
static uint64_t enable_bits(const struct pmu_event *e)
{
	return e->fixed ? e->sel_value : PERFEVTSEL_EN;
}

uint32_t pmu_in_use(const struct pmu_plan *p, bool with_l3, pmu_rdmsr_fn rd)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct pmu_event *e = &p->ev[i];

		if (e->scope == PMU_SCOPE_L3 && !with_l3)
			continue;
		if (rd(e->sel_msr) & enable_bits(e))
			return e->sel_msr;
	}
	return 0;
}

bool pmu_counter_holds(const struct pmu_plan *p, pmu_rdmsr_fn rd, pmu_wrmsr_fn wr)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct pmu_event *e = &p->ev[i];

		if (e->scope == PMU_SCOPE_L3)
			continue;
		uint64_t old = rd(e->ctr_msr);
		wr(e->ctr_msr, PMU_TEST_VALUE);
		bool held = rd(e->ctr_msr) == PMU_TEST_VALUE;
		wr(e->ctr_msr, old);
		return held;
	}
	return true;
}

uint64_t pmu_delta(const struct pmu_event *e, uint64_t before, uint64_t after)
{
	uint64_t mask = e->width >= 64 || e->width == 0 ? ~0ull : (1ull << e->width) - 1;

	return (after - before) & mask;
}
