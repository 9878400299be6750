/* test_topo.c - host tests of the CPUID snapshot and the topology decoder on recorded and modelled parts (Intel SDM vol. 2A CPUID; AMD APM vol. 3 / PPR). */
#include "check.h"
#include "cpuid_snap.h"
#include "lib.h"
#include "topo.h"
#include "topo_fixtures.h"

static struct cpuid_snap snaps[QB_MAX_CPUS];
static struct topo T;

static void fx_snap(const struct fx_cpu *c, struct cpuid_snap *s)
{
	cpuid_snap_fill(s, fx_query, (void *)c);
}

static int fx_decode(const struct fx_cpu *cpus, uint32_t n, const int32_t *nodes)
{
	for (uint32_t i = 0; i < n; i++)
		fx_snap(&cpus[i], &snaps[i]);
	return topo_decode(snaps, nodes, n, &T);
}

/* ---- Helpers --------------------------------------------------------------- */

static void dump_msgs(void)
{
	for (uint32_t i = 0; i < MIN(T.nmsgs, (uint32_t)TOPO_MAX_MSGS); i++)
		printf("    msg: %s\n", T.msg[i]);
}

static bool has_msg(const char *want)
{
	for (uint32_t i = 0; i < MIN(T.nmsgs, (uint32_t)TOPO_MAX_MSGS); i++)
		if (!strcmp(T.msg[i], want))
			return true;
	dump_msgs();
	return false;
}

#define CHECK_CLEAN(rc)                                                        \
	do {                                                                   \
		CHECK_EQ_U((rc), 0);                                           \
		if (rc)                                                        \
			dump_msgs();                                           \
	} while (0)

static const struct topo_cache *cache_of(uint32_t cpu, uint8_t level, uint8_t type)
{
	for (uint32_t i = 0; i < T.cpu[cpu].ncaches; i++) {
		const struct topo_cache *c = &T.cache[T.cpu[cpu].cache[i]];

		if (c->level == level && c->type == type)
			return c;
	}
	return NULL;
}

/* True when the cache of cpu at (level, type) is shared by exactly want[]. */
static bool shared_is(uint32_t cpu, uint8_t level, uint8_t type,
		      const uint32_t *want, size_t n)
{
	const struct topo_cache *c = cache_of(cpu, level, type);
	struct topo_cpuset s = { { 0 } };

	if (!c)
		return false;
	for (size_t i = 0; i < n; i++)
		s.bits[want[i] / 64] |= 1ull << (want[i] % 64);
	return c->nshared == n && !memcmp(&s, &c->shared_by, sizeof(s));
}

/* which is L1D, L1I, L2 or L3 (a "level, type" pair). */
#define SHARED_IS(cpu, which, ...)                                             \
	shared_is(cpu, which, (const uint32_t[]){ __VA_ARGS__ },               \
		  sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

static uint32_t count_caches(uint8_t level, uint8_t type)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < T.ncaches; i++)
		n += T.cache[i].level == level && T.cache[i].type == type;
	return n;
}

#define CHECK_CPU(i, pkg, core_, thr, node_)                                   \
	do {                                                                   \
		CHECK_EQ_U(T.cpu[i].package, pkg);                             \
		CHECK_EQ_U(T.cpu[i].core, core_);                              \
		CHECK_EQ_U(T.cpu[i].thread, thr);                              \
		CHECK_EQ_U(T.cpu[i].node, node_);                              \
	} while (0)

#define CHECK_REL(a, b, rel) CHECK_STR(topo_rel_name(topo_relation(&T, a, b)), rel)

#define CHECK_GEOM(c, size_, ways_, sets_, line_)                              \
	do {                                                                   \
		CHECK((c) != NULL);                                            \
		if (c) {                                                       \
			CHECK_EQ_U((c)->size, size_);                          \
			CHECK_EQ_U((c)->ways, ways_);                          \
			CHECK_EQ_U((c)->sets, sets_);                          \
			CHECK_EQ_U((c)->line_size, line_);                     \
		}                                                              \
	} while (0)

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define L1D 1, TOPO_CACHE_DATA
#define L1I 1, TOPO_CACHE_INSTRUCTION
#define L2 2, TOPO_CACHE_UNIFIED
#define L3 3, TOPO_CACHE_UNIFIED

/* ---- Fixture machines ------------------------------------------------------ */

static struct fx_cpu cpus_many[QB_MAX_CPUS];

static uint32_t fill_cpus(const struct fx_model *m, uint32_t n, uint32_t stride,
			  bool interleave_smt)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t apic = i * stride;

		if (interleave_smt)	/* even IDs first, then odd */
			apic = i < n / 2 ? 2 * i : 2 * (i - n / 2) + 1;
		cpus_many[i] = (struct fx_cpu)FXC(apic, m);
	}
	return n;
}

/* ---- Snapshot tests -------------------------------------------------------- */

