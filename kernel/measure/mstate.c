/* mstate.c - turbo and prefetcher controls decided from CPUID, planned as
 * masked MSR writes, applied and restored bit-exactly per CPU (Intel SDM
 * vol. 4 IA32_MISC_ENABLE[38] and MSR_MISC_FEATURE_CONTROL; Intel's
 * "Disclosure of H/W prefetcher control on some Intel processors", 2014;
 * AMD APM vol. 2 HWCR[25] CpbDis; AMD family 19h PPR MSRC000_0108). */
#include "mstate.h"
#include "lib.h"
#include "msr.h"

/* ---- Constants ------------------------------------------------------------- */

#define INTEL_FAMILY_6 6
#define AMD_PF_FAMILY_FIRST 0x19	/* family 19h (Zen 3/4) PPR documents MSRC000_0108 */
#define AMD_PF_FAMILY_LAST 0x1A		/* family 1Ah (Zen 5) PPR keeps it */

#define INTEL_PF_CORE (MISC_FEATURE_L2_HW_PF_DIS | MISC_FEATURE_L2_ADJ_PF_DIS | \
		       MISC_FEATURE_DCU_PF_DIS | MISC_FEATURE_DCU_IP_PF_DIS)
/* Goldmont and Goldmont Plus: bit 1 and bit 3 are reserved (SDM vol. 4, as
 * Linux resctrl quotes it in get_prefetch_disable_bits()). */
#define INTEL_PF_GOLDMONT (MISC_FEATURE_L2_HW_PF_DIS | MISC_FEATURE_DCU_PF_DIS)
#define AMD_PF_ALL (AMD_PF_L1_STREAM_DIS | AMD_PF_L1_STRIDE_DIS | \
		    AMD_PF_L1_REGION_DIS | AMD_PF_L2_STREAM_DIS | AMD_PF_UP_DOWN_DIS)

/* ---- Private Variables ----------------------------------------------------- */

/*
 * Family 6 models whose MSR 0x1A4 Intel documents as prefetcher control.
 * The 2014 disclosure names Nehalem, Westmere, Sandy Bridge, Ivy Bridge,
 * Haswell and Broadwell (bits 0-3); later cores are not in it, so they are
 * reported unavailable rather than guessed.
 */
static const struct {
	uint8_t model;
	uint64_t bits;
	const char *uarch;
} intel_pf_models[] = {
	{ 0x1A, INTEL_PF_CORE, "nehalem-ep" },
	{ 0x1E, INTEL_PF_CORE, "nehalem" },
	{ 0x1F, INTEL_PF_CORE, "nehalem" },
	{ 0x2E, INTEL_PF_CORE, "nehalem-ex" },
	{ 0x25, INTEL_PF_CORE, "westmere" },
	{ 0x2C, INTEL_PF_CORE, "westmere-ep" },
	{ 0x2F, INTEL_PF_CORE, "westmere-ex" },
	{ 0x2A, INTEL_PF_CORE, "sandy bridge" },
	{ 0x2D, INTEL_PF_CORE, "sandy bridge-ep" },
	{ 0x3A, INTEL_PF_CORE, "ivy bridge" },
	{ 0x3E, INTEL_PF_CORE, "ivy bridge-ep" },
	{ 0x3C, INTEL_PF_CORE, "haswell" },
	{ 0x3F, INTEL_PF_CORE, "haswell-ep" },
	{ 0x45, INTEL_PF_CORE, "haswell-ult" },
	{ 0x46, INTEL_PF_CORE, "haswell-gt3e" },
	{ 0x3D, INTEL_PF_CORE, "broadwell" },
	{ 0x47, INTEL_PF_CORE, "broadwell-gt3e" },
	{ 0x4F, INTEL_PF_CORE, "broadwell-ep" },
	{ 0x56, INTEL_PF_CORE, "broadwell-de" },
	{ 0x5C, INTEL_PF_GOLDMONT, "goldmont" },
	{ 0x7A, INTEL_PF_GOLDMONT, "goldmont plus" },
};

