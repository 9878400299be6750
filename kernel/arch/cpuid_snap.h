/* cpuid_snap.h - a per-CPU snapshot of the CPUID leaves that describe a
 * processor, and the names of their fields (Intel SDM vol. 2A, CPUID; AMD APM
 * vol. 3, appendix E, and the family 17h/19h PPRs). */
#ifndef QB_KERNEL_CPUID_SNAP_H
#define QB_KERNEL_CPUID_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Leaves ---------------------------------------------------------------- */
#define CPUID_LEAF_VENDOR	0x00000000u /* EAX max basic leaf, EBX:EDX:ECX vendor */
#define CPUID_LEAF_FEATURES	0x00000001u
#define CPUID_LEAF_CACHE	0x00000004u /* Intel deterministic cache parameters */
#define CPUID_LEAF_POWER	0x00000006u /* thermal and power management */
#define CPUID_LEAF_PMU		0x0000000Au /* architectural performance monitoring (issue 8) */
#define CPUID_LEAF_STRUCT_EXT	0x00000007u /* structured extended features, subleaf 0 */
#define CPUID_LEAF_TOPO		0x0000000Bu /* extended topology enumeration */
#define CPUID_LEAF_TSC_CLOCK	0x00000015u /* TSC / core crystal clock ratio */
#define CPUID_LEAF_FREQ		0x00000016u /* base / max / bus frequency (MHz) */
#define CPUID_LEAF_HYBRID	0x0000001Au /* native model ID and core type */
#define CPUID_LEAF_TOPO_V2	0x0000001Fu /* V2 extended topology enumeration */
#define CPUID_LEAF_HV		0x40000000u /* hypervisor: EAX max hypervisor leaf, EBX:ECX:EDX signature */
#define CPUID_LEAF_EXT_MAX	0x80000000u /* EAX max extended leaf */
#define CPUID_LEAF_EXT_FEATURES	0x80000001u
#define CPUID_LEAF_BRAND	0x80000002u /* first of three brand string leaves */
#define CPUID_LEAF_AMD_L1	0x80000005u /* AMD L1 cache and TLB */
#define CPUID_LEAF_L2_L3	0x80000006u /* L2 (Intel, AMD) and L3 (AMD) cache */
#define CPUID_LEAF_APM		0x80000007u /* advanced power management */
#define CPUID_LEAF_ADDR		0x80000008u /* address sizes, AMD core count */
#define CPUID_LEAF_AMD_CACHE	0x8000001Du /* AMD cache topology (TOPOEXT) */
#define CPUID_LEAF_AMD_TOPO	0x8000001Eu /* AMD extended APIC ID, core, node */
#define CPUID_LEAF_AMD_EXT_FEAT2	0x80000021u /* AMD extended feature identification 2 (APM vol. 3, E.4.21) */
#define CPUID_LEAF_AMD_PERFMON	0x80000022u /* AMD extended performance monitoring (issue 8) */

#define CPUID_EXT_RANGE_MASK	0xFFFF0000u /* 0x80000000 EAX must stay in range */
#define CPUID_BRAND_LEAVES	3
#define CPUID_BRAND_LEN		48	    /* bytes in the three brand leaves */
#define CPUID_VENDOR_LEN	12
#define CPUID_HV_SIG_LEN	12	    /* bytes of the 0x40000000 signature */

/*
 * Naming: CPUID_<leaf>_<reg>_<name>. A single feature flag is a bit number
 * (for cpuid_snap_has() or 1u << n); a field, and each CPUID_CACHE_* flag,
 * is a mask to use with CPUID_FIELD() or &.
 */
#define CPUID_MASK(hi, lo)	((~0u >> (31 - (hi))) & (~0u << (lo)))
#define CPUID_FIELD(v, mask)	(((v) & (mask)) >> __builtin_ctz(mask))

