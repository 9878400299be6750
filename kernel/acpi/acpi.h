/* acpi.h - ACPI table discovery and parsing (RSDP, XSDT/RSDT, MADT, SRAT, SLIT, HMAT, FADT, HPET, SPCR, DMAR, IVRS) per ACPI 6.5 ch. 5.2.
 *
 * Layer 5: acpi. The firmware's tables: RSDP, MADT, SRAT, SLIT, HMAT, FADT,
 * HPET, SPCR, DMAR, IVRS, mapped through mm. Includes lib, arch, console, mm; every layer from
 * measure up may include it; the layers below must not.
 *
 * Pure parsing: every byte is read through acpi_map(), nothing is written to
 * the firmware's tables, and all results land in a caller-provided struct
 * acpi_info of plain data. Faults are recorded in info->errors and the faulty
 * part is never trusted. */
#ifndef QB_KERNEL_ACPI_H
#define QB_KERNEL_ACPI_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#include "qb_limits.h"

#define ACPI_SIG_LEN 4                 /* table signature, e.g. "APIC" */
#define ACPI_OEM_ID_LEN 6              /* OEM ID in the RSDP and table headers */
#define ACPI_HEADER_LEN 36             /* 5.2.6 System Description Table Header */
#define ACPI_MAX_TABLE_LEN (1u << 20)  /* larger tables are rejected: 1 MiB */
#define ACPI_MAX_ERRORS 16             /* errors kept; later ones are only counted */
#define ACPI_ERR_MSG_LEN 48            /* bytes of message, NUL included */

#define ACPI_ERR (-1)                  /* return value of a failed step */

/* 5.2.3.2 Table 5.1: Generic Address Structure address space IDs. */
#define ACPI_GAS_SPACE_MEMORY 0
#define ACPI_GAS_SPACE_IO 1
#define ACPI_GAS_SPACE_PCI_CONFIG 2

/* 5.2.3.2 Table 5.1: GAS access sizes. */
#define ACPI_GAS_ACCESS_UNDEFINED 0
#define ACPI_GAS_ACCESS_BYTE 1
#define ACPI_GAS_ACCESS_WORD 2
#define ACPI_GAS_ACCESS_DWORD 3
#define ACPI_GAS_ACCESS_QWORD 4

/* SPCR Interface Type (DBG2 serial port subtypes) the kernel may support. */
#define ACPI_SPCR_IF_16550 0x00        /* full 16550 */
#define ACPI_SPCR_IF_16450 0x01        /* 16550 subset compatible with 16450 */
#define ACPI_SPCR_IF_16550_GAS 0x12    /* 16550 with parameters from the GAS */

/* SPCR Interrupt Type bits. */
#define ACPI_SPCR_INT_8259 (1u << 0)   /* PC-AT dual 8259, irq is valid */
#define ACPI_SPCR_INT_IOAPIC (1u << 1) /* I/O APIC, gsi is valid */

/* One recorded fault. */
struct acpi_error {
	char sig[ACPI_SIG_LEN + 1];    /* table signature or "RSDP", printable */
	char msg[ACPI_ERR_MSG_LEN];    /* short reason, e.g. "bad checksum" */
	uint64_t value;                /* context: table address or entry offset */
};

/* A decoded Generic Address Structure (5.2.3.2), aligned. */
struct acpi_addr {
	uint8_t space;                 /* ACPI_GAS_SPACE_* */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;           /* ACPI_GAS_ACCESS_* */
	uint64_t address;
};

/* What the RSDP (5.2.5) said and which root table was used. */
struct acpi_rsdp_info {
	uint64_t phys;                 /* where the RSDP was read */
	uint8_t revision;              /* 0: ACPI 1.0, 2: ACPI 2.0+ */
	bool used_xsdt;                /* the XSDT was used, else the RSDT */
	char oem_id[ACPI_OEM_ID_LEN + 1];
	uint64_t rsdt_phys;            /* as stated in the RSDP, 0 if none */
	uint64_t xsdt_phys;            /* as stated in the RSDP, 0 if none */
	uint64_t root_phys;            /* the root table that was walked */
	uint32_t root_len;             /* its length */
};

