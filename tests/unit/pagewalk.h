/* pagewalk.h - a software MMU for the host tests: translates a linear address through 4-level or 5-level x86-64 page tables (Intel SDM vol. 3A §4.5, Figures 4-8 to 4-11) whose physical addresses are host pointers, 4 KiB, 2 MiB and 1 GiB pages, reserved address bits of a large page faulting. */
#ifndef QB_TESTS_PAGEWALK_H
#define QB_TESTS_PAGEWALK_H

#include <stdbool.h>
#include <stdint.h>

#define PW_P (1ull << 0)
#define PW_W (1ull << 1)
#define PW_PS (1ull << 7)
#define PW_NX (1ull << 63)
#define PW_PAT_LARGE (1ull << 12)
#define PW_ADDR 0x000ffffffffff000ull

struct pw_result {
	bool mapped;
	uint64_t phys;
	uint64_t page_size;   /* 4 KiB, 2 MiB or 1 GiB */
	bool writable, nx;    /* the AND of W, the OR of NX along the walk */
	uint64_t entry;       /* the leaf entry itself (PCD, PWT, PAT, G) */
	int tables;           /* tables read on the way, the leaf's included */
};

/* True if va is canonical: 48-bit (levels 4) or 57-bit (levels 5) sign extension. */
static inline bool pw_canonical(uint64_t va, int levels)
{
	int bits = levels == 5 ? 57 : 48;
	int64_t s = (int64_t)(va << (64 - bits)) >> (64 - bits);
	return (uint64_t)s == va;
}

static inline struct pw_result pw_walk(uint64_t cr3, uint64_t va, int levels)
{
	struct pw_result r = { false, 0, 0, true, false, 0, 0 };
	if (!pw_canonical(va, levels))
		return r;
	uint64_t table = cr3 & PW_ADDR;
	for (int level = levels; level >= 1; level--) {
		int shift = 12 + 9 * (level - 1);
		uint64_t e = ((const uint64_t *)(uintptr_t)table)[(va >> shift) & 511];
		r.tables++;
		if (!(e & PW_P))
			return r;
		r.writable = r.writable && (e & PW_W);
		r.nx = r.nx || (e & PW_NX);
		if (level == 1 || ((level == 2 || level == 3) && (e & PW_PS))) {
			uint64_t size = 1ull << shift;
			/* Address bits below a large page's size, but PAT (bit 12), are
			 * reserved: set, the walk faults (SDM §4.5, Tables 4-16, 4-18). */
			if (level > 1 && (e & PW_ADDR & (size - 1) & ~PW_PAT_LARGE))
				return r;
			r.mapped = true;
			r.page_size = size;
			r.entry = e;
			r.phys = (e & PW_ADDR & ~(size - 1)) | (va & (size - 1));
			return r;
		}
		table = e & PW_ADDR;
	}
	return r;
}

#endif
