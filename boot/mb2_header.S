/* mb2_header.S - the Multiboot2 header GRUB looks for in the first 32 KiB of quietbench-mb2.elf (Multiboot2 spec 1.0 §3.1).
 *
 * No address tag: GRUB loads the ELF's segments and enters at its entry
 * point. The information request makes the tags the kernel needs mandatory;
 * the framebuffer tag asks for a 32-bit linear mode but lets GRUB stay in
 * text mode when it has none. */
#include "mb2.h"

#define HDR_LEN (mb2_header_end - mb2_header)

	.section .mb2_header, "a"
	.balign MB2_HEADER_ALIGN
	.globl mb2_header
mb2_header:
	.long	MB2_HEADER_MAGIC
	.long	MB2_ARCH_I386
	.long	HDR_LEN
	.long	-(MB2_HEADER_MAGIC + MB2_ARCH_I386 + HDR_LEN)

	/* §3.1.4 information request: fail rather than boot without these. */
	.balign MB2_HEADER_ALIGN
info_req:
	.short	MB2_HTAG_INFO_REQUEST
	.short	0
	.long	info_req_end - info_req
	.long	MB2_TAG_MMAP
	.long	MB2_TAG_CMDLINE
info_req_end:

	/* §3.1.10 framebuffer: any size, 32 bits per pixel, optional. */
	.balign MB2_HEADER_ALIGN
fb_req:
	.short	MB2_HTAG_FRAMEBUFFER
	.short	MB2_HTAG_FLAG_OPTIONAL
	.long	fb_req_end - fb_req
	.long	0			/* width: no preference */
	.long	0			/* height: no preference */
	.long	32			/* depth */
fb_req_end:

	.balign MB2_HEADER_ALIGN
	.short	MB2_HTAG_END
	.short	0
	.long	8
mb2_header_end:
	.section .note.GNU-stack, "", @progbits
