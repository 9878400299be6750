/* limits.h - what no machine can do: the physical bounds every result's figure is checked against, in one table with the source of each.
 *
 * These are generous bounds of what any x86-64 machine can do, not
 * performance targets: a result past one measured something else than its
 * name says (the Linux twin once timed a read of the shared zero page as
 * "zeroing" at 475 GB/s). A result that breaks one fails its check with the
 * reason (report_measures, kernel/run/report.h). docs/limits.md lists the
 * same table for readers.
 *
 * Layer: measure (kernel/measure/tsc.h). */
#ifndef QB_KERNEL_LIMITS_H
#define QB_KERNEL_LIMITS_H

#include <stddef.h>

enum limit_id {
	LIMIT_NONE,
	LIMIT_ZERO_GBPS,       /* zeroing memory, one core: at most this many GB/s */
	LIMIT_COPY_GBPS,       /* copying memory, one core: at most */
	LIMIT_READ_GBPS,       /* reading memory, per core: at most */
	LIMIT_FAULT_NS,        /* a page fault that maps and zeroes a page: at least */
	LIMIT_TRAP_NS,         /* an exception's round trip (entry, handler, IRET): at least */
	LIMIT_INCREMENT_NS,    /* a load-add-store increment of one word: at least */
	LIMIT_LOCKED_NS,       /* a LOCK-prefixed read-modify-write: at least */
	LIMIT_LOAD_NS,         /* a dependent load (pointer chase step): at least */
	LIMIT_TSC_READ_NS,     /* one iteration of the noise loop, a fenced TSC read: at least */
	LIMIT_COUNT
};

/* One bound: its name in reasons, what it bounds, the value, its unit, and
 * whether it is a ceiling (max) or a floor. */
struct limit {
	const char *name;      /* "zero_gbps" */
	const char *what;      /* "of zeroing on one core" */
	double bound;
	const char *unit;      /* "GB/s", "ns" */
	int is_max;
	const char *source;    /* why no machine passes it */
};

/* The table entry of a limit (NULL for LIMIT_NONE or an unknown id). */
const struct limit *limits_get(enum limit_id id);

/* NULL when value respects limit id (with cores sharing the work: a
 * per-core ceiling is multiplied by it, 1 otherwise); else the reason,
 * written into buf: "implausible: 475.3 GB/s of zeroing on one core; no
 * machine does more than 200 GB/s (limit zero_gbps)". A value that is not
 * finite, or LIMIT_NONE, passes: there is nothing to judge. */
const char *limits_check(enum limit_id id, double value, double cores, char *buf, size_t cap);

#endif
