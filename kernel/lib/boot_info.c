/* boot_info.c - names for the boot_info memory types; see boot_info.h. */
#include "boot_info.h"

const char *boot_mem_type_name(uint32_t type)
{
	static const char *const names[BOOT_MEM_TYPE_COUNT] = {
		[BOOT_MEM_USABLE] = "usable",
		[BOOT_MEM_RESERVED] = "reserved",
		[BOOT_MEM_ACPI_RECLAIM] = "acpi_reclaim",
		[BOOT_MEM_ACPI_NVS] = "acpi_nvs",
		[BOOT_MEM_UNUSABLE] = "unusable",
		[BOOT_MEM_LOADER] = "loader",
		[BOOT_MEM_FW_CODE] = "firmware_code",
		[BOOT_MEM_FW_DATA] = "firmware_data",
		[BOOT_MEM_MMIO] = "mmio",
		[BOOT_MEM_PERSISTENT] = "persistent",
		[BOOT_MEM_SPECIFIC] = "specific_purpose",
		[BOOT_MEM_NOT_WB] = "ram_not_write_back",
		[BOOT_MEM_MMIO_RUNTIME] = "mmio_runtime",
	};
	if (type < BOOT_MEM_TYPE_COUNT && names[type])
		return names[type];
	return "unknown";
}
