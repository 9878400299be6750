/* placement.c - orders the CPUs of the decoded topology (kernel/measure/topo.h) for
 * multi-threaded workloads: compact and scatter orders, relation pairs, sweeps.
 *
 * Everything here is pure C over struct topo: no hardware access, no
 * allocation. Cache instances are compared by the lowest APIC ID they cover
 * (id << share_shift), which is comparable across instances of different
 * widths (a hybrid part's per-core and per-cluster L2s) where the instance
 * index or the raw id is not. */
#include "placement.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------- */

#define PLACE_L2		2		/* cache levels, as in struct topo_cache */
#define PLACE_L3		3
#define PLACE_NO_CACHE		UINT64_MAX	/* key of a missing cache: sorts last */
#define PLACE_APIC_BITS		64		/* shifts at or above this cover everything */

/* Scatter packs six fields, each below QB_MAX_CPUS, into one uint64_t key. */
#define PLACE_RANK_BITS		10
#define PLACE_RANK_FIELDS	6
_Static_assert(QB_MAX_CPUS <= (1u << PLACE_RANK_BITS), "a rank must fit its field");
_Static_assert(PLACE_RANK_FIELDS * PLACE_RANK_BITS <= 64, "the scatter key must fit 64 bits");

/* ---- Types ----------------------------------------------------------------- */

/* Where a CPU sits, outermost first: the compact sort key. */
struct place_key {
	uint32_t node;
	uint32_t package;
	uint64_t l3;		/* lowest APIC ID of its L3 instance */
	uint64_t l2;		/* lowest APIC ID of its L2 instance */
	uint32_t core;
	uint32_t thread;
};

/* "a goes before b" for the insertion sort; ctx is the caller's. */
typedef bool (*place_before_fn)(const void *ctx, uint32_t a, uint32_t b);

/* ---- Private Variables ----------------------------------------------------- */

/* Scatter key of each topo number: 4 KiB kept off the (small) kernel stack. */
static uint64_t place_scatter_key[QB_MAX_CPUS];

/* ---- Private Functions ----------------------------------------------------- */

/* The lowest APIC ID the data or unified cache of cpu at level covers. */
static uint64_t place_cache_base(const struct topo *t, uint32_t cpu, uint8_t level)
{
	const struct topo_cache *c = topo_cpu_cache(t, cpu, level);

	if (!c)
		return PLACE_NO_CACHE;
	if (c->share_shift >= PLACE_APIC_BITS)
		return 0;
	return (uint64_t)c->id << c->share_shift;
}

static struct place_key place_key_of(const struct topo *t, uint32_t cpu)
{
	const struct topo_cpu *c = &t->cpu[cpu];

	return (struct place_key){
		.node = c->node,
		.package = c->package,
		.l3 = place_cache_base(t, cpu, PLACE_L3),
		.l2 = place_cache_base(t, cpu, PLACE_L2),
		.core = c->core,
		.thread = c->thread,
	};
}

/* Returns <0, 0 or >0 as x sorts before, with or after y in compact order. */
static int place_key_cmp(const struct place_key *x, const struct place_key *y)
{
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->package != y->package)
		return x->package < y->package ? -1 : 1;
	if (x->l3 != y->l3)
		return x->l3 < y->l3 ? -1 : 1;
	if (x->l2 != y->l2)
		return x->l2 < y->l2 ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return 0;
}

static bool place_compact_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct topo *t = ctx;
	struct place_key ka = place_key_of(t, a), kb = place_key_of(t, b);
	int c = place_key_cmp(&ka, &kb);

	return c ? c < 0 : a < b;
}

static bool place_scatter_before(const void *ctx, uint32_t a, uint32_t b)
{
	const uint64_t *key = ctx;

	return key[a] < key[b];
}

