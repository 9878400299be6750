/* pmu_fixtures.h - CPUID tables for the PMU tests: leaf 0AH and 8000_0022h of
 * real and modelled parts (Intel SDM vol. 2A CPUID leaf 0AH and vol. 3B
 * ch. 20; AMD APM vol. 3 CPUID 8000_0001h/8000_0022h), over the parts of
 * topo_fixtures.h, replayed through cpuid_snap_fill().
 *
 * Header-only, like topo_fixtures.h: test_pmu.c (detection and event plans)
 * and test_pmu_prog.c (programming the counters) include it once each. */
#ifndef QB_TESTS_PMU_FIXTURES_H
#define QB_TESTS_PMU_FIXTURES_H

#include "msr.h"
#include "pmu.h"
#include "topo_fixtures.h"

/* ---- CPUID tables ---------------------------------------------------------- */

/*
 * Leaf 0xA values follow the SDM fields: EAX = version | GP counters << 8 |
 * GP width << 16 | EBX length << 24, EDX = fixed counters | fixed width << 5
 * (| bit 15 AnyThread deprecation on version 5). Counter counts and widths
 * are each part's documented ones.
 */

/* Intel Core Duo T2400 (Yonah, family 6 model 0Eh): PMU version 1, two
 * 40-bit counters, no fixed counters, no global control. */
static const struct fx_leaf fx_yonah[] = {
	{ 0x0, 0, 0x0000000a, FX_INTEL },
	{ 0x1, 0, 0x000006e8, 0x00020800, 0x0000c1a9, 0xbfe9fbff },
	{ 0xa, 0, 0x07280201, 0x00000000, 0x00000000, 0x00000000 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000000, 0x00100000 },
};

/* Intel Core 2 Duo E6600 (Conroe, family 6 model 0Fh): version 2, two
 * 40-bit GP and three 40-bit fixed counters. */
static const struct fx_leaf fx_conroe[] = {
	{ 0x0, 0, 0x0000000a, FX_INTEL },
	{ 0x1, 0, 0x000006f6, 0x00020800, 0x0000e3bd, 0xbfebfbff },
	{ 0xa, 0, 0x07280202, 0x00000000, 0x00000000, 0x00000503 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000001, 0x20100000 },
};

/* Intel Core i7-1065G7 (Ice Lake client, family 6 model 7Eh): version 5,
 * eight 48-bit GP counters, four fixed (ECX bit mask 0xF, EDX[4:0] 4). */
static const struct fx_leaf fx_icelake[] = {
	{ 0x0, 0, 0x0000001b, FX_INTEL },
	{ 0x1, 0, 0x000706e5, 0x00100800, 0x7ffafbbf, 0xbfebfbff },
	{ 0x6, 0, 0x0017f7f7, 0x00000002, 0x00000009, 0x00000000 },
	{ 0xa, 0, 0x08300805, 0x00000000, 0x0000000f, 0x00008604 },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
	{ 0x80000001, 0, 0, 0, 0x00000121, 0x2c100800 },
};

/* Leaf 0xA overrides for the shared fixture parts. */
static const struct fx_leaf ov_sandy[] = {	/* E5-2637, HT on: v3, 4 GP x 48, 3 fixed */
	{ 0xa, 0, 0x07300403, 0x00000000, 0x00000000, 0x00000603 },
};
static const struct fx_leaf ov_skylake[] = {	/* i5-6600, no HT: v4, 8 GP x 48, 3 fixed */
	{ 0xa, 0, 0x07300804, 0x00000000, 0x00000000, 0x00000603 },
};
static const struct fx_leaf ov_atom[] = {	/* Atom D525 (Bonnell): v3, 2 GP x 40, 3 fixed */
	{ 0xa, 0, 0x07280203, 0x00000000, 0x00000000, 0x00000503 },
};
/* Modelled: Skylake with EBX bit 4 (LLC Misses) set, as the SDM allows. */
static const struct fx_leaf ov_skl_no_llc_miss[] = {
	{ 0xa, 0, 0x07300804, 0x00000010, 0x00000000, 0x00000603 },
};
/* Modelled: an EBX vector of length 4, so LLC Misses (bit 4) is outside it. */
static const struct fx_leaf ov_skl_len4[] = {
	{ 0xa, 0, 0x04300804, 0x00000000, 0x00000000, 0x00000603 },
};
/* Modelled version 5 with EDX[4:0] = 0 and ECX = 0x5: fixed counters 0 and
 * 2 only, so cycles (fixed 1) needs a GP counter. */
