/* mtrr.h - which memory type the MTRRs and the PAT give a physical range (Intel SDM vol. 3A §12.11-12.12; AMD APM vol. 2 §7.7-7.8).
 *
 * Pure: the caller reads the registers (kernel/mm/memtype.c, through
 * msr_read_safe) into struct mtrr_regs; this unit only decides. */
#ifndef QB_KERNEL_MTRR_H
#define QB_KERNEL_MTRR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MTRR_MAX_VAR 32          /* variable ranges kept (MTRRCAP.VCNT is 8 bits; parts have 8-10) */
#define MTRR_FIXED_MSRS 11       /* 64K_00000, 16K_80000, 16K_A0000, 4K_C0000 .. 4K_F8000 */
#define MTRR_FIXED_END 0x100000ull /* the fixed ranges cover the first MiB */

/* Memory types (SDM Table 12-8), and the two answers that are not one type. */
enum mtrr_type {
	MTRR_UC = 0,
	MTRR_WC = 1,
	MTRR_WT = 4,
	MTRR_WP = 5,
	MTRR_WB = 6,
	MTRR_UC_MINUS = 7,       /* PAT only */
	MTRR_MIXED = 0xfe,       /* the range holds more than one type */
	MTRR_UNKNOWN = 0xff,     /* no MTRRs to read (CPUID, or #GP) */
};

/* The registers of one CPU, as read. */
struct mtrr_regs {
	bool have_mtrr;          /* CPUID.1:EDX.MTRR and MTRRCAP/DEF_TYPE readable */
	uint64_t cap, def_type;
	uint64_t fixed[MTRR_FIXED_MSRS];
	uint32_t n_var;          /* min(MTRRCAP.VCNT, MTRR_MAX_VAR) */
	uint64_t base[MTRR_MAX_VAR], mask[MTRR_MAX_VAR];
	bool amd;                /* SYSCFG and TOM2 below are meaningful */
	uint64_t syscfg, tom2;
	bool have_pat;
	uint64_t pat;
	uint8_t phys_bits;       /* CPUID 80000008H: MAXPHYADDR */
};

/* The memory type of one physical address (SDM §12.11.4.1 precedence: MTRRs
 * off -> UC; the fixed ranges below 1 MiB; overlapping variable ranges: UC
 * wins, WT beats WB, other overlaps are undefined and taken as UC; AMD's
 * TOM2 makes 4 GiB .. TOM2 WB; else the default type). */
enum mtrr_type mtrr_type_at(const struct mtrr_regs *r, uint64_t pa);

/* The single type of [base, base + len), or MTRR_MIXED. */
enum mtrr_type mtrr_type_of(const struct mtrr_regs *r, uint64_t base, uint64_t len);

/* The type a mapping with PAT entry 0 (PWT = PCD = PAT = 0, as QuietBench maps
 * RAM) really gets over the MTRR type t (SDM Table 12-7). */
enum mtrr_type mtrr_effective(const struct mtrr_regs *r, enum mtrr_type t);

/* Calls fn for each maximal piece of [base, base + len) with one type. */
void mtrr_split(const struct mtrr_regs *r, uint64_t base, uint64_t len,
		void (*fn)(void *ctx, uint64_t base, uint64_t len, enum mtrr_type t), void *ctx);

/* "UC", "WC", "WT", "WP", "WB", "UC-", "MIXED", "unknown". */
const char *mtrr_type_name(enum mtrr_type t);

/* Variable ranges that are valid (PHYSMASK.V). */
uint32_t mtrr_var_used(const struct mtrr_regs *r);

/* False if a and b program the same memory types; else true, with the first
 * register that differs ("MTRR_DEF_TYPE", "MTRR_PHYSBASE3", "PAT", ...) in
 * buf. */
bool mtrr_differs(const struct mtrr_regs *a, const struct mtrr_regs *b, char *buf, size_t cap);

#endif
