/* msr.h - the model-specific registers the kernel touches, each with the CPUID feature it depends on (Intel SDM vol. 4). */
#ifndef QB_KERNEL_MSR_H
#define QB_KERNEL_MSR_H

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

/* x2APIC registers are MSRs 0x800 + (xAPIC MMIO offset >> 4), Intel SDM vol. 3A §11.12.1.2 */
#define MSR_X2APIC_BASE 0x00000800u

#endif