static const char why_hypervisor[] = "unavailable: not applicable under a hypervisor";
static const char why_vendor[] = "unavailable: unknown vendor";
static const char status_set[] = "set";
static const char status_kept[] = "kept";
static const char status_safe[] = "safe mode: no MSR writes";

/* ---- Private Functions ----------------------------------------------------- */

static bool bit(uint32_t reg, unsigned n)
{
	return (reg >> n) & 1u;
}

static void detect_intel(const struct cpuid_snap *s, struct mstate_caps *c)
{
	/*
	 * Turbo: CPUID.06H:EAX[1] reads 0 both when the part has no turbo and
	 * when IA32_MISC_ENABLE[38] disables it (SDM vol. 2A, leaf 6). So the
	 * control exists wherever leaf 6 does; mstate_plan() only ever sets
	 * bit 38 when EAX[1] showed turbo on (the bit is then defined), and
	 * clearing it writes nothing when it already reads 0.
	 */
	if (s->have_leaf6) {
		c->turbo = (struct mstate_ctl){ MSR_IA32_MISC_ENABLE, MISC_ENABLE_TURBO_DISABLE,
						"IA32_MISC_ENABLE[38]", NULL };
		c->turbo_reported = bit(s->leaf6.eax, CPUID_6_EAX_TURBO);
	} else {
		c->turbo.why = "unavailable: no CPUID leaf 6";
	}
	c->prefetch.why = "unavailable: model not in Intel's prefetcher-control disclosure";
	if (c->family != INTEL_FAMILY_6)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(intel_pf_models); i++) {
		if (intel_pf_models[i].model == c->model) {
			c->prefetch = (struct mstate_ctl){ MSR_MISC_FEATURE_CONTROL,
							   intel_pf_models[i].bits,
							   "MSR_MISC_FEATURE_CONTROL", NULL };
			c->uarch = intel_pf_models[i].uarch;
			return;
		}
	}
}

static void detect_amd(const struct cpuid_snap *s, struct mstate_caps *c)
{
	if (s->have_ext7 && bit(s->ext7.edx, CPUID_E7_EDX_CPB)) {
		c->turbo = (struct mstate_ctl){ MSR_AMD_HWCR, HWCR_CPB_DIS, "HWCR[25] CpbDis", NULL };
		c->turbo_reported = true;
	} else {
		c->turbo.why = "unavailable: no core performance boost (CPUID 8000_0007h:EDX[9])";
	}
	if (c->vendor == CPU_VENDOR_AMD && c->family >= AMD_PF_FAMILY_FIRST &&
	    c->family <= AMD_PF_FAMILY_LAST)
		c->prefetch = (struct mstate_ctl){ MSR_AMD_PREFETCH_CONTROL, AMD_PF_ALL,
						   "PrefetchControl (MSRC000_0108)", NULL };
	else
		c->prefetch.why = "unavailable: no documented prefetch control for this family";
}

/* Adds the masked write that sets (off) or clears (on) ctl's disable bits. */
static void plan_write(struct mstate_plan *p, const struct mstate_ctl *ctl,
		       bool disable, const char *what)
{
	struct mstate_write *w = &p->w[p->n++];

	w->msr = ctl->msr;
	w->mask = ctl->disable_bits;
	w->value = disable ? ctl->disable_bits : 0;
	w->what = what;
}

/* Returns the status of a keep/safe/unavailable setting, or NULL to plan. */
static const char *plan_gate(bool keep, bool safe, const struct mstate_ctl *ctl)
{
	if (keep)
		return status_kept;
	if (safe)
		return status_safe;
	if (!ctl->msr)
		return ctl->why ? ctl->why : "unavailable";
	return NULL;
}

/* ---- Public Functions ------------------------------------------------------ */

struct mstate_caps mstate_detect(const struct cpuid_snap *s)
{
	struct mstate_caps c;

