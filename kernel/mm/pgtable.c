/* pgtable.c - x86-64 page tables in plain C: mapping, splitting, RAM from the memory map (Intel SDM vol. 3A §4.5); see pgtable.h. */
#include "pgtable.h"

/* ---- Constants ------------------------------------------------------------ */
#define LEVEL_PT 1
#define LEVEL_PD 2
#define LEVEL_PDPT 3
#define LEVEL_PML4 4
#define LEVEL_BITS 9
#define NO_REASON PGT_WHY_COUNT

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t *table_of(uint64_t e)
{
	return (uint64_t *)(uintptr_t)(e & PGT_ADDR);
}

static unsigned idx(uint64_t va, int level)
{
	return (unsigned)(va >> (12 + LEVEL_BITS * (level - 1))) & (PGT_ENTRIES - 1);
}

/* Bytes a leaf at this level maps: 4 KiB, 2 MiB, 1 GiB. */
static uint64_t level_size(int level)
{
	return 1ull << (12 + LEVEL_BITS * (level - 1));
}

static int level_of(uint64_t size)
{
	return size >= PGT_1G ? LEVEL_PDPT : size >= PGT_2M ? LEVEL_PD : LEVEL_PT;
}

/* Point *e at a new, zeroed table. */
static enum pgt_status new_table(struct pgtable *t, uint64_t *e)
{
	if (t->table_limit && t->tables >= t->table_limit)
		return PGT_BUDGET;
	uint64_t p = t->alloc(t->ctx);
	if (!p)
		return PGT_NO_MEMORY;
	t->tables++;
	*e = p | PGT_P | PGT_W; /* permissions are set at the leaves */
	return PGT_OK;
}

/* Replace the large page *e (at level 3 or 2) with a table of 512 pages of
 * the next size down: the same translation and attributes, so a CPU that
 * still holds the old TLB entry sees the same memory (SDM §4.10.2.3). The
 * table is filled before the one store that installs it. */
static enum pgt_status split_entry(struct pgtable *t, uint64_t *e, int level)
{
	uint64_t size = level_size(level), child = size >> LEVEL_BITS;
	uint64_t old = *e, base = old & PGT_ADDR & ~(size - 1);
	uint64_t attrs = old & ~PGT_ADDR, pat = old & PGT_PAT_LARGE;
	uint64_t slot = 0;
	enum pgt_status st = new_table(t, &slot);
	if (st != PGT_OK)
		return st;
	uint64_t *c = table_of(slot);
	for (unsigned i = 0; i < PGT_ENTRIES; i++) {
		uint64_t pa = base + i * child;
		c[i] = level - 1 == LEVEL_PT ? pa | (attrs & ~PGT_PS) | (pat ? PGT_PAT_4K : 0) : pa | attrs | pat;
	}
	__atomic_store_n(e, slot, __ATOMIC_RELEASE);
	t->leaves[level - 1]--;
	t->leaves[level - 2] += PGT_ENTRIES;
	t->splits++;
	return PGT_OK;
}

/* The entry for va in the table at level, creating the tables above it. A
 * large page above is split when split is set; otherwise that page's entry
 * is returned with *big = its level. NULL with *st on failure. */
static uint64_t *descend(struct pgtable *t, uint64_t va, int level, bool split, int *big, enum pgt_status *st)
{
	uint64_t *table = t->pml4;
	*big = 0;
	for (int l = LEVEL_PML4; l > level; l--) {
		uint64_t *e = &table[idx(va, l)];
		if (!(*e & PGT_P)) {
			*st = new_table(t, e);
			if (*st != PGT_OK)
				return 0;
		} else if (l <= LEVEL_PDPT && (*e & PGT_PS)) {
			if (!split) {
				*big = l;
				return e;
			}
			*st = split_entry(t, e, l);
			if (*st != PGT_OK)
				return 0;
		}
		table = table_of(*e);
	}
	return &table[idx(va, level)];
}

static uint64_t ram_flags(uint32_t type, uint64_t nx)
{
	return PGT_P | PGT_W | (type == BOOT_MEM_FW_CODE ? 0 : nx);
}

static void leave(struct pgt_ram *out, enum pgt_why why, uint64_t base, uint64_t bytes)
{
	if (!bytes)
		return;
	out->left_out[why] += bytes;
	if (base < out->first[why])
		out->first[why] = base;
}

/* ---- Public Functions ----------------------------------------------------- */
void pgtable_init(struct pgtable *t, uint64_t pml4, pgt_alloc_fn alloc, void *ctx, pgt_uniform_fn uniform,
		  uint64_t max_page)
{
	*t = (struct pgtable){ 0 };
	t->pml4 = (uint64_t *)(uintptr_t)pml4;
	t->alloc = alloc;
	t->ctx = ctx;
	t->uniform = uniform;
	t->max_page = max_page >= PGT_1G ? PGT_1G : PGT_2M;
	t->tables = 1;
}

