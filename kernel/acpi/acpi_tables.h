/* acpi_tables.h - packed wire layouts of the ACPI tables QuietBench reads, per ACPI 6.5 ch. 5.2 (SLIT 5.2.17 and HMAT 5.2.28 among them), IA-PC HPET 1.0a, Microsoft SPCR rev 2-4, Intel VT-d 3.x ch. 8 (DMAR) and the AMD IOMMU specification §5.2 (IVRS).
 *
 * Only the acpi*.c parsers include this header. Every struct is the exact
 * firmware layout: packed, its spec section cited, its size asserted, and
 * offsets that the parsers depend on asserted too. The tail of the file
 * declares the helpers the parser files share. */
#ifndef QB_KERNEL_ACPI_TABLES_H
#define QB_KERNEL_ACPI_TABLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "acpi.h"

#define ACPI_PACKED __attribute__((packed))

/* ---- 5.2.3.2 Generic Address Structure (12 bytes) ------------------------ */
struct acpi_gas_raw {
	uint8_t space_id;      /* 0: address space, ACPI_GAS_SPACE_* */
	uint8_t bit_width;     /* 1: register width in bits */
	uint8_t bit_offset;    /* 2: register offset in bits */
	uint8_t access_size;   /* 3: ACPI_GAS_ACCESS_* */
	uint64_t address;      /* 4: unaligned */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_gas_raw) == 12, "ACPI 6.5 5.2.3.2: GAS is 12 bytes");

/* ---- 5.2.5.3 Root System Description Pointer ----------------------------- */
#define ACPI_RSDP_SIG "RSD PTR "
#define ACPI_RSDP_SIG_LEN 8
#define ACPI_RSDP_V1_LEN 20          /* bytes covered by the first checksum */
#define ACPI_RSDP_REV_XSDT 2         /* revision from which length/XSDT exist */
#define ACPI_RSDP_MAX_LEN 4096       /* bound on the length field (6.5 defines 36) */

