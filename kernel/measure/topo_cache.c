/* topo_cache.c - the cache instances of the topology, from each CPU's own
 * CPUID snapshot (Intel SDM vol. 2A, CPUID leaf 4; AMD APM vol. 3, appendix E,
 * Fn8000_0005-6 and Fn8000_001D; AMD BKDGs for families 10h and 15h for the
 * L3 of multi-node packages); see topo_cache.h. */
#include "topo_cache.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------- */

static const char topo_csrc_leaf4[] = "leaf 4";
static const char topo_csrc_amd[] = "0x8000001d";
static const char topo_csrc_assumed[] = "0x80000005/6 assumed sharing";
static const char topo_csrc_pkg_assumed[] = "0x80000006 assumed per package";
static const char topo_csrc_1d_node_1e[] = "0x8000001d, per node (0x8000001e)";
static const char topo_csrc_6_node_1e[] = "0x80000006, per node (0x8000001e)";
static const char topo_csrc_6_node_msr[] = "0x80000006, per node (MSR C001_100C)";

#define TOPO_MAX_LEVEL		4	/* L4 is the deepest level CPUID reports */
#define TOPO_L3			3
#define TOPO_KIB		1024u
#define TOPO_NODE_SHIFT		8	/* node-grouped id: package << 8 | NodeId[7:0] */

/*
 * Ways for the 4-bit associativity code of 0x80000006 ECX[15:12] / EDX[15:12]
 * (APM vol. 3, table E-4): 0 is "disabled", 0xF fully associative, 9 "value
 * for all fields should be determined from Fn8000_001D" (Zen's L3, whose
 * size field there is the whole package's); 7 is reserved: left 0, and so
 * rejected as "ways 0".
 */
#define TOPO_AMD_ASSOC_OFF	0x0
#define TOPO_AMD_ASSOC_SEE_1D	0x9
#define TOPO_AMD_ASSOC_FULLY	0xF
static const uint16_t topo_amd_assoc[16] = {
	[0x1] = 1, [0x2] = 2, [0x3] = 3, [0x4] = 4, [0x5] = 6, [0x6] = 8,
	[0x8] = 16, [0xA] = 32, [0xB] = 48, [0xC] = 64, [0xD] = 96, [0xE] = 128,
};

/* ---- Private Functions ----------------------------------------------------- */

/* Rejects impossible geometry with a message; cache is the position in the
 * CPU's list (the subleaf, for leaf 4 and 0x8000001D). */
static bool topo_cache_ok(struct topo *t, uint32_t cpu, uint32_t cache,
			  const struct topo_cache *c)
{
	const char *src = c->source;

	if (c->type < TOPO_CACHE_DATA || c->type > TOPO_CACHE_UNIFIED)
		topo_note(t, "cpu %u: %s cache %u rejected: reserved type %u",
			  src, cpu, cache, c->type);
	else if (c->level < 1 || c->level > TOPO_MAX_LEVEL)
		topo_note(t, "cpu %u: %s cache %u rejected: level %u",
			  src, cpu, cache, c->level);
	else if (!c->ways)
		topo_note(t, "cpu %u: %s cache %u rejected: ways 0", src, cpu,
			  cache, 0);
	else if (!c->sets)
		topo_note(t, "cpu %u: %s cache %u rejected: sets 0", src, cpu,
			  cache, 0);
	else if (!c->line_size || (c->line_size & (c->line_size - 1)))
		topo_note(t, "cpu %u: %s cache %u rejected: line size %u",
			  src, cpu, cache, c->line_size);
	else if (c->fully_associative && c->sets != 1)
		topo_note(t, "cpu %u: %s cache %u rejected: fully associative with %u sets",
			  src, cpu, cache, c->sets);
	else
		return true;
	return false;
}

/* Leaf 4 and 0x8000001D share one layout; the sharing field counts the
 * addressable IDs, rounded up to a power of two (SDM leaf 4 note). */
