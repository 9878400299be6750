/* noise.h - per-repetition noise accounting: what the CPU can report (from
 * CPUID only), what changed between two samples taken around a timed
 * repetition, and statistics over all and over clean repetitions (Intel SDM
 * vol. 3B ch. 15 "Power and Thermal Management" and vol. 4 MSR tables).
 * Pure: the caller's hardware code fills struct noise_sample. */
#ifndef QB_KERNEL_NOISE_H
#define QB_KERNEL_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuid_snap.h"
#include "stats.h"

/* A repetition is flagged when its frequency moves more than this fraction
 * of the reference. */
#define NOISE_FREQ_TOLERANCE 0.01

/* Reasons in noise_rep.flags. */
#define NOISE_FLAG_SMI		(1u << 0)	/* an SMI ran during the repetition */
#define NOISE_FLAG_FREQ		(1u << 1)	/* frequency beyond NOISE_FREQ_TOLERANCE */
#define NOISE_FLAG_THROTTLE	(1u << 2)	/* thermal or power-limit throttling */
#define NOISE_FLAG_TSC_BACKWARDS (1u << 3)	/* the TSC went backwards */
#define NOISE_FLAG_SWITCH	(1u << 4)	/* Linux twin: the thread was switched out */
#define NOISE_FLAG_MIGRATION	(1u << 5)	/* Linux twin: the thread moved to another CPU */
#define NOISE_FLAG_INTERRUPT	(1u << 6)	/* Linux twin: an interrupt ran on the thread's CPU (irq tracepoints) */
#define NOISE_FLAG_FAULT	(1u << 7)	/* Linux twin: the thread took a page fault (not where faults are measured) */
#define NOISE_FLAG_COUNT	8

/* The sources this CPU reports, from CPUID only (an emulated MSR may read 0). */
struct noise_caps {
	enum cpu_vendor vendor;
	uint32_t family, model;
	bool tsc;		/* CPUID.1:EDX[4] */
	bool aperf;		/* IA32_MPERF 0xE7 / IA32_APERF 0xE8: CPUID.06H:ECX[0] */
	bool smi;		/* MSR_SMI_COUNT 0x34: Intel family 6 model list */
	bool therm;		/* IA32_THERM_STATUS 0x19C: CPUID.06H:EAX[0] DTS */
	bool pkg_therm;		/* IA32_PACKAGE_THERM_STATUS 0x1B1: CPUID.06H:EAX[6] PTM */
	uint64_t therm_status;	/* throttle status bits of IA32_THERM_STATUS this CPU defines */
	uint64_t therm_log;	/* their sticky log bits (software clears them by writing 0) */
	uint64_t pkg_status;	/* the same for IA32_PACKAGE_THERM_STATUS */
	uint64_t pkg_log;
	const char *smi_why;	/* when !smi: why */
};

/* Raw values read on one CPU just before or just after a repetition; a field
 * whose source noise_caps lacks is ignored. */
struct noise_sample {
	uint64_t tsc, aperf, mperf, smi;
	uint64_t therm, pkg_therm;
};

/* What one repetition saw. A have_ flag that is false means "unavailable",
 * and its value is meaningless (never a measured 0). */
struct noise_rep {
	uint64_t tsc_ticks;	/* after - before; 0 when the TSC went backwards */
	bool tsc_backwards;
	bool have_freq;
	double freq_mhz;	/* tsc_hz * dAPERF / dMPERF */
	double freq_dev;	/* (freq - reference) / reference; 0 without a reference */
	bool have_smi;
	uint64_t smis;		/* SMIs during the repetition */
	bool have_therm;
	uint64_t therm_bits;	/* IA32_THERM_STATUS throttle bits seen */
	bool have_pkg_therm;
	uint64_t pkg_therm_bits;
	bool throttled;
	bool have_sched;	/* Linux twin: context switches and migrations were counted */
	uint64_t switches;	/* voluntary and involuntary context switches */
	bool migrated;		/* ran on another CPU at the end than at the start */
	bool have_irq;		/* Linux twin: interrupts were counted (perf's irq tracepoints) */
	uint64_t irqs;		/* interrupts taken while the thread ran */
	bool have_faults;	/* Linux twin: page faults were counted (getrusage) */
	uint64_t faults;	/* minor and major page faults of the thread */
	uint32_t flags;		/* NOISE_FLAG_* */
	bool flagged;
};

/* Statistics over every repetition and over the clean (unflagged) ones. */
struct noise_summary {
	uint64_t n_all, n_clean, n_flagged;
	struct stats all;
	struct stats clean;	/* all zeros when every repetition was flagged */
};

/*
 * Decides from CPUID which noise sources exist: the TSC, APERF/MPERF, the
 * SMI counter (Intel family 6 models from Nehalem and Silvermont on; never
 * on AMD) and the core and package thermal status registers.
 */
struct noise_caps noise_detect(const struct cpuid_snap *s);

/*
 * Compares two samples: the TSC ticks (and whether they went backwards), the
 * effective frequency from APERF/MPERF at tsc_hz, the SMIs, and throttling
 * (log bits newly set, or status bits set in either sample). The repetition
 * is flagged for an SMI, throttling, a backwards TSC, or a frequency further
 * than NOISE_FREQ_TOLERANCE from ref_mhz (the first repetition's or the
 * nominal frequency; ref_mhz <= 0 skips that check).
 */
void noise_delta(const struct noise_caps *c, const struct noise_sample *before,
		 const struct noise_sample *after, uint64_t tsc_hz, double ref_mhz,
		 struct noise_rep *out);

/*
 * The value to write to IA32_THERM_STATUS (pkg false) or
 * IA32_PACKAGE_THERM_STATUS (pkg true), read as v, that clears the sticky
 * log bits this CPU's detector watches (Intel SDM vol. 3B §15.8.5: a log bit
 * is cleared by writing 0 and kept by writing 1; the status bits are
 * read-only). Other log bits are written as read, so they stay. Returns
 * false when none of the watched log bits is set: no write is needed.
 */
bool noise_log_clear(const struct noise_caps *c, bool pkg, uint64_t v, uint64_t *write);

/* Returns the short name of one NOISE_FLAG_* bit ("smi", "freq", ...). */
const char *noise_flag_name(uint32_t flag);

/*
 * Summarises n samples (one per repetition) over all and over those whose
 * flagged[i] is false. scratch needs room for 2 * n values; samples is not
 * modified. n == 0, or no clean repetition, gives zeroed stats.
 */
void noise_stats(const uint64_t *samples, const bool *flagged, size_t n,
		 uint64_t *scratch, struct noise_summary *out);

#endif
