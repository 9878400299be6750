/* msr.h - the model-specific registers the kernel touches, each with the CPUID feature it depends on (Intel SDM vol. 4), and MSR access that may fail.
 *
 * Only the MSRs that every x86-64 CPU has (EFER, FS/GS base, APIC base, the
 * x2APIC registers in x2APIC mode, TSC_AUX with RDTSCP) are read and written
 * with the plain rdmsr()/wrmsr() of cpu.h. Everything else goes through
 * msr_read_safe()/msr_write_safe(): real CPUs, hypervisors and emulators
 * such as Bochs raise #GP on an MSR they do not implement even when CPUID
 * lists the feature, and the run must go on without it. */
#ifndef QB_KERNEL_MSR_H
#define QB_KERNEL_MSR_H

#define MSR_OK 0
#define MSR_GP (-1)              /* the access raised #GP and was skipped */
#define MSR_REASON_LEN 40        /* "unavailable: #GP on MSR 0xc0010015" and NUL */

#ifndef __ASSEMBLY__
#include <stdint.h>

/* Read an MSR; on #GP return MSR_GP with *val = 0 and remember the MSR. */
int msr_read_safe(uint32_t msr, uint64_t *val);

/* Write an MSR; on #GP return MSR_GP (nothing was written) and remember it. */
int msr_write_safe(uint32_t msr, uint64_t val);

/* "unavailable: #GP on MSR 0x<msr>" for an MSR that faulted, in storage that
 * lives for the run ("unavailable: #GP on an MSR" past the ones remembered). */
const char *msr_gp_reason(uint32_t msr);

/* The distinct MSRs that raised #GP so far, in order of first fault: up to
 * cap of them in out; returns how many there are in all. */
uint32_t msr_faulted(uint32_t *out, uint32_t cap);
#endif

#define MSR_IA32_APIC_BASE 0x0000001bu /* CPUID.1:EDX.APIC */
#define   APIC_BASE_BSP (1ull << 8)    /* this CPU is the bootstrap processor */
#define   APIC_BASE_EXTD (1ull << 10)  /* x2APIC mode enabled (CPUID.1:ECX.x2APIC) */
#define   APIC_BASE_EN (1ull << 11)    /* xAPIC global enable */
#define   APIC_BASE_ADDR_MASK 0x000ffffffffff000ull
#define MSR_IA32_TSC_AUX 0xc0000103u   /* CPUID.80000001H:EDX.RDTSCP: read back by RDTSCP */
#define MSR_IA32_EFER 0xc0000080u      /* extended feature enables */
#define   EFER_SCE (1ull << 0)
#define   EFER_LME (1ull << 8)
#define   EFER_LMA (1ull << 10)
#define   EFER_NXE (1ull << 11)        /* CPUID.80000001H:EDX.NX */
#define MSR_IA32_FS_BASE 0xc0000100u
#define MSR_IA32_GS_BASE 0xc0000101u
#define MSR_IA32_PAT 0x00000277u       /* CPUID.1:EDX.PAT */
/* Memory type range registers (Intel SDM vol. 3A §12.11; AMD APM vol. 2 §7.7). */
#define MSR_IA32_MTRRCAP 0x000000feu           /* CPUID.1:EDX.MTRR */
#define   MTRRCAP_VCNT_MASK 0xffull            /* variable ranges */
#define   MTRRCAP_FIX (1ull << 8)              /* fixed ranges supported */
#define   MTRRCAP_WC (1ull << 10)
#define MSR_IA32_MTRR_DEF_TYPE 0x000002ffu
#define   MTRR_DEF_TYPE_MASK 0xffull           /* the default memory type */
#define   MTRR_DEF_FE (1ull << 10)             /* fixed ranges enabled */
#define   MTRR_DEF_E (1ull << 11)              /* MTRRs enabled */
#define MSR_IA32_MTRR_PHYSBASE0 0x00000200u    /* PHYSBASEn at +2n, PHYSMASKn at +2n+1 */
#define   MTRR_PHYSBASE_TYPE_MASK 0xffull
#define   MTRR_PHYSMASK_VALID (1ull << 11)
#define MSR_IA32_MTRR_FIX64K_00000 0x00000250u /* 8 x 64 KiB: 0 - 512 KiB */
#define MSR_IA32_MTRR_FIX16K_80000 0x00000258u /* 8 x 16 KiB: 512 - 640 KiB */
#define MSR_IA32_MTRR_FIX16K_A0000 0x00000259u /* 640 - 768 KiB */
#define MSR_IA32_MTRR_FIX4K_C0000 0x00000268u  /* 8 MSRs (0x268-0x26f) of 8 x 4 KiB: 768 KiB - 1 MiB */
#define MSR_AMD_SYSCFG 0xc0010010u
#define   SYSCFG_MTRR_FIX_DRAM_EN (1ull << 18)
#define   SYSCFG_MTRR_FIX_DRAM_MOD_EN (1ull << 19)
#define   SYSCFG_MTRR_VAR_DRAM_EN (1ull << 20)
#define   SYSCFG_MTRR_TOM2_EN (1ull << 21)
#define   SYSCFG_TOM2_FORCE_WB (1ull << 22)     /* 4 GiB .. TOM2 is WB unless a variable MTRR says otherwise */
#define MSR_AMD_TOM2 0xc001001du
/* Node ID (AMD BKDG for family 10h, MSRC001_100C; CPUID 8000_0001h:ECX[19]): the
 * node (die) of this core, as Linux's parse_fam10h_node_id reads it. */