/* One entry of the root table. */
struct acpi_table_ref {
	char sig[ACPI_SIG_LEN + 1];    /* "" if the header was unreadable */
	char oem_id[ACPI_OEM_ID_LEN + 1];
	uint8_t revision;
	bool valid;                    /* mapped, length and checksum ok */
	uint32_t length;               /* as stated in the header */
	uint64_t phys;
};

/* One processor from the MADT (5.2.12.2 or 5.2.12.12). */
struct acpi_cpu {
	uint32_t apic_id;              /* x2APIC ID, or the 8-bit xAPIC ID */
	uint32_t uid;                  /* ACPI processor UID */
	bool enabled;                  /* flags bit 0: usable now */
	bool online_capable;           /* flags bit 1: may be enabled later */
	bool from_x2apic_entry;        /* came from a type-9 entry */
};

/* The MADT's processors and local APIC address. */
struct acpi_madt_info {
	bool present;                  /* a MADT was parsed (possibly partly) */
	bool lapic_overridden;         /* a type-5 entry replaced lapic_addr */
	bool pcat_compat;              /* flags bit 0: dual 8259s present */
	uint32_t flags;                /* MADT flags as read */
	uint64_t lapic_addr;           /* local APIC registers, physical */
	uint32_t n_cpus;               /* entries in cpus[], disabled ones included */
	uint32_t n_enabled;            /* of those, how many are enabled */
	uint32_t n_dropped;            /* entries past QB_MAX_CPUS */
	uint32_t n_duplicates;         /* entries dropped for a repeated APIC ID (both enabled, same type) */
	uint32_t n_merged;             /* entries folded into an earlier one for the same APIC ID: an
	                                  x2APIC entry repeating a LAPIC one, or an enabled entry
	                                  replacing a disabled one (both normal) */
	uint32_t n_placeholders;       /* LAPIC ID 0xFF / x2APIC ID 0xFFFFFFFF entries: no CPU, skipped */
	struct acpi_cpu cpus[QB_MAX_CPUS]; /* in table order */
};

/* A NUMA node: a proximity domain given a dense number (its index). */
struct acpi_node {
	uint32_t domain;               /* SRAT proximity domain */
	uint32_t n_cpus;               /* enabled CPU affinities on it */
	uint64_t mem_bytes;            /* enabled memory on it */
};

/* 5.2.16.1/5.2.16.3: which node a CPU belongs to. */
struct acpi_cpu_affinity {
	uint32_t apic_id;
	uint32_t node;                 /* dense node number */
};

/* 5.2.16.2: which node a memory range belongs to. */
struct acpi_mem_affinity {
	uint64_t base;
	uint64_t length;               /* > 0; base + length does not wrap */
	uint32_t node;                 /* dense node number */
	bool hot_pluggable;
	bool non_volatile;
};

/* The SRAT's enabled entries, with domains renumbered 0..n_nodes-1 by increasing domain. */
struct acpi_srat_info {
	bool present;                  /* a SRAT was parsed (possibly partly) */
	uint32_t n_nodes;
	uint32_t n_cpus;
	uint32_t n_mem;
	uint32_t n_dropped_domain;     /* entries on domains past QB_MAX_NODES */
	uint32_t n_dropped_cpu;        /* CPU affinities past QB_MAX_CPUS or repeated */
	uint32_t n_dropped_mem;        /* memory ranges past QB_MAX_SRAT_MEM */
	struct acpi_node nodes[QB_MAX_NODES];
	struct acpi_cpu_affinity cpus[QB_MAX_CPUS];
	struct acpi_mem_affinity mem[QB_MAX_SRAT_MEM];
};

/* The SLIT (5.2.17): relative distances between proximity domains; locality
 * i is proximity domain i. Kept only when every distance is valid (10 on
 * the diagonal, above 10 elsewhere), as Linux's slit_valid() demands. */
struct acpi_slit_info {
	bool present;                  /* a SLIT was parsed and passed its checks */
	uint64_t localities;           /* N, as the table states it */
	uint32_t n;                    /* localities kept: min(N, QB_MAX_NODES) */
	uint8_t dist[QB_MAX_NODES][QB_MAX_NODES]; /* [from][to]: 10 itself, 0xff no route */
};

