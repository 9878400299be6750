/* efi_mmap.c - UEFI memory map to raw boot ranges (UEFI 2.10 §7.2.3); see efi_mmap.h. */
#include "efi_mmap.h"
#include "lib.h"

uint32_t efi_mmap_type(uint32_t efi_type, uint64_t attribute)
{
	switch (efi_type) {
	case EFI_MT_CONVENTIONAL:
	case EFI_MT_BS_CODE:   /* free once boot services have exited */
	case EFI_MT_BS_DATA:
		if (attribute & EFI_MMAP_ATTR_SP)
			return BOOT_MEM_SPECIFIC;
		if (!(attribute & EFI_MMAP_ATTR_WB))
			return BOOT_MEM_NOT_WB;
		return BOOT_MEM_USABLE;
	case EFI_MT_LOADER_CODE:
	case EFI_MT_LOADER_DATA:
		return BOOT_MEM_LOADER;
	case EFI_MT_RT_CODE:
		return BOOT_MEM_FW_CODE;
	case EFI_MT_RT_DATA:
		return BOOT_MEM_FW_DATA;
	case EFI_MT_ACPI_RECLAIM:
		return BOOT_MEM_ACPI_RECLAIM;
	case EFI_MT_ACPI_NVS:
		return BOOT_MEM_ACPI_NVS;
	case EFI_MT_MMIO:
	case EFI_MT_MMIO_PORT:
		return attribute & EFI_MMAP_ATTR_RUNTIME ? BOOT_MEM_MMIO_RUNTIME : BOOT_MEM_MMIO;
	case EFI_MT_UNUSABLE:
		return BOOT_MEM_UNUSABLE;
	case EFI_MT_PERSISTENT:
		return BOOT_MEM_PERSISTENT;
	default: /* reserved, PAL code, unaccepted, OEM and OS types */
		return BOOT_MEM_RESERVED;
	}
}

struct efi_mmap_result efi_mmap_convert(const void *map, size_t map_size, size_t desc_size,
					struct boot_mem_range *raw, uint32_t max)
{
	struct efi_mmap_result res = { 0, 0, 0, 0 };

	if (desc_size < sizeof(struct efi_mem_desc) || desc_size % 8 != 0) {
		res.error = -1;
		return res;
	}
	const uint8_t *p = map;
	for (size_t off = 0; off + sizeof(struct efi_mem_desc) <= map_size; off += desc_size) {
		struct efi_mem_desc d;
		memcpy(&d, p + off, sizeof(d));
		if (d.pages == 0)
			continue;
		if (d.pages > (~0ull - d.phys_start) / EFI_MMAP_PAGE) {
			res.bad++;
			continue;
		}
		if (res.count >= max) {
			res.dropped++;
			continue;
		}
		raw[res.count].base = d.phys_start;
		raw[res.count].length = d.pages * EFI_MMAP_PAGE;
		raw[res.count].type = efi_mmap_type(d.type, d.attribute);
		raw[res.count].pad = 0;
		res.count++;
	}
	return res;
}