/* ---- Leaf 1 ---------------------------------------------------------------- */
#define CPUID_1_EBX_LOGICAL	CPUID_MASK(23, 16) /* max addressable IDs per package */
#define CPUID_1_EBX_APIC_ID	CPUID_MASK(31, 24) /* initial (8-bit) APIC ID */
#define CPUID_1_ECX_X2APIC	21
#define CPUID_1_ECX_XSAVE	26
#define CPUID_1_ECX_OSXSAVE	27
#define CPUID_1_ECX_AVX		28
#define CPUID_1_ECX_HYPERVISOR	31
#define CPUID_1_EDX_TSC		4
#define CPUID_1_EDX_APIC	9
#define CPUID_1_EDX_FXSR	24
#define CPUID_1_EDX_SSE		25
#define CPUID_1_EDX_SSE2	26
#define CPUID_1_EDX_HTT		28 /* EBX[23:16] is valid */
#define CPUID_1_EDX_MTRR	12 /* MTRRCAP and the MTRRs exist */
#define CPUID_1_EDX_PAT		16 /* IA32_PAT exists */

/* ---- Leaf 4 and AMD 0x8000001D (same layout) ------------------------------- */
#define CPUID_CACHE_EAX_TYPE	CPUID_MASK(4, 0)   /* 0 null, 1 data, 2 instr, 3 unified */
#define CPUID_CACHE_EAX_LEVEL	CPUID_MASK(7, 5)
#define CPUID_CACHE_EAX_FULLY	(1u << 9)	   /* fully associative */
#define CPUID_CACHE_EAX_SHARING	CPUID_MASK(25, 14) /* IDs sharing this cache, minus 1 */
#define CPUID_4_EAX_CORES	CPUID_MASK(31, 26) /* IDs of cores per package, minus 1 */
#define CPUID_CACHE_EBX_LINE	CPUID_MASK(11, 0)  /* line size minus 1 */
#define CPUID_CACHE_EBX_PARTS	CPUID_MASK(21, 12) /* physical line partitions minus 1 */
#define CPUID_CACHE_EBX_WAYS	CPUID_MASK(31, 22) /* ways minus 1 */
#define CPUID_CACHE_EDX_WBINVD	(1u << 0)	   /* 0: WBINVD reaches all sharers' lower caches */
#define CPUID_CACHE_EDX_INCL	(1u << 1)	   /* inclusive of lower levels */

/* ---- Leaf 7 subleaf 0 ---------------------------------------------------- */
#define CPUID_7_EBX_CLFLUSHOPT	23
#define CPUID_7_EDX_HYBRID	15

/* ---- Leaves 0xB and 0x1F --------------------------------------------------- */
#define CPUID_TOPO_EAX_SHIFT	CPUID_MASK(4, 0)  /* x2APIC ID shift to the next level */
#define CPUID_TOPO_EBX_COUNT	CPUID_MASK(15, 0) /* logical processors at this level */
#define CPUID_TOPO_ECX_TYPE	CPUID_MASK(15, 8) /* level type, 0 ends the list */
#define CPUID_TOPO_TYPE_SMT	1
#define CPUID_TOPO_TYPE_CORE	2
#define CPUID_TOPO_TYPE_MODULE	3
#define CPUID_TOPO_TYPE_TILE	4
#define CPUID_TOPO_TYPE_DIE	5

/* ---- Leaf 0x1A ------------------------------------------------------------- */
#define CPUID_1A_EAX_CORE_TYPE	CPUID_MASK(31, 24)
#define CPUID_CORE_TYPE_ATOM	0x20
#define CPUID_CORE_TYPE_CORE	0x40

/* ---- Extended leaves ------------------------------------------------------- */
#define CPUID_E1_ECX_NODEID_MSR	19 /* MSR C001_100C holds the node ID (AMD BKDG 10h, Fn8000_0001_ECX) */
#define CPUID_E1_ECX_TOPOEXT	22 /* 0x8000001D / 0x8000001E are valid */
#define CPUID_E1_EDX_NX		20
#define CPUID_E1_EDX_PAGE1GB	26
#define CPUID_E1_EDX_RDTSCP	27
#define CPUID_E7_EDX_INVTSC	8

