/* tsc_choice.c - which TSC frequency to trust and how to fence RDTSC, from CPUID alone; see tsc_choice.h. */
#include "tsc_choice.h"

/* ---- Constants ------------------------------------------------------------ */
#define MHZ 1000000ull
#define PPM 1000000ull
#define LEAF16_BASE_MHZ 0xffffu        /* leaf 16h EAX[15:0]: base frequency in MHz */
#define AMD_FAMILY_LFENCE_OLD 0x0f     /* K8: LFENCE serialising, no DE_CFG */
#define AMD_FAMILY_DE_CFG_FIRST 0x10   /* family 10h: the first with DE_CFG[1] */
#define AMD_FAMILY_NO_DE_CFG 0x11      /* family 11h: LFENCE serialising, no DE_CFG */

/* ---- Public Functions ----------------------------------------------------- */
void tsc_choice_cpuid(const struct cpuid_snap *s, struct tsc_cpuid_freq *out)
{
	out->hz = 0;
	out->exact = false;
	out->leaf = 0;
	if (s->have_leaf15 && s->leaf15.eax && s->leaf15.ebx && s->leaf15.ecx) {
		out->hz = (uint64_t)s->leaf15.ecx * s->leaf15.ebx / s->leaf15.eax;
		out->exact = true;
		out->leaf = "15h";
		return;
	}
	/* Leaf 16h is the base frequency rounded to a MHz, and knows nothing of
	 * the real BCLK: an estimate whether or not leaf 15h gave a ratio. */
	if (s->have_leaf16 && (s->leaf16.eax & LEAF16_BASE_MHZ)) {
		out->hz = (uint64_t)(s->leaf16.eax & LEAF16_BASE_MHZ) * MHZ;
		out->leaf = "16h";
	}
}

void tsc_choice_pick(const struct tsc_cpuid_freq *c, uint64_t measured_hz, const char *timer_name,
		     struct tsc_pick *out)
{
	out->have_ppm = c->hz && measured_hz;
	out->disagree_ppm = 0;
	if (out->have_ppm) {
		uint64_t d = c->hz > measured_hz ? c->hz - measured_hz : measured_hz - c->hz;
		/* d < 2^64 / 10^6 for any real clock (below 18 THz). */
		out->disagree_ppm = (d * PPM + measured_hz / 2) / measured_hz;
	}
	out->disagree = out->disagree_ppm > TSC_CHOICE_DISAGREE_PPM;
	if (c->exact) {
		out->hz = c->hz;
		out->source = "cpuid-15h";
	} else if (measured_hz) {
		out->hz = measured_hz;
		out->source = timer_name;
	} else if (c->hz) {
		out->hz = c->hz;
		out->source = "cpuid-16h";
	} else {
		out->hz = 0;
		out->source = "unknown";
	}
}

enum tsc_fence_need tsc_choice_fence_need(const struct cpuid_snap *s)
{
	enum cpu_vendor v = cpuid_snap_vendor(s);
	if (v == CPU_VENDOR_INTEL)
		return TSC_FENCE_NEED_NONE; /* SDM vol. 2B LFENCE: no later instruction begins until it completes */
	if (!cpu_vendor_is_amd(v))
		return TSC_FENCE_NEED_MFENCE;
	uint32_t f = cpuid_snap_family(s);
	if (s->have_ext21 && (s->ext21.eax & (1u << CPUID_E21_EAX_LFENCE_ALWAYS_SERIALIZING)))
		return TSC_FENCE_NEED_NONE;
	if (f <= AMD_FAMILY_LFENCE_OLD || f == AMD_FAMILY_NO_DE_CFG)
		return TSC_FENCE_NEED_NONE;
	/* 10h, 12h-18h as the brief and AMD's paper say; later families without
	 * EAX[2] too, as Linux sets the bit on every family that has the MSR. */
	return f >= AMD_FAMILY_DE_CFG_FIRST ? TSC_FENCE_NEED_DE_CFG : TSC_FENCE_NEED_MFENCE;
}

enum tsc_fence tsc_choice_fence(enum tsc_fence_need need, enum tsc_de_cfg de_cfg)
{
	switch (need) {
	case TSC_FENCE_NEED_NONE:
		return TSC_FENCE_LFENCE_ARCH;
	case TSC_FENCE_NEED_DE_CFG:
		return de_cfg == TSC_DE_CFG_SET ? TSC_FENCE_LFENCE_DE_CFG
		     : de_cfg == TSC_DE_CFG_BY_OS ? TSC_FENCE_LFENCE_OS : TSC_FENCE_MFENCE_LFENCE;
	default:
		return TSC_FENCE_MFENCE_LFENCE;
	}
}

const char *tsc_choice_fence_name(enum tsc_fence f)
{
	switch (f) {
	case TSC_FENCE_LFENCE_ARCH: return "lfence (architectural)";
	case TSC_FENCE_LFENCE_DE_CFG: return "lfence (DE_CFG set)";
	case TSC_FENCE_LFENCE_OS: return "lfence (DE_CFG set by the OS)";
	case TSC_FENCE_MFENCE_LFENCE: return "mfence+lfence";
	}
	return "unknown";
}

const char *tsc_choice_fence_why(enum tsc_fence_need need, enum tsc_de_cfg de_cfg)
{
	if (need == TSC_FENCE_NEED_NONE)
		return 0;
	if (need != TSC_FENCE_NEED_DE_CFG)
		return "LFENCE is not known to order RDTSC on this vendor";
	switch (de_cfg) {
	case TSC_DE_CFG_SET:
		return 0;
	case TSC_DE_CFG_BY_OS:
		return "by the OS: CPUID 8000_0021h:EAX[2] is clear, and Linux sets DE_CFG[1] (MSR C001_1029h) on this "
		       "family (arch/x86/kernel/cpu/amd.c, X86_FEATURE_LFENCE_RDTSC); user space cannot read the MSR to check";
	case TSC_DE_CFG_NOT_TRIED:
		return "safe: no MSR writes, DE_CFG[1] left clear";
	default:
		return "DE_CFG[1] could not be set (#GP, or the write did not stick)";
	}
}
