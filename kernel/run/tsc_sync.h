/* tsc_sync.h - a CPU's TSC offset against CPU 0 by ping-pong, written once for the kernel and the Linux twin. */
#ifndef QB_KERNEL_TSC_SYNC_H
#define QB_KERNEL_TSC_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#define TSC_SYNC_ROUNDS 64       /* pings; the one with the shortest round trip counts */

/*
 * Ping-pong between CPU 0 and `cpu` through run_on, TSC_SYNC_ROUNDS times:
 * the offset is the other's TSC at the pong less the middle of the
 * shortest round trip, and the error half that round trip. Each side waits
 * at most until deadline_ms from now in all; the run has run_timeout_ms.
 * False (and an `error` record) when it could not be measured.
 */
bool tsc_sync_measure(uint32_t cpu, uint64_t deadline_ms, uint64_t run_timeout_ms, int64_t *offset,
		      uint64_t *err);

#endif