TEST(snap_leaves_and_limits)
{
	struct cpuid_snap *s = &snaps[0];

	fx_snap(&cpus_skylake[2], s);
	CHECK_EQ_U(s->max_basic, 0x16);
	CHECK_EQ_U(s->max_ext, 0x80000008);
	CHECK_EQ_U(s->n_leaf4, 4);
	CHECK_EQ_U(s->n_leafb, 2);
	CHECK_EQ_U(s->n_leaf1f, 0);	/* 0x1F is above the max basic leaf */
	CHECK(!s->have_leaf1a);
	CHECK(s->have_leaf6 && s->have_leaf7 && s->have_leaf15 && s->have_leaf16);
	CHECK_EQ_U(s->leaf16.eax, 3300);
	CHECK(s->have_ext1 && s->have_ext6 && s->have_ext7 && s->have_ext8);
	CHECK(s->have_ext5);	/* within max ext, even if Intel leaves it zero */
	CHECK(!s->have_ext1e);
	CHECK_EQ_U(s->n_ext1d, 0);
	CHECK_EQ_U(s->truncated, 0);
	CHECK_EQ_U(s->leaf4[3].ecx, 0x1fff);
	CHECK_EQ_U(cpuid_snap_apic_id(s), 4);
	CHECK(cpuid_snap_vendor(s) == CPU_VENDOR_INTEL);
	CHECK_STR(cpuid_snap_brand(s), "Intel(R) Core(TM) i5-6600 CPU @ 3.30GHz");
}

TEST(snap_features)
{
	static const enum cpuid_feature on[] = {
		CPUID_FEAT_TSC, CPUID_FEAT_APIC, CPUID_FEAT_FXSR, CPUID_FEAT_SSE,
		CPUID_FEAT_SSE2, CPUID_FEAT_HTT, CPUID_FEAT_X2APIC, CPUID_FEAT_XSAVE,
		CPUID_FEAT_OSXSAVE, CPUID_FEAT_AVX, CPUID_FEAT_CLFLUSHOPT,
		CPUID_FEAT_NX, CPUID_FEAT_PAGE1GB, CPUID_FEAT_RDTSCP, CPUID_FEAT_INVTSC,
	};
	struct cpuid_snap *s = &snaps[0];

	fx_snap(&cpus_skylake[0], s);
	for (size_t i = 0; i < ARRAY_SIZE(on); i++)
		CHECK(cpuid_snap_has(s, on[i]));
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR));
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_HYBRID));
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_TOPOEXT));
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_COUNT));
	CHECK_STR(cpuid_feature_name(CPUID_FEAT_INVTSC), "invtsc");
	CHECK_STR(cpuid_feature_name(CPUID_FEAT_PAGE1GB), "pdpe1gb");

	fx_snap(&(struct fx_cpu)FXC(3, &m_qemu), s);
	CHECK(cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR));
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_X2APIC));
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_INVTSC));	/* 0x80000007 EDX is 0 */
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_TOPOEXT));
	CHECK(cpuid_snap_has(s, CPUID_FEAT_NX));

	fx_snap(&cpus_adl[4], s);
	CHECK(cpuid_snap_has(s, CPUID_FEAT_HYBRID));
	CHECK_EQ_U(CPUID_FIELD(s->leaf1a.eax, CPUID_1A_EAX_CORE_TYPE), CPUID_CORE_TYPE_ATOM);

	fx_snap(&(struct fx_cpu)FXC(0, &m_zen3), s);
	CHECK(cpuid_snap_has(s, CPUID_FEAT_TOPOEXT));
	CHECK_STR(cpuid_snap_brand(s), "AMD Ryzen 9 5950X 16-Core Processor");
	CHECK(cpuid_snap_has(s, CPUID_FEAT_INVTSC));
}

TEST(snap_absent_leaves_qemu)
{
	struct cpuid_snap *s = &snaps[0];

	fx_snap(&(struct fx_cpu)FXC(5, &m_qemu), s);
	CHECK_EQ_U(s->max_basic, 0xd);
	CHECK_EQ_U(s->max_ext, 0x8000000a);
	CHECK_EQ_U(s->n_leaf4, 0);	/* in range, but type 0 at subleaf 0 */
	CHECK_EQ_U(s->n_leafb, 2);
	CHECK(!s->have_leaf15 && !s->have_leaf16 && !s->have_leaf1a);
	CHECK(s->have_ext8 && !s->have_ext1e);
	CHECK_EQ_U(s->n_ext1d, 0);
	CHECK(cpuid_snap_vendor(s) == CPU_VENDOR_AMD);
	CHECK_EQ_U(cpuid_snap_apic_id(s), 5);
	CHECK_STR(cpuid_snap_brand(s), "QEMU TCG CPU version 2.5+");
}

TEST(snap_apic_id_sources)
{
	struct cpuid_snap *s = &snaps[0];

	fx_snap(&(struct fx_cpu)FXC(0x123, &m_adl_e), s);	/* 0x1F: full x2APIC ID */
	CHECK_EQ_U(s->n_leaf1f, 2);
	CHECK_EQ_U(cpuid_snap_apic_id(s), 0x123);
	fx_snap(&(struct fx_cpu){ .apic = 0x123, .model = &m_adl_e, .hide = CPUID_LEAF_TOPO_V2 }, s);
	CHECK_EQ_U(cpuid_snap_apic_id(s), 0x123);		/* from 0xB */
	fx_snap(&(struct fx_cpu)FXC(0x123, &m_zen1), s);		/* 0x8000001E EAX */
	CHECK_EQ_U(s->n_leafb, 0);
	CHECK_EQ_U(cpuid_snap_apic_id(s), 0x123);
	CHECK_EQ_U(s->ext1e.ebx, 0x100 | 0x91);		/* CoreId = apic / 2 */
	fx_snap(&(struct fx_cpu)FXC(0x123, &m_opteron), s);	/* leaf 1: 8 bits */
	CHECK_EQ_U(cpuid_snap_apic_id(s), 0x23);
}

