/* test_topo_bad.c - host tests of the CPUID snapshot and of the topology
 * decoder on malformed input, where every mistake must be reported (Intel SDM
 * vol. 2A CPUID; AMD APM vol. 3 / PPR). */
#include "check.h"
#include "topo_fixtures.h"

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
	CHECK(has_msg("topo_decode: 0 CPUs, limit 1024"));
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

void topo_bad_tests(int *passed, int *failed)
{
	RUN(snap_leaves_and_limits);
	RUN(snap_features);
	RUN(snap_absent_leaves_qemu);
	RUN(snap_apic_id_sources);
	RUN(snap_vendor_brand_and_no_ext);
	RUN(snap_truncated_subleaves);
	RUN(bad_duplicate_apic);
	RUN(bad_missing_leafb);
	RUN(bad_mixed_vendor);
	RUN(bad_package_shift);
	RUN(bad_leaf4_values);
	RUN(bad_legacy_assoc);
	RUN(bad_geometry_and_overlap);
	RUN(bad_nodes_and_limits);
	RUN(names);
	*passed += check_passed;
	*failed += check_failed;
}
