/* qb_limits.h - the fixed limits of QuietBench; exceeding one is reported, never silent. */
#ifndef QB_KERNEL_QB_LIMITS_H
#define QB_KERNEL_QB_LIMITS_H

#define QB_MAX_CPUS 1024       /* logical CPUs started and tracked (a 2-socket Turin has 768) */
#define QB_MAX_NODES 64        /* NUMA nodes (dense numbering) */
#define QB_MAX_MEM_RANGES 512  /* entries in the normalised memory map */
#define QB_MAX_SRAT_MEM 256    /* SRAT memory-affinity ranges kept */
#define QB_MAX_ACPI_TABLES 64  /* tables listed from the XSDT/RSDT */
#define QB_MAX_CMDLINE 1024    /* bytes of command line kept */
#define QB_SMBIOS_MAX_TABLE (1u << 20) /* bytes of SMBIOS structure table a loader copies (a 2.x table is at most 64 KiB) */
/* Page tables for the identity map of RAM (kernel/mm/pgtable.c). In 1 GiB
 * pages any RAM fits in a few pages; in 2 MiB pages (CPUs without
 * CPUID.80000001H:EDX[26] Page1GB) each GiB takes a 4 KiB table, so the
 * budget bounds what is mapped: the rest is reported, never silently lost. */
#define QB_PT_BUDGET (6ull << 20)          /* the kernel's: 1.5 TiB in 2 MiB pages */
#define QB_HANDOFF_PT_BUDGET (2ull << 20)  /* a boot path's, above its first 4 GiB: 512 GiB in 2 MiB pages */

#endif
