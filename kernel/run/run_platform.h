/* run_platform.h - what the shared runner (kernel/run/run.c: the barrier, the bounds, start skew, lost CPUs) needs from its platform.
 *
 * The bare-metal kernel implements it in kernel/run/run_hw.c (per-CPU
 * mailboxes woken by MWAIT or an IPI, WBINVD, INIT for a lost CPU); the
 * Linux twin in tools/twin/run.c (pinned threads sleeping on a futex, an
 * eviction read, a lost thread left running). Everything else about a run
 * is written once, in run.c, and is the same in both. */
#ifndef QB_KERNEL_RUN_PLATFORM_H
#define QB_KERNEL_RUN_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

struct run_job;

/* True if dense CPU `cpu` is online and may be given work. */
bool run_plat_online(uint32_t cpu);

/* Its TSC offset against CPU 0 (subtracted from every time it reads). */
int64_t run_plat_tsc_offset(uint32_t cpu);

/* RUN_FLUSH, on the calling CPU before the barrier: WBINVD, or an eviction read. */
void run_plat_flush(void);

/* Hand j to cpu's mailbox and wake it if it rests. */
void run_plat_post(uint32_t cpu, struct run_job *j);

/* A CPU that missed its bound: stop it (INIT) or leave it, and mark it
 * lost; add what identifies it to its `error` record r ("cpu lost", open). */
struct rec;
void run_plat_lose(uint32_t cpu, struct rec *r);

/* Where the next run's job lives (NULL: none, the run fails as a bad set). */
struct run_job *run_plat_job(void);

/* j is left to CPUs that were lost while they held it: the next run must
 * use other memory (user space cannot stop those threads). */
void run_plat_job_lost(struct run_job *j);

/* For the platform's mailbox loop: the calling CPU takes part in j. */
void run_participate(struct run_job *j, uint32_t cpu);

/* The size of a job, for a platform that allocates it. */
extern const unsigned long run_job_bytes;

#endif
