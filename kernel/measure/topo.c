/* topo.c - decodes per-CPU CPUID snapshots into the package, core, thread and
 * cache topology, pure and host-tested (Intel SDM vol. 2A, CPUID leaves 1, 4,
 * 0xB, 0x1F, 0x1A; AMD APM vol. 3, appendix E, Fn8000_0005-8, Fn8000_001D-E). */
#include "topo.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------- */

static const char topo_src_1f[] = "leaf 0x1f";
static const char topo_src_b[] = "leaf 0xb";
static const char topo_src_amd_1e[] = "amd 0x8000001e";
static const char topo_src_amd_8[] = "amd 0x80000008";
static const char topo_src_leaf1_4[] = "leaf 1 + leaf 4";
static const char topo_src_leaf1[] = "leaf 1";
static const char topo_src_legacy[] = "legacy";

static const char topo_csrc_leaf4[] = "leaf 4";
static const char topo_csrc_amd[] = "0x8000001d";
static const char topo_csrc_assumed[] = "0x80000005/6 assumed sharing";

#define TOPO_ID_BITS		32	/* width of an x2APIC ID */
#define TOPO_MAX_LEVEL		4	/* L4 is the deepest level CPUID reports */
#define TOPO_KIB		1024u
#define TOPO_DEC_DIGITS		10	/* of a uint32_t */
#define TOPO_BASE_DEC		10
#define TOPO_BASE_HEX		16
#define TOPO_NUM_ARGS		3	/* numbers one message may print */

/*
 * Ways for the 4-bit associativity code of 0x80000006 ECX[15:12] / EDX[15:12]
 * (APM vol. 3, CPUID Fn8000_0006): 0 is "disabled", 0xF fully associative,
 * 9 "see Fn8000_001D"; 7 and 9 are left 0 and so rejected as "ways 0".
 */
#define TOPO_AMD_ASSOC_OFF	0x0
#define TOPO_AMD_ASSOC_FULLY	0xF
static const uint16_t topo_amd_assoc[16] = {
	[0x1] = 1, [0x2] = 2, [0x3] = 3, [0x4] = 4, [0x5] = 6, [0x6] = 8,
	[0x8] = 16, [0xA] = 32, [0xB] = 48, [0xC] = 64, [0xD] = 96, [0xE] = 128,
};

/* ---- Types ----------------------------------------------------------------- */

/* How one snapshot splits its APIC ID into thread, core, die and package. */
struct topo_shifts {
	const char *source;
	uint8_t smt, die, pkg;
	bool unordered;		/* level shifts decrease somewhere */
};

/* ---- Private Functions ----------------------------------------------------- */

static uint32_t topo_ceil_log2(uint32_t n)
{
	return n <= 1 ? 0 : (uint32_t)(TOPO_ID_BITS - __builtin_clz(n - 1));
}

static uint32_t topo_shr(uint32_t v, uint32_t shift)
{
	return shift >= TOPO_ID_BITS ? 0 : v >> shift;
}

static uint32_t topo_low_mask(uint32_t bits)
{
	return bits >= TOPO_ID_BITS ? ~0u : (1u << bits) - 1;
}

