/* devio.h - device register access: 32- and 64-bit memory-mapped registers and 16-bit I/O ports, for the code that takes hardware from the firmware (USB host controllers, IOMMUs).
 *
 * Layer: arch (kernel/arch/cpu.h). One place for these accesses, so that
 * the host tests can put register models behind them (tests/unit/
 * hc_model.c, iommu tests) while the code above them is compiled unchanged. */
#ifndef QB_KERNEL_DEVIO_H
#define QB_KERNEL_DEVIO_H

#include <stdint.h>

/* The register at base + off (uncached device memory, mapped by the caller). */
uint32_t devio_read32(volatile void *base, uint32_t off);
void devio_write32(volatile void *base, uint32_t off, uint32_t v);
uint64_t devio_read64(volatile void *base, uint32_t off);
void devio_write64(volatile void *base, uint32_t off, uint64_t v);

/* A 16-bit I/O port. */
uint16_t devio_in16(uint16_t port);
void devio_out16(uint16_t port, uint16_t v);

#endif
