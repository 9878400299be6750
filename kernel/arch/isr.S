/* isr.S - exception entry stubs: push a uniform struct fault_frame (kernel/arch/idt.h) and call fault_dispatch.
 *
 * Vectors that push no error code get a zero in its place (Intel SDM vol. 3A
 * §6.13, Table 6-1: 8, 10-14, 17, 21, 29, 30 push one). fault_dispatch returns
 * only for recoverable events (a stray NMI, a handled page fault). */

#define FXSAVE_AREA 512		/* Intel SDM vol. 1 §10.5.1 */

	.text
.macro STUB v
	.balign 16
isr_\v:
	.if !(\v == 8 || (\v >= 10 && \v <= 14) || \v == 17 || \v == 21 || \v == 29 || \v == 30)
	pushq	$0
	.endif
	pushq	$\v
	jmp	isr_common
.endm

	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	STUB \v
	.endr

isr_common:
	cld
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	mov	%rsp, %rbx		/* callee-saved: the frame */
	and	$-16, %rsp		/* System V call alignment, and FXSAVE's */
	sub	$FXSAVE_AREA, %rsp
	fxsave64 (%rsp)			/* the handler may use SSE: keep the interrupted code's */
	mov	%rbx, %rdi
	call	fault_dispatch
	fxrstor64 (%rsp)
	mov	%rbx, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	add	$16, %rsp		/* vector and error code */
	iretq

/* Vectors 32-255: interrupts (the idle CPUs' wake-up IPI, the APIC's
 * spurious vector, anything stray). Each stub is 16 bytes, in vector order
 * from isr_irq_first, so that idt.c finds vector v at isr_irq_first +
 * (v - 32) * IRQ_STUB_SIZE. None pushes an error code. */
#define IRQ_STUB_SIZE 16
	.balign IRQ_STUB_SIZE
	.globl isr_irq_first, isr_irq_end
isr_irq_first:
	.set vec, 32
	.rept 256 - 32
	.balign IRQ_STUB_SIZE
	pushq	$0
	pushq	$vec
	jmp	isr_common
	.set vec, vec + 1
	.endr
	.balign IRQ_STUB_SIZE
isr_irq_end:

/* Every vector of the park IDT (kernel/arch/idt.c): a parked CPU that takes an
 * NMI or an exception halts for good, NMIs blocked, interrupts off. Nothing
 * reads the frame, so parked CPUs may share one stack. */
	.balign 16
	.globl isr_park
isr_park:
	cli
	hlt
	jmp	isr_park

	.section .rodata
	.balign 8
	.globl isr_stubs
isr_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad isr_\v
	.endr
	.section .note.GNU-stack, "", @progbits
