/* iommu.h - the DMA remapping units the firmware may have left on (pre-boot DMA protection), found in the DMAR and IVRS and turned off for the run, as Linux does when it does not use the IOMMU: translation and protected memory regions off, so that the stick's xHCI can reach memory; each unit's state in the `state` record.
 *
 * Layer: run (kernel/run/run.h), the bare-metal platform. Before the TSC is
 * calibrated, every wait is bounded by the reference clock (timer.h). */
#ifndef QB_KERNEL_IOMMU_H
#define QB_KERNEL_IOMMU_H

#include "acpi.h"
#include "record.h"

#define IOMMU_OP_MS 1000               /* a unit acknowledges within this (Linux: DMAR_OPERATION_TIMEOUT) */

/* Look at every unit of ai's DMAR and IVRS, turn off what the firmware left
 * on, and say so on serial; call once, after timer_init. */
void iommu_release(const struct acpi_info *ai);

/* The `iommu` member of the `state` record (docs/records.md). */
void iommu_rec(struct rec *r);

#endif
