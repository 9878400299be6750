/* iommu_regs.h - the IOMMU registers turned off for a run: Intel's remapping unit (Intel Virtualization Technology for Directed I/O, revision 3.0: §10.4.2 CAP_REG, §10.4.4 GCMD_REG, §10.4.5 GSTS_REG, §10.4.16 PMEN_REG) and AMD's IOMMU (AMD I/O Virtualization Technology (IOMMU) Specification 48882, §3.4: MMIO Offset 0018h Control, 2020h Status).
 *
 * Layer: run (kernel/run/run.h). Definitions only. */
#ifndef QB_KERNEL_IOMMU_REGS_H
#define QB_KERNEL_IOMMU_REGS_H

/* ---- Intel VT-d -------------------------------------------------------------- */
#define VTD_REG_SPAN 0x1000                  /* one 4 KiB register page holds these */
#define VTD_VER_REG 0x000                    /* 32 bits: major [7:4], minor [3:0] */
#define VTD_CAP_REG 0x008                    /* 64 bits */
#define   VTD_CAP_PLMR (1ull << 5)           /* protected low-memory region supported */
#define   VTD_CAP_PHMR (1ull << 6)           /* protected high-memory region supported */
#define VTD_GCMD_REG 0x018                   /* 32 bits, write only: one bit changed per write */
#define   VTD_GCMD_TE (1u << 31)             /* translation enable */
#define VTD_GSTS_REG 0x01c                   /* 32 bits, read only */
#define   VTD_GSTS_TES (1u << 31)            /* translation enabled */
#define   VTD_GSTS_QIES (1u << 26)           /* queued invalidation enabled */
#define   VTD_GSTS_IRES (1u << 25)           /* interrupt remapping enabled */
/* GSTS with its one-shot status bits (RTPS, FLS, WBFS, IRTPS) masked off: the
 * base of a GCMD write that changes one bit and keeps the others (§10.4.4). */
#define   VTD_GSTS_PERSISTENT 0x96ffffffu
#define VTD_PMEN_REG 0x064                   /* 32 bits */
#define   VTD_PMEN_EPM (1u << 31)            /* enable protected memory */
#define   VTD_PMEN_PRS (1u << 0)             /* protected region status */

/* ---- AMD IOMMU --------------------------------------------------------------- */
#define AMD_IOMMU_REG_SPAN 0x4000            /* the 16 KiB MMIO block */
#define AMD_IOMMU_CONTROL 0x0018             /* 64 bits */
#define   AMD_CTL_IOMMU_EN (1ull << 0)       /* translation and protection on */
#define   AMD_CTL_EVENT_LOG_EN (1ull << 2)
#define   AMD_CTL_EVENT_INT_EN (1ull << 3)
#define   AMD_CTL_CMD_BUF_EN (1ull << 12)
#define   AMD_CTL_PPR_LOG_EN (1ull << 13)
#define   AMD_CTL_PPR_INT_EN (1ull << 14)
#define   AMD_CTL_GA_LOG_EN (1ull << 28)
#define   AMD_CTL_GA_INT_EN (1ull << 29)
#define AMD_IOMMU_STATUS 0x2020              /* 64 bits */
#define   AMD_STS_EVENT_LOG_RUN (1ull << 3)
#define   AMD_STS_CMD_BUF_RUN (1ull << 4)

#endif
