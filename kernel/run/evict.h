/* evict.h - the eviction reads of shared/seeds/000 and 001, written once for both platforms: every participating CPU reads a buffer larger than the last-level cache. Two buffers: the platform's, the Linux twin's RUN_FLUSH (WBINVD is privileged there); and the fallback's, at least four times the largest cache and twice the platform's read, which either platform's run falls back to after its own flush was found ineffective or partial (kernel/run/flushcheck.h): on the twin a different, larger read, not the same one under a new name. */
#ifndef QB_KERNEL_EVICT_H
#define QB_KERNEL_EVICT_H

#include <stdbool.h>
#include <stdint.h>
#include "topo.h"

/* Size the buffer from the topology (twice the largest cache, rounded up to
 * 2 MiB, at least the seeds' 64 MiB), take it from the page allocator (whole
 * 2 MiB pages where there are some: no page walk in the reads) and write it
 * once with "some random data", as the seed says, so that every page is real
 * (an unwritten page reads as Linux's shared zero page, and reading that
 * evicts nothing). Once: a second call keeps the first buffer. False if there
 * is no memory for it. */
bool evict_setup(const struct topo *t);

/* Bytes each CPU reads per flush (0 before evict_setup, or without memory). */
uint64_t evict_bytes(void);

/* Read one word of every line of the buffer, on the calling CPU (nothing
 * before evict_setup). */
void evict_run(void);

/* The fallback's buffer: at least EVICT_FALLBACK_CACHES x the largest cache
 * and twice what evict_setup reads (whether or not it ran: the size it would
 * take), in whole 2 MiB pages where there are some, written once as
 * evict_setup's. Once; false without memory. */
#define EVICT_FALLBACK_CACHES 4
bool evict_fallback_setup(const struct topo *t);

/* Bytes each CPU reads per fallback flush (0 before evict_fallback_setup). */
uint64_t evict_fallback_bytes(void);

/* The fallback's read on the calling CPU (nothing before its set-up). */
void evict_fallback_run(void);

/* The read itself, over any buffer: one word of every line of
 * [buf, buf + bytes), as the seeds' loop reads every long; returns their sum,
 * so that the reads are not optimised away. */
uint64_t evict_read(const volatile uint64_t *buf, uint64_t bytes);

#endif
