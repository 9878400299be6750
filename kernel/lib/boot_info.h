/* boot_info.h - everything the kernel knows about how it was booted.
 *
 * The boot path (boot/efi_*.c for UEFI; later multiboot2) fills one of these
 * and jumps to kernel_entry. The kernel reads nothing else from the loader. */
#ifndef QB_KERNEL_BOOT_INFO_H
#define QB_KERNEL_BOOT_INFO_H

#include <stdint.h>
#include "qb_limits.h"

#define BOOT_INFO_MAGIC 0x314f464e49425151ull /* "QQBINFO1" little-endian */
#define BOOT_INFO_VERSION 5

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

/* Where the run's log can be written (issue 17): the results files tools/mkimage
 * put on the stick, as the UEFI loader found them. */
enum boot_results_status {
	BOOT_RESULTS_NOT_LOOKED = 0, /* the loader did not look (multiboot2) */
	BOOT_RESULTS_FOUND,          /* both files found, headers matched on the raw disk, and the disk is USB */
	BOOT_RESULTS_NOT_USB,        /* files found, but the boot disk is not on USB (why says what it is) */
	BOOT_RESULTS_NONE,           /* no usable results file on the boot volume (why says what went wrong) */
};

#define BOOT_RESULTS_MAX_PORTS 7     /* a root port and up to 5 hubs (USB allows 5 tiers of hubs) */
#define BOOT_RESULTS_WHY 128
#define BOOT_RESULTS_PATH 192

struct boot_results {
	uint32_t status;             /* enum boot_results_status */
	uint32_t block_size;         /* the disk's, bytes */
	uint64_t log_offset;         /* /quietbench/results.log: first byte on the disk (its header) */
	uint64_t log_length;         /* bytes, header included */
	uint64_t prev_offset;        /* /quietbench/results.prev */
	uint64_t prev_length;
	char id[24];                 /* the headers' id (16 hex digits) */
	char boot[24];               /* this boot's mark, written into both headers by the loader */
	uint16_t pci_segment;        /* the USB host controller's PCI address */
	uint8_t pci_bus, pci_dev, pci_fn;
	uint8_t n_ports;             /* ports[0] is the root port, then each hub's port (1-based) */
	uint8_t ports[BOOT_RESULTS_MAX_PORTS];
	uint8_t lun;                 /* the mass-storage logical unit */
	uint8_t pad[3];
	char why[BOOT_RESULTS_WHY];  /* for any status but FOUND */
	char device_path[BOOT_RESULTS_PATH]; /* the boot volume's UEFI device path, as text */
};

/* This boot's place in a series of boots (series=N, issue 37), as the UEFI
 * loader found it in the stick's /quietbench/series/ logs (kernel/lib/resseries.h). */
enum boot_series_status {
	BOOT_SERIES_NOT_LOOKED = 0,  /* the loader did not look: no results files proven on a USB stick */
	BOOT_SERIES_NONE,            /* no series asked, none under way on the stick */
	BOOT_SERIES_RUN,             /* this boot is boot `boot` of `of`: its log proven and marked */
	BOOT_SERIES_REFUSED,         /* series= asked, but the stick cannot keep it (why says why) */
};

#define BOOT_SERIES_MAX 20           /* RESSERIES_MAX: the logs tools/mkimage makes */

/* A series log: where it is on the disk (its header's first byte). */
struct boot_series_log {
	uint64_t offset;
	uint64_t length;             /* bytes, header included; 0: not proven (neither written nor emptied) */
};

struct boot_series {
	uint32_t status;             /* enum boot_series_status */
	uint32_t boot, of;           /* boot k of N: it writes log k */
	uint32_t tries;              /* this boot's start: 1, more when earlier ones were cut before their done */
	uint32_t again;              /* 1: log k held an earlier start of this boot that did not reach its done */
	uint32_t n_logs;             /* series logs on the stick */
	uint32_t empty;              /* logs this boot empties first (bit i: log i + 1) */
	uint32_t replaced;           /* 1: the command line is the series' own, kept in its logs, not the entry's */
	char id[24];                 /* the series' id (16 hex digits: its first boot's mark) */
	struct boot_series_log logs[BOOT_SERIES_MAX]; /* log k and the logs to empty, proven and marked */
	char entry_cmdline[QB_MAX_CMDLINE]; /* replaced: the command line the boot entry gave */
	char why[BOOT_RESULTS_WHY];  /* REFUSED: why; RUN: a note (a series= word that was not followed) */
};

enum boot_loader { BOOT_LOADER_UEFI = 1, BOOT_LOADER_MULTIBOOT2 = 2 };

/* Where the loader found the SMBIOS entry point (issue 37): the UEFI
 * configuration table's SMBIOS 3 GUID, else its SMBIOS GUID; or the legacy
 * scan of 0xF0000-0xFFFFF (DSP0134 5.2.1) on the multiboot2 path. */
enum boot_smbios_source { BOOT_SMBIOS_NONE = 0, BOOT_SMBIOS_EFI3, BOOT_SMBIOS_EFI, BOOT_SMBIOS_SCAN };

/* What became of the loader's copy of the structure table. */
enum boot_smbios_copy {
	BOOT_SMBIOS_COPIED = 0,      /* every structure up to End-of-Table, in loader memory */
	BOOT_SMBIOS_NOT_FOUND,       /* no entry point */
	BOOT_SMBIOS_BAD_EP,          /* an entry point that did not decode: smbios_ep has its bytes */
	BOOT_SMBIOS_NO_MEMORY,       /* no pages for the copy */
	BOOT_SMBIOS_UNREACHABLE,     /* the table lies where this loader cannot read (above 4 GiB on multiboot2) */
	BOOT_SMBIOS_EMPTY,           /* the table's first structure did not fit its stated length */
};

#define BOOT_SMBIOS_EP_MAX 32      /* bytes of the largest entry point (0x1F) */
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
	uint64_t handoff_pt_ticks;      /* TSC ticks the boot path spent building its page tables */
	uint32_t mmap_count;            /* entries used in mmap[] */
	uint32_t mmap_dropped;          /* ranges that did not fit (reported as an error) */
	uint32_t mmap_fixups;           /* overlaps and unaligned ranges the normaliser had to repair */
	uint32_t pad;
	struct boot_results results;
	struct boot_series series;      /* series=N: boot k of N, as the UEFI loader found the stick's logs */
	uint64_t smbios_ep_phys;        /* where the SMBIOS entry point was found, 0 if none */
	uint32_t smbios_source;         /* enum boot_smbios_source */
	uint32_t smbios_copy;           /* enum boot_smbios_copy */
	uint8_t smbios_ep[BOOT_SMBIOS_EP_MAX]; /* the entry point's bytes, for the kernel to decode and check */
	uint64_t smbios_table_phys;     /* the loader's copy of the structure table (BOOT_MEM_LOADER), 0 if none */
	uint32_t smbios_table_len;      /* its bytes: whole structures, End-of-Table the last */
	uint32_t smbios_capped;         /* 1 if the entry point allowed more than QB_SMBIOS_MAX_TABLE: read no further */
	struct boot_mem_range mmap[QB_MAX_MEM_RANGES];
};

/* Name of a memory type for records ("usable", "reserved", ...). */
const char *boot_mem_type_name(uint32_t type);

/* The kernel's entry point, called by the boot path on the boot stack with
 * interrupts off, paging on with the boot path's tables, and the kernel image
 * mapped at its link address. It does not return. */
void kernel_entry(struct boot_info *bi);

#endif
