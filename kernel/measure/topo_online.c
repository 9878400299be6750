/* topo_online.c - the topology of the online CPUs, for both platforms; see topo_online.h. */
#include "topo_online.h"
#include "console.h"
#include "qb_limits.h"

/* ---- Private Variables ---------------------------------------------------- */
static struct cpuid_snap snaps[QB_MAX_CPUS];
static int32_t nodes[QB_MAX_CPUS];
static struct topo topo;
static uint32_t cpu_of_topo[QB_MAX_CPUS];
static int32_t topo_of_cpu[QB_MAX_CPUS];
static uint32_t decoded_slots;

/* ---- Public Functions ----------------------------------------------------- */
int topo_online_decode(const struct topo_online_src *src, uint32_t n_slots)
{
	struct topo *out = &topo;
	decoded_slots = n_slots < QB_MAX_CPUS ? n_slots : QB_MAX_CPUS;
	uint32_t n = 0;
	for (uint32_t c = 0; c < n_slots && c < QB_MAX_CPUS; c++) {
		topo_of_cpu[c] = -1;
		if (!src->online(c))
			continue;
		snaps[n] = *src->snap(c);
		nodes[n] = src->node(c);
		cpu_of_topo[n] = c;
		topo_of_cpu[c] = (int32_t)n;
		n++;
	}
	int msgs = topo_decode(snaps, nodes, n, out);
	if (msgs < 0) {
		console_error("topology", "nothing could be decoded from %u CPUs", n);
		return msgs;
	}
	for (uint32_t i = 0; i < out->nmsgs && i < TOPO_MAX_MSGS; i++)
		console_error("topology", "%s", out->msg[i]);
	return msgs;
}

const struct topo *topo_online(void)
{
	return &topo;
}

const uint32_t *topo_online_cpu_of_topo(void)
{
	return cpu_of_topo;
}

const struct topo_cpu *topo_online_cpu(uint32_t slot)
{
	if (slot >= decoded_slots || topo_of_cpu[slot] < 0 || (uint32_t)topo_of_cpu[slot] >= topo.ncpu)
		return 0;
	return &topo.cpu[topo_of_cpu[slot]];
}