/* The HMAT (5.2.28): what the firmware claims memory costs each initiator. */
#define ACPI_HMAT_MAX_DOMAINS QB_MAX_NODES /* memory proximity domain attributes kept */
#define ACPI_HMAT_MAX_LB 16            /* latency and bandwidth structures kept */
#define ACPI_HMAT_MAX_LIST QB_MAX_NODES /* initiators, or targets, of one structure */
#define ACPI_HMAT_MAX_ENTRIES (2u * QB_MAX_NODES * QB_MAX_NODES) /* entries of all kept structures */
#define ACPI_HMAT_MAX_CACHES 16        /* memory-side caches kept */

/* 5.2.28.4 Table 5.149: what a latency and bandwidth structure gives. */
enum acpi_hmat_data {
	ACPI_HMAT_ACCESS_LATENCY,      /* read and write alike */
	ACPI_HMAT_READ_LATENCY,
	ACPI_HMAT_WRITE_LATENCY,
	ACPI_HMAT_ACCESS_BANDWIDTH,
	ACPI_HMAT_READ_BANDWIDTH,
	ACPI_HMAT_WRITE_BANDWIDTH,
	ACPI_HMAT_DATA_TYPES
};

/* 5.2.28.3: a memory domain and the initiator attached to it. */
struct acpi_hmat_domain {
	uint32_t memory_domain;        /* meaningful only with memory_valid */
	uint32_t initiator_domain;     /* meaningful only with initiator_valid */
	bool initiator_valid;
	bool memory_valid;             /* always from revision 2; revision 1's Flags bit 1 */
};

/* 5.2.28.4: one latency or bandwidth structure, its entries in acpi_hmat_info.entries. */
#define ACPI_HMAT_MIN_TRANSFER (1u << 4) /* Flags bit 4: values need the minimum transfer size */
#define ACPI_HMAT_NON_SEQUENTIAL (1u << 5) /* Flags bit 5: values are for non-sequential transfers */

struct acpi_hmat_lb {
	uint8_t flags;                 /* as read: hierarchy, min-transfer and non-sequential bits */
	uint8_t hierarchy;             /* 0 memory, 1-3 a memory-side cache level */
	uint8_t data_type;             /* enum acpi_hmat_data, or a reserved value as read */
	uint8_t min_transfer;          /* Minimum Transfer Size, as read */
	uint64_t base_unit;            /* Entry Base Unit */
	uint32_t n_init, n_target;
	uint32_t init[ACPI_HMAT_MAX_LIST];   /* initiator proximity domains */
	uint32_t target[ACPI_HMAT_MAX_LIST]; /* target proximity domains */
	uint32_t first;                /* entries[first + i * n_target + j]: initiator i to target j */
};

/* 5.2.28.5: one memory-side cache. Table 5.153's Cache Attributes: */
#define ACPI_HMAT_CACHE_LEVELS(a) ((a) & 0xfu)           /* Cache Attributes bits 3:0: total levels */
#define ACPI_HMAT_CACHE_LEVEL(a) (((a) >> 4) & 0xfu)     /* bits 7:4: this cache's level */
#define ACPI_HMAT_CACHE_ASSOC(a) (((a) >> 8) & 0xfu)     /* bits 11:8: 0 none, 1 direct, 2 complex */
#define ACPI_HMAT_CACHE_POLICY(a) (((a) >> 12) & 0xfu)   /* bits 15:12: 0 none, 1 write-back, 2 write-through */
#define ACPI_HMAT_CACHE_LINE(a) ((a) >> 16)              /* bits 31:16: line size in bytes */

struct acpi_hmat_cache {
	uint32_t memory_domain;
	uint64_t size;                 /* bytes */
	uint32_t attributes;           /* Cache Attributes as read (ACPI_HMAT_CACHE_* decode it) */
	uint16_t n_smbios;             /* SMBIOS handles listed */
};

/* How an HMAT's entries become ns and MB/s (acpi_hmat_rule()): entry x
 * Entry Base Unit is ps (then / 1000) or MB/s under both rules; revision 1's
 * is a choice that Linux makes otherwise (kernel/acpi/acpi_hmat.c). */
enum acpi_hmat_rule {
	ACPI_HMAT_RULE_NONE,           /* no HMAT, or a revision whose units are not known: no values */
	ACPI_HMAT_RULE_REV2,           /* revision 2 (ACPI 6.3 on): the units it states */
	ACPI_HMAT_RULE_REV1_AS_REV2,   /* revision 1 (ACPI 6.2): revision 2's units, not Linux's / 10 */
};