TEST(snap_vendor_brand_and_no_ext)
{
	struct cpuid_snap *s = &snaps[0];
	char v[CPUID_VENDOR_LEN + 1];

	fx_snap(&(struct fx_cpu)FXC(0, &m_hygon), s);
	CHECK(cpuid_snap_vendor(s) == CPU_VENDOR_HYGON);
	cpuid_snap_vendor_string(s, v);
	CHECK_STR(v, "HygonGenuine");
	CHECK(s->have_brand);
	CHECK_STR(cpuid_snap_brand(s), "Hygon C86 3185  8-core Processor");
	CHECK(!s->have_ext8);
	CHECK_STR(cpu_vendor_name(CPU_VENDOR_HYGON), "hygon");

	fx_snap(&(struct fx_cpu)FXC(0, &m_no_ext), s);
	CHECK(cpuid_snap_vendor(s) == CPU_VENDOR_INTEL);
	CHECK_EQ_U(s->max_basic, 2);
	CHECK_EQ_U(s->max_ext, 0);	/* 0x80000000 returned leaf 2's data */
	CHECK(!s->have_ext1 && !s->have_brand);
	CHECK_STR(cpuid_snap_brand(s), "");
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_NX));
	CHECK(!cpuid_snap_has(s, CPUID_FEAT_CLFLUSHOPT));	/* no leaf 7 */
	CHECK(cpuid_snap_has(s, CPUID_FEAT_TSC));
}

TEST(snap_truncated_subleaves)
{
	struct fx_cpu c = FXC(0, &m_endless);
	struct cpuid_snap *s = &snaps[0];
	int rc;

	fx_snap(&c, s);
	CHECK_EQ_U(s->n_leaf4, CPUID_SNAP_MAX_SUB);
	CHECK_EQ_U(s->truncated, CPUID_SNAP_TRUNC_4);
	rc = fx_decode(&c, 1, NULL);
	CHECK_EQ_U(rc, 1);
	CHECK(has_msg("cpu 0: a subleaf list is longer than 8, rest ignored"));
	CHECK_STR(T.source, "legacy");
	CHECK_EQ_U(T.ncaches, 1);
}

/* ---- Topology tests -------------------------------------------------------- */

/* 1. One package, four cores, no SMT (leaf 0xB + leaf 4). */
TEST(topo_skylake_4c)
{
	int rc = fx_decode(cpus_skylake, 4, NULL);
	const struct topo_cache *c;

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "leaf 0xb");
	CHECK(T.vendor == CPU_VENDOR_INTEL);
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.pkg_shift, 4);
	CHECK_EQ_U(T.npackages, 1);
	CHECK_EQ_U(T.ncores, 4);
	CHECK_EQ_U(T.nnodes, 1);
	for (uint32_t i = 0; i < 4; i++) {
		CHECK_EQ_U(T.cpu[i].apic_id, 2 * i);
		CHECK_CPU(i, 0, i, 0, 0);
		CHECK_EQ_U(T.cpu[i].die, 0);
		CHECK_EQ_U(T.cpu[i].core_type, 0);
		CHECK_EQ_U(T.cpu[i].ncaches, 4);
		CHECK(SHARED_IS(i, L1D, i));
		CHECK(SHARED_IS(i, L1I, i));
		CHECK(SHARED_IS(i, L2, i));
		CHECK(SHARED_IS(i, L3, 0, 1, 2, 3));
	}
	CHECK_EQ_U(T.ncaches, 13);
	c = cache_of(1, L1D);
	CHECK_GEOM(c, 32 * KIB, 8, 64, 64);
	CHECK(c && c->partitions == 1 && c->share_shift == 1 && c->id == 1);
	CHECK(c && !c->inclusive && c->wbinvd_lower_all_sharers && !c->fully_associative);
	CHECK(c && !c->sharing_assumed);
	CHECK_STR(c ? c->source : NULL, "leaf 4");
	CHECK_GEOM(cache_of(2, L2), 256 * KIB, 4, 1024, 64);
	c = cache_of(3, L3);
	CHECK_GEOM(c, 6 * MIB, 12, 8192, 64);
	CHECK(c && c->inclusive && c->wbinvd_lower_all_sharers && c->share_shift == 4);
	CHECK(topo_cpu_cache(&T, 0, 1) == cache_of(0, L1D));
	CHECK(topo_cpu_cache(&T, 0, 4) == NULL);
	CHECK_REL(0, 0, "self");
	CHECK_REL(0, 1, "l3");
	CHECK_REL(3, 2, "l3");
	CHECK(topo_shares_cache(&T, 0, 3, 3));
	CHECK(!topo_shares_cache(&T, 0, 3, 2));
	CHECK(!topo_shares_cache(&T, 0, 9, 3));
	CHECK_REL(0, 4, "remote");	/* out of range */
}

