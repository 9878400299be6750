/* test_placement.c - host tests of workloads/placement.c on the recorded CPUID
 * topologies of topo_fixtures.h, with orders and pairs written out by hand. */
#include "check.h"
#include "topo_fixtures.h"
#include "placement.h"
#include "sizes.h"

/* ---- Helpers --------------------------------------------------------------- */

#define GUARD 0xDEADBEEFu	/* fills buffers to catch writes past the count */

static uint32_t order[QB_MAX_CPUS + 1];
static struct cpuset set;

/* The identity topo -> dense map and a shuffled one (a bijection on 0..7). */
static uint32_t ident[QB_MAX_CPUS];
static const uint32_t shuffled[] = { 5, 3, 7, 1, 0, 6, 2, 4 };

/* True when got[0..n) is want[0..n); prints both otherwise. */
static bool same(const uint32_t *got, const uint32_t *want, uint32_t n)
{
	if (!memcmp(got, want, n * sizeof(*got)))
		return true;
	printf("    got: ");
	for (uint32_t i = 0; i < n; i++)
		printf(" %u", got[i]);
	printf("\n    want:");
	for (uint32_t i = 0; i < n; i++)
		printf(" %u", want[i]);
	printf("\n");
	return false;
}

#define LIST(...) (const uint32_t[]){ __VA_ARGS__ }
#define LIST_N(...) (uint32_t)(sizeof(LIST(__VA_ARGS__)) / sizeof(uint32_t))

/* place_order(&T, k) is exactly the list, and nothing is written past it. */
#define CHECK_ORDER(k, ...)                                                    \
	do {                                                                   \
		for (uint32_t i_ = 0; i_ <= QB_MAX_CPUS; i_++)                 \
			order[i_] = GUARD;                                     \
		CHECK_EQ_U(place_order(&T, k, order), LIST_N(__VA_ARGS__));    \
		CHECK_EQ_U(T.ncpu, LIST_N(__VA_ARGS__));                       \
		CHECK(same(order, LIST(__VA_ARGS__), LIST_N(__VA_ARGS__)));    \
		CHECK_EQ_U(order[LIST_N(__VA_ARGS__)], GUARD);                 \
	} while (0)

/* place_set(&T, map, k, n) succeeds with exactly the listed dense CPUs. */
#define CHECK_SET(map, k, ...)                                                 \
	do {                                                                   \
		CHECK(place_set(&T, map, k, LIST_N(__VA_ARGS__), &set));       \
		CHECK_EQ_U(set.n, LIST_N(__VA_ARGS__));                        \
		CHECK(same(set.cpu, LIST(__VA_ARGS__), LIST_N(__VA_ARGS__)));  \
	} while (0)

/* The topo number that map sends to dense CPU d (map is a bijection). */
static uint32_t topo_of(const uint32_t *map, uint32_t d)
{
	for (uint32_t i = 0; i < T.ncpu; i++)
		if (map[i] == d)
			return i;
	return UINT32_MAX;
}

/* place_pair picks topo CPUs a and b (as dense map[a], map[b]), and they
 * really are related by rel. */
#define CHECK_PAIR(map, rel, a, b)                                             \
	do {                                                                   \
		CHECK(topo_relation(&T, a, b) == (rel));                       \
		CHECK(place_pair(&T, map, rel, &set));                         \
		CHECK_EQ_U(set.n, 2);                                          \
		CHECK_EQ_U(set.cpu[0], (map)[a]);                              \
		CHECK_EQ_U(set.cpu[1], (map)[b]);                              \
		CHECK(topo_relation(&T, topo_of(map, set.cpu[0]),              \
				    topo_of(map, set.cpu[1])) == (rel));       \
	} while (0)

/* No pair of relation rel exists, brute force agrees, and the set is empty. */
#define CHECK_NO_PAIR(rel)                                                     \
	do {                                                                   \
		set.n = GUARD;                                                 \
		CHECK(!place_pair(&T, ident, rel, &set));                      \
		CHECK_EQ_U(set.n, 0);                                          \
		CHECK(!any_pair(rel));                                         \
	} while (0)

static bool any_pair(enum topo_rel rel)
{
	for (uint32_t a = 0; a < T.ncpu; a++)
		for (uint32_t b = 0; b < T.ncpu; b++)
			if (a != b && topo_relation(&T, a, b) == rel)
				return true;
	return false;
}

