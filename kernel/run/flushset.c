/* flushset.c - what the flush check probes and the flush workload chases: the set's size and the CPUs of each cache domain; see flushset.h. */
#include "flushset.h"
#include "fmt.h"
#include "lib.h"
#include "pmm.h"

/* ---- Private Variables ---------------------------------------------------- */
static char size_text[160];

/* ---- Private Functions ---------------------------------------------------- */
/* A top-level data or unified cache shared by CPUs of two cores or more. */
static bool shared_top(const struct topo *t, uint8_t top, const struct topo_cache *c)
{
	if (c->level != top || c->type == TOPO_CACHE_INSTRUCTION)
		return false;
	int64_t first = -1;
	for (uint32_t k = 0; k < t->ncpu; k++) {
		if (!topo_cpuset_has(&c->shared_by, k))
			continue;
		int64_t core = ((int64_t)t->cpu[k].package << 32) | t->cpu[k].core;
		if (first < 0)
			first = core;
		else if (core != first)
			return true;
	}
	return false;
}

static uint8_t top_level(const struct topo *t)
{
	uint8_t top = 0;
	for (uint32_t i = 0; t && i < t->ncaches; i++)
		if (t->cache[i].type != TOPO_CACHE_INSTRUCTION)
			top = MAX(top, t->cache[i].level);
	return top;
}

/* ---- Public Functions ----------------------------------------------------- */
uint64_t flushset_llc_bytes(const struct topo *t)
{
	uint64_t llc = 0;
	uint8_t top = 0;
	for (uint32_t i = 0; t && i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->type == TOPO_CACHE_INSTRUCTION)
			continue;
		if (c->level > top || (c->level == top && c->size > llc)) {
			top = c->level;
			llc = c->size;
		}
	}
	return llc ? llc : FLUSHSET_FALLBACK_LLC;
}

void flushset_size(const struct topo *t, bool quick, struct flushset_size *out)
{
	memset(out, 0, sizeof(*out));
	out->llc = flushset_llc_bytes(t);
	uint8_t top = top_level(t);
	for (uint32_t i = 0; t && i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->type != TOPO_CACHE_INSTRUCTION && c->level < top)
			out->below = MAX(out->below, c->size);
		out->shared |= shared_top(t, top, c);
	}
	uint64_t b;
	if (out->shared) {
		b = MAX(FLUSHSET_BELOW_X * out->below, out->llc / FLUSHSET_LLC_MIN_DIV);
		b = MIN(b, out->llc / FLUSHSET_LLC_MAX_DIV);
		fmt_snprintf(size_text, sizeof(size_text), "twice the largest cache below the LLC (%llu KiB), within a "
			     "32nd to a quarter of the shared LLC (%llu KiB)", (unsigned long long)(out->below >> 10),
			     (unsigned long long)(out->llc >> 10));
	} else {
		b = out->llc / FLUSHSET_NO_SHARED_DIV;
		if (quick)
			b = MIN(b, FLUSHSET_QUICK_MAX);
		fmt_snprintf(size_text, sizeof(size_text), "no shared cache is visible: an eighth of the largest cache "
			     "(%llu KiB)%s, probed from the BSP alone", (unsigned long long)(out->llc >> 10),
			     quick ? ", quick at most 512 KiB" : "");
	}
	out->set = MAX(ALIGN_DOWN(b, PMM_PAGE), PMM_PAGE);
	out->why = size_text;
}

void flushset_domains(const struct topo *t, const uint32_t *cpu_of_topo, const struct cpuset *online,
			struct cpuset *out)
{
	uint8_t top = top_level(t);
	out->n = 0;
	for (uint32_t i = 0; t && i < t->ncaches && out->n < QB_MAX_CPUS; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->level != top || c->type == TOPO_CACHE_INSTRUCTION)
			continue;
		for (uint32_t k = 0; k < t->ncpu; k++) {
			if (topo_cpuset_has(&c->shared_by, k)) {
				out->cpu[out->n++] = cpu_of_topo[k];
				break;
			}
		}
	}
	if (!out->n) {
		out->n = 1;
		out->cpu[0] = online->cpu[0];
	}
}

void flushset_probes(const struct topo *t, const uint32_t *cpu_of_topo, const struct cpuset *online,
		       struct cpuset *out, int *nodes, uint32_t *total)
{
	uint8_t top = top_level(t);
	out->n = 0;
	*total = 0;
	for (uint32_t i = 0; t && i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (!shared_top(t, top, c))
			continue;
		(*total)++;
		for (uint32_t k = t->ncpu; k-- > 0 && out->n < FLUSHSET_MAX_DOMAINS;) {
			if (topo_cpuset_has(&c->shared_by, k)) {
				nodes[out->n] = (int)t->cpu[k].node;
				out->cpu[out->n++] = cpu_of_topo[k];
				break;
			}
		}
	}
	if (!out->n) {
		out->n = 1;
		out->cpu[0] = online->cpu[0];
		nodes[0] = t && t->ncpu ? (int)t->cpu[0].node : PMM_ANY_NODE;
		*total = 1;
	}
}