#define MSR_AMD_NODE_ID 0xc001100cu
#define   NODE_ID_NODE_MASK 0x7ull              /* NodeId[2:0]: the node in the system */
#define   NODE_ID_NODES_SHIFT 3
#define   NODE_ID_NODES_MASK (0x7ull << 3)      /* NodesPerProcessor[5:3]: nodes in the package minus 1 */

/* x2APIC registers are MSRs 0x800 + (xAPIC MMIO offset >> 4), Intel SDM vol. 3A §11.12.1.2 */
#define MSR_X2APIC_BASE 0x00000800u

/* ---- Issue 8: performance counters, frequency, thermal and machine state ---- */

/* Intel architectural PMU, Intel SDM vol. 3B ch. 20 / vol. 4 table 2-2 (CPUID.0AH) */
#define MSR_IA32_PMC0 0x000000c1u               /* GP counter i at +i, i < CPUID.0AH:EAX[15:8] */
#define MSR_IA32_PERFEVTSEL0 0x00000186u        /* GP event select i at +i (same condition) */
#define   PERFEVTSEL_EVENT_MASK 0x00000000000000ffull /* event select [7:0] */
#define   PERFEVTSEL_UMASK_SHIFT 8              /* unit mask [15:8] */
#define   PERFEVTSEL_USR (1ull << 16)           /* count at CPL > 0 */
#define   PERFEVTSEL_OS (1ull << 17)            /* count at CPL 0 */
#define   PERFEVTSEL_EDGE (1ull << 18)
#define   PERFEVTSEL_INT (1ull << 20)           /* APIC interrupt on overflow */
#define   PERFEVTSEL_ANY (1ull << 21)           /* AnyThread, version 3 and later */
#define   PERFEVTSEL_EN (1ull << 22)            /* enable the counter */
#define   PERFEVTSEL_INV (1ull << 23)
#define   PERFEVTSEL_AMD_EVENT_HI_SHIFT 32      /* AMD: EventSelect[11:8] in bits [35:32] */
#define MSR_IA32_FIXED_CTR0 0x00000309u         /* fixed counter i at +i, CPUID.0AH version > 1 */
#define MSR_IA32_FIXED_CTR_CTRL 0x0000038du     /* 4 bits per fixed counter (version > 1) */
#define   FIXED_CTR_CTRL_BITS 4                 /* field width of one fixed counter */
#define   FIXED_CTR_CTRL_OS 0x1ull              /* count at CPL 0 */
#define   FIXED_CTR_CTRL_USR 0x2ull             /* count at CPL > 0 */
#define   FIXED_CTR_CTRL_ANY 0x4ull             /* AnyThread (version 3) */
#define   FIXED_CTR_CTRL_PMI 0x8ull
#define MSR_IA32_PERF_GLOBAL_STATUS 0x0000038eu /* CPUID.0AH version > 1 */
#define MSR_IA32_PERF_GLOBAL_CTRL 0x0000038fu   /* version > 1: bit i PMCi, bit 32 + i FIXED_CTRi */
#define   PERF_GLOBAL_CTRL_FIXED_SHIFT 32

