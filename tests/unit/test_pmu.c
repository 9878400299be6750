/* test_pmu.c - host tests of PMU detection and event plans on recorded and
 * modelled CPUID tables (pmu_fixtures.h: Intel SDM vol. 2A CPUID leaf 0AH and
 * vol. 3B ch. 20; AMD APM vol. 3 CPUID 8000_0001h/8000_0022h), replayed
 * through cpuid_snap_fill(). pmu_start/read/stop are in test_pmu_prog.c. */
#include "check.h"
#include "pmu_fixtures.h"

#define CHECK_EV(p, i, name_, sel, val, ctr, w)                                \
	do {                                                                   \
		CHECK((i) < (p).n);                                            \
		CHECK_STR((p).ev[i].name, name_);                              \
		CHECK_EQ_U((p).ev[i].sel_msr, sel);                            \
		CHECK_EQ_U((p).ev[i].sel_value, val);                          \
		CHECK_EQ_U((p).ev[i].ctr_msr, ctr);                            \
		CHECK_EQ_U((p).ev[i].width, w);                                \
	} while (0)
/* ---- Intel ------------------------------------------------------------------ */

TEST(intel_v1_core_duo)
{
	struct pmu_caps c = CAPS0(&m_yonah);
	struct pmu_plan p;

	CHECK(c.kind == PMU_INTEL_ARCH);
	CHECK_EQ_U(c.version, 1);
	CHECK_EQ_U(c.n_gp, 2);
	CHECK_EQ_U(c.gp_width, 40);
	CHECK_EQ_U(c.n_fixed, 0);
	CHECK(!c.global_ctrl);
	CHECK_STR(pmu_describe(&c), "intel arch v1, 2 gp x 40 bit");
	/* Two GP counters: the LLC pair fills them, no room for cycles. */
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 2);
	CHECK_EV(p, 0, "llc_references", MSR_IA32_PERFEVTSEL0, EVTSEL(0x2E, 0x4F), MSR_IA32_PMC0, 40);
	CHECK_EV(p, 1, "llc_misses", MSR_IA32_PERFEVTSEL0 + 1, EVTSEL(0x2E, 0x41), MSR_IA32_PMC0 + 1, 40);
	CHECK_EQ_U(p.global_msr, 0);
	CHECK_EQ_U(p.global_value, 0);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 2);
	CHECK_EV(p, 0, "cycles", MSR_IA32_PERFEVTSEL0, EVTSEL(0x3C, 0), MSR_IA32_PMC0, 40);
	CHECK_EV(p, 1, "instructions", MSR_IA32_PERFEVTSEL0 + 1, EVTSEL(0xC0, 0), MSR_IA32_PMC0 + 1, 40);
}

TEST(intel_v2_core2)
{
	struct pmu_caps c = CAPS0(&m_conroe);
	struct pmu_plan p;

	CHECK_EQ_U(c.version, 2);
	CHECK_EQ_U(c.n_fixed, 3);
	CHECK_EQ_U(c.fixed_width, 40);
	CHECK(c.global_ctrl);
	CHECK_STR(pmu_describe(&c), "intel arch v2, 2 gp x 40 bit, 3 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 2, "cycles", MSR_IA32_FIXED_CTR_CTRL, 0x30, MSR_IA32_FIXED_CTR0 + 1, 40);
	CHECK_EV(p, 3, "instructions", MSR_IA32_FIXED_CTR_CTRL, 0x03, MSR_IA32_FIXED_CTR0, 40);
	CHECK(p.ev[2].fixed && p.ev[3].fixed && !p.ev[0].fixed);
	CHECK_EQ_U(p.ev[2].sel_mask, 0xF0);
	CHECK_EQ_U(p.global_msr, MSR_IA32_PERF_GLOBAL_CTRL);
	CHECK_EQ_U(p.global_value, 0x300000003ull);
}

/* Nehalem-class version 3 (the Sandy Bridge-EP fixture with HT: 4 GP). */
TEST(intel_v3_sandy_bridge)
{
	struct pmu_caps c = CAPS(&m_sandy, ov_sandy);
	struct pmu_plan p;

	CHECK_EQ_U(c.version, 3);
	CHECK_EQ_U(c.model, 0x2D);
	CHECK_STR(pmu_describe(&c), "intel arch v3, 4 gp x 48 bit, 3 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 3);
	CHECK_STR(p.note, "coherence via llc_misses");
	CHECK_EV(p, 0, "llc_misses", MSR_IA32_PERFEVTSEL0, EVTSEL(0x2E, 0x41), MSR_IA32_PMC0, 48);
	CHECK_EQ_U(p.global_value, 0x300000001ull);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_L1L2, &p), 0);
	CHECK_STR(p.why, "intel: no architectural L1/L2 event");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_TLB, &p), 0);
	CHECK_STR(p.why, "intel: no architectural TLB event");
}