/* place_set rejects 0 and more CPUs than the machine has. */
static void check_set_bounds(void)
{
	set.n = GUARD;
	CHECK(!place_set(&T, ident, PLACE_COMPACT, 0, &set));
	CHECK_EQ_U(set.n, 0);
	set.n = GUARD;
	CHECK(!place_set(&T, ident, PLACE_SCATTER, T.ncpu + 1, &set));
	CHECK_EQ_U(set.n, 0);
}

/* ---- Names and arguments --------------------------------------------------- */

TEST(place_names_and_bad_arguments)
{
	CHECK_STR(place_name(PLACE_COMPACT), "compact");
	CHECK_STR(place_name(PLACE_SCATTER), "scatter");
	CHECK_STR(place_name((enum place_how)7), "?");
	CHECK_STR(place_pair_missing_reason(TOPO_REL_SMT), "no SMT siblings");
	CHECK_STR(place_pair_missing_reason(TOPO_REL_L2),
		  "no two cores share an L2 without being SMT siblings");
	CHECK_STR(place_pair_missing_reason(TOPO_REL_L3),
		  "no two cores share an L3 outside an L2");
	CHECK_STR(place_pair_missing_reason(TOPO_REL_PACKAGE), "one L3 per package");
	CHECK_STR(place_pair_missing_reason(TOPO_REL_REMOTE), "one package");
	CHECK_CLEAN(fx_decode(cpus_skylake, 4, NULL));
	CHECK_EQ_U(place_order(&T, (enum place_how)7, order), 0);
	CHECK(!place_set(&T, ident, (enum place_how)7, 1, &set));
	CHECK(!place_pair(&T, ident, TOPO_REL_SELF, &set));
	CHECK(!place_pair(&T, ident, (enum topo_rel)(TOPO_REL_REMOTE + 1), &set));
}

/* ---- 1. i5-6600: one package, four cores, no SMT --------------------------- */

TEST(place_skylake)
{
	CHECK_CLEAN(fx_decode(cpus_skylake, 4, NULL));
	CHECK_ORDER(PLACE_COMPACT, 0, 1, 2, 3);
	CHECK_ORDER(PLACE_SCATTER, 0, 1, 2, 3);
	CHECK_SET(ident, PLACE_COMPACT, 0);
	CHECK_SET(ident, PLACE_SCATTER, 0, 1, 2);
	CHECK_SET(ident, PLACE_COMPACT, 0, 1, 2, 3);
	check_set_bounds();
	CHECK_PAIR(ident, TOPO_REL_L3, 0, 1);
	CHECK_NO_PAIR(TOPO_REL_SMT);
	CHECK_NO_PAIR(TOPO_REL_L2);
	CHECK_NO_PAIR(TOPO_REL_PACKAGE);
	CHECK_NO_PAIR(TOPO_REL_REMOTE);
}

/* The same part listed out of core order: the order follows the topology. */
TEST(place_skylake_madt_shuffled)
{
	static const struct fx_cpu cpus[] = {
		FXC(6, &m_skylake), FXC(2, &m_skylake), FXC(0, &m_skylake), FXC(4, &m_skylake),
	};

	CHECK_CLEAN(fx_decode(cpus, 4, NULL));
	CHECK_ORDER(PLACE_COMPACT, 2, 1, 3, 0);
	CHECK_ORDER(PLACE_SCATTER, 2, 1, 3, 0);
	CHECK_SET(ident, PLACE_COMPACT, 2, 1);
	CHECK_PAIR(ident, TOPO_REL_L3, 0, 1);	/* lowest topo numbers, not cores */
}

/* ---- 2. E5-2637 x2: 2 packages x 2 cores x 2 threads, a node each ---------- */

/* Topo numbers 0-3 are thread 0 of (pkg 0 core 0), (0, 1), (1, 0), (1, 1);
 * 4-7 are their SMT siblings, in the same order. */
