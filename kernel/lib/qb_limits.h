/* qb_limits.h - the fixed limits of QuietBench; exceeding one is reported, never silent. */
#ifndef QB_KERNEL_QB_LIMITS_H
#define QB_KERNEL_QB_LIMITS_H

#define QB_MAX_CPUS 1024       /* logical CPUs started and tracked (a 2-socket Turin has 768) */
#define QB_MAX_NODES 64        /* NUMA nodes (dense numbering) */
#define QB_MAX_MEM_RANGES 512  /* entries in the normalised memory map */
#define QB_MAX_SRAT_MEM 256    /* SRAT memory-affinity ranges kept */
#define QB_MAX_ACPI_TABLES 64  /* tables listed from the XSDT/RSDT */
#define QB_MAX_CMDLINE 1024    /* bytes of command line kept */

#endif
