/* mb2_blob.S - the flat kernel image (build/kernel.bin) inside quietbench-mb2.elf, followed by room for its bss.
 *
 * The kernel runs where GRUB loads it: KERNEL_BSS_BYTES (mem_size - file_size
 * from the image header, computed by the Makefile) are reserved right after
 * it as NOBITS, which GRUB and mb2_entry.S zero. mb2_main() checks the
 * header against this room before it jumps. */
	.section .mb2_kernel, "a"
	.balign 4096
	.incbin KERNEL_BIN

	.section .mb2_kernel_bss, "aw", @nobits
	.balign 4096
	.skip KERNEL_BSS_BYTES
	.section .note.GNU-stack, "", @progbits
