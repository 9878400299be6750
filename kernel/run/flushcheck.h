/* flushcheck.h - every flush gets a verdict, and a fallback: at the start of a run each flush the run will use is tried on working sets, one per last-level cache domain, and judged on the flush workload's scale (kernel/measure/cold.h); where the run's own flush is ineffective or partial the run's flush becomes the fallback's eviction read, the workloads CLFLUSH their own data as always, and every result names the flush it got. Written once for both platforms.
 *
 * A hypervisor may ignore WBINVD (KVM does unless the guest has non-coherent
 * DMA): the chase after it is then as fast as the warm one, and the
 * repetitions that relied on it would start warm. The measurement is
 * kernel/run/flushprobe.h's: the references and the flush take the same
 * path through the runner, on the same CPUs, and a round in which a probing
 * CPU was disturbed is discarded and run again, within a bound. The verdict,
 * per domain and for the method the worst of its domains:
 *   - "cannot tell: no visible caches" where CLFLUSH of the set makes no
 *     measurable difference over all rounds (an emulator, QEMU TCG): decided
 *     first, so that an emulator's noise never reads as a disturbance;
 *   - "cannot tell: disturbed (k of n rounds)" where fewer than
 *     FLUSHCHECK_CLEAN_MIN rounds were undisturbed;
 *   - "cannot tell: the warm set was not warm" where the warm chase took
 *     over a quarter of the cold one's time;
 *   - else effective (70% as cold as CLFLUSH or more, its first quartile
 *     above the warm third), partial (25-70%: checked once more, then fallen
 *     back from as from an ineffective one) or ineffective (under 25%).
 * Nothing is claimed or changed on a "cannot tell". */
#ifndef QB_KERNEL_FLUSHCHECK_H
#define QB_KERNEL_FLUSHCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include "record.h"
#include "run.h"
#include "topo.h"

#define FLUSHCHECK_ROUNDS 7             /* undisturbed timed rounds wanted, after one untimed */
#define FLUSHCHECK_CLEAN_MIN 5          /* fewer undisturbed rounds than this: "cannot tell: disturbed" */
#define FLUSHCHECK_EARLY_ROUNDS 3       /* no domain's references apart after this many rounds: no visible caches */
#define FLUSHCHECK_ROUNDS_MAX 21        /* timed rounds at most, the disturbed ones included */
#define FLUSHCHECK_RERUN_MS 2000        /* no round is run again past this much of a method's measuring */

/* What the probe needs to know of the run. */
struct flushcheck_cfg {
	const struct cpuset *online;     /* the run's CPUs, BSP first */
	const struct topo *topo;         /* indexed by topology number */
	const uint32_t *cpu_of_topo;     /* topology number -> dense CPU number */
	bool quick;                      /* profile=quick (only where no shared cache is visible: the set at most
	                                  * FLUSHSET_QUICK_MAX, kernel/run/flushset.h) */
	bool has_wbinvd;                 /* the platform's own flush is WBINVD (else the eviction read) */
};

/* On the BSP, before the plan is calibrated (so that it prices the flush the
 * run will use): the chase after each flush the run will use, against the
 * warm chase and CLFLUSH of the set, on every domain at once, in
 * FLUSHCHECK_ROUNDS undisturbed interleaved rounds; bare metal: WBINVD on
 * every CPU (the run's flush) and on one CPU per LLC (flush's
 * wbinvd-per-domain), each domain probed by another of its CPUs where it has
 * two; Linux: the eviction read (the run's flush). When the run's flush is
 * ineffective, or partial twice, the fallback's eviction buffer is set up,
 * the run falls back to it (run_flush_fallback) and it is judged too. Prints
 * a line per flush. */
void flushcheck_run(const struct flushcheck_cfg *cfg);

/* Into the run's `state` record: "flush_check", what flushcheck_run found
 * (docs/records.md). Says "not checked" before it ran. */
void flushcheck_rec(struct rec *r);

/* The run's flush as the results name it: "wbinvd" or "eviction-read" (the
 * platform's own), or "clflush+eviction-read" after a fallback. */
const char *flushcheck_run_flush(void);

/* Into an open params object of a result: "flush", the run's flush and
 * suffix ("none" when !flushed); with a flush, "flush_verdict" (the verdict
 * on the flush it got, or "no effective flush: results start warm" where
 * neither the run's flush nor a fallback was effective) and, after a
 * fallback, "flush_fallback" (what it replaced, and why). */
void flushcheck_params(struct rec *r, bool flushed, const char *suffix);

#endif