/* Everything the HMAT says. Values are in ps or MB/s from revision 2 (ACPI
 * 6.3) on, and revision 1 is read the same way: acpi_hmat_rule(). */
struct acpi_hmat_info {
	bool present;                  /* an HMAT was parsed (possibly partly) */
	uint8_t revision;
	uint32_t n_domains, n_lb, n_caches;
	uint32_t n_entries;            /* entries[] in use */
	uint32_t n_dropped;            /* structures past the limits above */
	struct acpi_hmat_domain domains[ACPI_HMAT_MAX_DOMAINS];
	struct acpi_hmat_lb lb[ACPI_HMAT_MAX_LB];
	struct acpi_hmat_cache caches[ACPI_HMAT_MAX_CACHES];
	uint16_t entries[ACPI_HMAT_MAX_ENTRIES];
};

/* From the FADT (5.2.9): the PM timer and the reset register. */
struct acpi_fadt_info {
	bool present;
	uint8_t revision;
	uint32_t length;
	uint32_t flags;                /* FADT Flags (Table 5.10) */
	bool hw_reduced;               /* HW_REDUCED_ACPI: no PM timer */
	bool pm_timer_present;
	bool pm_timer_mmio;            /* system memory, else an I/O port */
	bool pm_timer_32bit;           /* TMR_VAL_EXT, else 24 bits */
	uint64_t pm_timer_addr;        /* port or physical address */
	bool reset_present;            /* RESET_REG_SUP and the fields exist */
	uint8_t reset_value;
	struct acpi_addr reset_reg;
};

/* From the HPET table (IA-PC HPET 1.0a 3.2.4). */
struct acpi_hpet_info {
	bool present;                  /* only with a system-memory base */
	bool counter_64bit;            /* COUNT_SIZE_CAP */
	uint8_t number;                /* HPET sequence number */
	uint8_t n_comparators;
	uint16_t vendor_id;            /* PCI vendor ID of the block */
	uint16_t min_tick;             /* minimum periodic tick, in counter ticks */
	uint64_t base;                 /* register block, physical */
};

/* From the SPCR: decoded only, the kernel decides what it supports. */
struct acpi_spcr_info {
	bool present;
	uint8_t revision;
	uint8_t interface_type;        /* ACPI_SPCR_IF_* */
	uint8_t interrupt_type;        /* ACPI_SPCR_INT_* */
	uint8_t irq;
	uint8_t baud_code;             /* raw Configured Baud Rate */
	uint32_t gsi;
	uint32_t baud;                 /* bits/s, 0: keep the firmware's setting */
	uint32_t uart_clock;           /* Hz, revision 3 and later; 0: not given */
	struct acpi_addr base;
};

/* DMA remapping units: the DMAR's (Intel VT-d 3.x ch. 8) and the IVRS's (AMD
 * I/O Virtualization Technology (IOMMU) Specification 48882, §5.2). */
#define ACPI_MAX_IOMMUS 16             /* units kept; more are counted */
#define ACPI_DMAR_INTR_REMAP (1u << 0)        /* VT-d §8.1 DMAR flags */
#define ACPI_DMAR_X2APIC_OPT_OUT (1u << 1)
#define ACPI_DMAR_DMA_CTRL_OPT_IN (1u << 2)   /* the firmware protected memory from DMA before the OS */
#define ACPI_DRHD_INCLUDE_PCI_ALL (1u << 0)   /* VT-d §8.3: every device of its segment not listed elsewhere */

enum acpi_iommu_kind { ACPI_IOMMU_VTD = 1, ACPI_IOMMU_AMD };

/* One remapping unit: a DRHD (VT-d §8.3) or an IVHD (AMD §5.2.2). */
struct acpi_iommu {
	uint8_t kind;                  /* ACPI_IOMMU_* */
	uint8_t flags;                 /* DRHD flags, or the IVHD's */
	uint8_t ivhd_type;             /* AMD: the highest IVHD type listing it (0x10, 0x11, 0x40); 0 for VT-d */
	uint16_t segment;              /* PCI segment group */
	uint16_t device_id;            /* AMD: the IOMMU's own requester ID (bus << 8 | devfn) */
	uint64_t base;                 /* register base, physical */
};