TEST(intel_v3_atom_fixed_offload)
{
	struct pmu_caps c = CAPS(&m_atom, ov_atom);
	struct pmu_plan p;

	CHECK_STR(pmu_describe(&c), "intel arch v3, 2 gp x 40 bit, 3 fixed");
	/* Both GP counters on the LLC pair, cycles and instructions fixed. */
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_STR(p.ev[2].name, "cycles");
	CHECK(p.ev[2].fixed);
	CHECK_EQ_U(p.global_value, 0x300000003ull);
}

TEST(intel_v4_skylake)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skylake);
	struct pmu_plan p;

	CHECK(c.kind == PMU_INTEL_ARCH);
	CHECK_EQ_U(c.version, 4);
	CHECK_EQ_U(c.n_gp, 8);
	CHECK_EQ_U(c.arch_len, 7);
	CHECK_STR(pmu_describe(&c), "intel arch v4, 8 gp x 48 bit, 3 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "llc_references", 0x186, 0x434F2Eull, 0xC1, 48);
	CHECK_EV(p, 1, "llc_misses", 0x187, 0x43412Eull, 0xC2, 48);
	CHECK_EV(p, 2, "cycles", 0x38D, 0x30, 0x30A, 48);
	CHECK_EV(p, 3, "instructions", 0x38D, 0x03, 0x309, 48);
	CHECK_EQ_U(p.global_msr, 0x38F);
	CHECK_EQ_U(p.global_value, 0x300000003ull);
	CHECK(p.note == NULL);
	for (uint32_t i = 0; i < p.n; i++)
		CHECK(p.ev[i].scope == PMU_SCOPE_THREAD);
	/* Cycles and instructions alone use only the fixed counters. */
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 2);
	CHECK_EQ_U(p.global_value, 0x300000000ull);
}

TEST(intel_v5_icelake)
{
	struct pmu_caps c = CAPS0(&m_icelake);
	struct pmu_plan p;

	CHECK_EQ_U(c.version, 5);
	CHECK_EQ_U(c.n_fixed, 4);
	CHECK_EQ_U(c.fixed_mask, 0xF);
	CHECK_EQ_U(c.arch_len, 8);
	CHECK_STR(pmu_describe(&c), "intel arch v5, 8 gp x 48 bit, 4 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
}

/* Version 5 fixed-counter bit mask: counter 1 (cycles) absent. */
TEST(intel_v5_sparse_fixed)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skl_v5_sparse);
	struct pmu_plan p;

	CHECK_EQ_U(c.fixed_mask, 0x5);
	CHECK_EQ_U(c.n_fixed, 3);
	CHECK_STR(pmu_describe(&c), "intel arch v5, 4 gp x 48 bit, 2 fixed");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 2);
	CHECK_EV(p, 0, "cycles", 0x186, EVTSEL(0x3C, 0), 0xC1, 48);
	CHECK(!p.ev[0].fixed);
	CHECK_EV(p, 1, "instructions", 0x38D, 0x03, 0x309, 48);
	CHECK_EQ_U(p.global_value, 0x100000001ull);
}

TEST(intel_unavailable_events)
{
	struct pmu_caps c = CAPS(&m_skylake, ov_skl_no_llc_miss);
	struct pmu_plan p;

	CHECK_EQ_U(c.arch_unavail, 0x10);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 3);
	CHECK_STR(p.ev[0].name, "llc_references");
	for (uint32_t i = 0; i < p.n; i++)
		CHECK(strcmp(p.ev[i].name, "llc_misses") != 0);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 0);
	CHECK_STR(p.why, "intel: llc_misses unavailable (CPUID.0AH:EBX)");

	c = CAPS(&m_skylake, ov_skl_len4);
	CHECK_EQ_U(c.arch_len, 4);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 3);
	CHECK_STR(p.ev[1].name, "cycles");
}
/* ---- AMD -------------------------------------------------------------------- */

