/* tsc_choice.h - the decisions behind the TSC, kept free of hardware so that host tests can drive them: which frequency to trust (Intel SDM vol. 3B §18.17.4, CPUID leaves 15h/16h) and which fence orders RDTSC (Intel SDM vol. 2B RDTSC; AMD, "Software Techniques for Managing Speculation on AMD Processors", 2018). */
#ifndef QB_KERNEL_TSC_CHOICE_H
#define QB_KERNEL_TSC_CHOICE_H

#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"

#define TSC_CHOICE_DISAGREE_PPM 1000 /* 0.1%: beyond this, CPUID and the measurement disagree */

/* What CPUID says about the TSC frequency. */
struct tsc_cpuid_freq {
	uint64_t hz;       /* 0 when CPUID gives nothing */
	bool exact;        /* leaf 15h gave the crystal itself (ECX != 0): hz = ECX * EBX / EAX */
	const char *leaf;  /* "15h" (exact), "16h" (leaf 16h base MHz: rounded, blind to BCLK), or 0 */
};

/* Read leaves 15h and 16h of snapshot s. Leaf 15h without a crystal (ECX = 0)
 * only gives a ratio: the frequency then comes from leaf 16h's base MHz, an
 * estimate, as Linux's native_calibrate_tsc() fills the crystal from it. */
void tsc_choice_cpuid(const struct cpuid_snap *s, struct tsc_cpuid_freq *out);

/* The frequency the run uses, and how far CPUID and the measurement differ. */
struct tsc_pick {
	uint64_t hz;            /* 0 if unknown */
	const char *source;     /* "cpuid-15h", the reference timer's name, "cpuid-16h" (no timer), or "unknown" */
	bool have_ppm;          /* both CPUID and the measurement gave a value */
	uint64_t disagree_ppm;  /* |cpuid - measured| / measured, in parts per million */
	bool disagree;          /* disagree_ppm > TSC_CHOICE_DISAGREE_PPM */
};

/* An exact leaf 15h wins; otherwise the measurement (measured_hz, 0 if
 * none, against timer_name); a CPUID estimate only when nothing was measured. */
void tsc_choice_pick(const struct tsc_cpuid_freq *c, uint64_t measured_hz, const char *timer_name,
		     struct tsc_pick *out);

/* What a CPU needs before LFENCE orders RDTSC. */
enum tsc_fence_need {
	TSC_FENCE_NEED_NONE,     /* LFENCE is serialising by architecture (Intel; AMD 0Fh, 11h, 8000_0021h:EAX[2]) */
	TSC_FENCE_NEED_DE_CFG,   /* AMD/Hygon family 10h, 12h and later: DE_CFG[1] must be set */
	TSC_FENCE_NEED_MFENCE,   /* no documented way: MFENCE;LFENCE (other vendors) */
};
enum tsc_fence_need tsc_choice_fence_need(const struct cpuid_snap *s);

/* How RDTSC is fenced on this run, for the boot record's rdtsc_fence. */
enum tsc_fence {
	TSC_FENCE_LFENCE_ARCH,   /* "lfence (architectural)" */
	TSC_FENCE_LFENCE_DE_CFG, /* "lfence (DE_CFG set)": set by us, or found set */
	TSC_FENCE_LFENCE_OS,     /* "lfence (DE_CFG set by the OS)": the Linux twin; Linux sets it on these families */
	TSC_FENCE_MFENCE_LFENCE, /* "mfence+lfence": DE_CFG not written (safe), not writable, or not sticking */
};

/* What DE_CFG did when asked to make LFENCE serialising. */
enum tsc_de_cfg {
	TSC_DE_CFG_NOT_TRIED,    /* no MSR writes allowed (safe) */
	TSC_DE_CFG_SET,          /* the bit is set now (by us or before us) */
	TSC_DE_CFG_FAILED,       /* #GP, or the bit did not stick (a hypervisor) */
	TSC_DE_CFG_BY_OS,        /* user space: the OS owns it */
};

/* The fence for a CPU that needs `need`, given what DE_CFG did. */
enum tsc_fence tsc_choice_fence(enum tsc_fence_need need, enum tsc_de_cfg de_cfg);

/* The boot record's words for a fence. */
const char *tsc_choice_fence_name(enum tsc_fence f);

/* Why a CPU that needs `need` gets its fence, given what DE_CFG did, for the
 * boot record's rdtsc_fence_why: MFENCE;LFENCE for want of a way, or LFENCE
 * on the OS's word (the Linux twin, which cannot read the MSR and relies on
 * Linux having set the bit); NULL where LFENCE orders RDTSC by architecture
 * (CPUID 8000_0021h:EAX[2] among the reasons) or DE_CFG[1] was read back set. */
const char *tsc_choice_fence_why(enum tsc_fence_need need, enum tsc_de_cfg de_cfg);

#endif
