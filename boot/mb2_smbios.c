/* mb2_smbios.c - the SMBIOS table found and copied on the multiboot2 path; see mb2_smbios.h. */
#include "mb2_smbios.h"
#include "lib.h"
#include "smbios_ep.h"

/* ---- Constants ------------------------------------------------------------ */
#define LOW_MEM_END 0x100000ull           /* the copy goes above the BIOS area */
#define EARLY_MAP_END 0x100000000ull      /* what the early tables map: the table must lie below */
#define MAX_BUSY 8

/* ---- Public Functions ----------------------------------------------------- */

struct mb2_span mb2_smbios_copy(struct boot_info *bi, const struct boot_mem_range *map, uint32_t n,
				const struct mb2_span *busy, uint32_t nbusy)
{
	struct mb2_span none = { 0, 0 };
	const uint8_t *seg = (const uint8_t *)(uintptr_t)SMBIOS_SCAN_BASE;
	size_t off = smbios_ep_scan(seg, SMBIOS_SCAN_LEN);
	if (off == (size_t)-1) {
		bi->smbios_copy = BOOT_SMBIOS_NOT_FOUND;
		return none;
	}
	const uint8_t *ep = seg + off;
	bi->smbios_source = BOOT_SMBIOS_SCAN;
	bi->smbios_ep_phys = SMBIOS_SCAN_BASE + off;
	size_t epn = MIN((size_t)BOOT_SMBIOS_EP_MAX, SMBIOS_SCAN_LEN - off);
	memcpy(bi->smbios_ep, ep, epn);
	struct smbios_ep e;
	if (!smbios_ep_decode(bi->smbios_ep, epn, &e, 0)) {
		bi->smbios_copy = BOOT_SMBIOS_BAD_EP;
		return none;
	}
	uint32_t max = MIN(e.table_length, (uint32_t)QB_SMBIOS_MAX_TABLE);
	bi->smbios_capped = e.table_length > QB_SMBIOS_MAX_TABLE;
	if (e.table_address >= EARLY_MAP_END || e.table_address + max > EARLY_MAP_END) {
		bi->smbios_copy = BOOT_SMBIOS_UNREACHABLE;
		return none;
	}
	const uint8_t *t = (const uint8_t *)(uintptr_t)e.table_address;
	uint32_t len = (uint32_t)smbios_table_extent(t, max);
	if (!len) {
		bi->smbios_copy = BOOT_SMBIOS_EMPTY;
		return none;
	}
	struct mb2_span avoid[MAX_BUSY];
	uint32_t k = 0;
	for (; k < nbusy && k + 1 < MAX_BUSY; k++)
		avoid[k] = busy[k];
	avoid[k].base = e.table_address;                 /* never copy over the table itself */
	avoid[k++].end = e.table_address + len;
	uint64_t bytes = ALIGN_UP((uint64_t)len, MB2_MEM_PAGE);
	uint64_t dst = mb2_mem_find(map, n, bytes, LOW_MEM_END, EARLY_MAP_END, avoid, k);
	if (!dst) {
		bi->smbios_copy = BOOT_SMBIOS_NO_MEMORY;
		return none;
	}
	memcpy((void *)(uintptr_t)dst, t, len);
	bi->smbios_table_phys = dst;
	bi->smbios_table_len = len;
	bi->smbios_copy = BOOT_SMBIOS_COPIED;
	struct mb2_span got = { dst, dst + bytes };
	return got;
}