/* 0x80000005 ECX (L1d) / EDX (L1i) */
#define CPUID_E5_LINE		CPUID_MASK(7, 0)
#define CPUID_E5_ASSOC		CPUID_MASK(23, 16) /* ways; 0xFF fully associative */
#define CPUID_E5_SIZE_KB	CPUID_MASK(31, 24)
#define CPUID_E5_ASSOC_FULLY	0xFF
/* 0x80000006 ECX (L2) / EDX (L3) */
#define CPUID_E6_LINE		CPUID_MASK(7, 0)
#define CPUID_E6_ASSOC		CPUID_MASK(15, 12) /* encoded: 6 is 8-way, 8 16-way, 0xF fully */
#define CPUID_E6_L2_SIZE_KB	CPUID_MASK(31, 16)
#define CPUID_E6_L3_SIZE_512K	CPUID_MASK(31, 18)
#define CPUID_E6_L3_UNIT	(512u * 1024u)

/* 0x80000008 ECX */
#define CPUID_E8_ECX_NC		CPUID_MASK(7, 0)   /* cores (threads on Zen) minus 1 */
#define CPUID_E8_ECX_APIC_SIZE	CPUID_MASK(15, 12) /* ApicIdCoreIdSize, 0: use NC */
/* 0x8000001E EBX */
#define CPUID_E1E_EBX_THREADS	CPUID_MASK(15, 8)  /* threads per core (CU) minus 1 */
/* 0x8000001E ECX: node identifiers (AMD BKDG for family 15h models 00h-0Fh) */
#define CPUID_E1E_ECX_NODE_ID	CPUID_MASK(7, 0)   /* NodeId: the node (die) in the system */
#define CPUID_E1E_ECX_NODES	CPUID_MASK(10, 8)  /* NodesPerProcessor minus 1 */

/* ---- Issue 8: identification, power, performance monitoring -------------- */
/* Leaf 1 EAX (SDM vol. 2A, figure "Version Information"). */
#define CPUID_1_EAX_MODEL_ID	CPUID_MASK(7, 4)
#define CPUID_1_EAX_FAMILY_ID	CPUID_MASK(11, 8)
#define CPUID_1_EAX_EXT_MODEL_ID	CPUID_MASK(19, 16)
#define CPUID_1_EAX_EXT_FAMILY_ID	CPUID_MASK(27, 20)
/* Leaf 6 (Intel SDM; AMD defines EAX[2] ARAT and ECX[0] only). */
#define CPUID_6_EAX_DTS		0  /* digital thermal sensor: IA32_THERM_STATUS */
#define CPUID_6_EAX_TURBO	1  /* Turbo Boost available and not disabled by MISC_ENABLE[38] */
#define CPUID_6_EAX_ARAT	2  /* the local APIC timer always runs, in every C-state */
#define CPUID_6_EAX_PLN		4  /* power limit notification: THERM_STATUS[11:10] */
#define CPUID_6_EAX_PTM		6  /* package thermal management: IA32_PACKAGE_THERM_STATUS */
#define CPUID_6_EAX_HWP		7  /* HWP: THERM_STATUS[15:12] */
#define CPUID_6_ECX_APERFMPERF	0  /* IA32_MPERF / IA32_APERF (AMD: EffFreq) */
/* Leaf 0xA. */
#define CPUID_A_EAX_VERSION	CPUID_MASK(7, 0)
#define CPUID_A_EAX_GP_COUNT	CPUID_MASK(15, 8)
#define CPUID_A_EAX_GP_WIDTH	CPUID_MASK(23, 16)
#define CPUID_A_EAX_EBX_LEN	CPUID_MASK(31, 24) /* valid bits of EBX */
#define CPUID_A_EDX_FIXED_COUNT	CPUID_MASK(4, 0)   /* version > 1 */
#define CPUID_A_EDX_FIXED_WIDTH	CPUID_MASK(12, 5)  /* version > 1 */
/* 0x80000001 ECX (AMD), 0x80000007 EDX (AMD), 0x80000022 (AMD). */
#define CPUID_E1_ECX_PERFCTR_CORE	23 /* 6 core counters at C001_0200 */
#define CPUID_E1_ECX_PERFCTR_LLC	28 /* L3 counters at C001_0230 (family 16h: L2I) */
#define CPUID_E7_EDX_CPB	9  /* core performance boost, HWCR[25] CpbDis */
#define CPUID_E22_EAX_PERFMON_V2	0
#define CPUID_E21_EAX_LFENCE_ALWAYS_SERIALIZING	2 /* LFENCE is dispatch-serialising without DE_CFG[1] */
#define CPUID_E22_EBX_CORE_COUNT	CPUID_MASK(3, 0)