/* 2. Two packages x 2 cores x 2 threads, one NUMA node per package. */
TEST(topo_sandy_2s)
{
	static const uint32_t core[] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	static const uint32_t pkg[] = { 0, 0, 1, 1, 0, 0, 1, 1 };
	int rc = fx_decode(cpus_sandy, 8, nodes_sandy);

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "leaf 0xb");
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.pkg_shift, 2);
	CHECK_EQ_U(T.die_shift, 2);
	CHECK_EQ_U(T.npackages, 2);
	CHECK_EQ_U(T.ncores, 4);
	CHECK_EQ_U(T.nnodes, 2);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_CPU(i, pkg[i], core[i], i / 4, (uint32_t)nodes_sandy[i]);
	CHECK(SHARED_IS(0, L1D, 0, 4));
	CHECK(SHARED_IS(4, L1I, 0, 4));
	CHECK(SHARED_IS(1, L2, 1, 5));
	CHECK(SHARED_IS(7, L2, 3, 7));
	CHECK(SHARED_IS(0, L3, 0, 1, 4, 5));
	CHECK(SHARED_IS(6, L3, 2, 3, 6, 7));
	CHECK_EQ_U(count_caches(L1D), 4);
	CHECK_EQ_U(count_caches(L2), 4);
	CHECK_EQ_U(count_caches(L3), 2);
	CHECK_GEOM(cache_of(0, L3), 5 * MIB, 20, 4096, 64);
	CHECK_GEOM(cache_of(0, L2), 256 * KIB, 8, 512, 64);
	CHECK_REL(0, 4, "smt");
	CHECK_REL(5, 1, "smt");
	CHECK_REL(0, 1, "l3");
	CHECK_REL(0, 2, "remote");
	CHECK_REL(7, 4, "remote");
	CHECK(topo_shares_cache(&T, 0, 4, 1));
	CHECK(!topo_shares_cache(&T, 0, 1, 1));
}

/* 3. Zen 3: 16 cores x 2 threads, leaf 0xB, one L3 per CCD of 8 cores. */
TEST(topo_zen3_two_ccd)
{
	uint32_t n = fill_cpus(&m_zen3, 32, 0, true);
	int rc = fx_decode(cpus_many, n, NULL);
	const struct topo_cache *c;

	CHECK_CLEAN(rc);
	CHECK(T.vendor == CPU_VENDOR_AMD);
	CHECK_STR(T.source, "leaf 0xb");
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.pkg_shift, 5);
	CHECK_EQ_U(T.npackages, 1);
	CHECK_EQ_U(T.ncores, 16);
	/* dense i < 16 is APIC 2i (thread 0), i >= 16 is APIC 2(i-16)+1 */
	CHECK_CPU(0, 0, 0, 0, 0);
	CHECK_CPU(9, 0, 9, 0, 0);
	CHECK_CPU(16, 0, 0, 1, 0);
	CHECK_CPU(31, 0, 15, 1, 0);
	CHECK(SHARED_IS(3, L1D, 3, 19));
	CHECK(SHARED_IS(19, L2, 3, 19));
	CHECK(SHARED_IS(0, L3, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
	CHECK(SHARED_IS(31, L3, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
	CHECK_EQ_U(count_caches(L1D), 16);
	CHECK_EQ_U(count_caches(L1I), 16);
	CHECK_EQ_U(count_caches(L2), 16);
	CHECK_EQ_U(count_caches(L3), 2);
	CHECK_EQ_U(T.ncaches, 50);
	c = cache_of(8, L3);
	CHECK_GEOM(c, 32 * MIB, 16, 32768, 64);
	CHECK(c && c->id == 1 && c->share_shift == 4 && !c->wbinvd_lower_all_sharers);
	CHECK_STR(c ? c->source : NULL, "0x8000001d");
	c = cache_of(0, L2);
	CHECK_GEOM(c, 512 * KIB, 8, 1024, 64);
	CHECK(c && c->inclusive);
	CHECK_REL(0, 16, "smt");
	CHECK_REL(0, 1, "l3");
	CHECK_REL(7, 22, "l3");
	CHECK_REL(0, 8, "package");
	CHECK_REL(31, 16, "package");
}

/* 3b. Zen 1 without leaf 0xB: 0x80000008 + 0x8000001E, L3 per CCX of 4 cores. */
TEST(topo_zen1_amd_leaves)
{
	uint32_t n = fill_cpus(&m_zen1, 16, 1, false);
	int rc = fx_decode(cpus_many, n, NULL);

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "amd 0x8000001e");
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.pkg_shift, 4);
	CHECK_EQ_U(T.ncores, 8);
	CHECK_CPU(5, 0, 2, 1, 0);
	CHECK(SHARED_IS(0, L3, 0, 1, 2, 3, 4, 5, 6, 7));
	CHECK(SHARED_IS(15, L3, 8, 9, 10, 11, 12, 13, 14, 15));
	CHECK(SHARED_IS(4, L2, 4, 5));
	CHECK_GEOM(cache_of(0, L1I), 64 * KIB, 4, 256, 64);
	CHECK_GEOM(cache_of(0, L3), 8 * MIB, 16, 8192, 64);
	CHECK_REL(2, 3, "smt");
	CHECK_REL(0, 7, "l3");
	CHECK_REL(0, 8, "package");
}

/* 4. Family 10h without TOPOEXT: 0x80000005/6 with assumed sharing. */
TEST(topo_opteron_assumed)
{
	static const int32_t nodes[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	uint32_t n = fill_cpus(&m_opteron, 8, 1, false);
	int rc = fx_decode(cpus_many, n, nodes);
	const struct topo_cache *c;

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "amd 0x80000008");
	CHECK_EQ_U(T.smt_bits, 0);
	CHECK_EQ_U(T.pkg_shift, 2);
	CHECK_EQ_U(T.npackages, 2);
	CHECK_CPU(6, 1, 2, 0, 1);
	for (uint32_t i = 0; i < 8; i++) {
		CHECK(SHARED_IS(i, L1D, i));
		CHECK(SHARED_IS(i, L1I, i));
		CHECK(SHARED_IS(i, L2, i));
	}
	CHECK(SHARED_IS(0, L3, 0, 1, 2, 3));
	CHECK(SHARED_IS(5, L3, 4, 5, 6, 7));
	CHECK_EQ_U(T.ncaches, 26);
	c = cache_of(0, L1D);
	CHECK_GEOM(c, 64 * KIB, 2, 512, 64);
	CHECK(c && c->sharing_assumed);
	CHECK_GEOM(cache_of(0, L2), 512 * KIB, 16, 512, 64);
	c = cache_of(7, L3);
	CHECK_GEOM(c, 6 * MIB, 48, 2048, 64);
	CHECK(c && c->sharing_assumed && c->share_shift == 2 && c->id == 1);
	CHECK_STR(c ? c->source : NULL, "0x80000005/6 assumed sharing");
	CHECK_REL(0, 3, "l3");
	CHECK_REL(0, 4, "remote");
}

/* 5. Hybrid: P-cores with SMT and own L2, E-cores sharing an L2 by four. */
TEST(topo_hybrid_adl)
{
	static const uint32_t core[] = { 0, 0, 4, 4, 8, 9, 10, 11 };
	int rc = fx_decode(cpus_adl, 8, NULL);
	const struct topo_cache *c;

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "leaf 0x1f");
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.pkg_shift, 7);
	CHECK_EQ_U(T.ncores, 6);
	for (uint32_t i = 0; i < 8; i++) {
		CHECK_CPU(i, 0, core[i], i < 4 ? i % 2 : 0, 0);
		CHECK_EQ_U(T.cpu[i].core_type, i < 4 ? CPUID_CORE_TYPE_CORE :
			   CPUID_CORE_TYPE_ATOM);
		CHECK(SHARED_IS(i, L3, 0, 1, 2, 3, 4, 5, 6, 7));
	}
	CHECK(SHARED_IS(0, L1D, 0, 1));
	CHECK(SHARED_IS(3, L2, 2, 3));
	CHECK(SHARED_IS(5, L1D, 5));
	CHECK(SHARED_IS(6, L1I, 6));
	CHECK(SHARED_IS(4, L2, 4, 5, 6, 7));
	CHECK_EQ_U(T.ncaches, 16);
	CHECK_GEOM(cache_of(0, L1D), 48 * KIB, 12, 64, 64);
	CHECK_GEOM(cache_of(0, L2), 1280 * KIB, 10, 2048, 64);
	CHECK_GEOM(cache_of(4, L1I), 64 * KIB, 8, 128, 64);
	c = cache_of(7, L2);
	CHECK_GEOM(c, 2 * MIB, 16, 2048, 64);
	CHECK(c && c->share_shift == 3 && c->id == 2);
	c = cache_of(4, L3);
	CHECK_GEOM(c, 10 * MIB, 10, 16384, 64);
	CHECK(c && !c->inclusive && c == cache_of(0, L3));
	CHECK_REL(0, 1, "smt");
	CHECK_REL(0, 2, "l3");
	CHECK_REL(4, 5, "l2");
	CHECK_REL(7, 4, "l2");
	CHECK_REL(1, 6, "l3");
	CHECK(topo_shares_cache(&T, 4, 7, 2));
	CHECK(!topo_shares_cache(&T, 4, 5, 1));
}