TEST(amd_zen1)
{
	struct pmu_caps c = CAPS0(&m_zen1);
	struct pmu_plan p;

	CHECK(c.kind == PMU_AMD_CORE_EXT);
	CHECK_EQ_U(c.family, 0x17);
	CHECK_EQ_U(c.n_gp, 6);
	CHECK_EQ_U(c.n_l3, 6);
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "llc_references", 0xC0010230, 0xFF04 | L3_17H, 0xC0010231, 48);
	CHECK_EV(p, 1, "llc_misses", 0xC0010232, 0x0106 | L3_17H, 0xC0010233, 48);
	CHECK(p.ev[0].scope == PMU_SCOPE_L3 && p.ev[1].scope == PMU_SCOPE_L3);
	CHECK_EV(p, 2, "cycles", 0xC0010200, EVTSEL(0x76, 0), 0xC0010201, 48);
	CHECK_EV(p, 3, "instructions", 0xC0010202, EVTSEL(0xC0, 0), 0xC0010203, 48);
	CHECK(p.ev[2].scope == PMU_SCOPE_THREAD);
	CHECK_EQ_U(p.global_msr, 0);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 4);
	CHECK_EV(p, 0, "coherence_fills", 0xC0010200, EVTSEL(0x43, 0x12), 0xC0010201, 48);
	CHECK_EV(p, 1, "l2_misses", 0xC0010202, EVTSEL(0x64, 0x08), 0xC0010203, 48);
}

TEST(amd_zen2)
{
	struct pmu_caps c = CAPS(&m_zen1, ov_zen2);
	struct pmu_plan p;

	CHECK_EQ_U(c.family, 0x17);
	CHECK_EQ_U(c.model, 0x71);
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_L1L2, &p), 4);
	CHECK_EV(p, 0, "l1d_misses", 0xC0010200, EVTSEL(0x60, 0xC8), 0xC0010201, 48);
	CHECK_EV(p, 1, "l2_misses", 0xC0010202, EVTSEL(0x64, 0x08), 0xC0010203, 48);
	CHECK(p.note == NULL);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_TLB, &p), 4);
	CHECK_EV(p, 0, "dtlb_misses", 0xC0010200, EVTSEL(0x45, 0xFF), 0xC0010201, 48);
	CHECK_EV(p, 1, "dtlb_walks", 0xC0010202, EVTSEL(0x45, 0xF0), 0xC0010203, 48);
}

TEST(amd_zen3)
{
	struct pmu_caps c = CAPS0(&m_zen3);
	struct pmu_plan p;

	CHECK_EQ_U(c.family, 0x19);
	CHECK_EQ_U(c.model, 0x21);
	CHECK_EQ_U(c.version, 1);	/* 0x80000022 reads zero: no PerfMonV2 */
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "llc_references", 0xC0010230, 0xFF04 | L3_19H, 0xC0010231, 48);
	CHECK_EV(p, 1, "llc_misses", 0xC0010232, 0x0106 | L3_19H, 0xC0010233, 48);
	CHECK_STR(p.note, "l3 counters count every core sharing the L3");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 4);
	CHECK_EV(p, 0, "coherence_fills", 0xC0010200, EVTSEL(0x43, 0x16), 0xC0010201, 48);
}

TEST(amd_zen4_perfmon_v2)
{
	struct pmu_caps c = CAPS(&m_zen3, ov_zen4);
	struct pmu_plan p;

	CHECK_EQ_U(c.model, 0x61);
	CHECK_EQ_U(c.version, 2);
	CHECK(c.global_ctrl);
	CHECK_STR(pmu_describe(&c), "amd perfmon v2, 6 gp, l3 6");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 1, "llc_misses", 0xC0010232, 0x0104 | L3_19H, 0xC0010233, 48);
	CHECK_EQ_U(p.global_msr, 0xC0000301);
	CHECK_EQ_U(p.global_value, 0x3);	/* GP 0 and 1; L3 counters have no global bit */
}

TEST(amd_bulldozer_ext_core_pre_zen)
{
	struct pmu_caps c = CAPS(&m_zen1, ov_bulldozer);
	struct pmu_plan p;

	CHECK_EQ_U(c.family, 0x15);
	CHECK(c.kind == PMU_AMD_CORE_EXT);
	CHECK_EQ_U(c.n_l3, 0);
	CHECK_STR(pmu_describe(&c), "amd core ext, 6 gp");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_LLC, &p), 4);
	CHECK_EV(p, 0, "l2_requests", 0xC0010200, EVTSEL(0x7D, 0x03), 0xC0010201, 48);
	CHECK_STR(p.note, "llc via l2_requests and l2_misses");
}