static size_t topo_put_num(char *m, size_t n, uint32_t v, uint32_t base)
{
	char tmp[TOPO_DEC_DIGITS + 1];
	size_t k = 0;

	do {
		tmp[k++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (k && n < TOPO_MSG_LEN - 1)
		m[n++] = tmp[--k];
	return n;
}

/*
 * Records a message. fmt may hold %s (prints s) and up to three %u/%x
 * (print a, b, c in order, decimal or hex). Messages past TOPO_MAX_MSGS are
 * counted but not kept.
 */
static void topo_note(struct topo *t, const char *fmt, const char *s,
		      uint32_t a, uint32_t b, uint32_t c)
{
	const uint32_t args[TOPO_NUM_ARGS] = { a, b, c };
	uint32_t na = 0;
	size_t n = 0;
	char *m;

	if (t->nmsgs++ >= TOPO_MAX_MSGS)
		return;
	m = t->msg[t->nmsgs - 1];
	for (; *fmt && n < TOPO_MSG_LEN - 1; fmt++) {
		if (fmt[0] == '%' && fmt[1] == 's') {
			for (const char *p = s; p && *p && n < TOPO_MSG_LEN - 1; p++)
				m[n++] = *p;
			fmt++;
		} else if (fmt[0] == '%' && (fmt[1] == 'u' || fmt[1] == 'x')) {
			n = topo_put_num(m, n, args[na], fmt[1] == 'x' ?
					 TOPO_BASE_HEX : TOPO_BASE_DEC);
			na += na < TOPO_NUM_ARGS - 1;
			fmt++;
		} else {
			m[n++] = *fmt;
		}
	}
	m[n] = '\0';
}

/* Leaves 0xB / 0x1F: each level's shift takes the x2APIC ID to the next
 * level's ID, so the last level's shift is the package shift. */
static void topo_shifts_levels(const struct cpuid_regs *lv, uint8_t n,
			       const char *src, struct topo_shifts *sh)
{
	uint32_t prev = 0, i;
	bool die = false;

	sh->source = src;
	sh->smt = 0;
	for (i = 0; i < n; i++) {
		uint32_t type = CPUID_FIELD(lv[i].ecx, CPUID_TOPO_ECX_TYPE);
		uint32_t shift = CPUID_FIELD(lv[i].eax, CPUID_TOPO_EAX_SHIFT);

		if (shift < prev)
			sh->unordered = true;
		if (type == CPUID_TOPO_TYPE_SMT)
			sh->smt = (uint8_t)shift;
		if (type == CPUID_TOPO_TYPE_DIE) {
			sh->die = (uint8_t)prev;
			die = true;
		}
		prev = shift;
	}
	sh->pkg = (uint8_t)prev;
	if (!die)
		sh->die = sh->pkg;
}

/* Leaf 1 EBX[23:16] counts addressable IDs per package, leaf 4 EAX[31:26]
 * the cores; the SMT field is what is left (SDM vol. 3A, 9.9.1). */
static void topo_shifts_leaf1(const struct cpuid_snap *s, struct topo_shifts *sh)
{
	uint32_t logical, cores = 1;

	if (!cpuid_snap_has(s, CPUID_FEAT_HTT)) {
		sh->source = topo_src_legacy;
		return;
	}
	logical = CPUID_FIELD(s->leaf1.ebx, CPUID_1_EBX_LOGICAL);
	sh->source = topo_src_leaf1;
	if (s->n_leaf4) {
		cores = CPUID_FIELD(s->leaf4[0].eax, CPUID_4_EAX_CORES) + 1;
		sh->source = topo_src_leaf1_4;
	}
	sh->pkg = (uint8_t)MAX(topo_ceil_log2(logical), topo_ceil_log2(cores));
	sh->smt = (uint8_t)(sh->pkg - topo_ceil_log2(cores));
	sh->die = sh->pkg;
}

/* AMD without leaf 0xB: ApicIdCoreIdSize (or NC + 1) sizes the package field,
 * ThreadsPerComputeUnit the SMT field (APM vol. 3, E.4.7 and Fn8000_001E). */
static void topo_shifts_amd(const struct cpuid_snap *s, struct topo_shifts *sh)
{
	uint32_t size = CPUID_FIELD(s->ext8.ecx, CPUID_E8_ECX_APIC_SIZE);

	if (!size)
		size = topo_ceil_log2(CPUID_FIELD(s->ext8.ecx, CPUID_E8_ECX_NC) + 1);
	sh->source = topo_src_amd_8;
	sh->pkg = (uint8_t)size;
	if (s->have_ext1e && cpuid_snap_has(s, CPUID_FEAT_TOPOEXT)) {
		sh->smt = (uint8_t)MIN(size, topo_ceil_log2(CPUID_FIELD(
				s->ext1e.ebx, CPUID_E1E_EBX_THREADS) + 1));
		sh->source = topo_src_amd_1e;
	}
	sh->die = sh->pkg;
}

static void topo_shifts_of(const struct cpuid_snap *s, struct topo_shifts *sh)
{
	memset(sh, 0, sizeof(*sh));
	if (s->n_leaf1f)
		topo_shifts_levels(s->leaf1f, s->n_leaf1f, topo_src_1f, sh);
	else if (s->n_leafb)
		topo_shifts_levels(s->leafb, s->n_leafb, topo_src_b, sh);
	else if (cpu_vendor_is_amd(cpuid_snap_vendor(s)) && s->have_ext8)
		topo_shifts_amd(s, sh);
	else
		topo_shifts_leaf1(s, sh);
	sh->pkg = (uint8_t)MIN(sh->pkg, TOPO_ID_BITS);
	sh->smt = MIN(sh->smt, sh->pkg);
	sh->die = MIN(sh->die, sh->pkg);
}

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
 * Returns false when the cache is absent (size 0 or disabled). */
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
 * L3 as per package (true of K8 and family 10h). */
static uint8_t topo_caches_amd_legacy(const struct topo *t,
				      const struct cpuid_snap *s,
				      struct topo_cache *out)
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
		n += topo_cache_legacy((uint8_t)(2 + i), TOPO_CACHE_UNIFIED, size,
				       topo_amd_ways(code), code == TOPO_AMD_ASSOC_FULLY,
				       CPUID_FIELD(l23[i], CPUID_E6_LINE),
				       i == 0 ? t->smt_bits : t->pkg_shift, &out[n]);
	}
	return n;
}