/* 6. QEMU 7.2 TCG -cpu max -smp 8,sockets=2,cores=2,threads=2 (recorded). */
TEST(topo_qemu_max)
{
	uint32_t n = fill_cpus(&m_qemu, 8, 1, false);
	int rc = fx_decode(cpus_many, n, (const int32_t[]){ -1, -1, -1, -1, -1, -1, -1, -1 });
	const struct topo_cache *c;

	CHECK_CLEAN(rc);
	CHECK(T.vendor == CPU_VENDOR_AMD);
	CHECK_STR(T.source, "leaf 0xb");
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.pkg_shift, 2);
	CHECK_EQ_U(T.npackages, 2);
	CHECK_EQ_U(T.ncores, 4);
	CHECK_EQ_U(T.nnodes, 1);
	CHECK_CPU(5, 1, 0, 1, 0);
	CHECK(SHARED_IS(2, L1D, 2, 3));
	CHECK(SHARED_IS(2, L1I, 2, 3));
	CHECK(SHARED_IS(6, L2, 6, 7));
	CHECK(SHARED_IS(0, L3, 0, 1, 2, 3));
	CHECK(SHARED_IS(7, L3, 4, 5, 6, 7));
	CHECK_EQ_U(T.ncaches, 14);
	CHECK_GEOM(cache_of(0, L1D), 64 * KIB, 2, 512, 64);
	CHECK_GEOM(cache_of(0, L2), 512 * KIB, 16, 512, 64);
	c = cache_of(0, L3);
	CHECK_GEOM(c, 16 * MIB, 16, 16384, 64);
	CHECK(c && c->sharing_assumed);
	CHECK_REL(0, 1, "smt");
	CHECK_REL(0, 2, "l3");
	CHECK_REL(0, 4, "remote");
}

