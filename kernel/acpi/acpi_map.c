/* acpi_map.c - the kernel's acpi_map(): identity-mapped RAM as is, anything else mapped uncached on demand. */
#include "acpi.h"
#include "paging.h"

const void *acpi_map(uint64_t phys, uint64_t len)
{
	if (len == 0 || phys + len < phys)
		return 0;
	if (paging_is_mapped(phys, len))
		return (const void *)(uintptr_t)phys;
	return paging_map_mmio(phys, len);
}
