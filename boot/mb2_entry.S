/* mb2_entry.S - the multiboot2 entry: 32-bit protected mode to 64-bit mode, then mb2_main() (Multiboot2 spec 1.0 §3.2; Intel SDM vol. 3A §9.8.5).
 *
 * State on entry (§3.2 "Machine state"): 32-bit protected mode, paging off,
 * flat CS and DS, interrupts off, A20 on, EAX = MB2_BOOT_MAGIC, EBX = the
 * boot information's physical address. ESP and the GDTR are the loader's
 * and must not be trusted. Everything here is linked at its physical
 * address (boot/mb2.ld), so absolute addresses are fine in 32-bit code.
 *
 * State at the call: 64-bit mode, the early tables (4 GiB identity-mapped
 * with 2 MiB pages), CS/DS from the GDT below, SSE enabled (the kernel is
 * compiled for x86-64 with SSE, as UEFI firmware leaves it), rsp = the top
 * of mb2_stack, edi = magic, esi = boot information, rdx = entry TSC. */
#include "mb2.h"
#include "mb2_boot.h"
#include "msr.h"
#include "trampoline.h"

	.section .text.mb2_entry, "ax"
	.code32
	.globl mb2_entry
	.type mb2_entry, @function
mb2_entry:
	cli
	cld
	mov	%eax, %esi
	mov	%ebx, %ebp
	/* Our bss and the kernel's: GRUB zeroes NOBITS too, but other loaders may not. */
	mov	$mb2_kernel_file_end, %edi
	mov	$mb2_image_end, %ecx
	sub	%edi, %ecx
	shr	$2, %ecx
	xor	%eax, %eax
	rep stosl
	mov	$(mb2_stack + MB2_STACK_SIZE), %esp
	mov	%esi, mb2_boot_magic
	mov	%ebp, mb2_boot_info

	/* Long mode is required; say so on screen and serial if it is missing. */
	mov	$MB2_CPUID_EXT_MAX, %eax
	cpuid
	cmp	$MB2_CPUID_EXT_FEATURES, %eax
	jb	no_long_mode
	mov	$MB2_CPUID_EXT_FEATURES, %eax
	cpuid
	test	$MB2_CPUID_LM, %edx
	jz	no_long_mode
	rdtsc
	mov	%eax, mb2_entry_tsc
	mov	%edx, mb2_entry_tsc + 4

	/* Early tables: PML4[0] -> PDPT, PDPT[0..3] -> four PDs of 2 MiB pages. */
	movl	$(mb2_early_pdpt + MB2_PTE_PRESENT + MB2_PTE_WRITE), mb2_early_pml4
	mov	$mb2_early_pdpt, %edi
	mov	$(mb2_early_pd + MB2_PTE_PRESENT + MB2_PTE_WRITE), %eax
	mov	$MB2_EARLY_MAP_PDS, %ecx
1:	mov	%eax, (%edi)
	add	$4096, %eax
	add	$8, %edi
	loop	1b
	mov	$mb2_early_pd, %edi
	mov	$(MB2_PTE_PRESENT + MB2_PTE_WRITE + MB2_PTE_LARGE), %eax
	mov	$MB2_EARLY_PDES, %ecx
2:	mov	%eax, (%edi)
	add	$MB2_PAGE_2M, %eax
	add	$8, %edi
	loop	2b

	/* Intel SDM vol. 3A §9.8.5: PAE, CR3, EFER.LME, then paging. */
	lgdt	mb2_gdt_ptr
	mov	%cr4, %eax
	or	$MB2_CR4_PAE, %eax
	mov	%eax, %cr4
	mov	$mb2_early_pml4, %eax
	mov	%eax, %cr3
	mov	$MSR_IA32_EFER, %ecx
	rdmsr
	or	$EFER_LME, %eax
	wrmsr
	mov	%cr0, %eax
	or	$(MB2_CR0_PG | MB2_CR0_PE), %eax
	mov	%eax, %cr0
	ljmp	$MB2_CODE64_SEL, $mb2_long

no_long_mode:
	mov	$msg_no_lm, %esi
	mov	$MB2_VGA_TEXT, %edi
3:	lodsb
	test	%al, %al
	jz	6f
	mov	$MB2_VGA_ATTR, %ah
	stosw
	mov	%al, %bl
	rdtsc
	mov	%eax, %ecx		/* the wait's start: low 32 bits of the TSC */
4:	mov	$(MB2_COM1 + MB2_UART_LSR), %dx
	inb	%dx, %al
	test	$MB2_LSR_THR_EMPTY, %al
	jnz	5f
	pause
	rdtsc
	sub	%ecx, %eax
	cmp	$MB2_TX_WAIT_TICKS, %eax
	jb	4b
