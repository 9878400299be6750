/* platform.h - the platform interface: everything the code written once for both platforms (the runtime in kernel/run/, the workloads, the console text, the TSC's calibration) needs from the platform it runs on.
 *
 * Two platforms implement it: the bare-metal kernel and the Linux twin
 * (tools/twin/). What each service is and where each side implements it:
 *
 *   service                          header             bare metal                     Linux twin
 *   start code on a set of CPUs,     this file          run/run_hw.c: mailboxes,       twin/run.c: pinned threads,
 *     wait with a bound, lose one      (run_plat_*)       MWAIT/HLT, INIT               futex, left running
 *   flush the caches                 this file          WBINVD                         run/evict.c: eviction read
 *   read the timer                   measure/tsc.h,     RDTSC; measure/timer.c:        RDTSC; twin/timer.c:
 *                                    measure/timer.h      HPET, ACPI PM timer            CLOCK_MONOTONIC_RAW
 *   serialise TSC reads              measure/lfence.h   measure/lfence.c: DE_CFG[1]    twin/lfence.c: Linux did it
 *   pages on a node                  mm/pmm.h           mm/pmm.c                       twin/pmm.c: mmap, mbind
 *   their memory type                mm/memtype.h       mm/memtype.c: MTRRs, PAT       twin/memtype.c: unknown
 *   demand-zero regions              mm/demand.h        mm/demand.c + run/demand_hw.c  twin/demand.c: mmap, madvise,
 *                                                                                        mbind
 *   specific-purpose memory to lend  mm/spmem.h         mm/spmem.c: EFI_MEMORY_SP      twin/spmem.c: none
 *   the firmware's NUMA description  run/numa_fw.h      run/numa_fw.c: SRAT, SLIT,     twin/numa_fw.c: /sys nodes
 *                                                         HMAT
 *   fault hooks                      run/fault.h        run/fault.c: the IDT           twin/hostfault.c: signals
 *   MSR access that may fail         arch/msr.h         arch/msr.c: #GP caught         (none: user space reads no
 *                                                                                        MSRs; run/instr.h says so)
 *   counters and noise per thread    run/instr.h        run/instr.c: PMU, MSRs         twin/instr.c: perf, getrusage
 *   what takes a CPU away (noise)    run/disturb.h      run/disturb.c: SMI count       twin/disturb.c: irq tracepoints,
 *                                                                                        getrusage, /proc/interrupts
 *   emit a record line               console/console_platform.h
 *                                                       console/console.c: serial,     twin/console.c: stdout
 *                                                         screen
 *   finish                           run/finish.h       run/finish.c: done, halt,      twin/finish.c: done, exit
 *                                                         reboot, power off
 *
 * The shared code includes the service headers it uses; this file gathers
 * them, so that a new platform has one list to implement. The runner's own
 * hooks are declared here.
 *
 * Layer: run (kernel/run/run.h). */
#ifndef QB_KERNEL_PLATFORM_H
#define QB_KERNEL_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>
#include "console.h"
#include "console_platform.h"
#include "demand.h"
#include "disturb.h"
#include "finish.h"
#include "instr.h"
#include "lfence.h"
#include "memtype.h"
#include "msr.h"
#include "numa_fw.h"
#include "pmm.h"
#include "spmem.h"
#include "timer.h"
#include "tsc.h"

/* ---- The runner's hooks (kernel/run/run.c) --------------------------------- */

struct run_job;

/* True if dense CPU `cpu` is online and may be given work; then *tsc_offset
 * (when not NULL) is its TSC offset against CPU 0, subtracted from every
 * time it reads. */
bool run_plat_cpu(uint32_t cpu, int64_t *tsc_offset);

/* The platform's own flush on the calling CPU (RUN_FLUSH_PLATFORM, and
 * RUN_FLUSH unless the run fell back): WBINVD, or an eviction read. */
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