/* 6b. The same with vendor=GenuineIntel: QEMU 7.2's leaf 4 has L1 per thread. */
TEST(topo_qemu_intel)
{
	uint32_t n = fill_cpus(&m_qemu_intel, 8, 1, false);
	int rc = fx_decode(cpus_many, n, NULL);
	const struct topo_cache *c;

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "leaf 0xb");
	CHECK(SHARED_IS(2, L1D, 2));
	CHECK(SHARED_IS(3, L1I, 3));
	CHECK(SHARED_IS(2, L2, 2, 3));
	CHECK(SHARED_IS(5, L3, 4, 5, 6, 7));
	CHECK_EQ_U(T.ncaches, 22);
	c = cache_of(0, L1D);
	CHECK_GEOM(c, 32 * KIB, 8, 64, 64);
	CHECK(c && !c->wbinvd_lower_all_sharers);
	CHECK_GEOM(cache_of(0, L2), 4 * MIB, 16, 4096, 64);
	c = cache_of(0, L3);
	CHECK_GEOM(c, 16 * MIB, 16, 16384, 64);
	CHECK(c && c->inclusive && c->wbinvd_lower_all_sharers);
	CHECK_REL(0, 1, "smt");		/* SMT by APIC ID, though L1 is not shared */
	CHECK(!topo_shares_cache(&T, 0, 1, 1));
	CHECK(topo_shares_cache(&T, 0, 1, 2));
	CHECK_REL(1, 3, "l3");
	CHECK_REL(3, 4, "remote");
}

/* 6c. QEMU -cpu EPYC: 0x8000001D is filled but TOPOEXT is off, so unused. */
TEST(topo_qemu_epyc)
{
	static const struct fx_leaf topoext[] = {	/* as if TOPOEXT were set */
		{ 0x80000001, 0, 0x00800f12, 0, 0x00400077, 0x2dd3fbfd },
	};
	uint32_t n = fill_cpus(&m_qemu_epyc, 8, 1, false);
	int rc = fx_decode(cpus_many, n, NULL);
	const struct topo_cache *c;

	CHECK_CLEAN(rc);
	CHECK_EQ_U(snaps[0].n_ext1d, 4);
	CHECK_STR(T.source, "leaf 0xb");
	c = cache_of(0, L1D);
	CHECK_GEOM(c, 32 * KIB, 8, 64, 64);
	CHECK_STR(c ? c->source : NULL, "0x80000005/6 assumed sharing");
	CHECK_GEOM(cache_of(0, L1I), 64 * KIB, 4, 256, 64);
	CHECK_GEOM(cache_of(0, L2), 512 * KIB, 8, 1024, 64);
	CHECK_GEOM(cache_of(0, L3), 8 * MIB, 16, 8192, 64);
	CHECK(SHARED_IS(4, L3, 4, 5, 6, 7));

	for (uint32_t i = 0; i < n; i++)
		cpus_many[i] = (struct fx_cpu)FXO(i, &m_qemu_epyc, topoext);
	rc = fx_decode(cpus_many, n, NULL);
	CHECK_CLEAN(rc);
	c = cache_of(0, L1D);
	CHECK_STR(c ? c->source : NULL, "0x8000001d");
	CHECK(c && !c->wbinvd_lower_all_sharers && !c->sharing_assumed);
	CHECK(SHARED_IS(4, L3, 4, 5, 6, 7));
	CHECK(cache_of(4, L3) && cache_of(4, L3)->share_shift == 2);
}

/* Leaf 0x1F with a die level: two packages of two dies, L3 per die. */
TEST(topo_two_die)
{
	uint32_t n = fill_cpus(&m_two_die, 32, 1, false);
	int rc = fx_decode(cpus_many, n, NULL);

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "leaf 0x1f");
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.die_shift, 3);
	CHECK_EQ_U(T.pkg_shift, 4);
	CHECK_EQ_U(T.npackages, 2);
	CHECK_CPU(9, 0, 4, 1, 0);
	CHECK_EQ_U(T.cpu[9].die, 1);
	CHECK_CPU(21, 1, 2, 1, 0);
	CHECK_EQ_U(T.cpu[21].die, 0);
	CHECK_EQ_U(T.cpu[30].die, 1);
	CHECK_EQ_U(count_caches(L3), 4);
	CHECK(SHARED_IS(9, L3, 8, 9, 10, 11, 12, 13, 14, 15));
	CHECK_GEOM(cache_of(9, L3), 5632 * KIB, 11, 8192, 64);
	CHECK_GEOM(cache_of(0, L2), 1 * MIB, 16, 1024, 64);
	CHECK_REL(0, 1, "smt");
	CHECK_REL(0, 2, "l3");
	CHECK_REL(0, 8, "package");
	CHECK_REL(0, 16, "remote");
}

/* 8. No leaf 0xB: leaf 1 + leaf 4 give 1 SMT bit and 1 core bit. */
TEST(topo_atom_leaf1_leaf4)
{
	uint32_t n = fill_cpus(&m_atom, 4, 1, false);
	int rc = fx_decode(cpus_many, n, NULL);

	CHECK_CLEAN(rc);
	CHECK_STR(T.source, "leaf 1 + leaf 4");
	CHECK_EQ_U(T.smt_bits, 1);
	CHECK_EQ_U(T.pkg_shift, 2);
	CHECK_CPU(3, 0, 1, 1, 0);
	CHECK(SHARED_IS(2, L2, 2, 3));
	CHECK_GEOM(cache_of(0, L1D), 24 * KIB, 6, 64, 64);
	CHECK(cache_of(0, L3) == NULL);
	CHECK_REL(0, 1, "smt");
	CHECK_REL(1, 2, "package");
}

/* QB_MAX_CPUS CPUs of the Skylake model: 64 packages of 8 cores. */
TEST(topo_max_cpus)
{
	uint32_t n = fill_cpus(&m_skylake, QB_MAX_CPUS, 2, false);
	int rc = fx_decode(cpus_many, n, NULL);

	CHECK(sizeof(struct topo) < 1024 * 1024);
	CHECK_CLEAN(rc);
	CHECK_EQ_U(T.npackages, 64);
	CHECK_EQ_U(T.ncores, QB_MAX_CPUS);
	CHECK_EQ_U(T.ncaches, 3 * QB_MAX_CPUS + 64);
	CHECK_CPU(QB_MAX_CPUS - 1, 63, 7, 0, 0);
	CHECK(SHARED_IS(QB_MAX_CPUS - 1, L3, 504, 505, 506, 507, 508, 509, 510, 511));
	CHECK_REL(0, 7, "l3");
	CHECK_REL(0, 8, "remote");
}