/* AMD core counters, AMD APM vol. 2 §13.2 and the family 17h/19h PPRs */
#define MSR_AMD_PERF_LEGACY_CTL0 0xc0010000u    /* PerfEvtSel0-3 at +i: every AMD64 processor */
#define MSR_AMD_PERF_LEGACY_CTR0 0xc0010004u    /* PerfCtr0-3 at +i, 48 bits */
#define MSR_AMD_PERF_CTL0 0xc0010200u           /* CPUID 8000_0001h:ECX.PerfCtrExtCore: PERF_CTLi at +2i */
#define MSR_AMD_PERF_CTR0 0xc0010201u           /* PERF_CTRi at +2i, 48 bits */
#define MSR_AMD_L3_PMC_CFG0 0xc0010230u         /* CPUID 8000_0001h:ECX.PerfCtrExtLLC: ChL3PmcCfgi at +2i */
#define MSR_AMD_L3_PMC0 0xc0010231u             /* ChL3Pmci at +2i, 48 bits */
#define   L3_PMC_17H_SLICE_MASK (0xfull << 48)  /* family 17h/18h: all four slices */
#define   L3_PMC_17H_THREAD_MASK (0xffull << 56) /* family 17h/18h: all eight threads */
#define   L3_PMC_19H_EN_ALL_SLICES (1ull << 46) /* family 19h and later */
#define   L3_PMC_19H_EN_ALL_CORES (1ull << 47)
#define   L3_PMC_19H_THREAD_MASK (0x3ull << 56) /* both threads of each core */
#define MSR_AMD_PERF_CNTR_GLOBAL_STATUS 0xc0000300u /* CPUID 8000_0022h:EAX.PerfMonV2 */
#define MSR_AMD_PERF_CNTR_GLOBAL_CTL 0xc0000301u /* PerfMonV2: bit i enables PERF_CTRi */

/* Frequency, SMIs and throttling, Intel SDM vol. 4 table 2-2 and model tables */
#define MSR_IA32_MPERF 0x000000e7u              /* CPUID.06H:ECX[0]: counts at a fixed (TSC) rate in C0 */
#define MSR_IA32_APERF 0x000000e8u              /* CPUID.06H:ECX[0]: counts at the actual clock in C0 */
#define MSR_SMI_COUNT 0x00000034u               /* Intel Nehalem and later (model list in noise.c), [31:0] */
#define   SMI_COUNT_MASK 0x00000000ffffffffull
#define MSR_IA32_THERM_STATUS 0x0000019cu       /* CPUID.06H:EAX[0] DTS */
#define MSR_IA32_PACKAGE_THERM_STATUS 0x000001b1u /* CPUID.06H:EAX[6] PTM */
#define   THERM_STATUS_THERMAL (1ull << 0)      /* at or above the throttle temperature now */
#define   THERM_STATUS_THERMAL_LOG (1ull << 1)  /* sticky, cleared by writing 0 */
#define   THERM_STATUS_PROCHOT (1ull << 2)      /* PROCHOT# or FORCEPR# asserted now */
#define   THERM_STATUS_PROCHOT_LOG (1ull << 3)
#define   THERM_STATUS_CRITICAL (1ull << 4)     /* critical temperature now */
#define   THERM_STATUS_CRITICAL_LOG (1ull << 5)
#define   THERM_STATUS_POWER_LIMIT (1ull << 10) /* CPUID.06H:EAX[4] PLN: power limitation now */
#define   THERM_STATUS_POWER_LIMIT_LOG (1ull << 11)
#define   THERM_STATUS_CURRENT_LIMIT (1ull << 12)   /* core only, CPUID.06H:EAX[7] HWP */
#define   THERM_STATUS_CURRENT_LIMIT_LOG (1ull << 13)
#define   THERM_STATUS_CROSS_DOMAIN (1ull << 14)    /* core only, CPUID.06H:EAX[7] HWP */
#define   THERM_STATUS_CROSS_DOMAIN_LOG (1ull << 15)
#define   THERM_STATUS_THRESHOLD1_LOG (1ull << 7)
#define   THERM_STATUS_THRESHOLD2_LOG (1ull << 9)
/* Every log bit (R/WC0) of the core and the package register: a write keeps
 * a log bit written as 1 and clears one written as 0; the status bits are
 * read-only (Linux: THERM_STATUS_CLEAR_CORE_MASK / _PKG_MASK). */