5:	mov	$(MB2_COM1 + MB2_UART_THR), %dx
	mov	%bl, %al
	outb	%al, %dx
	jmp	3b
6:	cli
	hlt
	jmp	6b

	.code64
mb2_long:
	mov	$MB2_DATA_SEL, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	xor	%eax, %eax
	mov	%eax, %fs
	mov	%eax, %gs
	mov	%cr0, %rax
	and	$~MB2_CR0_EM, %rax
	or	$MB2_CR0_MP, %rax
	mov	%rax, %cr0
	mov	%cr4, %rax
	or	$(MB2_CR4_OSFXSR | MB2_CR4_OSXMMEXCPT), %rax
	mov	%rax, %cr4
	fninit
	mov	$(mb2_stack + MB2_STACK_SIZE), %esp
	mov	mb2_boot_magic(%rip), %edi
	mov	mb2_boot_info(%rip), %esi
	mov	mb2_entry_tsc(%rip), %rdx
	xor	%ebp, %ebp
	call	mb2_main
7:	cli
	hlt
	jmp	7b
	.size mb2_entry, . - mb2_entry

/* void mb2_handoff(cr3, stack_top, entry, bi): as boot/efi_handoff.S. The code
 * is identity-mapped under both the early and the handoff tables. */
	.text
	.globl mb2_handoff
	.type mb2_handoff, @function
mb2_handoff:
	cli
	mov	%rdi, %cr3
	mov	%rsi, %rsp
	mov	%rcx, %rdi
	xor	%ebp, %ebp
	jmp	*%rdx
	.size mb2_handoff, . - mb2_handoff

/* void mb2_handoff_la57(cr3, stack_top, entry, bi): see mb2_boot.h. In
 * compatibility mode only 32-bit registers exist: the arguments wait in memory. */
	.globl mb2_handoff_la57
	.type mb2_handoff_la57, @function
mb2_handoff_la57:
	cli
	mov	%rdi, la57_cr3(%rip)
	mov	%rsi, la57_rsp(%rip)
	mov	%rdx, la57_entry(%rip)
	mov	%rcx, la57_bi(%rip)
	pushq	$MB2_CODE32_SEL
	lea	1f(%rip), %rax
	pushq	%rax
	lretq
	.code32
1:	mov	%cr0, %eax
	and	$~MB2_CR0_PG, %eax
	mov	%eax, %cr0		/* paging off: EFER.LMA clears, protected mode */
	mov	%cr4, %eax
	or	$MB2_CR4_LA57, %eax
	mov	%eax, %cr4
	mov	la57_cr3, %eax
	mov	%eax, %cr3
	mov	%cr0, %eax
	or	$MB2_CR0_PG, %eax
	mov	%eax, %cr0		/* paging on with EFER.LME: long mode, 5 levels */
	ljmp	$MB2_CODE64_SEL, $2f
	.code64
2:	mov	la57_rsp(%rip), %rsp
	mov	la57_bi(%rip), %rdi
	xor	%ebp, %ebp
	jmp	*la57_entry(%rip)
	.size mb2_handoff_la57, . - mb2_handoff_la57

	.section .rodata
msg_no_lm:
	.asciz	"quietbench: this CPU has no 64-bit mode; stopped"

	.data
	.balign 8
mb2_gdt:
	.quad	0
	.quad	TRAMP_DESC_CODE64	/* MB2_CODE64_SEL */
	.quad	TRAMP_DESC_DATA		/* MB2_DATA_SEL */
	.quad	TRAMP_DESC_CODE32	/* MB2_CODE32_SEL */
mb2_gdt_end:
mb2_gdt_ptr:
	.short	mb2_gdt_end - mb2_gdt - 1
	.long	mb2_gdt
	/* Not in bss: written before and read after the bss is cleared. */
mb2_boot_magic:
	.long	0
mb2_boot_info:
	.long	0
	.balign 8
mb2_entry_tsc:
	.quad	0
la57_cr3:
	.quad	0
la57_rsp:
	.quad	0
la57_entry:
	.quad	0
la57_bi:
	.quad	0

	.bss
	.balign 4096
mb2_early_pml4:
	.skip	4096
mb2_early_pdpt:
	.skip	4096
mb2_early_pd:
	.skip	4096 * MB2_EARLY_MAP_PDS
	.globl mb2_stack
	.balign 16
mb2_stack:
	.skip	MB2_STACK_SIZE
	.section .note.GNU-stack, "", @progbits