/* Decodes one CPU's own cache description (hybrid cores differ). */
static uint8_t topo_caches_of(const struct topo *t, const struct cpuid_snap *s,
			      struct topo_cache *out)
{
	const struct cpuid_regs *regs = s->leaf4;
	const char *src = topo_csrc_leaf4;
	uint8_t nregs = s->n_leaf4;

	if (cpu_vendor_is_amd(cpuid_snap_vendor(s))) {
		if (!cpuid_snap_has(s, CPUID_FEAT_TOPOEXT) || !s->n_ext1d)
			return topo_caches_amd_legacy(t, s, out);
		regs = s->ext1d;
		nregs = s->n_ext1d;
		src = topo_csrc_amd;
	}
	for (uint8_t i = 0; i < nregs; i++)
		topo_cache_deterministic(&regs[i], src, &out[i]);
	return nregs;
}

static bool topo_same_geometry(const struct topo_cache *a, const struct topo_cache *b)
{
	return a->size == b->size && a->ways == b->ways && a->sets == b->sets &&
	       a->line_size == b->line_size && a->partitions == b->partitions &&
	       a->inclusive == b->inclusive &&
	       a->fully_associative == b->fully_associative;
}

/* Adds cpu to the instance (level, type, share_shift, apic >> share_shift),
 * creating it if new; returns its index or TOPO_CACHE_NONE. */
static uint16_t topo_cache_join(struct topo *t, uint32_t cpu, uint32_t apic,
				const struct topo_cache *c)
{
	uint32_t id = topo_shr(apic, c->share_shift);
	struct topo_cache *e;
	uint32_t i;

	for (i = 0; i < t->ncaches; i++) {
		e = &t->cache[i];
		if (e->level == c->level && e->type == c->type &&
		    e->share_shift == c->share_shift && e->id == id)
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
		e->id = id;
		memset(&e->shared_by, 0, sizeof(e->shared_by));
		e->nshared = 0;
	} else if (!topo_same_geometry(e, c)) {
		topo_note(t, "cpu %u: L%u %s cache %u differs from its other sharers",
			  topo_cache_type_name((enum topo_cache_type)c->type),
			  cpu, c->level, id);
	}
	if (!topo_cpuset_has(&e->shared_by, cpu)) {
		topo_cpuset_add(&e->shared_by, cpu);
		e->nshared++;
	}
	return (uint16_t)i;
}

/* Instances of one level and type with different share shifts must not
 * claim the same APIC IDs (hybrid parts mix shifts legitimately). */
static void topo_check_overlap(struct topo *t)
{
	for (uint32_t i = 0; i < t->ncaches; i++) {
		const struct topo_cache *a = &t->cache[i];
		uint64_t a_lo = (uint64_t)a->id << a->share_shift;
		uint64_t a_hi = a_lo + (1ull << a->share_shift);

		for (uint32_t j = i + 1; j < t->ncaches; j++) {
			const struct topo_cache *b = &t->cache[j];
			uint64_t b_lo = (uint64_t)b->id << b->share_shift;
			uint64_t b_hi = b_lo + (1ull << b->share_shift);

			if (a->level != b->level || a->type != b->type ||
			    a->share_shift == b->share_shift)
				continue;
			if (a_lo < b_hi && b_lo < a_hi)
				topo_note(t, "L%u %s caches %u and %u overlap in APIC IDs",
					  topo_cache_type_name((enum topo_cache_type)a->type),
					  a->level, i, j);
		}
	}
}

