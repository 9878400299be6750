/* mstate.h - turbo and hardware prefetcher controls: what CPUID says can be
 * controlled, the MSR bits to write for the options, and a per-CPU apply that
 * restores exactly the bits it changed (Intel SDM vol. 4 IA32_MISC_ENABLE and
 * MSR_MISC_FEATURE_CONTROL; Intel's "Disclosure of H/W prefetcher control on
 * some Intel processors"; AMD APM vol. 2 HWCR, family 19h PPR MSRC000_0108).
 * Pure: every MSR access goes through the caller's rd/wr functions. */
#ifndef QB_KERNEL_MSTATE_H
#define QB_KERNEL_MSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuid_snap.h"

#define MSTATE_MAX_WRITES 4	/* entries in one plan */

enum mstate_turbo { MSTATE_TURBO_KEEP, MSTATE_TURBO_OFF, MSTATE_TURBO_ON };
enum mstate_prefetch { MSTATE_PREFETCH_KEEP, MSTATE_PREFETCH_OFF, MSTATE_PREFETCH_ON };

/* One control: the MSR and the bits that switch the feature OFF when set
 * (every control here is a disable bit). msr == 0: not controllable. */
struct mstate_ctl {
	uint32_t msr;
	uint64_t disable_bits;
	const char *name;	/* "IA32_MISC_ENABLE[38]", "HWCR[25] CpbDis", ... */
	const char *why;	/* when msr == 0: "unavailable: <reason>" */
};

/* What CPUID says can be controlled on this CPU. */
struct mstate_caps {
	enum cpu_vendor vendor;
	uint32_t family, model;
	bool hypervisor;
	struct mstate_ctl turbo;
	bool turbo_reported;	/* Intel CPUID.06H:EAX[1] / AMD CPB: boost exists and is on */
	struct mstate_ctl prefetch;
	const char *uarch;	/* Intel: the prefetch table's microarchitecture, or NULL */
};

/* One masked write: bits mask of msr become value. */
struct mstate_write {
	uint32_t msr;
	uint64_t mask;
	uint64_t value;		/* within mask */
	const char *what;	/* "turbo off", "prefetch on", ... */
};

/* The writes for the chosen options and what the run record should say. */
struct mstate_plan {
	uint32_t n;
	struct mstate_write w[MSTATE_MAX_WRITES];
	const char *turbo_status;	/* "set", "kept", "unavailable: ...", "safe mode: no MSR writes" */
	const char *prefetch_status;
};

/* Per CPU: the old value of exactly the bits apply changed, and the count of
 * MSR writes made (apply and restore together). */
struct mstate_saved {
	uint32_t n;
	struct {
		uint32_t msr;
		uint64_t changed;	/* bits apply flipped; 0: nothing to restore */
		uint64_t old;		/* their value before (within changed) */
	} e[MSTATE_MAX_WRITES];
	uint32_t msr_writes;
};

/* Reads and writes one MSR on the calling CPU (the caller's hardware glue). */
typedef uint64_t (*mstate_rdmsr_fn)(uint32_t msr);
typedef void (*mstate_wrmsr_fn)(uint32_t msr, uint64_t value);

/*
 * Decides from CPUID only what can be controlled: Intel turbo through
 * IA32_MISC_ENABLE[38] (leaf 6 present), AMD boost through HWCR[25] CpbDis
 * (0x80000007 EDX[9] CPB), Intel prefetchers through MSR 0x1A4 on the
 * family 6 models Intel documents, AMD prefetchers through MSRC000_0108 on
 * families 19h and 1Ah. Under a hypervisor nothing is.
 */
struct mstate_caps mstate_detect(const struct cpuid_snap *s);

/*
 * Turns the options into masked writes. Keep, safe mode and unavailable
 * controls plan nothing; each setting gets a status string. Returns the
 * number of writes planned.
 */
int mstate_plan(const struct mstate_caps *c, enum mstate_turbo t,
		enum mstate_prefetch p, bool safe, struct mstate_plan *out);

/*
 * On the calling CPU: reads each planned MSR, remembers the old value of the
 * bits the write changes, and writes only when a bit actually changes.
 */
void mstate_apply(const struct mstate_plan *p, mstate_rdmsr_fn rd,
		  mstate_wrmsr_fn wr, struct mstate_saved *saved);

/*
 * On the same CPU: puts back exactly the bits apply changed, leaving every
 * other bit as it now reads; writes nothing when apply changed nothing.
 */
void mstate_restore(struct mstate_saved *saved, mstate_rdmsr_fn rd,
		    mstate_wrmsr_fn wr);

/* Returns the turbo option's name: "keep", "off" or "on". */
const char *mstate_turbo_name(enum mstate_turbo t);

/* Returns the prefetch option's name: "keep", "off" or "on". */
const char *mstate_prefetch_name(enum mstate_prefetch p);

#endif