/* The DMAR's remapping units and what the table says of them. */
struct acpi_dmar_info {
	bool present;                  /* a DMAR was parsed (possibly partly) */
	uint8_t haw;                   /* host address width in bits */
	uint8_t flags;                 /* ACPI_DMAR_* */
	uint32_t n_units;              /* entries in units[] */
	uint32_t n_dropped;            /* units past ACPI_MAX_IOMMUS */
	uint32_t n_rmrr;               /* reserved memory regions: memory firmware devices use by DMA */
	struct acpi_iommu units[ACPI_MAX_IOMMUS];
};

/* The IVRS's IOMMUs, one per register base. */
struct acpi_ivrs_info {
	bool present;                  /* an IVRS was parsed (possibly partly) */
	uint32_t ivinfo;               /* IVinfo */
	uint32_t n_units;              /* entries in units[] */
	uint32_t n_dropped;            /* units past ACPI_MAX_IOMMUS */
	uint32_t n_ivhd;               /* IVHD blocks read (one IOMMU may have several) */
	uint32_t n_ivmd;               /* memory definition blocks */
	struct acpi_iommu units[ACPI_MAX_IOMMUS];
};

/* Everything acpi_parse() found. Plain data: zero it, fill it, copy it. */
struct acpi_info {
	struct acpi_rsdp_info rsdp;
	uint32_t n_tables;             /* entries in tables[] */
	struct acpi_table_ref tables[QB_MAX_ACPI_TABLES];
	struct acpi_madt_info madt;
	struct acpi_srat_info srat;
	struct acpi_slit_info slit;    /* distances between domains */
	struct acpi_hmat_info hmat;    /* the firmware's latency and bandwidth claims */
	struct acpi_fadt_info fadt;
	struct acpi_hpet_info hpet;
	struct acpi_spcr_info spcr;
	struct acpi_dmar_info dmar;    /* Intel's remapping units */
	struct acpi_ivrs_info ivrs;    /* AMD's */
	uint32_t n_errors;             /* entries in errors[] */
	uint32_t n_errors_lost;        /* errors past ACPI_MAX_ERRORS */
	struct acpi_error errors[ACPI_MAX_ERRORS];
};

/*
 * Return a pointer to len bytes at physical address phys, or NULL if that
 * range is not accessible. Provided by the kernel (kernel/acpi/acpi_map.c) and by
 * the host tests (tests/unit/acpi_fixture.c). The parser maps nothing else.
 */
const void *acpi_map(uint64_t phys, uint64_t len);

/*
 * Find and parse everything: acpi_find_tables(), then the MADT, SRAT, SLIT,
 * HMAT, FADT, HPET, SPCR, DMAR and IVRS (first valid of each). Returns 0 if usable tables were found
 * (a MADT with at least one enabled CPU), ACPI_ERR otherwise. Errors of every
 * step are in out->errors either way.
 */
int acpi_parse(uint64_t rsdp_phys, struct acpi_info *out);

/*
 * Clear *out, validate the RSDP at rsdp_phys, walk the XSDT (or the RSDT when
 * the XSDT is absent or rejected) and list every entry in out->tables with
 * its validity. Returns 0 if a root table was walked, ACPI_ERR otherwise.
 */
int acpi_find_tables(uint64_t rsdp_phys, struct acpi_info *out);

/* First valid table with signature sig (4 chars, no NUL needed), or NULL. */
const struct acpi_table_ref *acpi_table(const struct acpi_info *info, const char sig[ACPI_SIG_LEN]);

/* Map a listed, valid table whole; NULL (with an error recorded) if it cannot be. */
const void *acpi_table_map(const struct acpi_table_ref *ref, struct acpi_info *out);

/* True if the len bytes at p sum to zero modulo 256 (p non-NULL). */
bool acpi_checksum_ok(const void *p, uint32_t len);

/*
 * The table parsers. Each takes a table whose checksum was already verified,
 * len bytes of which are readable; it bounds-checks every sub-structure
 * against min(len, the header's length), replaces its part of *out, and
 * records faults in out->errors. Returns 0 if the table was used (perhaps
 * only up to a malformed entry), ACPI_ERR if it was rejected whole.
 */
