/* cpuid_snap.c - takes and reads per-CPU CPUID snapshots, the only code that
 * executes CPUID (Intel SDM vol. 2A, CPUID; AMD APM vol. 3, appendix E). */
#include "cpuid_snap.h"
#include "lib.h"
#include "msr.h"

/* ---- Constants ------------------------------------------------------------- */

enum cpuid_reg { CPUID_REG_EAX, CPUID_REG_EBX, CPUID_REG_ECX, CPUID_REG_EDX };

#define FEAT(leaf, reg, bit, name) { leaf, CPUID_REG_##reg, bit, name }

static const struct {
	uint32_t leaf;
	uint8_t reg;
	uint8_t bit;
	const char *name;
} cpuid_features[CPUID_FEAT_COUNT] = {
	[CPUID_FEAT_TSC] = FEAT(CPUID_LEAF_FEATURES, EDX, CPUID_1_EDX_TSC, "tsc"),
	[CPUID_FEAT_APIC] = FEAT(CPUID_LEAF_FEATURES, EDX, CPUID_1_EDX_APIC, "apic"),
	[CPUID_FEAT_FXSR] = FEAT(CPUID_LEAF_FEATURES, EDX, CPUID_1_EDX_FXSR, "fxsr"),
	[CPUID_FEAT_SSE] = FEAT(CPUID_LEAF_FEATURES, EDX, CPUID_1_EDX_SSE, "sse"),
	[CPUID_FEAT_SSE2] = FEAT(CPUID_LEAF_FEATURES, EDX, CPUID_1_EDX_SSE2, "sse2"),
	[CPUID_FEAT_HTT] = FEAT(CPUID_LEAF_FEATURES, EDX, CPUID_1_EDX_HTT, "htt"),
	[CPUID_FEAT_X2APIC] = FEAT(CPUID_LEAF_FEATURES, ECX, CPUID_1_ECX_X2APIC, "x2apic"),
	[CPUID_FEAT_XSAVE] = FEAT(CPUID_LEAF_FEATURES, ECX, CPUID_1_ECX_XSAVE, "xsave"),
	[CPUID_FEAT_OSXSAVE] = FEAT(CPUID_LEAF_FEATURES, ECX, CPUID_1_ECX_OSXSAVE, "osxsave"),
	[CPUID_FEAT_AVX] = FEAT(CPUID_LEAF_FEATURES, ECX, CPUID_1_ECX_AVX, "avx"),
	[CPUID_FEAT_HYPERVISOR] = FEAT(CPUID_LEAF_FEATURES, ECX, CPUID_1_ECX_HYPERVISOR, "hypervisor"),
	[CPUID_FEAT_CLFLUSHOPT] = FEAT(CPUID_LEAF_STRUCT_EXT, EBX, CPUID_7_EBX_CLFLUSHOPT, "clflushopt"),
	[CPUID_FEAT_HYBRID] = FEAT(CPUID_LEAF_STRUCT_EXT, EDX, CPUID_7_EDX_HYBRID, "hybrid"),
	[CPUID_FEAT_NX] = FEAT(CPUID_LEAF_EXT_FEATURES, EDX, CPUID_E1_EDX_NX, "nx"),
	[CPUID_FEAT_PAGE1GB] = FEAT(CPUID_LEAF_EXT_FEATURES, EDX, CPUID_E1_EDX_PAGE1GB, "pdpe1gb"),
	[CPUID_FEAT_RDTSCP] = FEAT(CPUID_LEAF_EXT_FEATURES, EDX, CPUID_E1_EDX_RDTSCP, "rdtscp"),
	[CPUID_FEAT_TOPOEXT] = FEAT(CPUID_LEAF_EXT_FEATURES, ECX, CPUID_E1_ECX_TOPOEXT, "topoext"),
	[CPUID_FEAT_INVTSC] = FEAT(CPUID_LEAF_APM, EDX, CPUID_E7_EDX_INVTSC, "invtsc"),
};

