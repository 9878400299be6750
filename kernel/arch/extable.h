/* extable.h - the exception table: instructions that may fault on purpose, and where each one resumes (as Linux's __ex_table).
 *
 * An instruction that real hardware may refuse (RDMSR and WRMSR of an MSR
 * that CPUID does not guarantee) is listed here with a fixup address. A #GP
 * at a listed instruction resumes at its fixup, which reports the error to
 * the caller; a fault anywhere else still ends the run (kernel/run/fault.c).
 * Entries are emitted by inline assembly with EXTABLE_ENTRY into the section
 * qb_extable, which linker.ld gathers between __start_qb_extable and
 * __stop_qb_extable (in a hosted build the linker defines both). */
#ifndef QB_KERNEL_EXTABLE_H
#define QB_KERNEL_EXTABLE_H

#include <stdbool.h>
#include <stdint.h>

/* One entry: both addresses as offsets from the field itself, so the table
 * needs no relocation (the kernel at -2 GiB, a PIE host test anywhere). */
struct extable_entry {
	int32_t insn;   /* the instruction that may fault */
	int32_t fixup;  /* where execution resumes instead */
};
_Static_assert(sizeof(struct extable_entry) == 8, "EXTABLE_ENTRY emits two .long");

/* Inline-assembly text that lists the instruction at label `insn` with its
 * fixup at label `fixup`, e.g. EXTABLE_ENTRY("1b", "3b"). */
#define EXTABLE_ENTRY(insn, fixup)                                             \
	".pushsection qb_extable, \"a\"\n\t"                                   \
	".balign 4\n\t"                                                        \
	".long (" insn ") - .\n\t"                                             \
	".long (" fixup ") - .\n\t"                                            \
	".popsection\n\t"

/* The fixup address for an instruction at rip, or 0 if rip is not listed. */
uintptr_t extable_find(uintptr_t rip);

/* Entries in the table (for the boot record and the tests). */
uint32_t extable_entries(void);

#endif