enum pgt_status pgtable_map(struct pgtable *t, uint64_t va, uint64_t pa, uint64_t len, uint64_t flags,
			    uint64_t max_page, uint64_t *done)
{
	enum pgt_status st = PGT_OK;
	uint64_t off = 0, top = max_page < t->max_page ? max_page : t->max_page;
	while (off < len) {
		uint64_t v = va + off, p = pa + off, left = len - off, s = top;
		while (s > PGT_4K && (((v | p) & (s - 1)) || left < s || (t->uniform && !t->uniform(p, s))))
			s >>= LEVEL_BITS;
		for (;;) {
			int big, level = level_of(s);
			uint64_t *e = descend(t, v, level, false, &big, &st);
			if (!e)
				goto out;
			if (big) { /* a larger page maps v already: on past its end */
				uint64_t bs = level_size(big);
				s = bs - (v & (bs - 1));
				break;
			}
			if ((*e & PGT_P) && level > LEVEL_PT && !(*e & PGT_PS)) {
				s >>= LEVEL_BITS; /* finer tables here already: fill them */
				continue;
			}
			if (!(*e & PGT_P)) {
				*e = p | flags | (level > LEVEL_PT ? PGT_PS : 0);
				t->leaves[level - 1]++;
			}
			break;
		}
		off += s < left ? s : left;
	}
out:
	if (done)
		*done = off;
	return st;
}

enum pgt_status pgtable_split(struct pgtable *t, uint64_t va, uint64_t size)
{
	uint64_t *table = t->pml4;
	for (int l = LEVEL_PML4; l > LEVEL_PT; l--) {
		uint64_t *e = &table[idx(va, l)];
		if (!(*e & PGT_P))
			return PGT_OK;
		if (l <= LEVEL_PDPT && (*e & PGT_PS)) {
			if (level_size(l) <= size)
				return PGT_OK;
			enum pgt_status st = split_entry(t, e, l);
			if (st != PGT_OK)
				return st;
		}
		table = table_of(*e);
	}
	return PGT_OK;
}

uint64_t *pgtable_entry_4k(struct pgtable *t, uint64_t va, enum pgt_status *st)
{
	int big;
	*st = PGT_OK;
	return descend(t, va, LEVEL_PT, true, &big, st);
}

uint64_t pgtable_lookup(const struct pgtable *t, uint64_t va, uint64_t *page_size)
{
	const uint64_t *table = t->pml4;
	for (int l = LEVEL_PML4; l >= LEVEL_PT; l--) {
		uint64_t e = table[idx(va, l)];
		if (!(e & PGT_P))
			return 0;
		if (l == LEVEL_PT || (l <= LEVEL_PDPT && (e & PGT_PS))) {
			if (page_size)
				*page_size = level_size(l);
			return e;
		}
		table = table_of(e);
	}
	return 0;
}

bool pgtable_is_ram(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE:
	case BOOT_MEM_LOADER:
	case BOOT_MEM_ACPI_RECLAIM:
	case BOOT_MEM_ACPI_NVS:
	case BOOT_MEM_FW_CODE:
	case BOOT_MEM_FW_DATA:
	case BOOT_MEM_SPECIFIC: /* not handed out, but RAM: mapped for whoever measures it */
		return true;
	default:
		return false;
	}
}

void pgtable_map_ram(struct pgtable *t, const struct boot_mem_range *map, uint32_t n, uint64_t limit,
		     enum pgt_why limit_why, uint64_t nx, uint64_t budget, struct pgt_ram *out)
{
	uint64_t saved_limit = t->table_limit;
	enum pgt_why stop = NO_REASON;
	*out = (struct pgt_ram){ 0 };
	for (int w = 0; w < PGT_WHY_COUNT; w++)
		out->first[w] = ~0ull;
	if (budget && (!saved_limit || t->tables + budget < saved_limit))
		t->table_limit = t->tables + budget;
	for (uint32_t i = 0; i < n;) {
		if (!pgtable_is_ram(map[i].type)) {
			i++;
			continue;
		}
		/* One run: adjacent RAM ranges that take the same flags. */
		uint64_t flags = ram_flags(map[i].type, nx), base = map[i].base;
		uint64_t end = base + map[i].length < base ? ~0ull & ~(PGT_4K - 1) : base + map[i].length;
		for (i++; i < n && pgtable_is_ram(map[i].type) && map[i].base == end &&
			  ram_flags(map[i].type, nx) == flags && end + map[i].length > end; i++)
			end += map[i].length;
		if (end > limit) {
			uint64_t cut = base > limit ? base : limit;
			leave(out, limit_why, cut, end - cut);
			end = cut;
		}
		if (base >= end)
			continue;
		if (stop != NO_REASON) {
			leave(out, stop, base, end - base);
			continue;
		}
		uint64_t done = 0;
		enum pgt_status st = pgtable_map(t, base, base, end - base, flags, t->max_page, &done);
		out->mapped += done;
		if (st != PGT_OK) {
			stop = st == PGT_BUDGET ? PGT_WHY_BUDGET : PGT_WHY_NO_MEMORY;
			leave(out, stop, base + done, end - base - done);
		}
	}
	out->end = ~0ull;
	for (int w = 0; w < PGT_WHY_COUNT; w++)
		if (out->first[w] < out->end)
			out->end = out->first[w];
	t->table_limit = saved_limit;
}

uint64_t pgtable_left_out(const struct pgt_ram *r)
{
	uint64_t sum = 0;
	for (int w = 0; w < PGT_WHY_COUNT; w++)
		sum += r->left_out[w];
	return sum;
}