static const char cpuid_vendor_intel[] = "GenuineIntel";
static const char cpuid_vendor_amd[] = "AuthenticAMD";
static const char cpuid_vendor_hygon[] = "HygonGenuine";

#define CPUID_FAMILY_AMD_10H	0x10
#define CPUID_PRINT_FIRST	0x20	/* ' ' */
#define CPUID_PRINT_LAST	0x7e	/* '~' */

/*
 * Hypervisor signatures of leaf 0x40000000 as text (trailing NULs dropped),
 * the table systemd's src/basic/virt.c and memtest86+ keep ("Linux KVM Hv"
 * is KVM offering Hyper-V's interface), with VirtualBox's and Parallels'
 * (" lrpepyh  vr" is "prl hyperv  " with its words byte-swapped).
 */
static const struct {
	const char *sig, *name;
} cpuid_hypervisors[] = {
	{ "KVMKVMKVM", "KVM" },
	{ "Linux KVM Hv", "KVM" },
	{ "TCGTCGTCGTCG", "QEMU TCG" },
	{ "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "bhyve bhyve ", "bhyve" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ "ACRNACRNACRN", "ACRN" },
	{ " lrpepyh  vr", "Parallels" },
	{ "QNXQVMBSQG", "QNX" },
};
static const char cpuid_hv_unknown[] = "unknown";
#ifdef QB_HOST_TWIN
static const char cpuid_node_twin_why[] = "unavailable: the Linux twin reads no MSRs";
#endif

/* ---- Private Functions ----------------------------------------------------- */

/* Whether a subleaf ends its list: leaves 4 and 0x8000001D end on cache type
 * 0 (EAX[4:0]), leaves 0xB and 0x1F on level type 0 (ECX[15:8]). */
static bool cpuid_sub_is_last(uint32_t leaf, const struct cpuid_regs *r)
{
	if (leaf == CPUID_LEAF_TOPO || leaf == CPUID_LEAF_TOPO_V2)
		return CPUID_FIELD(r->ecx, CPUID_TOPO_ECX_TYPE) == 0;
	return CPUID_FIELD(r->eax, CPUID_CACHE_EAX_TYPE) == 0;
}

/* Reads the subleaves of leaf up to its terminator; returns how many are valid. */
static uint8_t cpuid_fill_subs(struct cpuid_snap *s, cpuid_query_fn q, void *ctx,
			       uint32_t leaf, struct cpuid_regs *out,
			       uint8_t trunc_bit)
{
	struct cpuid_regs r;
	uint8_t n;

	for (n = 0; n < CPUID_SNAP_MAX_SUB; n++) {
		q(ctx, leaf, n, &r);
		if (cpuid_sub_is_last(leaf, &r))
			return n;
		out[n] = r;
	}
	q(ctx, leaf, n, &r);
	if (!cpuid_sub_is_last(leaf, &r))
		s->truncated |= trunc_bit;
	return n;
}

/* Reads a single-subleaf leaf when it is within max; returns whether it was. */
static bool cpuid_fill_one(cpuid_query_fn q, void *ctx, uint32_t leaf,
			   uint32_t max, struct cpuid_regs *out)
{
	if (leaf > max)
		return false;
	q(ctx, leaf, 0, out);
	return true;
}

static void cpuid_fill_brand(struct cpuid_snap *s, cpuid_query_fn q, void *ctx)
{
	struct cpuid_regs r;
	size_t len;
	uint32_t i;

	for (i = 0; i < CPUID_BRAND_LEAVES; i++) {
		q(ctx, CPUID_LEAF_BRAND + i, 0, &r);
		memcpy(&s->brand[i * sizeof(r)], &r, sizeof(r));
	}
	s->brand[CPUID_BRAND_LEN] = '\0';
	len = strlen(s->brand);
	while (len > 0 && s->brand[len - 1] == ' ')
		s->brand[--len] = '\0';
	s->have_brand = true;
}

static const struct cpuid_regs *cpuid_feature_regs(const struct cpuid_snap *s,
						   uint32_t leaf)
{
	switch (leaf) {
	case CPUID_LEAF_FEATURES:
		return s->have_leaf1 ? &s->leaf1 : NULL;
	case CPUID_LEAF_STRUCT_EXT:
		return s->have_leaf7 ? &s->leaf7 : NULL;
	case CPUID_LEAF_EXT_FEATURES:
		return s->have_ext1 ? &s->ext1 : NULL;
	case CPUID_LEAF_APM:
		return s->have_ext7 ? &s->ext7 : NULL;
	default:
		return NULL;
	}
}

#ifndef QB_HOST_TEST
static void cpuid_query_hw(void *ctx, uint32_t leaf, uint32_t sub,
			   struct cpuid_regs *r)
{
	(void)ctx;
	cpuid_raw(leaf, sub, r);
}
#endif

/* ---- Public Functions ------------------------------------------------------ */

void cpuid_snap_fill(struct cpuid_snap *s, cpuid_query_fn q, void *ctx)
{
	struct cpuid_regs r;
	uint32_t mb, me;

	memset(s, 0, sizeof(*s));
	q(ctx, CPUID_LEAF_VENDOR, 0, &s->leaf0);
	mb = s->max_basic = s->leaf0.eax;

	s->have_leaf1 = cpuid_fill_one(q, ctx, CPUID_LEAF_FEATURES, mb, &s->leaf1);
	if (mb >= CPUID_LEAF_CACHE)
		s->n_leaf4 = cpuid_fill_subs(s, q, ctx, CPUID_LEAF_CACHE,
					     s->leaf4, CPUID_SNAP_TRUNC_4);
	s->have_leaf6 = cpuid_fill_one(q, ctx, CPUID_LEAF_POWER, mb, &s->leaf6);
	s->have_leaf7 = cpuid_fill_one(q, ctx, CPUID_LEAF_STRUCT_EXT, mb, &s->leaf7);
	/* issue 8: the PMU leaf */
	s->have_leafa = cpuid_fill_one(q, ctx, CPUID_LEAF_PMU, mb, &s->leafa);
	if (mb >= CPUID_LEAF_TOPO)
		s->n_leafb = cpuid_fill_subs(s, q, ctx, CPUID_LEAF_TOPO,
					     s->leafb, CPUID_SNAP_TRUNC_B);
	s->have_leaf15 = cpuid_fill_one(q, ctx, CPUID_LEAF_TSC_CLOCK, mb, &s->leaf15);
	s->have_leaf16 = cpuid_fill_one(q, ctx, CPUID_LEAF_FREQ, mb, &s->leaf16);
	s->have_leaf1a = cpuid_fill_one(q, ctx, CPUID_LEAF_HYBRID, mb, &s->leaf1a);
	if (mb >= CPUID_LEAF_TOPO_V2)
		s->n_leaf1f = cpuid_fill_subs(s, q, ctx, CPUID_LEAF_TOPO_V2,
					      s->leaf1f, CPUID_SNAP_TRUNC_1F);
	/* Only under a hypervisor: on bare metal the hypervisor range is not
	 * defined (Intel returns the highest basic leaf's data). */
	if (cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR)) {
		q(ctx, CPUID_LEAF_HV, 0, &s->hv);
		s->have_hv = true;
	}

	/* A CPU without extended leaves answers 0x80000000 with the data of its
	 * highest basic leaf (SDM: "If a value entered for CPUID.EAX is higher
	 * than the maximum input value ... the data for the highest basic
	 * information leaf is returned"), so check the range before trusting it. */
	q(ctx, CPUID_LEAF_EXT_MAX, 0, &r);
	if ((r.eax & CPUID_EXT_RANGE_MASK) != CPUID_LEAF_EXT_MAX)
		return;
	me = s->max_ext = r.eax;
	s->have_ext1 = cpuid_fill_one(q, ctx, CPUID_LEAF_EXT_FEATURES, me, &s->ext1);
	if (me >= CPUID_LEAF_BRAND + CPUID_BRAND_LEAVES - 1)
		cpuid_fill_brand(s, q, ctx);
	s->have_ext5 = cpuid_fill_one(q, ctx, CPUID_LEAF_AMD_L1, me, &s->ext5);
	s->have_ext6 = cpuid_fill_one(q, ctx, CPUID_LEAF_L2_L3, me, &s->ext6);
	s->have_ext7 = cpuid_fill_one(q, ctx, CPUID_LEAF_APM, me, &s->ext7);
	s->have_ext8 = cpuid_fill_one(q, ctx, CPUID_LEAF_ADDR, me, &s->ext8);
	if (me >= CPUID_LEAF_AMD_CACHE)
		s->n_ext1d = cpuid_fill_subs(s, q, ctx, CPUID_LEAF_AMD_CACHE,
					     s->ext1d, CPUID_SNAP_TRUNC_E1D);
	s->have_ext1e = cpuid_fill_one(q, ctx, CPUID_LEAF_AMD_TOPO, me, &s->ext1e);
	s->have_ext21 = cpuid_fill_one(q, ctx, CPUID_LEAF_AMD_EXT_FEAT2, me, &s->ext21);
	/* issue 8: AMD PerfMonV2 */
	s->have_ext22 = cpuid_fill_one(q, ctx, CPUID_LEAF_AMD_PERFMON, me, &s->ext22);
}