static const struct fx_leaf ov_skl_v5_sparse[] = {
	{ 0xa, 0, 0x07300405, 0x00000000, 0x00000005, 0x00000600 },
};
static const struct fx_leaf ov_skl_leafa_zero[] = {
	{ 0xa, 0, 0, 0, 0, 0 },
};
/* KVM guest on Skylake: hypervisor bit (leaf 1 ECX[31]) and a vPMU leaf. */
static const struct fx_leaf ov_skl_kvm[] = {
	{ 0x1, 0, 0x000506e3, 0x00100800, 0xfffa3203, 0x0f8bfbff },
	{ 0xa, 0, 0x07300804, 0x00000000, 0x00000000, 0x00000603 },
};
/* AMD Ryzen 9 3900X (Zen 2, family 17h model 71h) on the Zen 1 table. */
static const struct fx_leaf ov_zen2[] = {
	{ 0x1, 0, 0x00870f10, 0x00100800, 0x7ed8320b, 0x178bfbff },
	{ 0x80000001, 0, 0x00870f10, 0x20000000, 0x75c237ff, 0x2fd3fbff },
};
/* AMD Ryzen 9 7950X (Zen 4, family 19h model 61h) on the Zen 3 table:
 * 8000_0022h EAX PerfMonV2 | LbrStack | LbrAndPmcFreeze, EBX NumPerfCtrCore 6,
 * LbrV2StackSize 16, NumPerfCtrNB 4. */
static const struct fx_leaf ov_zen4[] = {
	{ 0x1, 0, 0x00a60f12, 0x00200800, 0x7ef8320b, 0x178bfbff },
	{ 0x80000000, 0, 0x80000028, FX_AMD },
	{ 0x80000001, 0, 0x00a60f12, 0x00000000, 0x75c237ff, 0x2fd3fbff },
	{ 0x80000022, 0, 0x00000007, 0x00001106, 0x00000000, 0x00000000 },
};
/* Modelled on the family 15h BKDG: FX-8150 (Bulldozer, 15h model 01h) has
 * PerfCtrExtCore (bit 23) and PerfCtrExtNB (bit 24) but no L3 counters. */
static const struct fx_leaf ov_bulldozer[] = {
	{ 0x1, 0, 0x00600f12, 0x00100800, 0x1e98220b, 0x178bfbff },
	{ 0x80000001, 0, 0x00600f12, 0x10000000, 0x01c9bfff, 0x2fd3fbff },
};

static const struct fx_model m_yonah = FX_MODEL("core duo t2400", fx_yonah);
static const struct fx_model m_conroe = FX_MODEL("core 2 e6600", fx_conroe);
static const struct fx_model m_icelake = FX_MODEL("i7-1065g7", fx_icelake);

/* ---- Detection ------------------------------------------------------------- */

/* The snapshot the last caps_of() (or a test) filled. */
static struct cpuid_snap S;

/* Snapshots CPU 0 of model m with overrides ov (may be NULL). */
static inline struct pmu_caps caps_of(const struct fx_model *m,
				      const struct fx_leaf *ov, size_t nov)
{
	struct fx_cpu c = { .apic = 0, .model = m, .over = ov, .nover = nov };

	fx_snap(&c, &S);
	return pmu_detect(&S);
}

#define CAPS(m, ov) caps_of(m, ov, ARRAY_SIZE(ov))
#define CAPS0(m) caps_of(m, NULL, 0)

/* An event select counting ev with unit mask um at CPL 0 and 3, enabled. */
#define EVTSEL(ev, um) ((uint64_t)(ev) | (uint64_t)(um) << 8 | PERFEVTSEL_USR | \
			PERFEVTSEL_OS | PERFEVTSEL_EN)
/* AMD L3 PMC selects: every slice, core and thread (family 17h, then 19h). */
#define L3_17H (L3_PMC_17H_SLICE_MASK | L3_PMC_17H_THREAD_MASK | PERFEVTSEL_EN)
#define L3_19H (L3_PMC_19H_EN_ALL_SLICES | L3_PMC_19H_EN_ALL_CORES | \
		L3_PMC_19H_THREAD_MASK | PERFEVTSEL_EN)

#endif