#define   THERM_STATUS_LOG_BITS (THERM_STATUS_THERMAL_LOG | THERM_STATUS_PROCHOT_LOG | \
				 THERM_STATUS_CRITICAL_LOG | THERM_STATUS_THRESHOLD1_LOG | \
				 THERM_STATUS_THRESHOLD2_LOG | THERM_STATUS_POWER_LIMIT_LOG | \
				 THERM_STATUS_CURRENT_LIMIT_LOG | THERM_STATUS_CROSS_DOMAIN_LOG)
#define   PKG_THERM_STATUS_LOG_BITS (THERM_STATUS_THERMAL_LOG | THERM_STATUS_PROCHOT_LOG | \
				     THERM_STATUS_CRITICAL_LOG | THERM_STATUS_THRESHOLD1_LOG | \
				     THERM_STATUS_THRESHOLD2_LOG | THERM_STATUS_POWER_LIMIT_LOG)

/* Turbo and prefetchers */
#define MSR_IA32_MISC_ENABLE 0x000001a0u
#define   MISC_ENABLE_TURBO_DISABLE (1ull << 38) /* IDA/turbo disengage; hides CPUID.06H:EAX[1] */
#define MSR_MISC_FEATURE_CONTROL 0x000001a4u    /* Intel, per model (table in mstate.c) */
#define   MISC_FEATURE_L2_HW_PF_DIS (1ull << 0) /* L2 hardware (streamer) prefetcher */
#define   MISC_FEATURE_L2_ADJ_PF_DIS (1ull << 1) /* L2 adjacent cache line prefetcher */
#define   MISC_FEATURE_DCU_PF_DIS (1ull << 2)   /* L1D next-line (DCU) prefetcher */
#define   MISC_FEATURE_DCU_IP_PF_DIS (1ull << 3) /* L1D IP-stride prefetcher */
#define MSR_AMD_HWCR 0xc0010015u                /* hardware configuration */
#define   HWCR_CPB_DIS (1ull << 25)             /* CPUID 8000_0007h:EDX[9] CPB: boost disable */
#define MSR_AMD_PREFETCH_CONTROL 0xc0000108u    /* family 19h/1Ah PPR MSRC000_0108 */
#define   AMD_PF_L1_STREAM_DIS (1ull << 0)
#define   AMD_PF_L1_STRIDE_DIS (1ull << 1)
#define   AMD_PF_L1_REGION_DIS (1ull << 2)
#define   AMD_PF_L2_STREAM_DIS (1ull << 3)
#define   AMD_PF_UP_DOWN_DIS (1ull << 5)        /* L2 up/down (next/previous line) */

/* LFENCE as a dispatch-serialising instruction, AMD "Software Techniques for
 * Managing Speculation on AMD Processors" (2018) and Linux arch/x86/kernel/cpu/amd.c:
 * families 10h and 12h-18h need DE_CFG[1]; 0Fh and 11h serialise already, and
 * CPUID 8000_0021h:EAX[2] says so for the parts that always do. */
#define MSR_AMD64_DE_CFG 0xc0011029u            /* decode configuration, families 10h and later */
#define   DE_CFG_LFENCE_SERIALIZE (1ull << 1)   /* LFENCE waits for all older instructions to complete */

/* Microcode revision: Intel IA32_BIOS_SIGN_ID (write 0, CPUID(1), read [63:32],
 * SDM vol. 3A §10.11.7.1); AMD MSR0000_008B PatchLevel [31:0]. */
#define MSR_IA32_BIOS_SIGN_ID 0x0000008bu

#endif