#ifndef QB_HOST_TEST
void cpuid_snap_take(struct cpuid_snap *s)
{
	cpuid_snap_fill(s, cpuid_query_hw, NULL);
	if (!cpuid_snap_wants_node_msr(s))
		return;
#ifdef QB_HOST_TWIN
	s->node_msr_state = CPUID_NODE_MSR_UNAVAILABLE;
	s->node_msr_why = cpuid_node_twin_why;
#else
	if (msr_read_safe(MSR_AMD_NODE_ID, &s->node_msr) == MSR_OK) {
		s->node_msr_state = CPUID_NODE_MSR_OK;
	} else {
		s->node_msr_state = CPUID_NODE_MSR_UNAVAILABLE;
		s->node_msr_why = msr_gp_reason(MSR_AMD_NODE_ID);
	}
#endif
}
#endif

void cpuid_snap_vendor_string(const struct cpuid_snap *s,
			      char out[CPUID_VENDOR_LEN + 1])
{
	memcpy(&out[0], &s->leaf0.ebx, sizeof(uint32_t));
	memcpy(&out[4], &s->leaf0.edx, sizeof(uint32_t));
	memcpy(&out[8], &s->leaf0.ecx, sizeof(uint32_t));
	out[CPUID_VENDOR_LEN] = '\0';
}

