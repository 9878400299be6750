/* entry.S - the kernel's first instructions on the BSP.
 *
 * State on entry (from a boot path, see kernel/lib/boot_info.h): 64-bit mode,
 * interrupts off, the boot path's page tables (identity map plus the kernel
 * at its link address), rsp = top of a 16-byte-aligned boot stack,
 * rdi = struct boot_info *. */
	.section .text.entry, "ax"
	.globl kernel_start
	.type kernel_start, @function
kernel_start:
	cli
	cld
	and	$-16, %rsp
	xor	%ebp, %ebp
	call	kernel_entry
1:	cli
	hlt
	jmp	1b
	.size kernel_start, . - kernel_start
	.section .note.GNU-stack, "", @progbits