	memset(&c, 0, sizeof(c));
	c.vendor = cpuid_snap_vendor(s);
	c.family = cpuid_snap_family(s);
	c.model = cpuid_snap_model(s);
	c.hypervisor = cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR);
	/* An emulated MSR may read 0 and swallow writes (QEMU TCG): decide
	 * nothing from it. */
	if (c.hypervisor) {
		c.turbo.why = c.prefetch.why = why_hypervisor;
	} else if (c.vendor == CPU_VENDOR_INTEL) {
		detect_intel(s, &c);
	} else if (cpu_vendor_is_amd(c.vendor)) {
		detect_amd(s, &c);
	} else {
		c.turbo.why = c.prefetch.why = why_vendor;
	}
	return c;
}

int mstate_plan(const struct mstate_caps *c, enum mstate_turbo t,
		enum mstate_prefetch p, bool safe, struct mstate_plan *out)
{
	const char *st;

	memset(out, 0, sizeof(*out));
	st = plan_gate(t == MSTATE_TURBO_KEEP, safe, &c->turbo);
	if (!st && t == MSTATE_TURBO_OFF && !c->turbo_reported) {
		/* Intel leaf 6 EAX[1] = 0: turbo is absent or already disabled;
		 * bit 38 may be reserved, so it is not set. */
		st = "already off (CPUID.06H:EAX[1] = 0)";
	}
	if (!st) {
		plan_write(out, &c->turbo, t == MSTATE_TURBO_OFF,
			   t == MSTATE_TURBO_OFF ? "turbo off" : "turbo on");
		st = status_set;
	}
	out->turbo_status = st;

	st = plan_gate(p == MSTATE_PREFETCH_KEEP, safe, &c->prefetch);
	if (!st) {
		plan_write(out, &c->prefetch, p == MSTATE_PREFETCH_OFF,
			   p == MSTATE_PREFETCH_OFF ? "prefetch off" : "prefetch on");
		st = status_set;
	}
	out->prefetch_status = st;
	return (int)out->n;
}

void mstate_apply(const struct mstate_plan *p, mstate_rdmsr_fn rd,
		  mstate_wrmsr_fn wr, struct mstate_saved *saved)
{
	memset(saved, 0, sizeof(*saved));
	for (uint32_t i = 0; i < p->n && i < MSTATE_MAX_WRITES; i++) {
		const struct mstate_write *w = &p->w[i];
		uint64_t cur = rd(w->msr);
		uint64_t want = (cur & ~w->mask) | (w->value & w->mask);
		uint64_t changed = cur ^ want;

		saved->e[i].msr = w->msr;
		saved->e[i].changed = changed;
		saved->e[i].old = cur & changed;
		saved->n = i + 1;
		if (changed) {
			wr(w->msr, want);
			saved->msr_writes++;
		}
	}
}

void mstate_restore(struct mstate_saved *saved, mstate_rdmsr_fn rd,
		    mstate_wrmsr_fn wr)
{
	/* Newest first, so two entries on one MSR unwind in order. */
	for (uint32_t i = saved->n; i-- > 0;) {
		uint64_t changed = saved->e[i].changed;
		uint64_t cur, want;

		if (!changed)
			continue;
		cur = rd(saved->e[i].msr);
		want = (cur & ~changed) | saved->e[i].old;
		if (want != cur) {
			wr(saved->e[i].msr, want);
			saved->msr_writes++;
		}
		saved->e[i].changed = 0;	/* a second restore writes nothing */
	}
}

const char *mstate_turbo_name(enum mstate_turbo t)
{
	return t == MSTATE_TURBO_OFF ? "off" : t == MSTATE_TURBO_ON ? "on" : "keep";
}

const char *mstate_prefetch_name(enum mstate_prefetch p)
{
	return p == MSTATE_PREFETCH_OFF ? "off" : p == MSTATE_PREFETCH_ON ? "on" : "keep";
}