/* ---- Malformed input ------------------------------------------------------- */

TEST(bad_duplicate_apic)
{
	const struct fx_cpu cpus[] = {
		FXC(0, &m_skylake), FXC(2, &m_skylake), FXC(2, &m_skylake), FXC(6, &m_skylake),
	};
	int rc = fx_decode(cpus, 4, NULL);

	CHECK_EQ_U(rc, 1);
	CHECK(has_msg("apic id 2 appears twice (cpus 1 and 2)"));
	CHECK(SHARED_IS(1, L2, 1, 2));
}

TEST(bad_missing_leafb)
{
	struct fx_cpu cpus[8];
	int rc;

	memcpy(cpus, cpus_sandy, sizeof(cpus));
	cpus[3].hide = CPUID_LEAF_TOPO;
	rc = fx_decode(cpus, 8, nodes_sandy);
	CHECK_EQ_U(rc, 1);
	CHECK(has_msg("cpu 3: no leaf 0xb like the BSP; decoded with the BSP's shifts"));
	CHECK_EQ_U(snaps[3].n_leafb, 0);
	CHECK_EQ_U(T.cpu[3].apic_id, 6);	/* from leaf 1 */
	CHECK_CPU(3, 1, 1, 0, 1);
	CHECK(SHARED_IS(3, L2, 3, 7));
}

TEST(bad_mixed_vendor)
{
	const struct fx_cpu cpus[] = { FXC(0, &m_atom), FXC(1, &m_zen1) };
	int rc = fx_decode(cpus, 2, NULL);

	CHECK_EQ_U(rc, 5);	/* and 3 caches that differ from CPU 0's */
	CHECK(has_msg("cpu 1 reports a different vendor than the BSP"));
	CHECK(has_msg("cpu 1: L2 unified cache 0 differs from its other sharers"));
	CHECK(has_msg("cpu 1: no leaf 1 + leaf 4 like the BSP; decoded with the BSP's shifts"));
	CHECK_CPU(1, 0, 0, 1, 0);
}

TEST(bad_package_shift)
{
	static const struct fx_leaf wide[] = { { 0xb, 1, 3, 4, 0x201, 0 } };
	struct fx_cpu cpus[8];
	int rc;

	memcpy(cpus, cpus_sandy, sizeof(cpus));
	cpus[1].over = wide;
	cpus[1].nover = 1;
	rc = fx_decode(cpus, 8, NULL);
	CHECK_EQ_U(rc, 1);
	CHECK(has_msg("cpu 1 reports a different package shift (3) than the BSP (2)"));
	CHECK_EQ_U(T.cpu[1].package, 0);	/* BSP's shift used */
}

TEST(bad_leaf4_values)
{
	static const struct fx_leaf level0[] = { { 0x4, 2, 0x1c004103, 0x00c0003f, 0x3ff, 0 } };
	static const struct fx_leaf line48[] = { { 0x4, 0, 0x1c004121, 0x01c0002f, 0x3f, 0 } };
	static const struct fx_leaf type5[] = { { 0x4, 1, 0x1c004125, 0x01c0003f, 0x3f, 0 } };
	static const struct fx_leaf fully[] = { { 0x4, 0, 0x1c004321, 0x01c0003f, 0x3f, 0 } };
	const struct fx_cpu cpus[] = {
		FXO(0, &m_skylake, fully), FXO(2, &m_skylake, level0),
		FXO(4, &m_skylake, line48), FXO(6, &m_skylake, type5),
	};
	int rc = fx_decode(cpus, 4, NULL);

	CHECK_EQ_U(rc, 4);
	CHECK(has_msg("cpu 0: leaf 4 cache 0 rejected: fully associative with 64 sets"));
	CHECK(has_msg("cpu 1: leaf 4 cache 2 rejected: level 0"));
	CHECK(has_msg("cpu 2: leaf 4 cache 0 rejected: line size 48"));
	CHECK(has_msg("cpu 3: leaf 4 cache 1 rejected: reserved type 5"));
	CHECK(cache_of(1, L2) == NULL);
	CHECK(topo_cpu_cache(&T, 2, 1) == NULL);
	CHECK(cache_of(2, L1I) != NULL);
	CHECK_EQ_U(T.cpu[1].ncaches, 3);
	CHECK_EQ_U(count_caches(L2), 3);
	CHECK(SHARED_IS(1, L3, 0, 1, 2, 3));
}

TEST(bad_legacy_assoc)
{
	static const struct fx_leaf code7[] = {	/* L3 associativity code 7: reserved */
		{ 0x80000006, 0, 0x20800000, 0x42004200, 0x02008140, 0x00307140 },
	};
	static const struct fx_leaf no_l3[] = {	/* size 0: no L3, silently */
		{ 0x80000005, 0, 0xff30ff10, 0xff30ff10, 0x40ff0140, 0x40020140 },
		{ 0x80000006, 0, 0x20800000, 0x42004200, 0x02008140, 0x00000000 },
	};	/* and a fully associative L1d (associativity 0xFF) */
	const struct fx_cpu cpus[] = {
		FXO(0, &m_opteron, code7), FXO(1, &m_opteron, no_l3),
	};
	int rc = fx_decode(cpus, 2, NULL);

	CHECK_EQ_U(rc, 1);
	CHECK(has_msg("cpu 0: 0x80000005/6 assumed sharing cache 3 rejected: ways 0"));
	CHECK_EQ_U(T.cpu[0].ncaches, 3);
	CHECK_EQ_U(T.cpu[1].ncaches, 3);
	CHECK_GEOM(cache_of(1, L1D), 64 * KIB, 1024, 1, 64);
	CHECK(cache_of(1, L1D) && cache_of(1, L1D)->fully_associative);
	CHECK_REL(0, 1, "package");
}

