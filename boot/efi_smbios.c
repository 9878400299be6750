/* efi_smbios.c - the SMBIOS tables as UEFI publishes them (UEFI 2.10 §4.6; DSP0134 3.7 §5.2.2: prefer the 3.0 entry point), copied for the kernel; see efi_smbios.h. */
#include <efi.h>
#include <efilib.h>

#include "efi_smbios.h"
#include "smbios_ep.h"

/* ---- Constants ------------------------------------------------------------ */
#define BELOW_4G 0xffffffffull          /* the copy stays where the handoff tables map everything */

static EFI_GUID smbios3_guid = SMBIOS3_TABLE_GUID;
static EFI_GUID smbios_guid = SMBIOS_TABLE_GUID;

/* ---- Private Functions ---------------------------------------------------- */

static const uint8_t *find(EFI_SYSTEM_TABLE *st, EFI_GUID *g)
{
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (!CompareGuid(&st->ConfigurationTable[i].VendorGuid, g))
			return st->ConfigurationTable[i].VendorTable;
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */

uint64_t efi_smbios_copy(EFI_SYSTEM_TABLE *st, struct boot_info *bi)
{
	const uint8_t *ep = find(st, &smbios3_guid);
	bi->smbios_source = BOOT_SMBIOS_EFI3;
	if (!ep) {
		ep = find(st, &smbios_guid);
		bi->smbios_source = BOOT_SMBIOS_EFI;
	}
	if (!ep) {
		bi->smbios_source = BOOT_SMBIOS_NONE;
		bi->smbios_copy = BOOT_SMBIOS_NOT_FOUND;
		return 0;
	}
	bi->smbios_ep_phys = (uint64_t)(uintptr_t)ep;
	/* The firmware's entry point is a small structure: read no further than
	 * its own length byte allows (0x18 or 0x1F, at most BOOT_SMBIOS_EP_MAX). */
	uint32_t n = ep[0] == '_' && ep[3] == '3' ? ep[6] : ep[5];
	if (n > BOOT_SMBIOS_EP_MAX)
		n = BOOT_SMBIOS_EP_MAX;
	for (uint32_t i = 0; i < n; i++)
		bi->smbios_ep[i] = ep[i];
	struct smbios_ep e;
	if (!smbios_ep_decode(bi->smbios_ep, n, &e, 0)) {
		bi->smbios_copy = BOOT_SMBIOS_BAD_EP;
		return 0;
	}
	uint32_t max = e.table_length < QB_SMBIOS_MAX_TABLE ? e.table_length : QB_SMBIOS_MAX_TABLE;
	const uint8_t *t = (const uint8_t *)(uintptr_t)e.table_address;
	uint32_t len = (uint32_t)smbios_table_extent(t, max);
	if (!len) {
		bi->smbios_copy = BOOT_SMBIOS_EMPTY;
		return 0;
	}
	UINTN pages = (len + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
	EFI_PHYSICAL_ADDRESS a = BELOW_4G;
	if (EFI_ERROR(st->BootServices->AllocatePages(AllocateMaxAddress, EfiLoaderData, pages, &a))) {
		bi->smbios_copy = BOOT_SMBIOS_NO_MEMORY;
		return 0;
	}
	st->BootServices->CopyMem((void *)(uintptr_t)a, (void *)t, len);
	bi->smbios_table_phys = a;
	bi->smbios_table_len = len;
	bi->smbios_capped = e.table_length > QB_SMBIOS_MAX_TABLE;
	bi->smbios_copy = BOOT_SMBIOS_COPIED;
	return (uint64_t)pages * EFI_PAGE_SIZE;
}