int acpi_parse_madt(const void *table, uint32_t len, struct acpi_info *out);
/* See acpi_parse_madt(); fills out->srat. */
int acpi_parse_srat(const void *table, uint32_t len, struct acpi_info *out);
/* See acpi_parse_madt(); fills out->fadt. Handles the 116-byte ACPI 1.0 FADT. */
int acpi_parse_fadt(const void *table, uint32_t len, struct acpi_info *out);
/* See acpi_parse_madt(); fills out->hpet. A base outside system memory is rejected. */
int acpi_parse_hpet(const void *table, uint32_t len, struct acpi_info *out);
/* See acpi_parse_madt(); fills out->spcr. */
int acpi_parse_spcr(const void *table, uint32_t len, struct acpi_info *out);

/* See acpi_parse_madt(); fills out->slit, or leaves it absent (with an
 * error) when a distance is invalid. */
int acpi_parse_slit(const void *table, uint32_t len, struct acpi_info *out);
/* See acpi_parse_madt(); fills out->hmat. */
int acpi_parse_hmat(const void *table, uint32_t len, struct acpi_info *out);

/* See acpi_parse_madt(); fills out->dmar. */
int acpi_parse_dmar(const void *table, uint32_t len, struct acpi_info *out);
/* See acpi_parse_madt(); fills out->ivrs, one unit per IOMMU register base. */
int acpi_parse_ivrs(const void *table, uint32_t len, struct acpi_info *out);

/* Dense NUMA node of the CPU with this APIC ID per the SRAT, or -1 if unknown. */
int acpi_node_of_apic(const struct acpi_info *info, uint32_t apic_id);

/* Dense NUMA node whose SRAT memory range covers phys, or -1 if none does. */
int acpi_node_of_addr(const struct acpi_info *info, uint64_t phys);

/* Dense NUMA node of an SRAT proximity domain, or -1 if the SRAT has none such. */
int acpi_node_of_domain(const struct acpi_info *info, uint32_t domain);

/* The SLIT's distance from one proximity domain to another, or -1 without one. */
int acpi_slit_distance(const struct acpi_info *info, uint32_t from, uint32_t to);

/* Whether the HMAT's entries have the units of ACPI 6.3 and later (revision 2):
 * latency entry x base unit in ps, bandwidth in MB/s. */
bool acpi_hmat_units_known(const struct acpi_hmat_info *h);

/* The rule by which acpi_hmat_lb_value() decodes this HMAT's entries. */
enum acpi_hmat_rule acpi_hmat_rule(const struct acpi_hmat_info *h);

/* "rev2", "rev1-as-rev2"; NULL for ACPI_HMAT_RULE_NONE. */
const char *acpi_hmat_rule_name(enum acpi_hmat_rule rule);

/* Structure lb's entry from its initiator i to its target j, decoded by
 * acpi_hmat_rule(): ns for a latency, MB/s for a bandwidth. False when there
 * is none: an entry of 0 (not provided) or 0xffff (no value), a base unit of
 * 0, no rule for the revision, a reserved data type. */
bool acpi_hmat_lb_value(const struct acpi_hmat_info *h, const struct acpi_hmat_lb *lb, uint32_t i,
			uint32_t j, double *out);

/* The HMAT's claim of data type `type` for memory (hierarchy 0) from an
 * initiator proximity domain to a target one: the first structure of that
 * type listing both with a value. False when the HMAT gives none. */
bool acpi_hmat_value(const struct acpi_info *info, uint32_t initiator, uint32_t target,
		     enum acpi_hmat_data type, double *out);

/* "access-latency", "read-latency", ... ("reserved" past the last). */
const char *acpi_hmat_data_name(uint8_t type);

/*
 * Record a fault: sig names the table (exactly 4 bytes are read, NUL not
 * needed; non-printables are shown as '?'), value gives context (address or
 * offset), and fmt is the message with at most one "%u" (decimal) or "%x"
 * (0x-prefixed hex) replaced by arg.
 * Past ACPI_MAX_ERRORS only out->n_errors_lost is incremented.
 */
void acpi_error(struct acpi_info *out, const char *sig, uint64_t value, const char *fmt, uint64_t arg);

#endif
