/* evict.h - RUN_FLUSH on Linux: WBINVD is privileged, so every participating CPU reads a buffer larger than the last-level cache, as shared/seeds/000 and 001 do. */
#ifndef QB_TWIN_EVICT_H
#define QB_TWIN_EVICT_H

#include <stdbool.h>
#include <stdint.h>
#include "topo.h"

/* Size the buffer from the topology (twice the largest cache, rounded up to
 * 2 MiB, at least the seeds' 64 MiB), allocate it and write it once so that
 * every page is real (an unwritten page reads as the shared zero page, and
 * reading that evicts nothing). False if there is no memory for it. */
bool evict_setup(const struct topo *t);

/* Bytes each CPU reads per flush (0 before evict_setup). */
uint64_t evict_bytes(void);

/* Read one word of every line of the buffer, on the calling CPU. */
void evict_run(void);

#endif
