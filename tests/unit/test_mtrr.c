/* test_mtrr.c - host tests of kernel/mm/mtrr.c: memory types from MTRR and PAT
 * register values as firmware leaves them (Intel SDM vol. 3A §12.11-12.12,
 * AMD APM vol. 2 §7.7-7.8): all write-back, a UC hole, a server's nested
 * UC range, a 2 MiB page across two types, the fixed ranges below 1 MiB,
 * AMD's TOM2, the PAT, and two CPUs that disagree. */
#include "check.h"
#include "msr.h"
#include "mtrr.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define PAT_RESET 0x0007040600070406ull  /* SDM §12.12.4: WB WT UC- UC WB WT UC- UC */
#define WB_X8 0x0606060606060606ull

/* A variable range [base, base + size) of type t on a CPU with MAXPHYADDR 39. */
static void var(struct mtrr_regs *r, uint32_t i, uint64_t base, uint64_t size, unsigned t)
{
	r->base[i] = base | t;
	r->mask[i] = (~(size - 1) & ((1ull << 39) - 1)) | MTRR_PHYSMASK_VALID;
	if (i + 1 > r->n_var)
		r->n_var = i + 1;
}

static struct mtrr_regs regs(unsigned def)
{
	struct mtrr_regs r;
	memset(&r, 0, sizeof(r));
	r.have_mtrr = true;
	r.cap = MTRRCAP_FIX | MTRRCAP_WC | 10;
	r.def_type = MTRR_DEF_E | MTRR_DEF_FE | def;
	for (unsigned k = 0; k < MTRR_FIXED_MSRS; k++)
		r.fixed[k] = WB_X8;
	r.have_pat = true;
	r.pat = PAT_RESET;
	r.phys_bits = 39;
	return r;
}

struct piece {
	uint64_t base, len;
	enum mtrr_type t;
};
static struct piece pieces[16];
static unsigned n_pieces;

static void collect(void *ctx, uint64_t base, uint64_t len, enum mtrr_type t)
{
	(void)ctx;
	if (n_pieces < 16)
		pieces[n_pieces++] = (struct piece){ base, len, t };
}

TEST(all_write_back)
{
	struct mtrr_regs r = regs(MTRR_WB);
	CHECK_EQ_U(mtrr_type_of(&r, 0, 64 * GIB), MTRR_WB);
	CHECK_EQ_U(mtrr_effective(&r, MTRR_WB), MTRR_WB);
	CHECK_STR(mtrr_type_name(mtrr_type_of(&r, 4 * GIB, 2 * MIB)), "WB");
	CHECK_EQ_U(mtrr_var_used(&r), 0);
}

/* Default WB with the 32-bit MMIO hole [3 GiB, 4 GiB) uncached: the usual
 * desktop firmware. RAM below the hole is WB, a buffer across it is not. */
TEST(uc_hole)
{
	struct mtrr_regs r = regs(MTRR_WB);
	var(&r, 0, 3 * GIB, 1 * GIB, MTRR_UC);
	CHECK_EQ_U(mtrr_type_of(&r, 0, 3 * GIB), MTRR_WB);
	CHECK_EQ_U(mtrr_type_of(&r, 3 * GIB, GIB), MTRR_UC);
	CHECK_EQ_U(mtrr_type_of(&r, 3 * GIB - 2 * MIB, 4 * MIB), MTRR_MIXED);
	CHECK_EQ_U(mtrr_type_of(&r, 4 * GIB, 4 * GIB), MTRR_WB);
	n_pieces = 0;
	mtrr_split(&r, 1 * MIB, 8 * GIB - MIB, collect, 0);
	CHECK_EQ_U(n_pieces, 3);
	CHECK(pieces[0].base == MIB && pieces[0].len == 3 * GIB - MIB && pieces[0].t == MTRR_WB);
	CHECK(pieces[1].base == 3 * GIB && pieces[1].len == GIB && pieces[1].t == MTRR_UC);
	CHECK(pieces[2].base == 4 * GIB && pieces[2].len == 4 * GIB && pieces[2].t == MTRR_WB);
}

/* A server's layout: default UC, one WB range over all 64 GiB of RAM and a
 * UC range nested in it for the hole below 4 GiB (UC wins where they
 * overlap); past the RAM, the default. */
TEST(server_nested_uc)
{
	struct mtrr_regs r = regs(MTRR_UC);
	var(&r, 0, 0, 64 * GIB, MTRR_WB);
	var(&r, 1, 2 * GIB, 2 * GIB, MTRR_UC);
	CHECK_EQ_U(mtrr_type_at(&r, 2 * GIB - 1), MTRR_WB);
	CHECK_EQ_U(mtrr_type_at(&r, 2 * GIB), MTRR_UC);
	CHECK_EQ_U(mtrr_type_at(&r, 4 * GIB), MTRR_WB);
	CHECK_EQ_U(mtrr_type_at(&r, 64 * GIB), MTRR_UC);
	CHECK_EQ_U(mtrr_type_of(&r, 4 * GIB, 60 * GIB), MTRR_WB);
	CHECK_EQ_U(mtrr_var_used(&r), 2);
	/* Too few variable MTRRs: RAM past the WB range stays UC (the 10-100x
	 * slower buffer the records must show). */
	CHECK_EQ_U(mtrr_type_of(&r, 64 * GIB, 2 * MIB), MTRR_UC);
}

