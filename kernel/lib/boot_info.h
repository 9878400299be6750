/* boot_info.h - everything the kernel knows about how it was booted.
 *
 * The boot path (boot/efi_*.c for UEFI; later multiboot2) fills one of these
 * and jumps to kernel_entry. The kernel reads nothing else from the loader. */
#ifndef QB_KERNEL_BOOT_INFO_H
#define QB_KERNEL_BOOT_INFO_H

#include <stdint.h>
#include "qb_limits.h"

#define BOOT_INFO_MAGIC 0x314f464e49425151ull /* "QQBINFO1" little-endian */
#define BOOT_INFO_VERSION 1

/* Memory types after normalisation; the boot path maps its firmware's types onto these. */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,      /* free RAM the kernel may hand out */
	BOOT_MEM_RESERVED,        /* firmware-reserved, never touched */
	BOOT_MEM_ACPI_RECLAIM,    /* ACPI tables: RAM, read by the kernel */
	BOOT_MEM_ACPI_NVS,        /* ACPI NVS: RAM, never written */
	BOOT_MEM_UNUSABLE,        /* RAM with errors */
	BOOT_MEM_LOADER,          /* in use by the boot handoff: kernel image, boot_info, stacks, page tables */
	BOOT_MEM_FW_CODE,         /* firmware runtime code (called for ResetSystem), mapped executable */
	BOOT_MEM_FW_DATA,         /* firmware runtime data */
	BOOT_MEM_MMIO,            /* memory-mapped I/O described by the firmware */
	BOOT_MEM_PERSISTENT,      /* persistent memory, not used */
	BOOT_MEM_SPECIFIC,        /* specific-purpose RAM (UEFI EFI_MEMORY_SP: CXL, HBM): not general RAM, not used */
	BOOT_MEM_NOT_WB,          /* RAM the firmware does not allow write-back caching on: not used */
	BOOT_MEM_MMIO_RUNTIME,    /* MMIO the firmware's runtime services use (EFI_MEMORY_RUNTIME): mapped before ResetSystem */
	BOOT_MEM_TYPE_COUNT
};

/* One normalised memory range: sorted by base, non-overlapping, page-aligned. */
struct boot_mem_range {
	uint64_t base;
	uint64_t length;
	uint32_t type; /* enum boot_mem_type */
	uint32_t pad;
};

/* Pixel layouts of a linear framebuffer. */
enum boot_fb_format { BOOT_FB_NONE = 0, BOOT_FB_RGBX, BOOT_FB_BGRX, BOOT_FB_BITMASK };

/* The linear framebuffer the firmware left set up (GOP on UEFI). */
struct boot_fb {
	uint64_t base;      /* physical address, 0 if there is none */
	uint64_t size;      /* bytes */
	uint32_t width, height;
	uint32_t pitch;     /* bytes per scan line */
	uint32_t format;    /* enum boot_fb_format */
	uint32_t mask_red, mask_green, mask_blue, mask_reserved; /* BOOT_FB_BITMASK only */
	uint32_t mode;      /* firmware mode number */
	uint32_t pad;
};

enum boot_loader { BOOT_LOADER_UEFI = 1, BOOT_LOADER_MULTIBOOT2 = 2 };
enum boot_rsdp_source { BOOT_RSDP_NONE = 0, BOOT_RSDP_ACPI20, BOOT_RSDP_ACPI10 };

struct boot_info {
	uint64_t magic;                 /* BOOT_INFO_MAGIC */
	uint32_t version;               /* BOOT_INFO_VERSION */
	uint32_t loader;                /* enum boot_loader */
	char cmdline[QB_MAX_CMDLINE];   /* ASCII, NUL-terminated; non-ASCII replaced by '?' */
	uint32_t cmdline_truncated;     /* 1 if the loader's command line did not fit */
	char fw_vendor[64];             /* firmware vendor, ASCII */
	uint32_t fw_revision;           /* firmware's own revision number */
	uint32_t uefi_revision;         /* EFI system table revision (major << 16 | minor), 0 if none */
	uint64_t rsdp_phys;             /* ACPI RSDP, 0 if none */
	uint32_t rsdp_source;           /* enum boot_rsdp_source */
	uint32_t exit_tries;            /* ExitBootServices attempts it took */
	struct boot_fb fb;
	uint64_t efi_runtime_services;  /* EFI_RUNTIME_SERVICES table (physical mode), 0 if none */
	uint64_t efi_reset_system;      /* its ResetSystem (MS ABI), 0 if none */
	uint64_t trampoline_phys;       /* one 4 KiB page below 1 MiB for the AP start-up code, 0 if none */
	uint64_t kernel_phys;           /* physical base of the kernel image */
	uint64_t kernel_size;           /* bytes of image + bss, page-aligned */
	uint64_t stack_phys;            /* the BSP's boot stack */
	uint64_t stack_size;
	uint64_t loader_bytes;          /* everything the boot path allocated for the kernel (BOOT_MEM_LOADER) */
	uint64_t entry_tsc;             /* TSC when the boot path started, for the boot-time figure */
	uint32_t mmap_count;            /* entries used in mmap[] */
	uint32_t mmap_dropped;          /* ranges that did not fit (reported as an error) */
	uint32_t mmap_fixups;           /* overlaps and unaligned ranges the normaliser had to repair */
	uint32_t pad;
	struct boot_mem_range mmap[QB_MAX_MEM_RANGES];
};

/* Name of a memory type for records ("usable", "reserved", ...). */
const char *boot_mem_type_name(uint32_t type);

/* The kernel's entry point, called by the boot path on the boot stack with
 * interrupts off, paging on with the boot path's tables, and the kernel image
 * mapped at its link address. It does not return. */
void kernel_entry(struct boot_info *bi);

#endif
