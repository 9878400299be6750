/* trampoline.S - AP start-up: real mode to 64-bit mode and into the kernel (Intel SDM vol. 3A §9.4.4, §9.8.5).
 *
 * State on entry: real mode, CS = vector << 8, IP = 0, interrupts off
 * (INIT-SIPI-SIPI), caches possibly disabled (CR0.CD/NW set by INIT).
 * The page was copied to a 4 KiB-aligned address below 1 MiB and its handoff
 * block (kernel/arch/trampoline.h) filled in. The code uses no relocations: real
 * mode addresses are offsets in the page (DS = CS), 64-bit ones are
 * RIP-relative. It enters long mode directly from real mode (CR0.PE and PG
 * together), which the SDM allows with EFER.LME and CR4.PAE already set.
 *
 * State at the call: 64-bit mode, the kernel's CR3, the CR0, CR4 and EFER
 * that smp.c chose (whitelists of the BSP's), the BSP's XCR0,
 * rsp = stack_tops[slot], rdi = slot (arrival order).
 *
 * With TH_PARK set the AP does not call the kernel: it takes the shared park
 * stack and the park IDT, counts itself in TH_PARKED and halts forever with
 * interrupts off. An NMI or an exception there halts too (kernel/arch/isr.S
 * isr_park), and INIT still resets it. */
#include "trampoline.h"
#include "msr.h"

	.section .rodata.trampoline, "a"
	.balign 4096
	.globl __ap_tramp_start, __ap_tramp_end, ap_tramp_long, ap_tramp_gdt, ap_tramp_gdt_end

	.code16
__ap_tramp_start:
	jmp	real_start
	.org	__ap_tramp_start + TRAMP_HANDOFF
handoff:
	.fill	TH_SIZE, 1, 0

real_start:
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	movl	(TRAMP_HANDOFF + TH_CR4), %eax
	mov	%eax, %cr4
	movl	(TRAMP_HANDOFF + TH_CR3), %eax
	mov	%eax, %cr3
	mov	$MSR_IA32_EFER, %ecx
	movl	(TRAMP_HANDOFF + TH_EFER), %eax
	movl	(TRAMP_HANDOFF + TH_EFER + 4), %edx
	wrmsr
	lgdtl	(TRAMP_HANDOFF + TH_GDT_LIMIT)
	movl	(TRAMP_HANDOFF + TH_CR0), %eax
	mov	%eax, %cr0
	ljmpl	*(TRAMP_HANDOFF + TH_FAR64_OFF)

	.code64
ap_tramp_long:
	mov	$TRAMP_DATA_SEL, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%eax, %eax
	mov	%ax, %fs
	mov	%ax, %gs
	lea	handoff(%rip), %rbx
	cmpl	$0, TH_PARK(%rbx)
	jne	park
	mov	TH_XCR0(%rbx), %rax
	test	%rax, %rax
	jz	1f
	mov	%rax, %rdx
	shr	$32, %rdx
	xor	%ecx, %ecx
	xsetbv
1:	mov	$1, %eax
	lock xaddl %eax, TH_NEXT_SLOT(%rbx)
	mov	TH_STACKS(%rbx), %rcx
	mov	(%rcx, %rax, 8), %rsp
	mov	%rax, %rdi
	xor	%ebp, %ebp
	call	*TH_ENTRY(%rbx)
2:	cli
	hlt
	jmp	2b

park:
	mov	TH_PARK_STACK(%rbx), %rsp
	lidt	TH_PARK_IDT_LIMIT(%rbx)
	lock incl TH_PARKED(%rbx)
3:	cli
	hlt
	jmp	3b

	.balign 8
ap_tramp_gdt:
	.quad	0
	.quad	TRAMP_DESC_CODE64	/* TRAMP_CODE64_SEL */
	.quad	TRAMP_DESC_DATA		/* TRAMP_DATA_SEL */
ap_tramp_gdt_end:
__ap_tramp_end:
	.section .note.GNU-stack, "", @progbits