TEST(bad_geometry_and_overlap)
{
	static const struct fx_leaf small_l3[] = { { 0x4, 3, 0x1c03c163, 0x02c0003f, 0xfff, 6 } };
	static const struct fx_leaf wide_l2[] = { { 0x4, 2, 0x0400c143, 0x01c0003f, 0x1ff, 0 } };
	struct fx_cpu sky[4], sandy[8];
	int rc;

	memcpy(sky, cpus_skylake, sizeof(sky));
	sky[3].over = small_l3;
	sky[3].nover = 1;
	rc = fx_decode(sky, 4, NULL);
	CHECK_EQ_U(rc, 1);
	CHECK(has_msg("cpu 3: L3 unified cache 0 differs from its other sharers"));

	memcpy(sandy, cpus_sandy, sizeof(sandy));
	sandy[1].over = wide_l2;	/* APIC 2 claims an L2 shared by IDs 0-3 */
	sandy[1].nover = 1;
	rc = fx_decode(sandy, 8, NULL);
	CHECK_EQ_U(rc, 2);
	CHECK(has_msg("L2 unified caches 2 and 6 overlap in APIC IDs"));
	CHECK(has_msg("L2 unified caches 6 and 14 overlap in APIC IDs"));
	/* 2: IDs 0-1 (cpus 0, 4), 6: IDs 0-3 (cpu 1), 14: IDs 2-3 (cpu 5) */
	CHECK(T.cache[2].share_shift == 1 && T.cache[2].id == 0);
	CHECK(T.cache[6].share_shift == 2 && T.cache[6].id == 0);
	CHECK(T.cache[14].share_shift == 1 && T.cache[14].id == 1);
	CHECK(SHARED_IS(5, L2, 5));
}

TEST(bad_nodes_and_limits)
{
	const int32_t nodes[] = { 0, QB_MAX_NODES, -1, 3 };
	int rc = fx_decode(cpus_skylake, 4, nodes);

	CHECK_EQ_U(rc, 1);
	CHECK(has_msg("cpu 1: node 64 out of range, using node 0"));
	CHECK_EQ_U(T.cpu[1].node, 0);
	CHECK_EQ_U(T.cpu[2].node, 0);
	CHECK_EQ_U(T.cpu[3].node, 3);
	CHECK_EQ_U(T.nnodes, 2);

	CHECK(topo_decode(snaps, NULL, 0, &T) == -1);
	CHECK(has_msg("topo_decode: 0 CPUs, limit 512"));
	CHECK(topo_decode(snaps, NULL, QB_MAX_CPUS + 1, &T) == -1);
	CHECK(topo_decode(NULL, NULL, 1, &T) == -1);
	CHECK_EQ_U(T.ncpu, 0);
}

TEST(names)
{
	CHECK_STR(topo_rel_name(TOPO_REL_SELF), "self");
	CHECK_STR(topo_rel_name(TOPO_REL_SMT), "smt");
	CHECK_STR(topo_rel_name(TOPO_REL_L2), "l2");
	CHECK_STR(topo_rel_name(TOPO_REL_L3), "l3");
	CHECK_STR(topo_rel_name(TOPO_REL_PACKAGE), "package");
	CHECK_STR(topo_rel_name(TOPO_REL_REMOTE), "remote");
	CHECK_STR(topo_cache_type_name(TOPO_CACHE_DATA), "data");
	CHECK_STR(topo_cache_type_name(TOPO_CACHE_INSTRUCTION), "instruction");
	CHECK_STR(topo_cache_type_name(TOPO_CACHE_UNIFIED), "unified");
	CHECK_STR(cpu_vendor_name(CPU_VENDOR_AMD), "amd");
}

int main(void)
{
	RUN(snap_leaves_and_limits);
	RUN(snap_features);
	RUN(snap_absent_leaves_qemu);
	RUN(snap_apic_id_sources);
	RUN(snap_vendor_brand_and_no_ext);
	RUN(snap_truncated_subleaves);
	RUN(topo_skylake_4c);
	RUN(topo_sandy_2s);
	RUN(topo_zen3_two_ccd);
	RUN(topo_zen1_amd_leaves);
	RUN(topo_opteron_assumed);
	RUN(topo_hybrid_adl);
	RUN(topo_qemu_max);
	RUN(topo_qemu_intel);
	RUN(topo_qemu_epyc);
	RUN(topo_two_die);
	RUN(topo_atom_leaf1_leaf4);
	RUN(topo_max_cpus);
	RUN(bad_duplicate_apic);
	RUN(bad_missing_leafb);
	RUN(bad_mixed_vendor);
	RUN(bad_package_shift);
	RUN(bad_leaf4_values);
	RUN(bad_legacy_assoc);
	RUN(bad_geometry_and_overlap);
	RUN(bad_nodes_and_limits);
	RUN(names);
	return check_summary("topo");
}