struct acpi_rsdp_raw {
	char signature[ACPI_RSDP_SIG_LEN];  /* 0: "RSD PTR " */
	uint8_t checksum;                   /* 8: over the first 20 bytes */
	char oem_id[ACPI_OEM_ID_LEN];       /* 9 */
	uint8_t revision;                   /* 15: 0 for ACPI 1.0, 2 since 2.0 */
	uint32_t rsdt_address;              /* 16 */
	uint32_t length;                    /* 20: revision >= 2 only */
	uint64_t xsdt_address;              /* 24: revision >= 2 only */
	uint8_t extended_checksum;          /* 32: over length bytes */
	uint8_t reserved[3];                /* 33 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_rsdp_raw) == 36, "ACPI 6.5 5.2.5.3: RSDP is 36 bytes");
_Static_assert(offsetof(struct acpi_rsdp_raw, length) == ACPI_RSDP_V1_LEN,
	       "ACPI 6.5 5.2.5.3: the 1.0 RSDP ends at the length field");

/* ---- 5.2.6 System Description Table Header ------------------------------- */
#define ACPI_OEM_TABLE_ID_LEN 8

struct acpi_sdt_header {
	char signature[ACPI_SIG_LEN];           /* 0 */
	uint32_t length;                        /* 4: whole table, header included */
	uint8_t revision;                       /* 8 */
	uint8_t checksum;                       /* 9: whole table sums to 0 */
	char oem_id[ACPI_OEM_ID_LEN];           /* 10 */
	char oem_table_id[ACPI_OEM_TABLE_ID_LEN]; /* 16 */
	uint32_t oem_revision;                  /* 24 */
	uint32_t creator_id;                    /* 28 */
	uint32_t creator_revision;              /* 32 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_sdt_header) == ACPI_HEADER_LEN, "ACPI 6.5 5.2.6: header is 36 bytes");

/* 5.2.7 RSDT and 5.2.8 XSDT: the header followed by 32- or 64-bit addresses. */
#define ACPI_RSDT_ENTRY_LEN 4
#define ACPI_XSDT_ENTRY_LEN 8

/* ---- 5.2.12 Multiple APIC Description Table ------------------------------ */
#define ACPI_MADT_FLAG_PCAT_COMPAT (1u << 0) /* Table 5.20: dual 8259s present */

struct acpi_madt_raw {
	struct acpi_sdt_header header;  /* 0: "APIC" */
	uint32_t lapic_address;         /* 36 */
	uint32_t flags;                 /* 40: ACPI_MADT_FLAG_* */
} ACPI_PACKED;                          /* 44: interrupt controller structures */
_Static_assert(sizeof(struct acpi_madt_raw) == 44, "ACPI 6.5 5.2.12: MADT fixed part is 44 bytes");

/* The 2-byte head shared by MADT (5.2.12) and SRAT (5.2.16) entries. */
struct acpi_subtable {
	uint8_t type;    /* 0 */
	uint8_t length;  /* 1: whole entry, >= 2 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_subtable) == 2, "ACPI 6.5 5.2.12: entry head is 2 bytes");

/* Table 5.21: interrupt controller structure types that QuietBench reads. */
#define ACPI_MADT_TYPE_LAPIC 0
#define ACPI_MADT_TYPE_LAPIC_OVERRIDE 5
#define ACPI_MADT_TYPE_X2APIC 9

/* Table 5.23: Local APIC Flags (also used by the x2APIC entry). */
#define ACPI_MADT_CPU_ENABLED (1u << 0)
#define ACPI_MADT_CPU_ONLINE_CAPABLE (1u << 1)
/* Placeholder IDs: the entry describes no processor (ACPI 6.5 5.2.12.2: a
 * LAPIC entry's 0xFF; x2APIC 0xFFFFFFFF, as firmware pads its tables). */
#define ACPI_MADT_LAPIC_ID_NONE 0xffu
#define ACPI_MADT_X2APIC_ID_NONE 0xffffffffu

/* 5.2.12.2 Processor Local APIC Structure. */
struct acpi_madt_lapic {
	struct acpi_subtable head;      /* 0: type 0, length 8 */
	uint8_t processor_uid;          /* 2 */
	uint8_t apic_id;                /* 3 */
	uint32_t flags;                 /* 4: ACPI_MADT_CPU_* */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_lapic) == 8, "ACPI 6.5 5.2.12.2: 8 bytes");

/* 5.2.12.8 Local APIC Address Override Structure. */
struct acpi_madt_lapic_override {
	struct acpi_subtable head;      /* 0: type 5, length 12 */
	uint16_t reserved;              /* 2 */
	uint64_t lapic_address;         /* 4 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_lapic_override) == 12, "ACPI 6.5 5.2.12.8: 12 bytes");

/* 5.2.12.12 Processor Local x2APIC Structure. */
struct acpi_madt_x2apic {
	struct acpi_subtable head;      /* 0: type 9, length 16 */
	uint16_t reserved;              /* 2 */
	uint32_t x2apic_id;             /* 4 */
	uint32_t flags;                 /* 8: ACPI_MADT_CPU_* */
	uint32_t processor_uid;         /* 12 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_madt_x2apic) == 16, "ACPI 6.5 5.2.12.12: 16 bytes");

/* ---- 5.2.16 System Resource Affinity Table ------------------------------- */
struct acpi_srat_raw {
	struct acpi_sdt_header header;  /* 0: "SRAT" */
	uint32_t reserved1;             /* 36: must be 1 */
	uint64_t reserved2;             /* 40 */
} ACPI_PACKED;                          /* 48: static resource allocation structures */
_Static_assert(sizeof(struct acpi_srat_raw) == 48, "ACPI 6.5 5.2.16: SRAT fixed part is 48 bytes");

/* Table 5.61: static resource allocation structure types. */
#define ACPI_SRAT_TYPE_CPU 0
#define ACPI_SRAT_TYPE_MEM 1
#define ACPI_SRAT_TYPE_X2APIC 2

/* Tables 5.63 and 5.67: bit 0 of every affinity structure's flags. */
#define ACPI_SRAT_ENABLED (1u << 0)
/* Table 5.65: Memory Affinity flags. */
#define ACPI_SRAT_MEM_HOT_PLUGGABLE (1u << 1)
#define ACPI_SRAT_MEM_NON_VOLATILE (1u << 2)

#define ACPI_SRAT_DOMAIN_HI_LEN 3    /* bytes 9-11 of the CPU entry */
#define ACPI_SRAT_DOMAIN_HI_SHIFT 8  /* they hold domain bits 31:8 */

/* 5.2.16.1 Processor Local APIC/SAPIC Affinity Structure. */
struct acpi_srat_cpu {
	struct acpi_subtable head;      /* 0: type 0, length 16 */
	uint8_t domain_lo;              /* 2: proximity domain bits 7:0 */
	uint8_t apic_id;                /* 3 */
	uint32_t flags;                 /* 4: ACPI_SRAT_ENABLED */
	uint8_t local_sapic_eid;        /* 8 */
	uint8_t domain_hi[ACPI_SRAT_DOMAIN_HI_LEN]; /* 9: proximity domain bits 31:8 */
	uint32_t clock_domain;          /* 12 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_srat_cpu) == 16, "ACPI 6.5 5.2.16.1: 16 bytes");

/* 5.2.16.2 Memory Affinity Structure. */
struct acpi_srat_mem {
	struct acpi_subtable head;      /* 0: type 1, length 40 */
	uint32_t domain;                /* 2 */
	uint16_t reserved1;             /* 6 */
	uint32_t base_lo;               /* 8 */
	uint32_t base_hi;               /* 12 */
	uint32_t length_lo;             /* 16 */
	uint32_t length_hi;             /* 20 */
	uint32_t reserved2;             /* 24 */
	uint32_t flags;                 /* 28: ACPI_SRAT_ENABLED, ACPI_SRAT_MEM_* */
	uint64_t reserved3;             /* 32 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_srat_mem) == 40, "ACPI 6.5 5.2.16.2: 40 bytes");

/* 5.2.16.3 Processor Local x2APIC Affinity Structure. */
struct acpi_srat_x2apic {
	struct acpi_subtable head;      /* 0: type 2, length 24 */
	uint16_t reserved1;             /* 2 */
	uint32_t domain;                /* 4 */
	uint32_t x2apic_id;             /* 8 */
	uint32_t flags;                 /* 12: ACPI_SRAT_ENABLED */
	uint32_t clock_domain;          /* 16 */
	uint32_t reserved2;             /* 20 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_srat_x2apic) == 24, "ACPI 6.5 5.2.16.3: 24 bytes");

/* ---- 5.2.9 Fixed ACPI Description Table (Table 5.9) ---------------------- */
#define ACPI_FADT_V1_LEN 116                 /* ACPI 1.0 FADT ends after Flags */
#define ACPI_FADT_FLAG_TMR_VAL_EXT (1u << 8)     /* Table 5.10: 32-bit PM timer */
#define ACPI_FADT_FLAG_RESET_REG_SUP (1u << 10)  /* Table 5.10: RESET_REG usable */
#define ACPI_FADT_FLAG_HW_REDUCED (1u << 20)     /* Table 5.10: HW-reduced ACPI */

struct acpi_fadt_raw {
	struct acpi_sdt_header header;  /* 0: "FACP" */
	uint32_t firmware_ctrl;         /* 36 */
	uint32_t dsdt;                  /* 40 */
	uint8_t reserved1;              /* 44 */
	uint8_t preferred_pm_profile;   /* 45 */
	uint16_t sci_int;               /* 46 */
	uint32_t smi_cmd;               /* 48 */
	uint8_t acpi_enable;            /* 52 */
	uint8_t acpi_disable;           /* 53 */
	uint8_t s4bios_req;             /* 54 */
	uint8_t pstate_cnt;             /* 55 */
	uint32_t pm1a_evt_blk;          /* 56 */
	uint32_t pm1b_evt_blk;          /* 60 */
	uint32_t pm1a_cnt_blk;          /* 64 */
	uint32_t pm1b_cnt_blk;          /* 68 */
	uint32_t pm2_cnt_blk;           /* 72 */
	uint32_t pm_tmr_blk;            /* 76: I/O port of the PM timer */
	uint32_t gpe0_blk;              /* 80 */
	uint32_t gpe1_blk;              /* 84 */
	uint8_t pm1_evt_len;            /* 88 */
	uint8_t pm1_cnt_len;            /* 89 */
	uint8_t pm2_cnt_len;            /* 90 */
	uint8_t pm_tmr_len;             /* 91 */
	uint8_t gpe0_blk_len;           /* 92 */
	uint8_t gpe1_blk_len;           /* 93 */
	uint8_t gpe1_base;              /* 94 */
	uint8_t cst_cnt;                /* 95 */
	uint16_t p_lvl2_lat;            /* 96 */
	uint16_t p_lvl3_lat;            /* 98 */
	uint16_t flush_size;            /* 100 */
	uint16_t flush_stride;          /* 102 */
	uint8_t duty_offset;            /* 104 */
	uint8_t duty_width;             /* 105 */
	uint8_t day_alrm;               /* 106 */
	uint8_t mon_alrm;               /* 107 */
	uint8_t century;                /* 108 */
	uint16_t iapc_boot_arch;        /* 109 */
	uint8_t reserved2;              /* 111 */
	uint32_t flags;                 /* 112: ACPI_FADT_FLAG_* */
	struct acpi_gas_raw reset_reg;  /* 116: ACPI 2.0+ from here on */
	uint8_t reset_value;            /* 128 */
	uint16_t arm_boot_arch;         /* 129 */
	uint8_t minor_version;          /* 131 */
	uint64_t x_firmware_ctrl;       /* 132 */
	uint64_t x_dsdt;                /* 140 */
	struct acpi_gas_raw x_pm1a_evt_blk; /* 148 */
	struct acpi_gas_raw x_pm1b_evt_blk; /* 160 */
	struct acpi_gas_raw x_pm1a_cnt_blk; /* 172 */
	struct acpi_gas_raw x_pm1b_cnt_blk; /* 184 */
	struct acpi_gas_raw x_pm2_cnt_blk;  /* 196 */
	struct acpi_gas_raw x_pm_tmr_blk;   /* 208 */
	struct acpi_gas_raw x_gpe0_blk;     /* 220 */
	struct acpi_gas_raw x_gpe1_blk;     /* 232 */
	struct acpi_gas_raw sleep_control_reg; /* 244 */
	struct acpi_gas_raw sleep_status_reg;  /* 256 */
	uint64_t hypervisor_vendor_id;  /* 268 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_fadt_raw) == 276, "ACPI 6.5 Table 5.9: FADT is 276 bytes");
_Static_assert(offsetof(struct acpi_fadt_raw, pm_tmr_blk) == 76, "ACPI 6.5 Table 5.9: PM_TMR_BLK");
_Static_assert(offsetof(struct acpi_fadt_raw, flags) == 112, "ACPI 6.5 Table 5.9: Flags");
_Static_assert(offsetof(struct acpi_fadt_raw, reset_reg) == ACPI_FADT_V1_LEN, "ACPI 6.5 Table 5.9: RESET_REG");
_Static_assert(offsetof(struct acpi_fadt_raw, reset_value) == 128, "ACPI 6.5 Table 5.9: RESET_VALUE");
_Static_assert(offsetof(struct acpi_fadt_raw, x_pm_tmr_blk) == 208, "ACPI 6.5 Table 5.9: X_PM_TMR_BLK");

/* ---- IA-PC HPET 1.0a 3.2.4 HPET Description Table ------------------------ */
#define ACPI_HPET_ID_COMPARATORS_SHIFT 8       /* Event Timer Block ID bits 12:8 */
#define ACPI_HPET_ID_COMPARATORS_MASK 0x1fu    /* ... hold the last comparator's number */
#define ACPI_HPET_ID_COUNTER_64BIT (1u << 13)  /* COUNT_SIZE_CAP */
#define ACPI_HPET_ID_VENDOR_SHIFT 16           /* bits 31:16: PCI vendor ID */

struct acpi_hpet_raw {
	struct acpi_sdt_header header;  /* 0: "HPET" */
	uint32_t event_timer_block_id;  /* 36: ACPI_HPET_ID_* */
	struct acpi_gas_raw base;       /* 40: register block */
	uint8_t hpet_number;            /* 52 */
	uint16_t min_tick;              /* 53: minimum clock ticks in periodic mode */
	uint8_t page_protection;        /* 55 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_hpet_raw) == 56, "HPET 1.0a 3.2.4: table is 56 bytes");

/* ---- Microsoft SPCR: Serial Port Console Redirection Table --------------- */
#define ACPI_SPCR_REV_UART_CLOCK 3     /* revision that added UART Clock Frequency */
#define ACPI_SPCR_REV_PRECISE_BAUD 4   /* revision that added Precise Baud Rate */

struct acpi_spcr_raw {
	struct acpi_sdt_header header;  /* 0: "SPCR" */
	uint8_t interface_type;         /* 36: ACPI_SPCR_IF_* (DBG2 port subtypes) */
	uint8_t reserved1[3];           /* 37 */
	struct acpi_gas_raw base;       /* 40: register block */
	uint8_t interrupt_type;         /* 52: ACPI_SPCR_INT_* bits */
	uint8_t irq;                    /* 53: PC-AT IRQ */
	uint32_t gsi;                   /* 54: global system interrupt */
	uint8_t baud_code;              /* 58: ACPI_SPCR_BAUD_* */
	uint8_t parity;                 /* 59 */
	uint8_t stop_bits;              /* 60 */
	uint8_t flow_control;           /* 61 */
	uint8_t terminal_type;          /* 62 */
	uint8_t language;               /* 63 */
	uint16_t pci_device_id;         /* 64 */
	uint16_t pci_vendor_id;         /* 66 */
	uint8_t pci_bus;                /* 68 */
	uint8_t pci_device;             /* 69 */
	uint8_t pci_function;           /* 70 */
	uint32_t pci_flags;             /* 71 */
	uint8_t pci_segment;            /* 75 */
	uint32_t uart_clock;            /* 76: revision 3+, else reserved */
} ACPI_PACKED;                          /* 80: revision 4 adds the fields below */
_Static_assert(sizeof(struct acpi_spcr_raw) == 80, "SPCR rev 2: table is 80 bytes");

/* SPCR rev 4 fields past the rev 2 layout. */
struct acpi_spcr_rev4_raw {
	struct acpi_spcr_raw rev2;      /* 0 */
	uint32_t precise_baud;          /* 80: bits/s; non-zero overrides baud_code */
	uint16_t namespace_len;         /* 84 */
	uint16_t namespace_offset;      /* 86 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_spcr_rev4_raw) == 88, "SPCR rev 4: fixed part is 88 bytes");

/* SPCR "Configured Baud Rate" codes. */
#define ACPI_SPCR_BAUD_KEEP 0      /* as configured by firmware */
#define ACPI_SPCR_BAUD_9600 3
#define ACPI_SPCR_BAUD_19200 4
#define ACPI_SPCR_BAUD_57600 6
#define ACPI_SPCR_BAUD_115200 7

/* ---- Intel VT-d 3.x §8.1 DMA Remapping Reporting (DMAR) table ------------ */
struct acpi_dmar_raw {
	struct acpi_sdt_header header;  /* 0: "DMAR" */
	uint8_t host_address_width;     /* 36: width - 1 */
	uint8_t flags;                  /* 37: ACPI_DMAR_* */
	uint8_t reserved[10];           /* 38 */
} ACPI_PACKED;                          /* 48: remapping structures */
_Static_assert(sizeof(struct acpi_dmar_raw) == 48, "VT-d 3.x 8.1: DMAR fixed part is 48 bytes");

/* VT-d §8.2: every remapping structure starts with a 16-bit type and length. */
struct acpi_dmar_sub {
	uint16_t type;                  /* 0: ACPI_DMAR_TYPE_* */
	uint16_t length;                /* 2: whole structure */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_dmar_sub) == 4, "VT-d 3.x 8.2: structure head is 4 bytes");

#define ACPI_DMAR_TYPE_DRHD 0           /* DMA remapping hardware unit */
#define ACPI_DMAR_TYPE_RMRR 1           /* reserved memory region */

/* VT-d §8.3 DMA Remapping Hardware Unit Definition; device scopes follow. */
struct acpi_dmar_drhd {
	struct acpi_dmar_sub head;      /* 0: type 0 */
	uint8_t flags;                  /* 4: ACPI_DRHD_INCLUDE_PCI_ALL */
	uint8_t size;                   /* 5: register set, 2^N 4 KiB pages (reserved before 3.0) */
	uint16_t segment;               /* 6 */
	uint64_t base;                  /* 8: register base address */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_dmar_drhd) == 16, "VT-d 3.x 8.3: DRHD fixed part is 16 bytes");

/* ---- AMD IOMMU specification 48882 §5.2 I/O Virtualization Reporting ------- */
struct acpi_ivrs_raw {
	struct acpi_sdt_header header;  /* 0: "IVRS" */
	uint32_t ivinfo;                /* 36: virtualization info */
	uint64_t reserved;              /* 40 */
} ACPI_PACKED;                          /* 48: definition blocks */
_Static_assert(sizeof(struct acpi_ivrs_raw) == 48, "AMD IOMMU 5.2.1: IVRS fixed part is 48 bytes");

/* §5.2.2: each definition block starts with a type, flags and a 16-bit length. */
struct acpi_ivrs_sub {
	uint8_t type;                   /* 0: ACPI_IVRS_TYPE_* */
	uint8_t flags;                  /* 1 */
	uint16_t length;                /* 2: whole block */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_ivrs_sub) == 4, "AMD IOMMU 5.2.2: block head is 4 bytes");

#define ACPI_IVRS_TYPE_IVHD_10 0x10     /* hardware definition, fixed legacy format */
#define ACPI_IVRS_TYPE_IVHD_11 0x11     /* with the EFR image */
#define ACPI_IVRS_TYPE_IVHD_40 0x40     /* with the EFR image, ACPI HID device entries */
#define ACPI_IVRS_TYPE_IVMD_FIRST 0x20  /* memory definitions 20h-22h */
#define ACPI_IVRS_TYPE_IVMD_LAST 0x22
#define ACPI_IVHD_10_LEN 24             /* device entries follow */
#define ACPI_IVHD_11_LEN 40

/* §5.2.2.1 IVHD: the part every type shares (types 11h and 40h add the
 * IOMMU attributes and an EFR image, up to 40 bytes). */
struct acpi_ivhd {
	struct acpi_ivrs_sub head;      /* 0: type 10h, 11h or 40h */
	uint16_t device_id;             /* 4: the IOMMU's requester ID */
	uint16_t cap_offset;            /* 6: its capability block in config space */
	uint64_t base;                  /* 8: IOMMU base address (MMIO) */
	uint16_t segment;               /* 16: PCI segment group */
	uint16_t info;                  /* 18: IOMMU info */
	uint32_t feature;               /* 20: feature reporting (10h) or attributes (11h, 40h) */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_ivhd) == ACPI_IVHD_10_LEN, "AMD IOMMU 5.2.2.1: IVHD type 10h is 24 bytes");

/* ---- 5.2.17 System Locality Information Table ---------------------------- */
struct acpi_slit_raw {
	struct acpi_sdt_header header;  /* 0: "SLIT" */
	uint64_t localities;            /* 36: N */
} ACPI_PACKED;                          /* 44: N x N one-byte distances, row i for locality i */
_Static_assert(sizeof(struct acpi_slit_raw) == 44, "ACPI 6.5 5.2.17: SLIT fixed part is 44 bytes");

#define ACPI_SLIT_LOCAL 10              /* a locality's distance to itself */
#define ACPI_SLIT_UNREACHABLE 0xffu     /* no route from one locality to the other */

/* ---- 5.2.28 Heterogeneous Memory Attribute Table ------------------------- */
#define ACPI_HMAT_REV_UNITS 2           /* ACPI 6.3's layout: latency in ps, bandwidth in MB/s */
#define ACPI_HMAT_REV_62 1              /* ACPI 6.2's: the same structure sizes; its units, acpi_hmat.c */

struct acpi_hmat_raw {
	struct acpi_sdt_header header;  /* 0: "HMAT" */
	uint32_t reserved;              /* 36 */
} ACPI_PACKED;                          /* 40: HMAT structures */
_Static_assert(sizeof(struct acpi_hmat_raw) == 40, "ACPI 6.5 5.2.28: HMAT fixed part is 40 bytes");

/* Table 5.146: every HMAT structure starts with a 16-bit type and a 32-bit length. */
struct acpi_hmat_sub {
	uint16_t type;                  /* 0: ACPI_HMAT_TYPE_* */
	uint16_t reserved;              /* 2 */
	uint32_t length;                /* 4: whole structure */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_hmat_sub) == 8, "ACPI 6.5 5.2.28.1: structure head is 8 bytes");

#define ACPI_HMAT_TYPE_DOMAIN 0         /* Memory Proximity Domain Attributes */
#define ACPI_HMAT_TYPE_LOCALITY 1       /* System Locality Latency and Bandwidth Information */
#define ACPI_HMAT_TYPE_CACHE 2          /* Memory Side Cache Information */

/* 5.2.28.3 Memory Proximity Domain Attributes Structure. In revision 1 (ACPI
 * 6.2 5.2.27.3, "Memory Subsystem Address Range Structure") bit 0 named the
 * processor domain valid, bit 1 the memory domain, and offsets 24 and 32
 * held a physical address range's base and length. */
#define ACPI_HMAT_INITIATOR_VALID (1u << 0) /* Flags bit 0: the initiator domain field is valid */
#define ACPI_HMAT_MEMORY_VALID_REV1 (1u << 1) /* revision 1 only: the memory domain field is valid */
struct acpi_hmat_domain_raw {
	struct acpi_hmat_sub head;      /* 0: type 0, length 40 */
	uint16_t flags;                 /* 8: ACPI_HMAT_INITIATOR_VALID */
	uint16_t reserved1;             /* 10 */
	uint32_t initiator_domain;      /* 12: the initiator attached to this memory */
	uint32_t memory_domain;         /* 16 */
	uint32_t reserved2;             /* 20 */
	uint64_t reserved3;             /* 24 */
	uint64_t reserved4;             /* 32 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_hmat_domain_raw) == 40, "ACPI 6.5 5.2.28.3: 40 bytes");

/* 5.2.28.4 System Locality Latency and Bandwidth Information Structure:
 * then the initiator and target proximity domain lists (4 bytes each) and
 * n_initiators x n_targets 16-bit entries, row by initiator. */
#define ACPI_HMAT_HIERARCHY_MASK 0x0fu  /* Flags bits 3:0: 0 memory, 1-3 memory-side cache level (acpi.h: bits 4, 5) */
#define ACPI_HMAT_ENTRY_NONE 0u         /* an entry of 0: not provided */
#define ACPI_HMAT_ENTRY_INVALID 0xffffu /* read as no value, as Linux does (hmat_normalize) */
struct acpi_hmat_locality_raw {
	struct acpi_hmat_sub head;      /* 0: type 1 */
	uint8_t flags;                  /* 8: ACPI_HMAT_HIERARCHY_MASK, ACPI_HMAT_MIN_TRANSFER, ... */
	uint8_t data_type;              /* 9: enum acpi_hmat_data */
	uint8_t min_transfer;           /* 10: Minimum Transfer Size (ACPI 6.4+) */
	uint8_t reserved1;              /* 11 */
	uint32_t n_initiators;          /* 12 */
	uint32_t n_targets;             /* 16 */
	uint32_t reserved2;             /* 20 */
	uint64_t base_unit;             /* 24: entry x base = ps (latency) or MB/s (bandwidth) */
} ACPI_PACKED;                          /* 32: the lists and entries */
_Static_assert(sizeof(struct acpi_hmat_locality_raw) == 32, "ACPI 6.5 5.2.28.4: fixed part is 32 bytes");

/* 5.2.28.5 Memory Side Cache Information Structure: then n_smbios 16-bit
 * SMBIOS handles. acpi.h's ACPI_HMAT_CACHE_* decode its Cache Attributes. */
struct acpi_hmat_cache_raw {
	struct acpi_hmat_sub head;      /* 0: type 2 */
	uint32_t memory_domain;         /* 8 */
	uint32_t reserved1;             /* 12 */
	uint64_t size;                  /* 16: bytes */
	uint32_t attributes;            /* 24: ACPI_HMAT_CACHE_* */
	uint16_t reserved2;             /* 28 */
	uint16_t n_smbios;              /* 30 */
} ACPI_PACKED;
_Static_assert(sizeof(struct acpi_hmat_cache_raw) == 32, "ACPI 6.5 5.2.28.5: fixed part is 32 bytes");

/* ---- Shared by the acpi_*.c parsers (not for other units) ---------------- */

/*
 * Check the buffer a parser was handed: at least a header, the expected
 * signature, a header length no larger than len and at least min_len.
 * Returns the table's own length, or 0 after recording an error.
 */
uint32_t acpi_table_len(const void *table, uint32_t len, const char sig[ACPI_SIG_LEN],
			uint32_t min_len, struct acpi_info *out);

/*
 * Return the MADT/SRAT entry at *off within a table of len bytes and advance
 * *off past it; NULL at the end or on a malformed entry (length below 2 or
 * overrunning the table), which records an error naming sig and the offset
 * when out is non-NULL and leaves *off at the faulty entry.
 */
const struct acpi_subtable *acpi_subtable_next(const void *table, uint32_t len, uint32_t *off,
					       const char sig[ACPI_SIG_LEN], struct acpi_info *out);

/* Decode a packed GAS into the aligned form kept in struct acpi_info. */
void acpi_gas_decode(const struct acpi_gas_raw *raw, struct acpi_addr *addr);

#endif
