/* mtrr.c - memory types from the MTRRs and the PAT (Intel SDM vol. 3A §12.11-12.12; AMD APM vol. 2 §7.7-7.8); see mtrr.h. */
#include "mtrr.h"
#include "fmt.h"
#include "lib.h"
#include "msr.h"

/* ---- Constants ------------------------------------------------------------ */
#define FOUR_GIB (1ull << 32)
#define PAT_ENTRY_BITS 8
#define PAT_TYPE_MASK 0x7ull
#define PHYS_MASK_LOW 12          /* PHYSBASE/PHYSMASK hold address bits from 12 up */
#define DEFAULT_PHYS_BITS 36
#define MAX_BOUNDS (2 * MTRR_MAX_VAR + 96)

/* Where the fixed ranges start and how big one range is, per fixed MSR. */
static const struct {
	uint64_t start, unit;
} fixed_layout[MTRR_FIXED_MSRS] = {
	{ 0x00000, 0x10000 }, { 0x80000, 0x4000 }, { 0xa0000, 0x4000 },
	{ 0xc0000, 0x1000 }, { 0xc8000, 0x1000 }, { 0xd0000, 0x1000 }, { 0xd8000, 0x1000 },
	{ 0xe0000, 0x1000 }, { 0xe8000, 0x1000 }, { 0xf0000, 0x1000 }, { 0xf8000, 0x1000 },
};

/* ---- Private Functions ---------------------------------------------------- */
static uint64_t addr_mask(const struct mtrr_regs *r)
{
	unsigned bits = r->phys_bits >= DEFAULT_PHYS_BITS && r->phys_bits < 64 ? r->phys_bits : DEFAULT_PHYS_BITS;
	return ((1ull << bits) - 1) & ~((1ull << PHYS_MASK_LOW) - 1);
}

static bool var_valid(const struct mtrr_regs *r, uint32_t i)
{
	return (r->mask[i] & MTRR_PHYSMASK_VALID) != 0;
}

static bool var_match(const struct mtrr_regs *r, uint32_t i, uint64_t pa)
{
	uint64_t m = r->mask[i] & addr_mask(r);
	return var_valid(r, i) && (pa & m) == (r->base[i] & m);
}

/* A contiguous mask covers [base, base + size): the size, else 0. */
static uint64_t var_size(const struct mtrr_regs *r, uint32_t i)
{
	uint64_t above = ~(addr_mask(r) | ((1ull << PHYS_MASK_LOW) - 1)); /* bits past MAXPHYADDR */
	uint64_t m = (r->mask[i] & addr_mask(r)) | above;
	uint64_t size = ~m + 1;
	return size && !(size & (size - 1)) ? size : 0;
}

static bool fixed_enabled(const struct mtrr_regs *r)
{
	return (r->cap & MTRRCAP_FIX) && (r->def_type & MTRR_DEF_FE);
}

static void add_bound(uint64_t *b, unsigned *n, uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v > lo && v < hi && *n < MAX_BOUNDS)
		b[(*n)++] = v;
}