/* Compares cpu's own decoding with the BSP's, whose shifts are used for all. */
static void topo_check_cpu(struct topo *t, uint32_t cpu, const struct cpuid_snap *s,
			   const struct topo_shifts *bsp)
{
	struct topo_shifts sh;

	if (s->truncated)
		topo_note(t, "cpu %u: a subleaf list is longer than %u, rest ignored",
			  NULL, cpu, CPUID_SNAP_MAX_SUB, 0);
	if (cpuid_snap_vendor(s) != t->vendor)
		topo_note(t, "cpu %u reports a different vendor than the BSP", NULL,
			  cpu, 0, 0);
	topo_shifts_of(s, &sh);
	if (sh.unordered)
		topo_note(t, "cpu %u: %s level shifts are not increasing", sh.source,
			  cpu, 0, 0);
	if (!cpu)
		return;
	if (sh.source != bsp->source) {
		topo_note(t, "cpu %u: no %s like the BSP; decoded with the BSP's shifts",
			  bsp->source, cpu, 0, 0);
		return;
	}
	if (sh.pkg != bsp->pkg)
		topo_note(t, "cpu %u reports a different package shift (%u) than the BSP (%u)",
			  NULL, cpu, sh.pkg, bsp->pkg);
	if (sh.smt != bsp->smt)
		topo_note(t, "cpu %u reports a different SMT shift (%u) than the BSP (%u)",
			  NULL, cpu, sh.smt, bsp->smt);
}

static void topo_decode_cpu(struct topo *t, uint32_t cpu, const struct cpuid_snap *s,
			    const int32_t *node_of_cpu)
{
	struct topo_cpu *c = &t->cpu[cpu];
	struct topo_cache caches[TOPO_CPU_CACHES];
	uint8_t n;

	c->apic_id = cpuid_snap_apic_id(s);
	c->package = topo_shr(c->apic_id, t->pkg_shift);
	c->die = topo_shr(c->apic_id, t->die_shift) &
		 topo_low_mask(t->pkg_shift - t->die_shift);
	c->core = topo_shr(c->apic_id, t->smt_bits) &
		  topo_low_mask(t->pkg_shift - t->smt_bits);
	c->thread = c->apic_id & topo_low_mask(t->smt_bits);
	if (s->have_leaf1a)
		c->core_type = (uint8_t)CPUID_FIELD(s->leaf1a.eax, CPUID_1A_EAX_CORE_TYPE);
	if (node_of_cpu && node_of_cpu[cpu] >= QB_MAX_NODES)
		topo_note(t, "cpu %u: node %u out of range, using node 0", NULL,
			  cpu, (uint32_t)node_of_cpu[cpu], 0);
	else if (node_of_cpu && node_of_cpu[cpu] > 0)
		c->node = (uint32_t)node_of_cpu[cpu];

	n = topo_caches_of(t, s, caches);
	if (!n)
		topo_note(t, "cpu %u: no cache description in CPUID", NULL, cpu, 0, 0);
	for (uint8_t i = 0; i < n; i++) {
		uint16_t idx;

		if (!topo_cache_ok(t, cpu, i, &caches[i]))
			continue;
		idx = topo_cache_join(t, cpu, c->apic_id, &caches[i]);
		if (idx != TOPO_CACHE_NONE)
			c->cache[c->ncaches++] = idx;
	}
}

