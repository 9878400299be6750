/* efi_handoff.S - the last step of the UEFI boot path: switch to the kernel's page tables and stack, and jump.
 *
 * Called from C (System V ABI) after ExitBootServices:
 *   rdi = CR3 (handoff page tables), rsi = stack top (16-byte aligned),
 *   rdx = kernel entry (virtual), rcx = struct boot_info * (identity-mapped).
 * The code runs identity-mapped under both the firmware's and the new tables:
 * the new ones map [efi_handoff, efi_handoff_end) wherever it lies (boot/handoff_pt.c). */
	.text
	.globl efi_handoff
	.type efi_handoff, @function
efi_handoff:
	cli
	mov	%rdi, %cr3
	mov	%rsi, %rsp
	mov	%rcx, %rdi
	xor	%ebp, %ebp
	jmp	*%rdx
	.globl efi_handoff_end
efi_handoff_end:
	.size efi_handoff, . - efi_handoff
	.section .note.GNU-stack, "", @progbits