TEST(place_sandy)
{
	CHECK_CLEAN(fx_decode(cpus_sandy, 8, nodes_sandy));
	CHECK_ORDER(PLACE_COMPACT, 0, 4, 1, 5, 2, 6, 3, 7);
	CHECK_ORDER(PLACE_SCATTER, 0, 2, 1, 3, 4, 6, 5, 7);
	CHECK_SET(ident, PLACE_COMPACT, 0, 4);
	CHECK_SET(ident, PLACE_COMPACT, 0, 4, 1);
	CHECK_SET(ident, PLACE_COMPACT, 0, 4, 1, 5, 2);
	CHECK_SET(ident, PLACE_SCATTER, 0, 2);
	CHECK_SET(ident, PLACE_SCATTER, 0, 2, 1, 3);
	CHECK_SET(ident, PLACE_SCATTER, 0, 2, 1, 3, 4, 6, 5, 7);
	check_set_bounds();
	CHECK_PAIR(ident, TOPO_REL_SMT, 0, 4);
	CHECK_PAIR(ident, TOPO_REL_L3, 0, 1);
	CHECK_PAIR(ident, TOPO_REL_REMOTE, 0, 2);
	CHECK_NO_PAIR(TOPO_REL_L2);
	CHECK_NO_PAIR(TOPO_REL_PACKAGE);	/* one L3 per package */
}

/* Nodes outrank packages in compact order: package 1 on node 0 comes first. */
TEST(place_sandy_nodes_swapped)
{
	static const int32_t nodes[] = { 1, 1, 0, 0, 1, 1, 0, 0 };

	CHECK_CLEAN(fx_decode(cpus_sandy, 8, nodes));
	CHECK_ORDER(PLACE_COMPACT, 2, 6, 3, 7, 0, 4, 1, 5);
	CHECK_ORDER(PLACE_SCATTER, 2, 0, 3, 1, 6, 4, 7, 5);
}

/* ---- 3. 5950X: one package, two CCD L3s of 8 cores x 2 threads ------------- */

/* Topo n < 16 is thread 0 of core n, n >= 16 thread 1 of core n - 16;
 * cores 0-7 share one L3, 8-15 the other. */