/* ---- Snapshot -------------------------------------------------------------- */
#define CPUID_SNAP_MAX_SUB	8 /* subleaves kept for leaves 4, 0xB, 0x1F, 0x8000001D */

/* cpuid_snap.node_msr_state: AMD's node ID MSR C001_100C, which is not
 * CPUID but is read with the snapshot (families 10h without 0x8000001E). */
enum cpuid_node_msr_state {
	CPUID_NODE_MSR_NOT_READ = 0,	/* not wanted (cpuid_snap_wants_node_msr), or a recorded table */
	CPUID_NODE_MSR_OK,		/* node_msr holds the value read on this CPU */
	CPUID_NODE_MSR_UNAVAILABLE,	/* wanted but not readable: node_msr_why says why */
};

/* Bits of cpuid_snap.truncated: a subleaf list ran past CPUID_SNAP_MAX_SUB. */
#define CPUID_SNAP_TRUNC_4	(1u << 0)
#define CPUID_SNAP_TRUNC_B	(1u << 1)
#define CPUID_SNAP_TRUNC_1F	(1u << 2)
#define CPUID_SNAP_TRUNC_E1D	(1u << 3)

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

/*
 * Raw CPUID output of one CPU. A leaf above the reported maximum is never
 * executed: its have_ flag is false (or its count 0) and its registers stay 0.
 */
struct cpuid_snap {
	uint32_t max_basic;		/* leaf 0 EAX */
	uint32_t max_ext;		/* 0x80000000 EAX, 0 if the range is absent */
	struct cpuid_regs leaf0;	/* vendor string in EBX, EDX, ECX */
	struct cpuid_regs leaf1;	/* valid when have_leaf1 */
	struct cpuid_regs leaf6;
	struct cpuid_regs leaf7;	/* subleaf 0 */
	struct cpuid_regs leaf15;
	struct cpuid_regs leaf16;
	struct cpuid_regs leaf1a;
	struct cpuid_regs leafa;	/* issue 8: PMU leaf, valid when have_leafa */
	struct cpuid_regs ext22;	/* issue 8: AMD PerfMonV2, valid when have_ext22 */
	struct cpuid_regs ext21;	/* AMD feature identification 2, valid when have_ext21 */
	struct cpuid_regs hv;		/* 0x40000000, valid when have_hv (only read under a hypervisor) */
	struct cpuid_regs leaf4[CPUID_SNAP_MAX_SUB];	/* n_leaf4 caches */
	struct cpuid_regs leafb[CPUID_SNAP_MAX_SUB];	/* n_leafb levels */
	struct cpuid_regs leaf1f[CPUID_SNAP_MAX_SUB];	/* n_leaf1f levels */
	struct cpuid_regs ext1;
	struct cpuid_regs ext5;
	struct cpuid_regs ext6;
	struct cpuid_regs ext7;
	struct cpuid_regs ext8;
	struct cpuid_regs ext1e;
	struct cpuid_regs ext1d[CPUID_SNAP_MAX_SUB];	/* n_ext1d caches */
	char brand[CPUID_BRAND_LEN + 1];	/* trailing blanks removed; "" if absent */
	uint8_t n_leaf4, n_leafb, n_leaf1f, n_ext1d;
	uint8_t truncated;		/* CPUID_SNAP_TRUNC_* */
	bool have_leaf1, have_leaf6, have_leaf7, have_leaf15, have_leaf16;
	bool have_leaf1a, have_ext1, have_brand, have_ext5, have_ext6;
	bool have_ext7, have_ext8, have_ext1e;
	bool have_leafa, have_ext22;	/* issue 8 */
	bool have_ext21;
	bool have_hv;
	uint8_t node_msr_state;		/* enum cpuid_node_msr_state */
	uint64_t node_msr;		/* MSR C001_100C, with CPUID_NODE_MSR_OK */
	const char *node_msr_why;	/* with CPUID_NODE_MSR_UNAVAILABLE: "unavailable: ..." (static storage) */
};