/* Insertion sort: n is at most QB_MAX_CPUS, and the input is often sorted. */
static void place_sort(uint32_t *v, uint32_t n, place_before_fn before,
		       const void *ctx)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = v[i], j = i;

		while (j > 0 && before(ctx, x, v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* Appends one rank field to a scatter key. */
static uint64_t place_push(uint64_t key, uint32_t field)
{
	return key << PLACE_RANK_BITS | field;
}

/*
 * Ranks each CPU by walking the compact order, where every group is
 * contiguous: its thread within the core, its core within the L2, its L2
 * within the L3, its L3 within the (node, package) domain, and the domain.
 * The key sorts by those ranks in that order, so the domain varies fastest.
 */
static void place_scatter_keys(const struct topo *t, const uint32_t *compact,
			       uint64_t *key)
{
	uint32_t dom = 0, l3 = 0, l2 = 0, core = 0, thr = 0;
	struct place_key prev = { 0 };

	for (uint32_t i = 0; i < t->ncpu; i++) {
		uint32_t cpu = compact[i];
		struct place_key cur = place_key_of(t, cpu);
		uint64_t k;

		if (i == 0) {
			/* the first CPU opens every group at rank 0 */
		} else if (cur.node != prev.node || cur.package != prev.package) {
			dom++;
			l3 = l2 = core = thr = 0;
		} else if (cur.l3 != prev.l3) {
			l3++;
			l2 = core = thr = 0;
		} else if (cur.l2 != prev.l2) {
			l2++;
			core = thr = 0;
		} else if (cur.core != prev.core) {
			core++;
			thr = 0;
		} else {
			thr++;
		}
		k = place_push(0, thr);
		k = place_push(k, core);
		k = place_push(k, l2);
		k = place_push(k, l3);
		k = place_push(k, dom);
		key[cpu] = place_push(k, cpu);
		prev = cur;
	}
}

static uint32_t place_dense(const uint32_t *cpu_of_topo, uint32_t topo_cpu)
{
	return cpu_of_topo ? cpu_of_topo[topo_cpu] : topo_cpu;
}

/* ---- Public Functions ------------------------------------------------------ */

const char *place_name(enum place_how k)
{
	switch (k) {
	case PLACE_COMPACT:
		return "compact";
	case PLACE_SCATTER:
		return "scatter";
	}
	return "?";
}

uint32_t place_order(const struct topo *t, enum place_how k, uint32_t *out)
{
	uint32_t n = t->ncpu;

	if (n > QB_MAX_CPUS || (k != PLACE_COMPACT && k != PLACE_SCATTER))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		out[i] = i;
	place_sort(out, n, place_compact_before, t);
	if (k == PLACE_SCATTER) {
		place_scatter_keys(t, out, place_scatter_key);
		place_sort(out, n, place_scatter_before, place_scatter_key);
	}
	return n;
}

bool place_set(const struct topo *t, const uint32_t *cpu_of_topo,
	       enum place_how k, uint32_t n, struct cpuset *set)
{
	set->n = 0;
	if (n == 0 || n > t->ncpu)
		return false;
	/* set->cpu holds QB_MAX_CPUS, so the whole order fits before mapping */
	if (place_order(t, k, set->cpu) != t->ncpu)
		return false;
	for (uint32_t i = 0; i < n; i++)
		set->cpu[i] = place_dense(cpu_of_topo, set->cpu[i]);
	set->n = n;
	return true;
}

bool place_pair(const struct topo *t, const uint32_t *cpu_of_topo,
		enum topo_rel rel, struct cpuset *set)
{
	set->n = 0;
	if (rel <= TOPO_REL_SELF || rel > TOPO_REL_REMOTE)
		return false;
	for (uint32_t a = 0; a < t->ncpu; a++) {
		for (uint32_t b = a + 1; b < t->ncpu; b++) {
			if (topo_relation(t, a, b) != rel)
				continue;
			set->cpu[0] = place_dense(cpu_of_topo, a);
			set->cpu[1] = place_dense(cpu_of_topo, b);
			set->n = 2;
			return true;
		}
	}
	return false;
}

const char *place_pair_missing_reason(enum topo_rel rel)
{
	switch (rel) {
	case TOPO_REL_SELF:
		return "a CPU and itself are not a pair";
	case TOPO_REL_SMT:
		return "no SMT siblings";
	case TOPO_REL_L2:
		return "no two cores share an L2 without being SMT siblings";
	case TOPO_REL_L3:
		return "no two cores share an L3 outside an L2";
	case TOPO_REL_PACKAGE:
		return "one L3 per package";
	case TOPO_REL_REMOTE:
		return "one package";
	}
	return "unknown relation";
}

bool place_scatter_is_compact(const struct topo *t, const uint32_t *cpu_of_topo, uint32_t n)
{
	static struct cpuset a, b;
	static uint64_t seen[(QB_MAX_CPUS + 63) / 64];
	if (!place_set(t, cpu_of_topo, PLACE_COMPACT, n, &a) || !place_set(t, cpu_of_topo, PLACE_SCATTER, n, &b))
		return false;
	memset(seen, 0, sizeof(seen));
	for (uint32_t i = 0; i < a.n; i++)
		if (a.cpu[i] < QB_MAX_CPUS)
			seen[a.cpu[i] / 64] |= 1ull << (a.cpu[i] % 64);
	for (uint32_t i = 0; i < b.n; i++)
		if (b.cpu[i] >= QB_MAX_CPUS || !(seen[b.cpu[i] / 64] & (1ull << (b.cpu[i] % 64))))
			return false;
	return a.n == b.n;
}

uint32_t place_thread_counts(uint32_t n, uint32_t *out, uint32_t max)
{
	uint32_t count = 0;
	uint64_t p;

	/* 64-bit p: doubling past n must not wrap when n is near UINT32_MAX */
	for (p = 1; p <= n && count < max; p *= 2)
		out[count++] = (uint32_t)p;
	if (n && (n & (n - 1)) && count < max)
		out[count++] = n;
	return count;
}

uint32_t place_sample(uint32_t n, uint32_t max, uint32_t *out)
{
	if (n <= max) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = i;
		return n;
	}
	if (max <= 1) {
		if (max)
			out[0] = 0;
		return max;
	}
	/* n > max, so steps of (n - 1) / (max - 1) exceed 1: no repeats */
	for (uint32_t i = 0; i < max; i++)
		out[i] = (uint32_t)((uint64_t)i * (n - 1) / (max - 1));
	return max;
}