enum cpu_vendor cpuid_snap_vendor(const struct cpuid_snap *s)
{
	char v[CPUID_VENDOR_LEN + 1];

	cpuid_snap_vendor_string(s, v);
	if (!memcmp(v, cpuid_vendor_intel, CPUID_VENDOR_LEN))
		return CPU_VENDOR_INTEL;
	if (!memcmp(v, cpuid_vendor_amd, CPUID_VENDOR_LEN))
		return CPU_VENDOR_AMD;
	if (!memcmp(v, cpuid_vendor_hygon, CPUID_VENDOR_LEN))
		return CPU_VENDOR_HYGON;
	return CPU_VENDOR_OTHER;
}

const char *cpu_vendor_name(enum cpu_vendor v)
{
	switch (v) {
	case CPU_VENDOR_INTEL:
		return "intel";
	case CPU_VENDOR_AMD:
		return "amd";
	case CPU_VENDOR_HYGON:
		return "hygon";
	default:
		return "other";
	}
}

uint32_t cpuid_snap_apic_id(const struct cpuid_snap *s)
{
	enum cpu_vendor v = cpuid_snap_vendor(s);

	if (s->n_leaf1f)
		return s->leaf1f[0].edx;
	if (s->n_leafb)
		return s->leafb[0].edx;
	if (cpu_vendor_is_amd(v) && s->have_ext1e &&
	    cpuid_snap_has(s, CPUID_FEAT_TOPOEXT))
		return s->ext1e.eax;
	return CPUID_FIELD(s->leaf1.ebx, CPUID_1_EBX_APIC_ID);
}