TEST(place_zen3)
{
	uint32_t n = fill_cpus(&m_zen3, 32, 0, true);

	CHECK_CLEAN(fx_decode(cpus_many, n, NULL));
	CHECK_ORDER(PLACE_COMPACT,
		    0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
		    8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
	CHECK_ORDER(PLACE_SCATTER,
		    0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15,
		    16, 24, 17, 25, 18, 26, 19, 27, 20, 28, 21, 29, 22, 30, 23, 31);
	CHECK_SET(ident, PLACE_COMPACT, 0, 16, 1);
	CHECK_SET(ident, PLACE_COMPACT, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21,
		  6, 22, 7, 23, 8);
	CHECK_SET(ident, PLACE_SCATTER, 0, 8);
	CHECK_SET(ident, PLACE_SCATTER, 0, 8, 1, 9, 2, 10);
	CHECK_SET(ident, PLACE_SCATTER, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13,
		  6, 14, 7, 15, 16);
	check_set_bounds();
	CHECK_PAIR(ident, TOPO_REL_SMT, 0, 16);
	CHECK_PAIR(ident, TOPO_REL_L3, 0, 1);
	CHECK_PAIR(ident, TOPO_REL_PACKAGE, 0, 8);
	CHECK_NO_PAIR(TOPO_REL_L2);
	CHECK_NO_PAIR(TOPO_REL_REMOTE);
	/* One thread, or all of them, is the same set either way; 2 and 16 are not. */
	CHECK(place_scatter_is_compact(&T, ident, 1));
	CHECK(!place_scatter_is_compact(&T, ident, 2));
	CHECK(!place_scatter_is_compact(&T, ident, 16));
	CHECK(place_scatter_is_compact(&T, ident, 32));
	CHECK(!place_scatter_is_compact(&T, ident, 0));
	CHECK(!place_scatter_is_compact(&T, ident, 33));
}

/* Two such packages, each with two CCD L3s of 2 cores x 2 threads (APIC
 * IDs 0-3 and 16-19 in package 0, 32-35 and 48-51 in package 1), thread 0 of
 * each core first: scatter visits package 0's first L3, package 1's first
 * L3, then package 0's second L3. */
TEST(place_zen3_two_sockets)
{
	static const struct fx_cpu cpus[] = {
		FXC(0, &m_zen3),  FXC(2, &m_zen3),  FXC(16, &m_zen3), FXC(18, &m_zen3),
		FXC(32, &m_zen3), FXC(34, &m_zen3), FXC(48, &m_zen3), FXC(50, &m_zen3),
		FXC(1, &m_zen3),  FXC(3, &m_zen3),  FXC(17, &m_zen3), FXC(19, &m_zen3),
		FXC(33, &m_zen3), FXC(35, &m_zen3), FXC(49, &m_zen3), FXC(51, &m_zen3),
	};

	CHECK_CLEAN(fx_decode(cpus, 16, NULL));
	CHECK_EQ_U(T.npackages, 2);
	CHECK_ORDER(PLACE_COMPACT, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
	CHECK_ORDER(PLACE_SCATTER, 0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15);
	CHECK_SET(ident, PLACE_SCATTER, 0, 4, 2);
	CHECK_PAIR(ident, TOPO_REL_SMT, 0, 8);
	CHECK_PAIR(ident, TOPO_REL_L3, 0, 1);
	CHECK_PAIR(ident, TOPO_REL_PACKAGE, 0, 2);
	CHECK_PAIR(ident, TOPO_REL_REMOTE, 0, 4);
	CHECK_NO_PAIR(TOPO_REL_L2);
}

/* ---- 4. Hybrid: 2 P-cores x 2 threads and two E-core L2 clusters ----------- */

/* Modelled on the i7-1255U from the i3-1215U tables: P-cores at APIC 0,1 and
 * 8,9 (own L2), E-cores 16-22 and 24-30 (one L2 per four), one L3. Scatter
 * spreads over the L2 clusters before it doubles up within one. */
TEST(place_hybrid_two_clusters)
{
	static const struct fx_cpu cpus[] = {
		FXC(0, &m_adl_p),  FXC(1, &m_adl_p),  FXC(8, &m_adl_p),  FXC(9, &m_adl_p),
		FXC(16, &m_adl_e), FXC(18, &m_adl_e), FXC(20, &m_adl_e), FXC(22, &m_adl_e),
		FXC(24, &m_adl_e), FXC(26, &m_adl_e), FXC(28, &m_adl_e), FXC(30, &m_adl_e),
	};

	CHECK_CLEAN(fx_decode(cpus, 12, NULL));
	CHECK_ORDER(PLACE_COMPACT, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
	CHECK_ORDER(PLACE_SCATTER, 0, 2, 4, 8, 5, 9, 6, 10, 7, 11, 1, 3);
	CHECK_SET(ident, PLACE_SCATTER, 0, 2, 4, 8, 5);
	CHECK_PAIR(ident, TOPO_REL_SMT, 0, 1);
	CHECK_PAIR(ident, TOPO_REL_L2, 4, 5);
	CHECK_PAIR(ident, TOPO_REL_L3, 0, 2);
	CHECK_NO_PAIR(TOPO_REL_PACKAGE);
	CHECK_NO_PAIR(TOPO_REL_REMOTE);
}

/* The recorded i3-1215U as listed: the E-core L2 pair is the lowest one. */
TEST(place_hybrid_adl)
{
	CHECK_CLEAN(fx_decode(cpus_adl, 8, NULL));
	CHECK_ORDER(PLACE_SCATTER, 0, 2, 4, 5, 6, 7, 1, 3);
	CHECK_PAIR(ident, TOPO_REL_L2, 4, 5);
}

/* ---- 5. Atom D525: 2 cores x 2 threads and no L3 at all --------------------- */

TEST(place_atom_no_l3)
{
	uint32_t n = fill_cpus(&m_atom, 4, 1, false);

	CHECK_CLEAN(fx_decode(cpus_many, n, NULL));
	CHECK_ORDER(PLACE_COMPACT, 0, 1, 2, 3);
	CHECK_ORDER(PLACE_SCATTER, 0, 2, 1, 3);
	CHECK_PAIR(ident, TOPO_REL_SMT, 0, 1);
	CHECK_PAIR(ident, TOPO_REL_PACKAGE, 0, 2);
	CHECK_NO_PAIR(TOPO_REL_L3);
}

/* ---- Sizes named by what they are on the machine (sizes.c) ------------------ */

/* The name size_name gives bytes chosen for role want, and the role it returns. */
#define CHECK_SIZE(bytes, want, name, role)                                     \
	do {                                                                   \
		char n_[SIZE_NAME_LEN];                                        \
		CHECK_EQ_U(size_name(&T, (bytes), (want), n_, sizeof(n_)), (role)); \
		CHECK_STR(n_, (name));                                         \
	} while (0)

/* A Zen 3 CCD: 32 KiB L1d, 512 KiB L2, 32 MiB L3. */
TEST(sizes_zen3)
{
	uint32_t n = fill_cpus(&m_zen3, 32, 0, true);
	CHECK_CLEAN(fx_decode(cpus_many, n, NULL));
	CHECK_EQ_U(size_role_of(&T, 32 << 10), SIZE_ROLE_L1);
	CHECK_EQ_U(size_role_of(&T, (32 << 10) + 64), SIZE_ROLE_L2);
	CHECK_SIZE(256 << 10, SIZE_ROLE_L2, "l2", SIZE_ROLE_L2);          /* the seed's 64 Ki ints */
	CHECK_SIZE(16ull << 20, SIZE_ROLE_LLC, "llc", SIZE_ROLE_LLC);     /* half the L3 */
	CHECK_SIZE(512 << 10, SIZE_ROLE_LLC, "512kib", SIZE_ROLE_NONE);   /* the quick "llc": an L2 size here */
	CHECK_SIZE(2ull << 20, SIZE_ROLE_DRAM, "2mib", SIZE_ROLE_NONE);   /* the quick "dram": inside the L3 */
	CHECK_SIZE(2ull << 30, SIZE_ROLE_DRAM, "dram", SIZE_ROLE_DRAM);
	CHECK_SIZE(64ull << 20, SIZE_ROLE_DRAM, "64mib", SIZE_ROLE_NONE); /* past the L3, short of 4x */
	CHECK_SIZE(128ull << 20, SIZE_ROLE_DRAM, "dram", SIZE_ROLE_DRAM);
	CHECK_SIZE(5000, SIZE_ROLE_NONE, "5000b", SIZE_ROLE_NONE);
	CHECK_SIZE(3ull << 30, SIZE_ROLE_NONE, "3gib", SIZE_ROLE_NONE);
	CHECK_STR(size_role_name(SIZE_ROLE_LLC), "LLC");
	CHECK(size_role_name(SIZE_ROLE_NONE) == NULL);
}

/* No L3: the L2 is the last level; nothing is "LLC", and DRAM is 4x the L2. */
TEST(sizes_atom_no_l3)
{
	uint32_t n = fill_cpus(&m_atom, 4, 1, false);
	CHECK_CLEAN(fx_decode(cpus_many, n, NULL));
	CHECK_EQ_U(size_role_of(&T, 256 << 10), SIZE_ROLE_L2);
	CHECK_EQ_U(size_role_of(&T, 1 << 20), SIZE_ROLE_NONE);
	CHECK_EQ_U(size_role_of(&T, 2 << 20), SIZE_ROLE_DRAM);
	T.ncaches = 0; /* no cache records: no roles at all */
	CHECK_EQ_U(size_role_of(&T, 256 << 10), SIZE_ROLE_NONE);
	CHECK_SIZE(256 << 10, SIZE_ROLE_L2, "256kib", SIZE_ROLE_NONE);
}

/* ---- The largest machine ---------------------------------------------------- */

/* QB_MAX_CPUS Skylake CPUs at APIC IDs 0, 2, 4, ...: 64 packages of 8 cores,
 * L2 per core, L3 per package. Compact is the topo order; scatter takes core
 * c of every package before core c + 1 of any. */
TEST(place_max_cpus)
{
	uint32_t n = fill_cpus(&m_skylake, QB_MAX_CPUS, 2, false);
	uint32_t cores = 8, pkgs = QB_MAX_CPUS / 8;
	bool ok = true;

	CHECK_CLEAN(fx_decode(cpus_many, n, NULL));
	CHECK_EQ_U(T.npackages, pkgs);
	order[QB_MAX_CPUS] = GUARD;
	CHECK_EQ_U(place_order(&T, PLACE_COMPACT, order), QB_MAX_CPUS);
	for (uint32_t i = 0; i < QB_MAX_CPUS; i++)
		ok &= order[i] == i;
	CHECK(ok);
	CHECK_EQ_U(place_order(&T, PLACE_SCATTER, order), QB_MAX_CPUS);
	for (uint32_t i = 0; i < QB_MAX_CPUS; i++)
		ok &= order[i] == (i % pkgs) * cores + i / pkgs;
	CHECK(ok);
	CHECK_EQ_U(order[QB_MAX_CPUS], GUARD);
	CHECK(place_set(&T, ident, PLACE_SCATTER, QB_MAX_CPUS, &set));
	CHECK(same(set.cpu, order, QB_MAX_CPUS));
	CHECK_PAIR(ident, TOPO_REL_REMOTE, 0, 8);
	CHECK_NO_PAIR(TOPO_REL_PACKAGE);
}

/* ---- Ties ------------------------------------------------------------------ */

/* A hand-built topology where every CPU has the same place and no caches:
 * nothing but the topo number separates them, so both orders ascend. */
TEST(place_ties_by_topo_number)
{
	memset(&T, 0, sizeof(T));
	T.ncpu = 4;
	CHECK_ORDER(PLACE_COMPACT, 0, 1, 2, 3);
	CHECK_ORDER(PLACE_SCATTER, 0, 1, 2, 3);
	CHECK_PAIR(ident, TOPO_REL_SMT, 0, 1);
	CHECK_NO_PAIR(TOPO_REL_L3);
}

/* Hand-built, no caches: two packages of one core x 2 threads, listed
 * (pkg 1 thread 1), (0, 1), (1, 0), (0, 0). Only the package and thread
 * fields order them, since the cache keys that usually nest them are absent. */
TEST(place_package_and_thread_without_caches)
{
	static const uint32_t pkg[] = { 1, 0, 1, 0 }, thr[] = { 1, 1, 0, 0 };

	memset(&T, 0, sizeof(T));
	T.ncpu = 4;
	for (uint32_t i = 0; i < 4; i++) {
		T.cpu[i].package = pkg[i];
		T.cpu[i].thread = thr[i];
	}
	CHECK_ORDER(PLACE_COMPACT, 3, 1, 2, 0);
	CHECK_ORDER(PLACE_SCATTER, 3, 2, 1, 0);
	CHECK_PAIR(ident, TOPO_REL_SMT, 0, 2);
	CHECK_PAIR(ident, TOPO_REL_REMOTE, 0, 1);
	CHECK_NO_PAIR(TOPO_REL_PACKAGE);
}

/* ---- Dense numbering ------------------------------------------------------- */

/* A map that is not the identity: sets and pairs come back as dense numbers
 * of the same topo CPUs; NULL means the identity. */
TEST(place_non_identity_map)
{
	CHECK_CLEAN(fx_decode(cpus_sandy, 8, nodes_sandy));
	/* compact topo 0, 4, 1, 5 -> dense 5, 0, 3, 6 */
	CHECK_SET(shuffled, PLACE_COMPACT, 5, 0, 3, 6);
	/* scatter topo 0, 2, 1 -> dense 5, 7, 3 */
	CHECK_SET(shuffled, PLACE_SCATTER, 5, 7, 3);
	CHECK_SET(shuffled, PLACE_SCATTER, 5, 7, 3, 1, 0, 2, 6, 4);
	CHECK_PAIR(shuffled, TOPO_REL_SMT, 0, 4);
	CHECK_PAIR(shuffled, TOPO_REL_L3, 0, 1);
	CHECK_PAIR(shuffled, TOPO_REL_REMOTE, 0, 2);
	CHECK_SET(NULL, PLACE_SCATTER, 0, 2, 1);
	CHECK(place_pair(&T, NULL, TOPO_REL_REMOTE, &set));
	CHECK(set.n == 2 && set.cpu[0] == 0 && set.cpu[1] == 2);
}

/* ---- Sweeps ---------------------------------------------------------------- */

/* place_thread_counts(n) is exactly the list, with nothing written past it. */
#define CHECK_COUNTS(n, max, ...)                                              \
	do {                                                                   \
		uint32_t got_[40];                                             \
		for (uint32_t i_ = 0; i_ < ARRAY_SIZE(got_); i_++)             \
			got_[i_] = GUARD;                                      \
		CHECK_EQ_U(place_thread_counts(n, got_, max), LIST_N(__VA_ARGS__)); \
		CHECK(same(got_, LIST(__VA_ARGS__), LIST_N(__VA_ARGS__)));     \
		CHECK_EQ_U(got_[LIST_N(__VA_ARGS__)], GUARD);                  \
	} while (0)

TEST(place_thread_counts_sweep)
{
	uint32_t got[40];

	CHECK_COUNTS(1, 40, 1);
	CHECK_COUNTS(2, 40, 1, 2);
	CHECK_COUNTS(3, 40, 1, 2, 3);
	CHECK_COUNTS(4, 40, 1, 2, 4);
	CHECK_COUNTS(6, 40, 1, 2, 4, 6);
	CHECK_COUNTS(8, 40, 1, 2, 4, 8);
	CHECK_COUNTS(12, 40, 1, 2, 4, 8, 12);
	CHECK_COUNTS(16, 40, 1, 2, 4, 8, 16);
	CHECK_COUNTS(12, 3, 1, 2, 4);		/* max bounds the list */
	CHECK_COUNTS(12, 4, 1, 2, 4, 8);
	CHECK_EQ_U(place_thread_counts(0, got, 40), 0);
	CHECK_EQ_U(place_thread_counts(16, got, 0), 0);
	/* no wrap-around when doubling past the largest power of two */
	CHECK_EQ_U(place_thread_counts(UINT32_MAX, got, 40), 33);
	CHECK_EQ_U(got[31], 1u << 31);
	CHECK_EQ_U(got[32], UINT32_MAX);
}

TEST(place_sample_matrix)
{
	static const uint32_t want100[] = {
		0, 1, 3, 4, 6, 7, 9, 11, 12, 14, 15, 17, 18, 20, 22, 23,
		25, 26, 28, 29, 31, 33, 34, 36, 37, 39, 40, 42, 44, 45, 47, 48,
		50, 51, 53, 55, 56, 58, 59, 61, 62, 64, 66, 67, 69, 70, 72, 73,
		75, 77, 78, 80, 81, 83, 84, 86, 88, 89, 91, 92, 94, 95, 97, 99,
	};
	uint32_t got[QB_MAX_CPUS + 1];

	for (uint32_t i = 0; i < ARRAY_SIZE(got); i++)
		got[i] = GUARD;
	CHECK_EQ_U(place_sample(4, 64, got), 4);
	CHECK(same(got, LIST(0, 1, 2, 3), 4));
	CHECK_EQ_U(got[4], GUARD);

	CHECK_EQ_U(place_sample(100, 64, got), 64);
	CHECK(same(got, want100, 64));
	CHECK_EQ_U(got[64], GUARD);
	for (uint32_t i = 1; i < 64; i++) {	/* ascending, evenly: steps of 1 or 2 */
		CHECK(got[i] > got[i - 1]);
		CHECK(got[i] - got[i - 1] <= 2);
	}

	CHECK_EQ_U(place_sample(64, 64, got), 64);
	CHECK_EQ_U(got[63], 63);
	CHECK_EQ_U(place_sample(QB_MAX_CPUS, 4, got), 4);
	CHECK(same(got, LIST(0, (QB_MAX_CPUS - 1) / 3, 2 * (QB_MAX_CPUS - 1) / 3, QB_MAX_CPUS - 1), 4));
	CHECK_EQ_U(place_sample(100, 1, got), 1);
	CHECK_EQ_U(got[0], 0);
	CHECK_EQ_U(place_sample(100, 0, got), 0);
	CHECK_EQ_U(place_sample(0, 64, got), 0);
}

int main(void)
{
	for (uint32_t i = 0; i < QB_MAX_CPUS; i++)
		ident[i] = i;
	RUN(place_names_and_bad_arguments);
	RUN(place_skylake);
	RUN(place_skylake_madt_shuffled);
	RUN(place_sandy);
	RUN(place_sandy_nodes_swapped);
	RUN(place_zen3);
	RUN(place_zen3_two_sockets);
	RUN(place_hybrid_two_clusters);
	RUN(place_hybrid_adl);
	RUN(place_atom_no_l3);
	RUN(place_max_cpus);
	RUN(place_ties_by_topo_number);
	RUN(place_package_and_thread_without_caches);
	RUN(place_non_identity_map);
	RUN(place_thread_counts_sweep);
	RUN(place_sample_matrix);
	RUN(sizes_zen3);
	RUN(sizes_atom_no_l3);
	return check_summary("placement");
}
