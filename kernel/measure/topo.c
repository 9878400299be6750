/* topo.c - decodes per-CPU CPUID snapshots into packages, dies, cores and
 * threads, and their relations; the caches are topo_cache.c's. Pure and
 * host-tested (Intel SDM vol. 2A, CPUID leaves 1, 4, 0xB, 0x1F, 0x1A; AMD APM
 * vol. 3, appendix E, Fn8000_0008, Fn8000_001E). */
#include "topo.h"
#include "lib.h"
#include "topo_cache.h"

/* ---- Constants ------------------------------------------------------------- */

static const char topo_src_1f[] = "leaf 0x1f";
static const char topo_src_b[] = "leaf 0xb";
static const char topo_src_amd_1e[] = "amd 0x8000001e";
static const char topo_src_amd_8[] = "amd 0x80000008";
static const char topo_src_leaf1_4[] = "leaf 1 + leaf 4";
static const char topo_src_leaf1[] = "leaf 1";
static const char topo_src_legacy[] = "legacy";

#define TOPO_DEC_DIGITS		10	/* of a uint32_t */
#define TOPO_BASE_DEC		10
#define TOPO_BASE_HEX		16
#define TOPO_NUM_ARGS		3	/* numbers one message may print */

/* ---- Types ----------------------------------------------------------------- */

/* How one snapshot splits its APIC ID into thread, core, die and package. */
struct topo_shifts {
	const char *source;
	uint8_t smt, die, pkg;
	bool unordered;		/* level shifts decrease somewhere */
};

/* ---- Private Functions ----------------------------------------------------- */

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

/* Formats fmt into m (TOPO_MSG_LEN): %s prints s, up to three %u/%x print
 * a, b, c in order, decimal or hex. */
static void topo_format(char *m, const char *fmt, const char *s, uint32_t a,
			uint32_t b, uint32_t c)
{
	const uint32_t args[TOPO_NUM_ARGS] = { a, b, c };
	uint32_t na = 0;
	size_t n = 0;

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
	uint32_t node = 0, nodes = 1;

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

	if (cpuid_snap_family(s) < TOPO_AMD_NODE_FAMILY_BELOW &&
	    cpuid_snap_amd_node(s, &node, &nodes) != CPUID_NODE_NONE && nodes > 1)
		c->die = node % nodes;	/* its node in the package (Linux: cpu_die_id = NodeId) */
	topo_cache_decode_cpu(t, cpu, s);
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

void topo_note(struct topo *t, const char *fmt, const char *s, uint32_t a,
	       uint32_t b, uint32_t c)
{
	if (t->nmsgs++ >= TOPO_MAX_MSGS)
		return;
	topo_format(t->msg[t->nmsgs - 1], fmt, s, a, b, c);
}

void topo_set_note(struct topo *t, const char *fmt, const char *s)
{
	if (!t->note[0])
		topo_format(t->note, fmt, s, 0, 0, 0);
}

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
	topo_cache_check_overlap(out);
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

uint32_t topo_l3s(const struct topo *t, const uint32_t *cpu_of_topo, uint32_t *l3_of, uint32_t *first)
{
	uint32_t n = 0;
	for (uint32_t c = 0; c < QB_MAX_CPUS; c++)
		l3_of[c] = TOPO_NO_L3;
	for (uint32_t i = 0; t && i < t->ncaches && n < QB_MAX_CPUS; i++) {
		const struct topo_cache *k = &t->cache[i];
		bool any = false;
		if (k->level != 3 || k->type == TOPO_CACHE_INSTRUCTION)
			continue;
		for (uint32_t c = 0; c < t->ncpu; c++) {
			if (!topo_cpuset_has(&k->shared_by, c) || cpu_of_topo[c] >= QB_MAX_CPUS)
				continue;
			if (!any)
				first[n] = cpu_of_topo[c];
			l3_of[cpu_of_topo[c]] = n;
			any = true;
		}
		n += any;
	}
	return n;
}