/* Every address in (lo, hi) where the type may change, sorted. */
static unsigned bounds(const struct mtrr_regs *r, uint64_t lo, uint64_t hi, uint64_t *b)
{
	unsigned n = 0;
	if (lo < MTRR_FIXED_END && fixed_enabled(r))
		for (unsigned k = 0; k < MTRR_FIXED_MSRS; k++)
			for (unsigned j = 0; j < 8; j++)
				add_bound(b, &n, fixed_layout[k].start + j * fixed_layout[k].unit, lo, hi);
	add_bound(b, &n, MTRR_FIXED_END, lo, hi);
	add_bound(b, &n, FOUR_GIB, lo, hi);
	if (r->amd)
		add_bound(b, &n, r->tom2 & addr_mask(r), lo, hi);
	for (uint32_t i = 0; i < r->n_var; i++) {
		uint64_t size = var_size(r, i), base = r->base[i] & addr_mask(r);
		if (!var_valid(r, i))
			continue;
		if (size) {
			add_bound(b, &n, base, lo, hi);
			add_bound(b, &n, base + size, lo, hi);
		}
	}
	for (unsigned i = 1; i < n; i++) /* insertion sort: n is small */
		for (unsigned j = i; j > 0 && b[j - 1] > b[j]; j--) {
			uint64_t t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
	return n;
}

/* A variable range with a non-contiguous mask makes types change anywhere. */
static bool has_odd_mask(const struct mtrr_regs *r)
{
	for (uint32_t i = 0; i < r->n_var; i++)
		if (var_valid(r, i) && !var_size(r, i))
			return true;
	return false;
}

/* ---- Public Functions ----------------------------------------------------- */
enum mtrr_type mtrr_type_at(const struct mtrr_regs *r, uint64_t pa)
{
	if (!r->have_mtrr)
		return MTRR_UNKNOWN;
	if (!(r->def_type & MTRR_DEF_E))
		return MTRR_UC;
	if (pa < MTRR_FIXED_END && fixed_enabled(r)) {
		for (unsigned k = MTRR_FIXED_MSRS; k-- > 0;)
			if (pa >= fixed_layout[k].start) {
				unsigned j = (unsigned)((pa - fixed_layout[k].start) / fixed_layout[k].unit);
				return (enum mtrr_type)((r->fixed[k] >> (8 * j)) & 0xff);
			}
	}
	bool any = false, uc = false, wt = false, wb = false;
	int other = -1;
	for (uint32_t i = 0; i < r->n_var; i++) {
		if (!var_match(r, i, pa))
			continue;
		unsigned t = (unsigned)(r->base[i] & MTRR_PHYSBASE_TYPE_MASK);
		any = true;
		uc |= t == MTRR_UC;
		wt |= t == MTRR_WT;
		wb |= t == MTRR_WB;
		if (t != MTRR_UC && t != MTRR_WT && t != MTRR_WB) {
			if (other >= 0 && (unsigned)other != t)
				uc = true; /* undefined overlap: take the safe type */
			other = (int)t;
		}
	}
	if (any) {
		if (uc)
			return MTRR_UC;
		if (other >= 0)
			return (wt || wb) ? MTRR_UC : (enum mtrr_type)other; /* WC over WB and such: undefined */
		return wt ? MTRR_WT : MTRR_WB;
	}
	if (r->amd && (r->syscfg & SYSCFG_MTRR_TOM2_EN) && (r->syscfg & SYSCFG_TOM2_FORCE_WB) && pa >= FOUR_GIB &&
	    pa < (r->tom2 & addr_mask(r)))
		return MTRR_WB;
	return (enum mtrr_type)(r->def_type & MTRR_DEF_TYPE_MASK);
}

void mtrr_split(const struct mtrr_regs *r, uint64_t base, uint64_t len,
		void (*fn)(void *ctx, uint64_t base, uint64_t len, enum mtrr_type t), void *ctx)
{
	uint64_t b[MAX_BOUNDS];
	uint64_t end = base + len;
	if (!len)
		return;
	unsigned n = bounds(r, base, end, b);
	uint64_t start = base;
	enum mtrr_type cur = mtrr_type_at(r, base);
	for (unsigned i = 0; i < n; i++) {
		enum mtrr_type t = mtrr_type_at(r, b[i]);
		if (t == cur)
			continue;
		fn(ctx, start, b[i] - start, cur);
		start = b[i];
		cur = t;
	}
	fn(ctx, start, end - start, cur);
}

enum mtrr_type mtrr_type_of(const struct mtrr_regs *r, uint64_t base, uint64_t len)
{
	if (!r->have_mtrr)
		return MTRR_UNKNOWN;
	if (has_odd_mask(r))
		return MTRR_MIXED; /* a sparse range could change the type on any page: assume the worst */
	uint64_t b[MAX_BOUNDS];
	unsigned n = bounds(r, base, base + len, b);
	enum mtrr_type t = mtrr_type_at(r, base);
	for (unsigned i = 0; i < n; i++)
		if (mtrr_type_at(r, b[i]) != t)
			return MTRR_MIXED;
	return t;
}

enum mtrr_type mtrr_effective(const struct mtrr_regs *r, enum mtrr_type t)
{
	if (!r->have_pat || t == MTRR_UNKNOWN || t == MTRR_MIXED)
		return t;
	enum mtrr_type pat0 = (enum mtrr_type)(r->pat & PAT_TYPE_MASK);
	switch (pat0) {
	case MTRR_WB:
		return t;                              /* PAT WB: the MTRR type stands */
	case MTRR_UC:
	case MTRR_WC:
		return pat0;                           /* PAT UC and WC win over any MTRR type */
	case MTRR_UC_MINUS:
		return t == MTRR_WC ? MTRR_WC : MTRR_UC;
	case MTRR_WT:
		return t == MTRR_WB || t == MTRR_WT ? MTRR_WT : t == MTRR_WP ? MTRR_WP : MTRR_UC;
	case MTRR_WP:
		return t == MTRR_WB || t == MTRR_WP ? MTRR_WP : MTRR_UC;
	default:
		return MTRR_UC;
	}
}

const char *mtrr_type_name(enum mtrr_type t)
{
	switch (t) {
	case MTRR_UC: return "UC";
	case MTRR_WC: return "WC";
	case MTRR_WT: return "WT";
	case MTRR_WP: return "WP";
	case MTRR_WB: return "WB";
	case MTRR_UC_MINUS: return "UC-";
	case MTRR_MIXED: return "MIXED";
	default: return "unknown";
	}
}

uint32_t mtrr_var_used(const struct mtrr_regs *r)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->n_var; i++)
		n += var_valid(r, i);
	return n;
}

static bool differ(char *buf, size_t cap, const char *what)
{
	fmt_snprintf(buf, cap, "%s", what);
	return true;
}

bool mtrr_differs(const struct mtrr_regs *a, const struct mtrr_regs *b, char *buf, size_t cap)
{
	if (a->have_mtrr != b->have_mtrr)
		return differ(buf, cap, "MTRRCAP");
	if (a->have_mtrr) {
		if (a->def_type != b->def_type)
			return differ(buf, cap, "MTRR_DEF_TYPE");
		if (a->n_var != b->n_var)
			return differ(buf, cap, "MTRRCAP");
		for (uint32_t i = 0; i < a->n_var; i++) {
			bool va = var_valid(a, i), vb = var_valid(b, i);
			if (va != vb || (va && (a->base[i] != b->base[i] || a->mask[i] != b->mask[i]))) {
				fmt_snprintf(buf, cap, "MTRR_PHYSBASE%u", i);
				return true;
			}
		}
		if (fixed_enabled(a))
			for (unsigned k = 0; k < MTRR_FIXED_MSRS; k++)
				if (a->fixed[k] != b->fixed[k])
					return differ(buf, cap, "MTRR_FIX");
		if (a->amd && a->syscfg != b->syscfg)
			return differ(buf, cap, "SYSCFG");
		if (a->amd && a->tom2 != b->tom2)
			return differ(buf, cap, "TOM2");
	}
	if (a->have_pat != b->have_pat || (a->have_pat && a->pat != b->pat))
		return differ(buf, cap, "PAT");
	return false;
}