static void topo_cache_deterministic(const struct cpuid_regs *r, const char *src,
				     struct topo_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->source = src;
	c->type = (uint8_t)CPUID_FIELD(r->eax, CPUID_CACHE_EAX_TYPE);
	c->level = (uint8_t)CPUID_FIELD(r->eax, CPUID_CACHE_EAX_LEVEL);
	c->fully_associative = r->eax & CPUID_CACHE_EAX_FULLY;
	c->share_shift = (uint8_t)topo_ceil_log2(
		CPUID_FIELD(r->eax, CPUID_CACHE_EAX_SHARING) + 1);
	c->line_size = CPUID_FIELD(r->ebx, CPUID_CACHE_EBX_LINE) + 1;
	c->partitions = CPUID_FIELD(r->ebx, CPUID_CACHE_EBX_PARTS) + 1;
	c->ways = CPUID_FIELD(r->ebx, CPUID_CACHE_EBX_WAYS) + 1;
	c->sets = r->ecx + 1;	/* 0 when ECX is all ones: rejected */
	c->inclusive = r->edx & CPUID_CACHE_EDX_INCL;
	c->wbinvd_lower_all_sharers = !(r->edx & CPUID_CACHE_EDX_WBINVD);
	c->size = (uint64_t)c->ways * c->partitions * c->line_size * c->sets;
}

/* One cache of 0x80000005/6, where ways is already decoded (0: reserved).
 * Returns false when the cache is absent (size 0). */
static bool topo_cache_legacy(uint8_t level, uint8_t type, uint64_t size,
			      uint32_t ways, bool fully, uint32_t line,
			      uint8_t share_shift, struct topo_cache *c)
{
	uint64_t way_bytes;

	if (!size)
		return false;
	memset(c, 0, sizeof(*c));
	c->source = topo_csrc_assumed;
	c->sharing_assumed = true;
	c->level = level;
	c->type = type;
	c->size = size;
	c->line_size = line;
	c->partitions = 1;
	c->share_shift = share_shift;
	c->fully_associative = fully;
	c->ways = fully && line ? (uint32_t)(size / line) : ways;
	way_bytes = (uint64_t)c->ways * line;
	c->sets = fully ? 1 : (way_bytes ? (uint32_t)(size / way_bytes) : 0);
	return true;
}

static uint32_t topo_amd_ways(uint32_t code)
{
	return topo_amd_assoc[code & (ARRAY_SIZE(topo_amd_assoc) - 1)];
}

/* Pre-TOPOEXT AMD: no sharing data, so L1 and L2 are taken as per core and
 * L3 as per package (true of K8 and single-node family 10h; the L3 of a
 * two-node package is split by node in topo_cache_per_node). A level whose
 * associativity refers to 0x8000001D, which without TOPOEXT has nothing, is
 * left out and its bit (1 << level) set in *undescribed. */
static uint8_t topo_caches_amd_legacy(const struct topo *t,
				      const struct cpuid_snap *s,
				      struct topo_cache *out, uint8_t *undescribed)
{
	const uint32_t l1[2] = { s->ext5.ecx, s->ext5.edx };
	const uint32_t l23[2] = { s->ext6.ecx, s->ext6.edx };
	uint8_t n = 0;

	for (uint32_t i = 0; s->have_ext5 && i < ARRAY_SIZE(l1); i++) {
		uint32_t assoc = CPUID_FIELD(l1[i], CPUID_E5_ASSOC);

		n += topo_cache_legacy(1, i == 0 ? TOPO_CACHE_DATA : TOPO_CACHE_INSTRUCTION,
				       CPUID_FIELD(l1[i], CPUID_E5_SIZE_KB) * TOPO_KIB,
				       assoc, assoc == CPUID_E5_ASSOC_FULLY,
				       CPUID_FIELD(l1[i], CPUID_E5_LINE), t->smt_bits,
				       &out[n]);
	}
	for (uint32_t i = 0; s->have_ext6 && i < ARRAY_SIZE(l23); i++) {
		uint32_t code = CPUID_FIELD(l23[i], CPUID_E6_ASSOC);
		uint64_t size = i == 0 ?
			(uint64_t)CPUID_FIELD(l23[i], CPUID_E6_L2_SIZE_KB) * TOPO_KIB :
			(uint64_t)CPUID_FIELD(l23[i], CPUID_E6_L3_SIZE_512K) * CPUID_E6_L3_UNIT;

		if (code == TOPO_AMD_ASSOC_OFF)
			continue;
		if (code == TOPO_AMD_ASSOC_SEE_1D) {
			*undescribed |= (uint8_t)(1u << (2 + i));
			continue;
		}
		n += topo_cache_legacy((uint8_t)(2 + i), TOPO_CACHE_UNIFIED, size,
				       topo_amd_ways(code), code == TOPO_AMD_ASSOC_FULLY,
				       CPUID_FIELD(l23[i], CPUID_E6_LINE),
				       i == 0 ? t->smt_bits : t->pkg_shift, &out[n]);
	}
	return n;
}