/* A 2 MiB page must not span two types: here WB ends 1 MiB into it. */
TEST(mixed_2m_page)
{
	struct mtrr_regs r = regs(MTRR_UC);
	var(&r, 0, 0, GIB, MTRR_WB);
	var(&r, 1, GIB, MIB, MTRR_WB);
	CHECK_EQ_U(mtrr_type_of(&r, GIB - 2 * MIB, 2 * MIB), MTRR_WB);
	CHECK_EQ_U(mtrr_type_of(&r, GIB, 2 * MIB), MTRR_MIXED);
	CHECK_EQ_U(mtrr_type_of(&r, GIB, MIB), MTRR_WB);
	CHECK_EQ_U(mtrr_type_of(&r, GIB + MIB, MIB), MTRR_UC);
}

/* Below 1 MiB the fixed ranges decide: the VGA window A0000-BFFFF is UC. */
TEST(fixed_ranges)
{
	struct mtrr_regs r = regs(MTRR_WB);
	r.fixed[2] = 0; /* FIX16K_A0000: 8 x 16 KiB, all UC */
	CHECK_EQ_U(mtrr_type_at(&r, 0x9ffff), MTRR_WB);
	CHECK_EQ_U(mtrr_type_at(&r, 0xa0000), MTRR_UC);
	CHECK_EQ_U(mtrr_type_at(&r, 0xbffff), MTRR_UC);
	CHECK_EQ_U(mtrr_type_at(&r, 0xc0000), MTRR_WB);
	CHECK_EQ_U(mtrr_type_of(&r, 0, 2 * MIB), MTRR_MIXED);
	r.fixed[9] = 0x0000000000000500ull; /* FIX4K_F0000: F1000 WP, the rest UC */
	CHECK_EQ_U(mtrr_type_at(&r, 0xf1000), MTRR_WP);
	r.def_type &= ~MTRR_DEF_FE;             /* fixed ranges off: the default */
	CHECK_EQ_U(mtrr_type_at(&r, 0xa0000), MTRR_WB);
	r.def_type &= ~MTRR_DEF_E;              /* MTRRs off: everything UC */
	CHECK_EQ_U(mtrr_type_of(&r, 0, GIB), MTRR_UC);
}

/* AMD: with SYSCFG.MtrrTom2En and Tom2ForceMemTypeWB, 4 GiB .. TOM2 is WB
 * without any variable range. */
TEST(amd_tom2)
{
	struct mtrr_regs r = regs(MTRR_UC);
	var(&r, 0, 0, 2 * GIB, MTRR_WB);
	r.amd = true;
	r.tom2 = 0x880000000ull; /* 34 GiB */
	CHECK_EQ_U(mtrr_type_of(&r, 4 * GIB, 30 * GIB), MTRR_UC);
	r.syscfg = SYSCFG_MTRR_TOM2_EN | SYSCFG_TOM2_FORCE_WB | SYSCFG_MTRR_VAR_DRAM_EN;
	CHECK_EQ_U(mtrr_type_of(&r, 4 * GIB, 30 * GIB), MTRR_WB);
	CHECK_EQ_U(mtrr_type_of(&r, 2 * GIB, 2 * GIB), MTRR_UC);
	CHECK_EQ_U(mtrr_type_at(&r, 34 * GIB), MTRR_UC);
}

/* QuietBench maps RAM with PAT entry 0: WB leaves the MTRR type, UC or WC
 * there wins (SDM Table 12-7). */
TEST(pat_entry_0)
{
	struct mtrr_regs r = regs(MTRR_WB);
	CHECK_EQ_U(mtrr_effective(&r, MTRR_WB), MTRR_WB);
	CHECK_EQ_U(mtrr_effective(&r, MTRR_UC), MTRR_UC);
	r.pat = (PAT_RESET & ~0xffull) | MTRR_WC;
	CHECK_EQ_U(mtrr_effective(&r, MTRR_WB), MTRR_WC);
	r.pat = (PAT_RESET & ~0xffull) | MTRR_WT;
	CHECK_EQ_U(mtrr_effective(&r, MTRR_WB), MTRR_WT);
	CHECK_EQ_U(mtrr_effective(&r, MTRR_MIXED), MTRR_MIXED);
}

/* CPUs whose MTRRs or PAT disagree are an error the kernel reports. */
TEST(cpus_that_disagree)
{
	struct mtrr_regs a = regs(MTRR_UC), b;
	var(&a, 0, 0, 64 * GIB, MTRR_WB);
	var(&a, 1, 2 * GIB, 2 * GIB, MTRR_UC);
	char what[32];
	b = a;
	CHECK(!mtrr_differs(&a, &b, what, sizeof(what)));
	b.mask[1] &= ~MTRR_PHYSMASK_VALID;     /* firmware forgot one range on an AP */
	CHECK(mtrr_differs(&a, &b, what, sizeof(what)));
	CHECK_STR(what, "MTRR_PHYSBASE1");
	b = a;
	b.pat = 0;
	CHECK(mtrr_differs(&a, &b, what, sizeof(what)));
	CHECK_STR(what, "PAT");
	b = a;
	b.def_type = MTRR_DEF_E | MTRR_WB;
	CHECK(mtrr_differs(&a, &b, what, sizeof(what)));
	CHECK_STR(what, "MTRR_DEF_TYPE");
	b = a;
	b.have_mtrr = false;
	CHECK_EQ_U(mtrr_type_of(&b, 0, GIB), MTRR_UNKNOWN);
}

int main(void)
{
	RUN(all_write_back);
	RUN(uc_hole);
	RUN(server_nested_uc);
	RUN(mixed_2m_page);
	RUN(fixed_ranges);
	RUN(amd_tom2);
	RUN(pat_entry_0);
	RUN(cpus_that_disagree);
	return check_summary("mtrr");
}
