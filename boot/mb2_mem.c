/* mb2_mem.c - free-RAM placement for the multiboot2 boot path; see mb2_mem.h. */
#include "mb2_mem.h"

/* ---- Private Functions ---------------------------------------------------- */

static uint64_t mb2_align_up(uint64_t v)
{
	return v > ~0ull - (MB2_MEM_PAGE - 1) ? ~0ull & ~(MB2_MEM_PAGE - 1) : (v + MB2_MEM_PAGE - 1) & ~(MB2_MEM_PAGE - 1);
}

static uint64_t mb2_align_down(uint64_t v)
{
	return v & ~(MB2_MEM_PAGE - 1);
}

/* The first busy span that overlaps [base, end), or NULL. */
static const struct mb2_span *mb2_clash(uint64_t base, uint64_t end, const struct mb2_span *busy, uint32_t nbusy)
{
	for (uint32_t i = 0; i < nbusy; i++)
		if (busy[i].base < end && base < busy[i].end)
			return &busy[i];
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */

uint64_t mb2_mem_find(const struct boot_mem_range *map, uint32_t n, uint64_t size,
		      uint64_t lo, uint64_t hi, const struct mb2_span *busy, uint32_t nbusy)
{
	if (size == 0)
		return 0;
	size = mb2_align_up(size);
	for (uint32_t i = 0; i < n; i++) {
		if (map[i].type != BOOT_MEM_USABLE)
			continue;
		uint64_t rend = map[i].base + map[i].length;
		if (rend < map[i].base)
			rend = ~0ull;
		uint64_t base = mb2_align_up(map[i].base > lo ? map[i].base : lo);
		uint64_t end = mb2_align_down(rend < hi ? rend : hi);
		if (base == 0)
			base = MB2_MEM_PAGE;
		/* Each clash moves base past a busy span, so this ends within nbusy + 1 steps. */
		for (uint32_t tries = 0; tries <= nbusy && base < end && end - base >= size; tries++) {
			const struct mb2_span *c = mb2_clash(base, base + size, busy, nbusy);
			if (!c)
				return base;
			base = mb2_align_up(c->end);
		}
	}
	return 0;
}

uint64_t mb2_mem_find_high_page(const struct boot_mem_range *map, uint32_t n,
				uint64_t lo, uint64_t hi, const struct mb2_span *busy, uint32_t nbusy)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (map[i].type != BOOT_MEM_USABLE)
			continue;
		uint64_t rend = map[i].base + map[i].length;
		if (rend < map[i].base)
			rend = ~0ull;
		uint64_t base = mb2_align_up(map[i].base > lo ? map[i].base : lo);
		uint64_t end = mb2_align_down(rend < hi ? rend : hi);
		if (base == 0)
			base = MB2_MEM_PAGE;
		/* Step below each clashing span: every span is passed at most once. */
		uint64_t p = end;
		while (p > base && p - base >= MB2_MEM_PAGE && p - MB2_MEM_PAGE > best) {
			const struct mb2_span *c = mb2_clash(p - MB2_MEM_PAGE, p, busy, nbusy);
			if (!c) {
				best = p - MB2_MEM_PAGE;
				break;
			}
			p = mb2_align_down(c->base);
		}
	}
	return best;
}

uint32_t mb2_mem_with_loader(const struct boot_mem_range *map, uint32_t n,
			     const struct mb2_span *spans, uint32_t nspans,
			     struct boot_mem_range *raw, uint32_t cap)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < nspans && k < cap; i++) {
		if (spans[i].end <= spans[i].base)
			continue;
		raw[k].base = spans[i].base;
		raw[k].length = spans[i].end - spans[i].base;
		raw[k].type = BOOT_MEM_LOADER;
		raw[k].pad = 0;
		k++;
	}
	for (uint32_t i = 0; i < n && k < cap; i++)
		raw[k++] = map[i];
	return k;
}