/* Decodes one CPU's own cache description (hybrid cores differ). */
static uint8_t topo_caches_of(const struct topo *t, const struct cpuid_snap *s,
			      struct topo_cache *out, uint8_t *undescribed)
{
	const struct cpuid_regs *regs = s->leaf4;
	const char *src = topo_csrc_leaf4;
	uint8_t nregs = s->n_leaf4;

	if (cpu_vendor_is_amd(cpuid_snap_vendor(s))) {
		if (!cpuid_snap_has(s, CPUID_FEAT_TOPOEXT) || !s->n_ext1d)
			return topo_caches_amd_legacy(t, s, out, undescribed);
		regs = s->ext1d;
		nregs = s->n_ext1d;
		src = topo_csrc_amd;
	}
	for (uint8_t i = 0; i < nregs; i++)
		topo_cache_deterministic(&regs[i], src, &out[i]);
	return nregs;
}

/*
 * The L3 of an AMD part before family 17h belongs to a node (die), and a
 * package may hold two (family 10h Magny-Cours, family 15h Interlagos and
 * Abu Dhabi): its sharers are the CPUs of one node, as Linux groups them
 * (llc_id = NodeId: topology_amd.c, cacheinfo_amd_init_llc_id). APIC IDs do
 * not tell: a 12-core Opteron 6238 numbers its two nodes' cores 0x20-0x25
 * and 0x26-0x2B, while 0x8000001D counts 6 sharers (3 APIC ID bits).
 * 0x80000006 describes the whole package, so a node has 1/nodes of its size
 * and ways (Linux amd_cpuid4 under AMD_DCM).
 */
static void topo_cache_per_node(struct topo_cache *c, uint32_t package,
				uint32_t node, uint32_t nodes, enum cpuid_node_src from)
{
	bool legacy = c->source == topo_csrc_assumed;

	c->grouping = TOPO_GROUP_NODE;
	c->share_shift = 0;
	c->id = package << TOPO_NODE_SHIFT | (node & ((1u << TOPO_NODE_SHIFT) - 1));
	if (!legacy) {
		c->source = topo_csrc_1d_node_1e;
		return;
	}
	c->sharing_assumed = false;
	c->source = from == CPUID_NODE_MSR ? topo_csrc_6_node_msr : topo_csrc_6_node_1e;
	if (nodes > 1 && !c->fully_associative) {
		c->size /= nodes;
		c->ways /= nodes;
	}
}

/* The node of an AMD CPU whose L3 is per node, or CPUID_NODE_NONE. */
static enum cpuid_node_src topo_l3_node(const struct cpuid_snap *s, uint32_t *node,
					uint32_t *nodes)
{
	if (cpuid_snap_family(s) >= TOPO_AMD_NODE_FAMILY_BELOW)
		return CPUID_NODE_NONE;
	return cpuid_snap_amd_node(s, node, nodes);
}

static bool topo_same_geometry(const struct topo_cache *a, const struct topo_cache *b)
{
	return a->size == b->size && a->ways == b->ways && a->sets == b->sets &&
	       a->line_size == b->line_size && a->partitions == b->partitions &&
	       a->inclusive == b->inclusive &&
	       a->fully_associative == b->fully_associative;
}

/* Adds cpu to the instance (level, type, grouping, share_shift, id), creating
 * it if new; returns its index or TOPO_CACHE_NONE. c->id is already set. */
