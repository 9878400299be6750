/* kernel_image.h - the header at the start of the flat kernel image, written by linker.ld.
 *
 * A boot path copies the image to any page-aligned physical address, zeroes
 * up to mem_size, maps it at link_base and jumps to entry. */
#ifndef QB_KERNEL_IMAGE_H
#define QB_KERNEL_IMAGE_H

#include <stdint.h>

#define KERNEL_IMAGE_MAGIC 0x314e524b42425151ull /* "QQBBKRN1" */

struct kernel_image_header {
	uint64_t magic;      /* KERNEL_IMAGE_MAGIC */
	uint64_t link_base;  /* virtual address of the first byte of the image */
	uint64_t entry;      /* virtual address of kernel_start */
	uint64_t file_size;  /* bytes that come from the file (text, rodata, data) */
	uint64_t mem_size;   /* bytes including bss, page-aligned */
} __attribute__((packed));
_Static_assert(sizeof(struct kernel_image_header) == 40, "linker.ld writes five quads");

#endif