enum cpu_vendor {
	CPU_VENDOR_INTEL,
	CPU_VENDOR_AMD,
	CPU_VENDOR_HYGON,	/* AMD Zen derivative, decoded like AMD */
	CPU_VENDOR_OTHER,
};

/* Feature bits other units test; cpuid_snap_has() knows each one's leaf and bit. */
enum cpuid_feature {
	CPUID_FEAT_TSC,		/* 1 EDX 4 */
	CPUID_FEAT_APIC,	/* 1 EDX 9 */
	CPUID_FEAT_FXSR,	/* 1 EDX 24 */
	CPUID_FEAT_SSE,		/* 1 EDX 25 */
	CPUID_FEAT_SSE2,	/* 1 EDX 26 */
	CPUID_FEAT_HTT,		/* 1 EDX 28 */
	CPUID_FEAT_X2APIC,	/* 1 ECX 21 */
	CPUID_FEAT_XSAVE,	/* 1 ECX 26 */
	CPUID_FEAT_OSXSAVE,	/* 1 ECX 27 */
	CPUID_FEAT_AVX,		/* 1 ECX 28 */
	CPUID_FEAT_HYPERVISOR,	/* 1 ECX 31 */
	CPUID_FEAT_CLFLUSHOPT,	/* 7.0 EBX 23 */
	CPUID_FEAT_HYBRID,	/* 7.0 EDX 15 */
	CPUID_FEAT_NX,		/* 0x80000001 EDX 20 */
	CPUID_FEAT_PAGE1GB,	/* 0x80000001 EDX 26 */
	CPUID_FEAT_RDTSCP,	/* 0x80000001 EDX 27 */
	CPUID_FEAT_TOPOEXT,	/* 0x80000001 ECX 22 */
	CPUID_FEAT_INVTSC,	/* 0x80000007 EDX 8 */
	CPUID_FEAT_COUNT
};

/* Executes CPUID for (leaf, sub) and stores the four output registers in *r. */
typedef void (*cpuid_query_fn)(void *ctx, uint32_t leaf, uint32_t sub,
			       struct cpuid_regs *r);

#ifndef QB_HOST_TEST
/* Executes CPUID on the calling CPU. */
static inline void cpuid_raw(uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	__asm__ volatile("cpuid"
			 : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx), "=d"(r->edx)
			 : "a"(leaf), "c"(sub));
}

/* Snapshots the calling CPU's leaves into *s; run on each CPU, on itself.
 * Where cpuid_snap_wants_node_msr(), the kernel also reads MSR C001_100C
 * through msr_read_safe (a #GP makes it unavailable); the Linux twin reads
 * no MSRs and says so in node_msr_why. */
void cpuid_snap_take(struct cpuid_snap *s);
#else
/* On the host, a unit test that builds a file using it defines it (tests/unit/test_paging.c). */
void cpuid_raw(uint32_t leaf, uint32_t sub, struct cpuid_regs *r);
#endif

/*
 * Fills *s by asking q for each leaf, honouring the maximum leaves and the
 * subleaf terminators exactly as cpuid_snap_take() does; tests pass a
 * recorded table as q.
 */
void cpuid_snap_fill(struct cpuid_snap *s, cpuid_query_fn q, void *ctx);

/* Returns the vendor named by leaf 0 (Hygon is told apart from AMD). */
enum cpu_vendor cpuid_snap_vendor(const struct cpuid_snap *s);

/* Returns true for AMD and Hygon, whose CPUID follows AMD's definitions. */
static inline bool cpu_vendor_is_amd(enum cpu_vendor v)
{
	return v == CPU_VENDOR_AMD || v == CPU_VENDOR_HYGON;
}

/* Returns "intel", "amd", "hygon" or "other". */
const char *cpu_vendor_name(enum cpu_vendor v);

/* Copies the 12-byte vendor string of leaf 0 to out and NUL-terminates it. */
void cpuid_snap_vendor_string(const struct cpuid_snap *s,
			      char out[CPUID_VENDOR_LEN + 1]);

