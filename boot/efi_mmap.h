/* efi_mmap.h - converts the UEFI memory map (UEFI 2.10 §7.2.3 GetMemoryMap) into raw boot ranges.
 *
 * Kept free of gnu-efi headers so that the host tests and the fuzzer can run it. */
#ifndef QB_BOOT_EFI_MMAP_H
#define QB_BOOT_EFI_MMAP_H

#include <stddef.h>
#include <stdint.h>
#include "boot_info.h"

/* UEFI 2.10 §7.2.3, EFI_MEMORY_DESCRIPTOR. The firmware's DescriptorSize may be
 * larger than this; always step through the map by DescriptorSize. */
struct efi_mem_desc {
	uint32_t type;
	uint32_t pad;
	uint64_t phys_start;
	uint64_t virt_start;
	uint64_t pages;
	uint64_t attribute;
} __attribute__((packed));
_Static_assert(sizeof(struct efi_mem_desc) == 40, "UEFI 2.10 §7.2.3 EFI_MEMORY_DESCRIPTOR is 40 bytes");

/* EFI_MEMORY_TYPE values, UEFI 2.10 §7.2.1 Table 7-6. */
enum efi_mem_type {
	EFI_MT_RESERVED = 0,
	EFI_MT_LOADER_CODE = 1,
	EFI_MT_LOADER_DATA = 2,
	EFI_MT_BS_CODE = 3,
	EFI_MT_BS_DATA = 4,
	EFI_MT_RT_CODE = 5,
	EFI_MT_RT_DATA = 6,
	EFI_MT_CONVENTIONAL = 7,
	EFI_MT_UNUSABLE = 8,
	EFI_MT_ACPI_RECLAIM = 9,
	EFI_MT_ACPI_NVS = 10,
	EFI_MT_MMIO = 11,
	EFI_MT_MMIO_PORT = 12,
	EFI_MT_PAL_CODE = 13,
	EFI_MT_PERSISTENT = 14,
	EFI_MT_UNACCEPTED = 15,
};

/* EFI_MEMORY_DESCRIPTOR Attribute bits EFI_MEMORY_UC .. EFI_MEMORY_RUNTIME, UEFI 2.10 §7.2.3 (GetMemoryMap); our names, as gnu-efi defines some of the originals. */
#define EFI_MMAP_ATTR_UC (1ull << 0)
#define EFI_MMAP_ATTR_WC (1ull << 1)
#define EFI_MMAP_ATTR_WT (1ull << 2)
#define EFI_MMAP_ATTR_WB (1ull << 3)        /* write-back caching is allowed */
#define EFI_MMAP_ATTR_SP (1ull << 18)       /* specific-purpose memory (UEFI 2.8): CXL, HBM */
#define EFI_MMAP_ATTR_RUNTIME (1ull << 63)  /* runtime services need it mapped */

#define EFI_MMAP_PAGE 4096ull

/* Result of a conversion. */
struct efi_mmap_result {
	uint32_t count;     /* raw ranges written */
	uint32_t dropped;   /* descriptors that did not fit in raw[] */
	uint32_t bad;       /* descriptors whose page count overflows */
	int error;          /* 0, or -1 if the map itself is malformed (bad descriptor size) */
};

/* Map one UEFI memory type and its attributes onto the kernel's type, as seen
 * after ExitBootServices. As Linux does (arch/x86/platform/efi
 * do_add_efi_memmap): RAM marked EFI_MMAP_ATTR_SP is specific-purpose memory,
 * RAM without EFI_MMAP_ATTR_WB is not general RAM; MMIO with EFI_MMAP_ATTR_RUNTIME
 * is the runtime services' own. */
uint32_t efi_mmap_type(uint32_t efi_type, uint64_t attribute);

/* Convert a GetMemoryMap() buffer of map_size bytes with descriptors of
 * desc_size bytes into at most max raw ranges. */
struct efi_mmap_result efi_mmap_convert(const void *map, size_t map_size, size_t desc_size,
					struct boot_mem_range *raw, uint32_t max);

#endif
