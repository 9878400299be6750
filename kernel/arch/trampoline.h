/* trampoline.h - the AP start-up page: layout shared by trampoline.S and smp.c.
 *
 * An AP starts in real mode at (SIPI vector << 12). trampoline.S takes it
 * straight to 64-bit mode with the BSP's control registers, takes a stack
 * from the handoff block and calls the kernel. The offsets below are used by
 * the assembly; struct trampoline_handoff mirrors them and static asserts
 * keep the two in step.
 *
 * CPUs that the run will not use are started too, after the others, with
 * TH_PARK set: they load the park IDT (every vector halts), count themselves
 * in TH_PARKED and halt with interrupts off, in QuietBench's code rather
 * than the firmware's. */
#ifndef QB_KERNEL_TRAMPOLINE_H
#define QB_KERNEL_TRAMPOLINE_H

#define TRAMP_HANDOFF 0x10        /* offset of the handoff block in the page */
#define TH_GDT_LIMIT 0x00         /* u16: LGDT operand, limit */
#define TH_GDT_BASE 0x02          /* u32: LGDT operand, linear base */
#define TH_CR3 0x08               /* u32: PML4, below 4 GiB */
#define TH_CR4 0x10               /* u64 */
#define TH_EFER 0x18              /* u64 */
#define TH_CR0 0x20               /* u64 */
#define TH_ENTRY 0x28             /* u64: void entry(uint64_t slot) */
#define TH_STACKS 0x30            /* u64: address of uint64_t stack_tops[] */
#define TH_NEXT_SLOT 0x38         /* u32: incremented by each AP that arrives */
#define TH_FAR64_OFF 0x40         /* u32: far pointer into the 64-bit code: offset */
#define TH_FAR64_SEL 0x44         /* u16: and selector */
#define TH_XCR0 0x48              /* u64: 0 = leave XCR0 alone */
#define TH_PARK 0x50              /* u32: 1 = every AP that arrives parks (no C, no stack of its own) */
#define TH_PARKED 0x54            /* u32: incremented by each AP that parks */
#define TH_PARK_STACK 0x58        /* u64: the shared park stack's top (written by interrupt frames only) */
#define TH_PARK_IDT_LIMIT 0x66    /* u16: LIDT operand for the park IDT, limit ... */
#define TH_PARK_IDT_BASE 0x68     /* u64: ... and base (kernel/arch/idt.h idt_park_*) */
#define TH_SIZE 0x70

#define TRAMP_CODE64_SEL 0x08     /* selectors in the trampoline's own GDT */
#define TRAMP_DATA_SEL 0x10

/* Segment descriptor fields, Intel SDM vol. 3A §3.4.5 Figure 3-8. */
#define SEG_LIMIT_MAX ((0xf << 48) | 0xffff)
#define SEG_RW (1 << 41)          /* readable code / writable data */
#define SEG_EXEC (1 << 43)
#define SEG_S (1 << 44)           /* code or data, not system */
#define SEG_PRESENT (1 << 47)
#define SEG_LONG (1 << 53)        /* L: 64-bit code */
#define SEG_DB (1 << 54)          /* 32-bit default operand size (data: big) */
#define SEG_GRAN (1 << 55)        /* limit in 4 KiB units */
#define TRAMP_DESC_CODE64 (SEG_PRESENT | SEG_S | SEG_EXEC | SEG_RW | SEG_LONG | SEG_GRAN | SEG_LIMIT_MAX)
#define TRAMP_DESC_DATA (SEG_PRESENT | SEG_S | SEG_RW | SEG_DB | SEG_GRAN | SEG_LIMIT_MAX)
#define TRAMP_DESC_CODE32 (SEG_PRESENT | SEG_S | SEG_EXEC | SEG_RW | SEG_DB | SEG_GRAN | SEG_LIMIT_MAX)

#ifndef __ASSEMBLY__
#include <stddef.h>
#include <stdint.h>

/* The handoff block at TRAMP_HANDOFF in the copied page, filled by smp.c. */
struct trampoline_handoff {
	uint16_t gdt_limit;
	uint32_t gdt_base;
	uint16_t pad0;
	uint32_t cr3;
	uint32_t pad1;
	uint64_t cr4;
	uint64_t efer;
	uint64_t cr0;
	uint64_t entry;
	uint64_t stacks;
	uint32_t next_slot;
	uint32_t pad2;
	uint32_t far64_off;
	uint16_t far64_sel;
	uint16_t pad3;
	uint64_t xcr0;
	uint32_t park;
	uint32_t parked;
	uint64_t park_stack;
	uint16_t pad4[3];
	uint16_t park_idt_limit;
	uint64_t park_idt_base;
} __attribute__((packed));

_Static_assert(offsetof(struct trampoline_handoff, gdt_limit) == TH_GDT_LIMIT, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, gdt_base) == TH_GDT_BASE, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, cr3) == TH_CR3, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, cr4) == TH_CR4, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, efer) == TH_EFER, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, cr0) == TH_CR0, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, entry) == TH_ENTRY, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, stacks) == TH_STACKS, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, next_slot) == TH_NEXT_SLOT, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, far64_off) == TH_FAR64_OFF, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, far64_sel) == TH_FAR64_SEL, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, xcr0) == TH_XCR0, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, park) == TH_PARK, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, parked) == TH_PARKED, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, park_stack) == TH_PARK_STACK, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, park_idt_limit) == TH_PARK_IDT_LIMIT, "trampoline.S");
_Static_assert(offsetof(struct trampoline_handoff, park_idt_base) == TH_PARK_IDT_BASE, "trampoline.S");
_Static_assert(sizeof(struct trampoline_handoff) == TH_SIZE, "trampoline.S");

/* Symbols of trampoline.S (addresses in the kernel image, copied from). */
extern const char __ap_tramp_start[], __ap_tramp_end[];
extern const char ap_tramp_long[], ap_tramp_gdt[], ap_tramp_gdt_end[];
#endif

#endif