/*
 * Returns the CPU's APIC ID: the x2APIC ID of 0x1F or 0xB EDX when present,
 * else AMD's extended APIC ID (0x8000001E EAX, with TOPOEXT), else the 8-bit
 * initial APIC ID of leaf 1 EBX[31:24].
 */
uint32_t cpuid_snap_apic_id(const struct cpuid_snap *s);

/* Returns true when feature f is reported (false when its leaf is absent). */
bool cpuid_snap_has(const struct cpuid_snap *s, enum cpuid_feature f);

/* Returns the short lower-case name of f ("invtsc", "x2apic", ...). */
const char *cpuid_feature_name(enum cpuid_feature f);

/* Returns the brand string without leading blanks, "" when absent. */
const char *cpuid_snap_brand(const struct cpuid_snap *s);

/*
 * Copies the hypervisor's signature (leaf 0x40000000 EBX, ECX, EDX) to out as
 * text: trailing NULs dropped, any other byte outside printable ASCII as '?'
 * ("KVMKVMKVM", "TCGTCGTCGTCG", "bhyve bhyve "). Returns false, with out "",
 * without a hypervisor (CPUID.1:ECX[31] clear); out is also "" when the
 * hypervisor gives no signature.
 */
bool cpuid_snap_hv_vendor(const struct cpuid_snap *s, char out[CPUID_HV_SIG_LEN + 1]);

/* Returns the common name of the hypervisor whose signature text is vendor:
 * "KVM", "QEMU TCG", "Hyper-V", "VMware", "Xen", "bhyve", "VirtualBox",
 * "ACRN", "Parallels", "QNX"; vendor itself when unknown, "unknown" when "". */
const char *cpuid_hv_name(const char *vendor);

/* Returns true when the kernel should read MSR C001_100C with the snapshot:
 * an AMD CPU without the node in 0x8000001E that has the MSR (Fn8000_0001
 * ECX[19]) or is of family 10h, where Linux's amd_get_topology reads it. */
bool cpuid_snap_wants_node_msr(const struct cpuid_snap *s);

/* Where cpuid_snap_amd_node found the node. */
enum cpuid_node_src {
	CPUID_NODE_NONE = 0,	/* not known */
	CPUID_NODE_E1E,		/* 0x8000001E ECX (TOPOEXT) */
	CPUID_NODE_MSR,		/* MSR C001_100C, read with the snapshot */
};

/*
 * The AMD node (die) of this CPU in the system (*node) and the nodes in its
 * package (*nodes): from 0x8000001E ECX (TOPOEXT) or MSR C001_100C (family
 * 10h), as Linux's topology_amd.c reads them. Returns where they came from;
 * CPUID_NODE_NONE (and *node, *nodes untouched) when neither is known.
 */
enum cpuid_node_src cpuid_snap_amd_node(const struct cpuid_snap *s, uint32_t *node,
					uint32_t *nodes);

/* Returns the DisplayFamily of leaf 1 EAX (base family, plus the extended
 * family when the base is 0xF), 0 when leaf 1 is absent (SDM vol. 2A). */
static inline uint32_t cpuid_snap_family(const struct cpuid_snap *s)
{
	uint32_t f = CPUID_FIELD(s->leaf1.eax, CPUID_1_EAX_FAMILY_ID);

	if (f == 0xF)
		f += CPUID_FIELD(s->leaf1.eax, CPUID_1_EAX_EXT_FAMILY_ID);
	return s->have_leaf1 ? f : 0;
}

/* Returns the DisplayModel: the extended model is prepended for family 6
 * and 0xF (Intel) and for base family 0xF (AMD). */
static inline uint32_t cpuid_snap_model(const struct cpuid_snap *s)
{
	uint32_t f = CPUID_FIELD(s->leaf1.eax, CPUID_1_EAX_FAMILY_ID);
	uint32_t m = CPUID_FIELD(s->leaf1.eax, CPUID_1_EAX_MODEL_ID);

	if (f == 0x6 || f == 0xF)
		m |= CPUID_FIELD(s->leaf1.eax, CPUID_1_EAX_EXT_MODEL_ID) << 4;
	return s->have_leaf1 ? m : 0;
}

#endif
