/* acpi_fixture.h - fake physical memory for the ACPI host tests: the tests' acpi_map(), the QBACPI01 fixture file format, and a builder of QEMU q35-like tables.
 *
 * Each region of fake memory is its own exact-size heap block, so under ASan
 * any read past a region's end (a parser trusting a bad length) is caught. */
#ifndef QB_TESTS_ACPI_FIXTURE_H
#define QB_TESTS_ACPI_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIXTURE_MAGIC "QBACPI01"       /* fixture file: magic, u64 rsdp, records */
#define FIXTURE_MAGIC_LEN 8
#define FIXTURE_MAX_REGIONS 256
#define FIXTURE_MAX_REGION_LEN (1u << 20)

/* ---- Fake physical memory ------------------------------------------------ */

/* Forget every region and the RSDP address. */
void fixture_reset(void);

/* Copy len bytes to a region at phys (replacing one that starts there); -1 if full. */
int fixture_put(uint64_t phys, const void *bytes, uint32_t len);

/* The writable bytes of the region starting at phys, or NULL. */
uint8_t *fixture_bytes(uint64_t phys);

/* Length of the region starting at phys, 0 if there is none. */
uint32_t fixture_len(uint64_t phys);

/* Number of regions, and the i-th one's address and length (false past the end). */
unsigned fixture_count(void);
bool fixture_region(unsigned i, uint64_t *phys, uint32_t *len);

/* Set / get the RSDP address the fixture describes. */
void fixture_set_rsdp(uint64_t phys);
uint64_t fixture_rsdp(void);

/* Load a QBACPI01 file into fake memory (replacing it); -1 with a message on stderr if malformed. */
int fixture_load(const char *path);

/* Write fake memory as a QBACPI01 file; -1 on an I/O error. */
int fixture_save(const char *path);

/*
 * Write fake memory as the kernel's dump=acpi serial log would show it (one
 * @qb acpi_table record per region, with unrelated lines between), for
 * checking tools/acpi-fixture. -1 on an I/O error.
 */
int fixture_write_log(const char *path);

/* zlib's crc32(0, p, n). */
uint32_t fixture_crc32(const void *p, size_t n);

/* ---- Table builder (ACPI 6.5 layouts written byte by byte, not via kernel/acpi/acpi_tables.h) ---- */

#define FX_MAX_TABLE 32768

/* Where fx_build_q35() puts each table. Odd addresses make XSDT entries unaligned. */
#define FX_RSDP_PHYS 0x000f52a0ull
#define FX_RSDT_PHYS 0x7ffe2a0cull
#define FX_XSDT_PHYS 0x7ffe1a44ull
#define FX_FADT_PHYS 0x7ffe0100ull
#define FX_HPET_PHYS 0x7ffe0400ull
#define FX_SPCR_PHYS 0x7ffe0500ull
#define FX_WAET_PHYS 0x7ffe0600ull
#define FX_MADT_PHYS 0x7ffd0000ull
#define FX_SRAT_PHYS 0x7ffc0000ull

/* Values fx_build_q35() writes, for the tests to expect. */
#define FX_LAPIC_ADDR 0xfee00000u
#define FX_IOAPIC_ADDR 0xfec00000u
#define FX_HPET_BASE 0xfed00000u
#define FX_HPET_ID 0x8086a201u         /* vendor 8086, 64-bit, 3 comparators, rev 1 */
#define FX_HPET_MIN_TICK 0x80
#define FX_PM_TMR_PORT 0x608
#define FX_RESET_PORT 0xcf9
#define FX_RESET_VALUE 0x0f
#define FX_FADT_FLAGS 0x84a5u          /* WBINVD C1 SLP_BUTTON RTC_S4 RESET_REG_SUP PLATFORM_CLOCK */
#define FX_COM1_PORT 0x3f8
#define FX_HOLE_START 0xa0000ull       /* 640 KiB */
#define FX_HOLE_END 0x100000ull        /* 1 MiB */

/* A table being built. */
struct fx_table {
	uint32_t len;
	uint8_t b[FX_MAX_TABLE];
};

/* Start a table: header with sig, rev and QEMU's OEM fields, zeroed up to fixed_len. */
void fx_begin(struct fx_table *t, const char *sig, uint8_t rev, uint32_t fixed_len);
/* Write the low `bytes` bytes of v little-endian at off (growing len if needed). */
void fx_put(struct fx_table *t, uint32_t off, uint64_t v, unsigned bytes);
/* Append n raw bytes. */
void fx_append(struct fx_table *t, const void *p, uint32_t n);
/* Set the header length to t->len and fix the checksum. */
void fx_end(struct fx_table *t);
/* fx_end() then copy into fake memory at phys. */
void fx_install(struct fx_table *t, uint64_t phys);
/* Recompute the checksum of the table in fake memory at phys (its own length, bounded by the region). */
void fx_fix_checksum(uint64_t phys);
/* Recompute both RSDP checksums at phys. */
void fx_fix_rsdp(uint64_t phys);

/* MADT entries: 5.2.12.2, 5.2.12.12, 5.2.12.8. */
void fx_madt_lapic(struct fx_table *t, uint8_t uid, uint8_t apic_id, uint32_t flags);
void fx_madt_x2apic(struct fx_table *t, uint32_t uid, uint32_t apic_id, uint32_t flags);
void fx_madt_override(struct fx_table *t, uint64_t addr);
/* SRAT entries: 5.2.16.1, 5.2.16.3, 5.2.16.2. */
void fx_srat_cpu(struct fx_table *t, uint8_t apic_id, uint32_t domain, uint32_t flags);
void fx_srat_x2apic(struct fx_table *t, uint32_t apic_id, uint32_t domain, uint32_t flags);
void fx_srat_mem(struct fx_table *t, uint64_t base, uint64_t len, uint32_t domain, uint32_t flags);

/* Install an RSDP (revision 0 or 2) at FX_RSDP_PHYS and an RSDT (and XSDT for rev 2) listing phys[0..n). */
void fx_install_roots(uint8_t rsdp_rev, const uint64_t *phys, uint32_t n);

/* What fx_build_q35() lays out. */
struct fx_q35 {
	uint32_t n_cpus;               /* MADT processor entries */
	uint32_t n_enabled;            /* the first n_enabled are enabled */
	const uint32_t *apic_ids;      /* NULL: APIC ID = index */
	bool online_capable;           /* disabled entries get the Online Capable bit */
	uint32_t n_nodes;              /* 0: no SRAT; else CPUs split in order */
	uint64_t node_mem;             /* RAM per node, bytes */
	uint8_t rsdp_rev;              /* 0: RSDT only; 2: XSDT and RSDT */
};

/*
 * Reset fake memory and lay out RSDP, XSDT, RSDT, FADT, MADT, HPET, SRAT (if
 * n_nodes), SPCR and WAET the way QEMU q35 does: type-0 MADT entries below
 * APIC ID 255 and type-9 from there, an I/O APIC, ISOs and NMI entries, a
 * 640K-1M hole in node 0's memory, disabled padding SRAT entries.
 */
void fx_build_q35(const struct fx_q35 *cfg);

/* The MADT fx_build_q35() would make, not installed (for tests to alter). */
void fx_q35_madt(const struct fx_q35 *cfg, struct fx_table *t);

#endif
