/* mmap.c - memory-map normalisation shared by every boot path (see mmap.h). */
#include "mmap.h"
#include "lib.h"

/* ---- Private Functions ---------------------------------------------------- */

/* Higher wins where ranges overlap: never hand out memory anyone else claims. */
static int mmap_priority(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE: return 1;
	case BOOT_MEM_LOADER: return 2;
	case BOOT_MEM_ACPI_RECLAIM: return 3;
	case BOOT_MEM_ACPI_NVS: return 4;
	case BOOT_MEM_FW_DATA: return 5;
	case BOOT_MEM_FW_CODE: return 6;
	case BOOT_MEM_PERSISTENT: return 7;
	case BOOT_MEM_SPECIFIC: return 7;
	case BOOT_MEM_NOT_WB: return 7;
	case BOOT_MEM_MMIO: return 8;
	case BOOT_MEM_MMIO_RUNTIME: return 8;
	case BOOT_MEM_RESERVED: return 9;
	case BOOT_MEM_UNUSABLE: return 10;
	default: return 9; /* unknown types are treated as reserved */
	}
}

static uint64_t mmap_end(const struct boot_mem_range *r)
{
	return r->base + r->length;
}

/* Insertion sort by base: maps are a few hundred entries and often nearly sorted. */
static void mmap_sort(struct boot_mem_range *r, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct boot_mem_range key = r[i];
		uint32_t j = i;
		while (j > 0 && r[j - 1].base > key.base) {
			r[j] = r[j - 1];
			j--;
		}
		r[j] = key;
	}
}

/* Append [base, end) of type to out, merging with the previous entry. */
static void mmap_emit(struct boot_mem_range *out, uint32_t *count, uint32_t max,
		      uint64_t base, uint64_t end, uint32_t type,
		      struct mmap_stats *st)
{
	if (end <= base)
		return;
	if (*count > 0) {
		struct boot_mem_range *prev = &out[*count - 1];
		if (prev->type == type && mmap_end(prev) == base) {
			prev->length += end - base;
			return;
		}
	}
	if (*count >= max) {
		st->dropped++;
		return;
	}
	out[*count].base = base;
	out[*count].length = end - base;
	out[*count].type = type;
	out[*count].pad = 0;
	(*count)++;
}

/* ---- Public Functions ----------------------------------------------------- */

uint32_t mmap_normalise(struct boot_mem_range *raw, uint32_t n,
			struct boot_mem_range *out, uint32_t max,
			struct mmap_stats *stats)
{
	struct mmap_stats local;
	struct mmap_stats *st = stats ? stats : &local;
	uint32_t count = 0;

	memset(st, 0, sizeof(*st));

	/* Align every range and drop the empty ones. */
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct boot_mem_range r = raw[i];
		if (r.length == 0) {
			st->empty++;
			continue;
		}
		uint64_t end = r.base + r.length;
		if (end < r.base) {
			st->wrapped++;
			end = ~0ull & ~(MMAP_PAGE - 1);
		}
		uint64_t base = r.base;
		if ((base | end) & (MMAP_PAGE - 1)) {
			st->unaligned++;
			if (r.type == BOOT_MEM_USABLE) {
				/* From the last page, rounding up would wrap to 0: no whole page is left. */
				base = base > ~0ull - (MMAP_PAGE - 1) ? ~0ull : ALIGN_UP(base, MMAP_PAGE);
				end = ALIGN_DOWN(end, MMAP_PAGE);
			} else {
				base = ALIGN_DOWN(base, MMAP_PAGE);
				end = end > ~0ull - MMAP_PAGE ? ALIGN_DOWN(end, MMAP_PAGE)
							       : ALIGN_UP(end, MMAP_PAGE);
			}
		}
		if (end <= base) {
			st->empty++;
			continue;
		}
		raw[m].base = base;
		raw[m].length = end - base;
		raw[m].type = r.type;
		raw[m].pad = 0;
		m++;
	}
	mmap_sort(raw, m);

	/* Sweep: between consecutive boundaries the highest-priority covering
	 * type wins. Ranges are sorted by base, so only ranges starting at or
	 * before the cursor can cover it. */
	uint64_t cur = m ? raw[0].base : 0;
	uint32_t first = 0; /* ranges before this one end at or before cur */
	while (first < m) {
		int best = 0;
		uint32_t type = 0;
		uint64_t next = ~0ull;
		uint32_t covering = 0;
		for (uint32_t i = first; i < m && raw[i].base <= cur; i++) {
			uint64_t e = mmap_end(&raw[i]);
			if (e <= cur)
				continue;
			covering++;
			if (mmap_priority(raw[i].type) > best) {
				best = mmap_priority(raw[i].type);
				type = raw[i].type;
			}
			if (e < next)
				next = e;
		}
		/* The interval also ends where a later range begins. */
		for (uint32_t i = first; i < m; i++) {
			if (raw[i].base > cur) {
				if (raw[i].base < next)
					next = raw[i].base;
				break;
			}
		}
		if (covering > 1)
			st->overlaps++;
		if (covering == 0) {
			/* A hole: jump to the next range's base. */
			while (first < m && mmap_end(&raw[first]) <= cur)
				first++;
			if (first >= m)
				break;
			uint64_t nb = ~0ull;
			for (uint32_t i = first; i < m; i++)
				if (raw[i].base > cur && raw[i].base < nb)
					nb = raw[i].base;
			if (nb == ~0ull)
				break;
			cur = nb;
			continue;
		}
		mmap_emit(out, &count, max, cur, next, type, st);
		cur = next;
		while (first < m && mmap_end(&raw[first]) <= cur)
			first++;
	}
	return count;
}

uint64_t mmap_total(const struct boot_mem_range *map, uint32_t n, uint32_t type)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		if (map[i].type == type)
			total += map[i].length;
	return total;
}
