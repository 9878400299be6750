/* test_topo.c - host tests of the topology decoder on recorded and modelled
 * parts, one test per machine (Intel SDM vol. 2A CPUID; AMD APM vol. 3 / PPR). */
#include "check.h"
#include "topo_fixtures.h"

/* ---- Topology tests -------------------------------------------------------- */

/* The tables themselves: each (leaf, subleaf) listed once, a known vendor. */
TEST(fixtures_well_formed)
{
	for (size_t m = 0; m < ARRAY_SIZE(fx_all_models); m++) {
		const struct fx_model *fm = fx_all_models[m];

		for (size_t i = 0; i < fm->n; i++)
			for (size_t j = i + 1; j < fm->n; j++)
				CHECK(fm->leaves[i].leaf != fm->leaves[j].leaf ||
				      fm->leaves[i].sub != fm->leaves[j].sub);
		fx_snap(&(struct fx_cpu)FXC(0, fm), &snaps[0]);
		CHECK(cpuid_snap_vendor(&snaps[0]) != CPU_VENDOR_OTHER);
	}
}

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

/* QB_MAX_CPUS CPUs of the Skylake model: packages of 8 cores. */
TEST(topo_max_cpus)
{
	uint32_t n = fill_cpus(&m_skylake, QB_MAX_CPUS, 2, false);
	int rc = fx_decode(cpus_many, n, NULL);

	CHECK(sizeof(struct topo) < 1024 * 1024);
	CHECK_CLEAN(rc);
	CHECK_EQ_U(T.npackages, QB_MAX_CPUS / 8);
	CHECK_EQ_U(T.ncores, QB_MAX_CPUS);
	CHECK_EQ_U(T.ncaches, 3 * QB_MAX_CPUS + QB_MAX_CPUS / 8);
	CHECK_CPU(QB_MAX_CPUS - 1, QB_MAX_CPUS / 8 - 1, 7, 0, 0);
	CHECK(SHARED_IS(QB_MAX_CPUS - 1, L3, QB_MAX_CPUS - 8, QB_MAX_CPUS - 7, QB_MAX_CPUS - 6, QB_MAX_CPUS - 5,
			QB_MAX_CPUS - 4, QB_MAX_CPUS - 3, QB_MAX_CPUS - 2, QB_MAX_CPUS - 1));
	CHECK_REL(0, 7, "l3");
	CHECK_REL(0, 8, "remote");
}

int main(void)
{
	RUN(fixtures_well_formed);
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
	topo_bad_tests(&check_passed, &check_failed);
	return check_summary("topo");
}