bool cpuid_snap_has(const struct cpuid_snap *s, enum cpuid_feature f)
{
	const struct cpuid_regs *r;
	uint32_t v;

	if ((unsigned)f >= CPUID_FEAT_COUNT)
		return false;
	r = cpuid_feature_regs(s, cpuid_features[f].leaf);
	if (!r)
		return false;
	switch (cpuid_features[f].reg) {
	case CPUID_REG_EAX:
		v = r->eax;
		break;
	case CPUID_REG_EBX:
		v = r->ebx;
		break;
	case CPUID_REG_ECX:
		v = r->ecx;
		break;
	default:
		v = r->edx;
		break;
	}
	return (v >> cpuid_features[f].bit) & 1u;
}

const char *cpuid_feature_name(enum cpuid_feature f)
{
	if ((unsigned)f >= CPUID_FEAT_COUNT)
		return "?";
	return cpuid_features[f].name;
}

const char *cpuid_snap_brand(const struct cpuid_snap *s)
{
	const char *p = s->brand;

	while (*p == ' ')
		p++;
	return p;
}

bool cpuid_snap_hv_vendor(const struct cpuid_snap *s, char out[CPUID_HV_SIG_LEN + 1])
{
	size_t len = CPUID_HV_SIG_LEN;

	out[0] = '\0';
	if (!cpuid_snap_has(s, CPUID_FEAT_HYPERVISOR))
		return false;
	if (!s->have_hv)
		return true;
	memcpy(&out[0], &s->hv.ebx, sizeof(uint32_t));
	memcpy(&out[4], &s->hv.ecx, sizeof(uint32_t));
	memcpy(&out[8], &s->hv.edx, sizeof(uint32_t));
	while (len > 0 && out[len - 1] == '\0')
		len--;
	out[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)out[i] < CPUID_PRINT_FIRST || (unsigned char)out[i] > CPUID_PRINT_LAST)
			out[i] = '?';
	return true;
}

const char *cpuid_hv_name(const char *vendor)
{
	if (!vendor || !vendor[0])
		return cpuid_hv_unknown;
	for (size_t i = 0; i < ARRAY_SIZE(cpuid_hypervisors); i++)
		if (!strcmp(vendor, cpuid_hypervisors[i].sig))
			return cpuid_hypervisors[i].name;
	return vendor;
}

bool cpuid_snap_wants_node_msr(const struct cpuid_snap *s)
{
	if (cpuid_snap_vendor(s) != CPU_VENDOR_AMD)
		return false;
	if (s->have_ext1e && cpuid_snap_has(s, CPUID_FEAT_TOPOEXT))
		return false;	/* 0x8000001E ECX has the node */
	return (s->have_ext1 && ((s->ext1.ecx >> CPUID_E1_ECX_NODEID_MSR) & 1u)) ||
	       cpuid_snap_family(s) == CPUID_FAMILY_AMD_10H;
}

enum cpuid_node_src cpuid_snap_amd_node(const struct cpuid_snap *s, uint32_t *node,
					uint32_t *nodes)
{
	if (cpuid_snap_vendor(s) != CPU_VENDOR_AMD)
		return CPUID_NODE_NONE;
	if (s->have_ext1e && cpuid_snap_has(s, CPUID_FEAT_TOPOEXT)) {
		*node = CPUID_FIELD(s->ext1e.ecx, CPUID_E1E_ECX_NODE_ID);
		*nodes = CPUID_FIELD(s->ext1e.ecx, CPUID_E1E_ECX_NODES) + 1;
		return CPUID_NODE_E1E;
	}
	if (s->node_msr_state != CPUID_NODE_MSR_OK)
		return CPUID_NODE_NONE;
	*node = (uint32_t)(s->node_msr & NODE_ID_NODE_MASK);
	*nodes = (uint32_t)((s->node_msr & NODE_ID_NODES_MASK) >> NODE_ID_NODES_SHIFT) + 1;
	return CPUID_NODE_MSR;
}