static uint16_t topo_cache_join(struct topo *t, uint32_t cpu, const struct topo_cache *c)
{
	struct topo_cache *e;
	uint32_t i;

	for (i = 0; i < t->ncaches; i++) {
		e = &t->cache[i];
		if (e->level == c->level && e->type == c->type && e->grouping == c->grouping &&
		    e->share_shift == c->share_shift && e->id == c->id)
			break;
	}
	if (i == t->ncaches) {
		if (i == TOPO_MAX_CACHES) {
			topo_note(t, "cpu %u: L%u cache not kept, table full (%u)",
				  NULL, cpu, c->level, TOPO_MAX_CACHES);
			return TOPO_CACHE_NONE;
		}
		e = &t->cache[t->ncaches++];
		*e = *c;
		memset(&e->shared_by, 0, sizeof(e->shared_by));
		e->nshared = 0;
	} else if (!topo_same_geometry(e, c)) {
		topo_note(t, "cpu %u: L%u %s cache %u differs from its other sharers",
			  topo_cache_type_name((enum topo_cache_type)c->type),
			  cpu, c->level, c->id);
	}
	if (!topo_cpuset_has(&e->shared_by, cpu)) {
		topo_cpuset_add(&e->shared_by, cpu);
		e->nshared++;
	}
	return (uint16_t)i;
}

/* ---- Public Functions ------------------------------------------------------ */

void topo_cache_decode_cpu(struct topo *t, uint32_t cpu, const struct cpuid_snap *s)
{
	struct topo_cpu *tc = &t->cpu[cpu];
	struct topo_cache caches[TOPO_CPU_CACHES];
	uint32_t node = 0, nodes = 1;
	enum cpuid_node_src by_node = topo_l3_node(s, &node, &nodes);
	uint8_t undescribed = 0;
	uint8_t n = topo_caches_of(t, s, caches, &undescribed);

	if (!n)
		topo_note(t, "cpu %u: no cache description in CPUID", NULL, cpu, 0, 0);
	for (uint32_t level = 2; level <= TOPO_L3; level++)
		if (undescribed & (1u << level))
			topo_set_note(t, "%s not described: 0x80000006 refers to 0x8000001D, which is empty",
				      level == TOPO_L3 ? "L3" : "L2");
	for (uint8_t i = 0; i < n; i++) {
		struct topo_cache *c = &caches[i];
		uint16_t idx;

		c->id = topo_shr(tc->apic_id, c->share_shift);
		if (c->level == TOPO_L3 && by_node != CPUID_NODE_NONE) {
			topo_cache_per_node(c, tc->package, node, nodes, by_node);
		} else if (c->level == TOPO_L3 && c->source == topo_csrc_assumed &&
			   s->node_msr_state == CPUID_NODE_MSR_UNAVAILABLE) {
			c->source = topo_csrc_pkg_assumed;
			topo_set_note(t, "L3 per package assumed: MSR C001_100C (node ID) %s",
				      s->node_msr_why);
		}
		if (!topo_cache_ok(t, cpu, i, c))
			continue;
		idx = topo_cache_join(t, cpu, c);
		if (idx != TOPO_CACHE_NONE)
			tc->cache[tc->ncaches++] = idx;
	}
}

void topo_cache_check_overlap(struct topo *t)
{
	for (uint32_t i = 0; i < t->ncaches; i++) {
		const struct topo_cache *a = &t->cache[i];
		uint64_t a_lo = (uint64_t)a->id << a->share_shift;
		uint64_t a_hi = a_lo + (1ull << a->share_shift);

		if (a->grouping != TOPO_GROUP_APIC)
			continue;
		for (uint32_t j = i + 1; j < t->ncaches; j++) {
			const struct topo_cache *b = &t->cache[j];
			uint64_t b_lo = (uint64_t)b->id << b->share_shift;
			uint64_t b_hi = b_lo + (1ull << b->share_shift);

			if (a->level != b->level || a->type != b->type ||
			    b->grouping != TOPO_GROUP_APIC || a->share_shift == b->share_shift)
				continue;
			if (a_lo < b_hi && b_lo < a_hi)
				topo_note(t, "L%u %s caches %u and %u overlap in APIC IDs",
					  topo_cache_type_name((enum topo_cache_type)a->type),
					  a->level, i, j);
		}
	}
}
