/* idt.h - the IDT: every vector goes to fault_dispatch, exceptions and interrupts alike (Intel SDM vol. 3A §6.10, §6.14). */
#ifndef QB_KERNEL_IDT_H
#define QB_KERNEL_IDT_H

#include <stdint.h>

#define IDT_EXCEPTIONS 32
#define IDT_VECTORS 256       /* 32-255 are interrupts: kernel/run/idle.c handles them */
#define IDT_IRQ_STUB_SIZE 16  /* kernel/arch/isr.S: one stub per interrupt vector */

/* Register frame built by kernel/arch/isr.S; field order must match its pushes. */
struct fault_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;    /* pushed by the CPU (§6.14.2) */
};
#define FAULT_FRAME_SIZE (22 * 8)
_Static_assert(sizeof(struct fault_frame) == FAULT_FRAME_SIZE, "isr.S pushes 22 quads");

/* Build the IDT once (BSP). */
void idt_init(void);

/* Load it on the calling CPU. */
void idt_load(void);

/* The park IDT: every exception vector halts the CPU for good (kernel/arch/isr.S
 * isr_park), no IST, so it works on any GDT whose selector GDT_KCODE_SEL is
 * 64-bit code and without a TSS. Built by idt_init. */
void idt_park_ptr(uint16_t *limit, uint64_t *base);

/* Load the park IDT and halt forever (a CPU that must stay out of the run). */
void idt_park_here(void) __attribute__((noreturn));

#endif