/* Family 10h: no PerfCtrExtCore, four legacy counters at C001_0000. */
TEST(amd_legacy_opteron)
{
	struct pmu_caps c = CAPS0(&m_opteron);
	struct pmu_plan p;

	CHECK(c.kind == PMU_AMD_LEGACY);
	CHECK_EQ_U(c.family, 0x10);
	CHECK_EQ_U(c.n_gp, 4);
	CHECK_EQ_U(c.n_l3, 0);
	CHECK_STR(pmu_describe(&c), "amd legacy, 4 gp");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_L1L2, &p), 4);
	CHECK_EV(p, 0, "l1d_misses", 0xC0010000, EVTSEL(0x41, 0x01), 0xC0010004, 48);
	CHECK_EV(p, 1, "l2_misses", 0xC0010001, EVTSEL(0x7E, 0x03), 0xC0010005, 48);
	CHECK_EV(p, 2, "cycles", 0xC0010002, EVTSEL(0x76, 0), 0xC0010006, 48);
	CHECK_EV(p, 3, "instructions", 0xC0010003, EVTSEL(0xC0, 0), 0xC0010007, 48);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_TLB, &p), 3);
	CHECK_EV(p, 0, "dtlb_misses", 0xC0010000, EVTSEL(0x46, 0x07), 0xC0010004, 48);
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_COHERENCE, &p), 3);
	CHECK_STR(p.note, "coherence via l2_misses");
}
/* ---- None ------------------------------------------------------------------- */

TEST(none_hypervisors_and_absent)
{
	struct pmu_caps c;
	struct pmu_plan p;

	c = CAPS0(&m_qemu);		/* QEMU TCG -cpu max: AMD, hypervisor */
	CHECK(c.kind == PMU_NONE);
	CHECK_STR(pmu_describe(&c), "none");
	CHECK_STR(c.why, "hypervisor: counters are virtual or absent");
	CHECK_EQ_U(pmu_plan(&c, PMU_GOAL_CYCLES_INSNS, &p), 0);
	CHECK_STR(p.why, "hypervisor: counters are virtual or absent");
	CHECK_EQ_U(p.global_msr, 0);

	c = CAPS0(&m_qemu_intel);	/* TCG, Intel vendor: leaf 0xA absent too */
	CHECK(c.kind == PMU_NONE);
	CHECK_EQ_U(c.n_gp, 0);

	c = CAPS(&m_skylake, ov_skl_kvm);	/* KVM vPMU: still none */
	CHECK(c.kind == PMU_NONE);
	CHECK_EQ_U(c.version, 0);

	c = CAPS(&m_skylake, ov_skl_leafa_zero);
	CHECK(c.kind == PMU_NONE);
	CHECK_STR(c.why, "CPUID.0AH version 0");

	c = CAPS0(&m_skylake);		/* fixture without leaf 0xA data */
	CHECK(c.kind == PMU_NONE);

	c = CAPS0(&m_no_ext);		/* max basic leaf 2 */
	CHECK(c.kind == PMU_NONE);
	CHECK_STR(c.why, "no CPUID leaf 0xA");
	CHECK_STR(pmu_describe(&c), "none");
}

TEST(snapshot_captures_new_leaves)
{
	fx_snap(&(struct fx_cpu)FXO(0, &m_skylake, ov_skylake), &S);
	CHECK(S.have_leafa);
	CHECK_EQ_U(S.leafa.eax, 0x07300804);
	CHECK(!S.have_ext22);		/* max extended leaf 0x80000008 */
	fx_snap(&(struct fx_cpu)FXO(0, &m_zen3, ov_zen4), &S);
	CHECK(S.have_ext22);
	CHECK_EQ_U(S.ext22.ebx, 0x1106);
	fx_snap(&(struct fx_cpu)FXC(0, &m_no_ext), &S);
	CHECK(!S.have_leafa && !S.have_ext22);
	CHECK_EQ_U(cpuid_snap_family(&S), 6);
	CHECK_EQ_U(cpuid_snap_model(&S), 7);
}
int main(void)
{
	RUN(intel_v1_core_duo);
	RUN(intel_v2_core2);
	RUN(intel_v3_sandy_bridge);
	RUN(intel_v3_atom_fixed_offload);
	RUN(intel_v4_skylake);
	RUN(intel_v5_icelake);
	RUN(intel_v5_sparse_fixed);
	RUN(intel_unavailable_events);
	RUN(amd_zen1);
	RUN(amd_zen2);
	RUN(amd_zen3);
	RUN(amd_zen4_perfmon_v2);
	RUN(amd_bulldozer_ext_core_pre_zen);
	RUN(amd_legacy_opteron);
	RUN(none_hypervisors_and_absent);
	RUN(snapshot_captures_new_leaves);
	return check_summary("pmu");
}
