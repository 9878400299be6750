/* topo_online.h - decode the topology of the CPUs that came online, written once for the kernel and the Linux twin. */
#ifndef QB_KERNEL_TOPO_ONLINE_H
#define QB_KERNEL_TOPO_ONLINE_H

#include <stdbool.h>
#include <stdint.h>
#include "cpuid_snap.h"
#include "topo.h"

/* What the platform tells about CPU slot c. */
struct topo_online_src {
	bool (*online)(uint32_t c);
	const struct cpuid_snap *(*snap)(uint32_t c);
	int32_t (*node)(uint32_t c);             /* NUMA node, -1 unknown */
};

/*
 * Decodes the online CPUs among slots 0 .. n_slots-1 (dense topology numbers
 * in slot order) and keeps the result for the calls below. Every decoder
 * message becomes an `error` record ("topology"). Returns topo_decode's
 * result.
 */
int topo_online_decode(const struct topo_online_src *src, uint32_t n_slots);

/* The decoded topology (empty before topo_online_decode). */
const struct topo *topo_online(void);

/* Topology number -> CPU slot (the dense CPU number of every record). */
const uint32_t *topo_online_cpu_of_topo(void);

/* Slot -> its place in the topology; NULL for a CPU that was not online. */
const struct topo_cpu *topo_online_cpu(uint32_t slot);

#endif