/* Counts distinct packages, cores and nodes, and reports duplicate APIC IDs. */
static void topo_count(struct topo *t)
{
	for (uint32_t i = 0; i < t->ncpu; i++) {
		const struct topo_cpu *a = &t->cpu[i];
		bool new_pkg = true, new_core = true, new_node = true, dup = false;

		for (uint32_t j = 0; j < i; j++) {
			const struct topo_cpu *b = &t->cpu[j];

			if (a->apic_id == b->apic_id && !dup) {
				topo_note(t, "apic id %u appears twice (cpus %u and %u)",
					  NULL, a->apic_id, j, i);
				dup = true;	/* once per CPU, against the first */
			}
			new_pkg &= a->package != b->package;
			new_core &= a->package != b->package || a->core != b->core;
			new_node &= a->node != b->node;
		}
		t->npackages += new_pkg;
		t->ncores += new_core;
		t->nnodes += new_node;
	}
}

/* ---- Public Functions ------------------------------------------------------ */

int topo_decode(const struct cpuid_snap *snaps, const int32_t *node_of_cpu,
		uint32_t ncpu, struct topo *out)
{
	struct topo_shifts bsp;

	memset(out, 0, sizeof(*out));
	if (!snaps || !ncpu || ncpu > QB_MAX_CPUS) {
		topo_note(out, "topo_decode: %u CPUs, limit %u", NULL, ncpu,
			  QB_MAX_CPUS, 0);
		return -1;
	}
	out->ncpu = ncpu;
	out->vendor = cpuid_snap_vendor(&snaps[0]);
	topo_shifts_of(&snaps[0], &bsp);
	out->source = bsp.source;
	out->smt_bits = bsp.smt;
	out->die_shift = bsp.die;
	out->pkg_shift = bsp.pkg;

	for (uint32_t i = 0; i < ncpu; i++) {
		topo_check_cpu(out, i, &snaps[i], &bsp);
		topo_decode_cpu(out, i, &snaps[i], node_of_cpu);
	}
	topo_count(out);
	topo_check_overlap(out);
	return (int)out->nmsgs;
}

enum topo_rel topo_relation(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_cpu *ca, *cb;

	if (a >= t->ncpu || b >= t->ncpu)
		return TOPO_REL_REMOTE;
	if (a == b)
		return TOPO_REL_SELF;
	ca = &t->cpu[a];
	cb = &t->cpu[b];
	if (ca->package == cb->package && ca->core == cb->core)
		return TOPO_REL_SMT;
	if (topo_shares_cache(t, a, b, 2))
		return TOPO_REL_L2;
	if (topo_shares_cache(t, a, b, 3))
		return TOPO_REL_L3;
	if (ca->package == cb->package)
		return TOPO_REL_PACKAGE;
	return TOPO_REL_REMOTE;
}

const char *topo_rel_name(enum topo_rel r)
{
	static const char *const names[] = {
		[TOPO_REL_SELF] = "self",	[TOPO_REL_SMT] = "smt",
		[TOPO_REL_L2] = "l2",		[TOPO_REL_L3] = "l3",
		[TOPO_REL_PACKAGE] = "package", [TOPO_REL_REMOTE] = "remote",
	};

	return (unsigned)r < ARRAY_SIZE(names) ? names[r] : "?";
}

bool topo_shares_cache(const struct topo *t, uint32_t a, uint32_t b, uint8_t level)
{
	if (a >= t->ncpu || b >= t->ncpu)
		return false;
	for (uint32_t i = 0; i < t->cpu[a].ncaches; i++) {
		const struct topo_cache *c = &t->cache[t->cpu[a].cache[i]];

		if (c->level == level && topo_cpuset_has(&c->shared_by, b))
			return true;
	}
	return false;
}

const struct topo_cache *topo_cpu_cache(const struct topo *t, uint32_t cpu,
					uint8_t level)
{
	if (cpu >= t->ncpu)
		return NULL;
	for (uint32_t i = 0; i < t->cpu[cpu].ncaches; i++) {
		const struct topo_cache *c = &t->cache[t->cpu[cpu].cache[i]];

		if (c->level == level && c->type != TOPO_CACHE_INSTRUCTION)
			return c;
	}
	return NULL;
}

const char *topo_cache_type_name(enum topo_cache_type type)
{
	static const char *const names[] = {
		[TOPO_CACHE_DATA] = "data",
		[TOPO_CACHE_INSTRUCTION] = "instruction",
		[TOPO_CACHE_UNIFIED] = "unified",
	};

	return (unsigned)type < ARRAY_SIZE(names) && names[type] ? names[type] : "?";
}
