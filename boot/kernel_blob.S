/* kernel_blob.S - embeds the flat kernel image (build/kernel.bin) in the UEFI application. */
	.section .rodata.kernel_blob, "a"
	.balign 4096
	.globl kernel_blob_start, kernel_blob_end
kernel_blob_start:
	.incbin KERNEL_BIN
kernel_blob_end:
	.section .note.GNU-stack, "", @progbits
