/* acpi_fixture.c - fake physical memory behind the host tests' acpi_map(), QBACPI01 fixture files, and a QEMU q35-like ACPI table builder (ACPI 6.5 ch. 5.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "acpi_fixture.h"

/* ---- Constants ---------------------------------------------------------- */

#define FX_OEM_ID "BOCHS "             /* QEMU's OEM ID ... */
#define FX_OEM_TABLE_ID "BXPC    "     /* ... OEM table ID ... */
#define FX_CREATOR_ID "BXPC"           /* ... and creator ID */
#define FX_MAX_FILE (64u << 20)
#define FX_MAX_X2APIC_BELOW 255        /* QEMU: type-9 MADT/SRAT entries from this ID */
#define FX_RSDP_V1_LEN 20              /* ACPI 6.5 5.2.5.3: the ACPI 1.0 RSDP */
#define CRC32_POLY 0xedb88320u         /* reflected IEEE 802.3 polynomial, as zlib */

/* ---- Private Variables -------------------------------------------------- */

struct region {
	uint64_t phys;
	uint32_t len;
	uint8_t *bytes;
};

static struct region regions[FIXTURE_MAX_REGIONS];
static unsigned n_regions;
static uint64_t rsdp_phys;

/* ---- Fake physical memory ------------------------------------------------ */

void fixture_reset(void)
{
	for (unsigned i = 0; i < n_regions; i++)
		free(regions[i].bytes);
	memset(regions, 0, sizeof(regions));
	n_regions = 0;
	rsdp_phys = 0;
}

static struct region *region_at(uint64_t phys)
{
	for (unsigned i = 0; i < n_regions; i++)
		if (regions[i].phys == phys)
			return &regions[i];
	return NULL;
}

int fixture_put(uint64_t phys, const void *bytes, uint32_t len)
{
	struct region *r = region_at(phys);
	uint8_t *copy;

	if (!len || len > FIXTURE_MAX_REGION_LEN || (!r && n_regions == FIXTURE_MAX_REGIONS))
		return -1;
	copy = malloc(len);
	if (!copy)
		return -1;
	memcpy(copy, bytes, len);
	if (!r)
		r = &regions[n_regions++];
	free(r->bytes);
	r->phys = phys;
	r->len = len;
	r->bytes = copy;
	return 0;
}

uint8_t *fixture_bytes(uint64_t phys)
{
	struct region *r = region_at(phys);

	return r ? r->bytes : NULL;
}

uint32_t fixture_len(uint64_t phys)
{
	struct region *r = region_at(phys);

	return r ? r->len : 0;
}

unsigned fixture_count(void)
{
	return n_regions;
}

bool fixture_region(unsigned i, uint64_t *phys, uint32_t *len)
{
	if (i >= n_regions)
		return false;
	*phys = regions[i].phys;
	*len = regions[i].len;
	return true;
}

void fixture_set_rsdp(uint64_t phys)
{
	rsdp_phys = phys;
}

uint64_t fixture_rsdp(void)
{
	return rsdp_phys;
}

/* The tests' side of the kernel contract: a region starting at phys wins, then any that covers the range. */
const void *acpi_map(uint64_t phys, uint64_t len)
{
	struct region *r = region_at(phys);

	if (r && len <= r->len)
		return r->bytes;
	for (unsigned i = 0; i < n_regions; i++) {
		r = &regions[i];
		if (phys >= r->phys && phys - r->phys <= r->len && len <= r->len - (phys - r->phys))
			return r->bytes + (phys - r->phys);
	}
	return NULL;
}

/* ---- Fixture files ------------------------------------------------------- */

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static int load_fail(const char *path, const char *why, long at)
{
	fprintf(stderr, "fixture_load: %s: %s (at byte %ld)\n", path, why, at);
	fixture_reset();
	return -1;
}

int fixture_load(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n, pos;
	int rc = 0;

	fixture_reset();
	if (!f)
		return load_fail(path, "cannot open", 0);
	buf = malloc(FX_MAX_FILE + 1);
	n = buf ? fread(buf, 1, FX_MAX_FILE + 1, f) : 0;
	fclose(f);
	if (!buf)
		return load_fail(path, "out of memory", 0);
	if (n > FX_MAX_FILE)
		rc = load_fail(path, "file too large", (long)n);
	else if (n < FIXTURE_MAGIC_LEN + 8 || memcmp(buf, FIXTURE_MAGIC, FIXTURE_MAGIC_LEN))
		rc = load_fail(path, "bad magic or header", 0);
	for (pos = FIXTURE_MAGIC_LEN + 8; rc == 0 && pos < n;) {
		uint64_t phys;
		uint32_t len;

		if (n - pos < 12) {
			rc = load_fail(path, "truncated record header", (long)pos);
			break;
		}
		phys = get_le(buf + pos, 8);
		len = (uint32_t)get_le(buf + pos + 8, 4);
		pos += 12;
		if (!len || len > FIXTURE_MAX_REGION_LEN)
			rc = load_fail(path, "record length 0 or above 1 MiB", (long)pos - 4);
		else if (n - pos < len)
			rc = load_fail(path, "truncated record", (long)pos);
		else if (region_at(phys))
			rc = load_fail(path, "two records at one address", (long)pos - 12);
		else if (fixture_put(phys, buf + pos, len))
			rc = load_fail(path, "too many records", (long)pos - 12);
		pos += len;
	}
	if (rc == 0) {
		rsdp_phys = get_le(buf + FIXTURE_MAGIC_LEN, 8);
		if (!acpi_map(rsdp_phys, FX_RSDP_V1_LEN))
			rc = load_fail(path, "no record holds the RSDP", FIXTURE_MAGIC_LEN);
	}
	free(buf);
	return rc;
}

static void put_le(FILE *f, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		fputc((int)(v >> (8 * i) & 0xff), f);
}

int fixture_save(const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fwrite(FIXTURE_MAGIC, 1, FIXTURE_MAGIC_LEN, f);
	put_le(f, rsdp_phys, 8);
	for (unsigned i = 0; i < n_regions; i++) {
		put_le(f, regions[i].phys, 8);
		put_le(f, regions[i].len, 4);
		fwrite(regions[i].bytes, 1, regions[i].len, f);
	}
	return fclose(f) ? -1 : 0;
}

uint32_t fixture_crc32(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		crc ^= b[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (CRC32_POLY & (0u - (crc & 1)));
	}
	return ~crc;
}

int fixture_write_log(const char *path)
{
	FILE *f = fopen(path, "w");
	static char json[2 * FIXTURE_MAX_REGION_LEN + 256];

	if (!f)
		return -1;
	fputs("BdsDxe: loading Boot0001 \"UEFI QEMU HARDDISK\"\r\n", f);
	fputs("@qb {\"v\":1,\"kind\":\"boot\",\"cpus\":1} 00000000\n", f);
	for (unsigned i = 0; i < n_regions; i++) {
		const struct region *r = &regions[i];
		char sig[5] = "RSD ";
		int at;

		if (r->phys != rsdp_phys) {
			memcpy(sig, r->bytes, r->len < 4 ? r->len : 4);
			for (int k = 0; k < 4; k++)
				if (sig[k] < 0x20 || sig[k] > 0x7e || sig[k] == '"' || sig[k] == '\\')
					sig[k] = '?';
		}
		at = snprintf(json, sizeof(json),
			      "{\"v\":1,\"kind\":\"acpi_table\",\"sig\":\"%s\",\"phys\":\"0x%llx\",\"len\":%u,\"hex\":\"",
			      r->phys == rsdp_phys ? "RSD PTR " : sig, (unsigned long long)r->phys, r->len);
		for (uint32_t k = 0; k < r->len; k++)
			at += snprintf(json + at, sizeof(json) - (size_t)at, "%02x", r->bytes[k]);
		at += snprintf(json + at, sizeof(json) - (size_t)at, "\"}");
		fprintf(f, "@qb %s %08x\r\n", json, fixture_crc32(json, (size_t)at));
		fputs("qb: acpi: table dumped\n", f);
	}
	return fclose(f) ? -1 : 0;
}

/* ---- Table builder ------------------------------------------------------- */

void fx_put(struct fx_table *t, uint32_t off, uint64_t v, unsigned bytes)
{
	if (off + bytes > FX_MAX_TABLE) {
		fprintf(stderr, "fx_put: offset %u beyond FX_MAX_TABLE\n", off);
		abort();
	}
	for (unsigned i = 0; i < bytes; i++)
		t->b[off + i] = i < sizeof(v) ? (uint8_t)(v >> (8 * i)) : 0;
	if (off + bytes > t->len)
		t->len = off + bytes;
}

void fx_append(struct fx_table *t, const void *p, uint32_t n)
{
	const uint8_t *b = p;

	for (uint32_t i = 0; i < n; i++)
		fx_put(t, t->len, b[i], 1);
}

void fx_begin(struct fx_table *t, const char *sig, uint8_t rev, uint32_t fixed_len)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->b, sig, 4);                     /* Signature */
	t->b[8] = rev;                            /* Revision */
	memcpy(t->b + 10, FX_OEM_ID, 6);          /* OEMID */
	memcpy(t->b + 16, FX_OEM_TABLE_ID, 8);    /* OEM Table ID */
	fx_put(t, 24, 1, 4);                      /* OEM Revision */
	memcpy(t->b + 28, FX_CREATOR_ID, 4);      /* Creator ID */
	fx_put(t, 32, 1, 4);                      /* Creator Revision */
	t->len = fixed_len;
}

static uint8_t sum8(const uint8_t *b, uint32_t n)
{
	uint8_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s = (uint8_t)(s + b[i]);
	return s;
}

void fx_end(struct fx_table *t)
{
	fx_put(t, 4, t->len, 4);                  /* Length */
	t->b[9] = 0;                              /* Checksum */
	t->b[9] = (uint8_t)-sum8(t->b, t->len);
}

void fx_install(struct fx_table *t, uint64_t phys)
{
	fx_end(t);
	if (fixture_put(phys, t->b, t->len)) {
		fprintf(stderr, "fx_install: no room for 0x%llx\n", (unsigned long long)phys);
		abort();
	}
}

void fx_fix_checksum(uint64_t phys)
{
	uint8_t *b = fixture_bytes(phys);
	uint32_t n = fixture_len(phys), len;

	if (!b || n < ACPI_HEADER_LEN)
		return;
	len = (uint32_t)get_le(b + 4, 4);
	b[9] = 0;
	b[9] = (uint8_t)-sum8(b, len < n ? len : n);
}

void fx_fix_rsdp(uint64_t phys)
{
	uint8_t *b = fixture_bytes(phys);
	uint32_t n = fixture_len(phys), len;

	if (!b || n < 20)
		return;
	b[8] = 0;
	b[8] = (uint8_t)-sum8(b, 20);
	if (b[15] < 2 || n < 36)
		return;
	len = (uint32_t)get_le(b + 20, 4);
	b[32] = 0;
	b[32] = (uint8_t)-sum8(b, len < n ? len : n);
}

void fx_madt_lapic(struct fx_table *t, uint8_t uid, uint8_t apic_id, uint32_t flags)
{
	uint32_t o = t->len;

	fx_put(t, o, 0, 1);         /* Type: Processor Local APIC */
	fx_put(t, o + 1, 8, 1);     /* Length */
	fx_put(t, o + 2, uid, 1);   /* ACPI Processor UID */
	fx_put(t, o + 3, apic_id, 1);
	fx_put(t, o + 4, flags, 4);
}

void fx_madt_x2apic(struct fx_table *t, uint32_t uid, uint32_t apic_id, uint32_t flags)
{
	uint32_t o = t->len;

	fx_put(t, o, 9, 1);         /* Type: Processor Local x2APIC */
	fx_put(t, o + 1, 16, 1);
	fx_put(t, o + 2, 0, 2);     /* Reserved */
	fx_put(t, o + 4, apic_id, 4);
	fx_put(t, o + 8, flags, 4);
	fx_put(t, o + 12, uid, 4);
}

void fx_madt_override(struct fx_table *t, uint64_t addr)
{
	uint32_t o = t->len;

	fx_put(t, o, 5, 1);         /* Type: Local APIC Address Override */
	fx_put(t, o + 1, 12, 1);
	fx_put(t, o + 2, 0, 2);
	fx_put(t, o + 4, addr, 8);
}

void fx_srat_cpu(struct fx_table *t, uint8_t apic_id, uint32_t domain, uint32_t flags)
{
	uint32_t o = t->len;

	fx_put(t, o, 0, 1);         /* Type: Processor Local APIC/SAPIC Affinity */
	fx_put(t, o + 1, 16, 1);
	fx_put(t, o + 2, domain & 0xff, 1);   /* Proximity Domain [7:0] */
	fx_put(t, o + 3, apic_id, 1);
	fx_put(t, o + 4, flags, 4);
	fx_put(t, o + 8, 0, 1);               /* Local SAPIC EID */
	fx_put(t, o + 9, domain >> 8, 3);     /* Proximity Domain [31:8] */
	fx_put(t, o + 12, 0, 4);              /* Clock Domain */
}

void fx_srat_x2apic(struct fx_table *t, uint32_t apic_id, uint32_t domain, uint32_t flags)
{
	uint32_t o = t->len;

	fx_put(t, o, 2, 1);         /* Type: Processor Local x2APIC Affinity */
	fx_put(t, o + 1, 24, 1);
	fx_put(t, o + 2, 0, 2);
	fx_put(t, o + 4, domain, 4);
	fx_put(t, o + 8, apic_id, 4);
	fx_put(t, o + 12, flags, 4);
	fx_put(t, o + 16, 0, 8);    /* Clock Domain, Reserved */
}

void fx_srat_mem(struct fx_table *t, uint64_t base, uint64_t len, uint32_t domain, uint32_t flags)
{
	uint32_t o = t->len;

	fx_put(t, o, 1, 1);         /* Type: Memory Affinity */
	fx_put(t, o + 1, 40, 1);
	fx_put(t, o + 2, domain, 4);
	fx_put(t, o + 6, 0, 2);
	fx_put(t, o + 8, base, 8);  /* Base Address Low, High */
	fx_put(t, o + 16, len, 8);  /* Length Low, High */
	fx_put(t, o + 24, 0, 4);
	fx_put(t, o + 28, flags, 4);
	fx_put(t, o + 32, 0, 8);
}

void fx_install_roots(uint8_t rsdp_rev, const uint64_t *phys, uint32_t n)
{
	static struct fx_table t;
	uint8_t r[36] = "RSD PTR ";

	fx_begin(&t, "RSDT", 1, ACPI_HEADER_LEN);
	for (uint32_t i = 0; i < n; i++)
		fx_put(&t, t.len, phys[i], 4);
	fx_install(&t, FX_RSDT_PHYS);
	if (rsdp_rev >= 2) {
		fx_begin(&t, "XSDT", 1, ACPI_HEADER_LEN);
		for (uint32_t i = 0; i < n; i++)
			fx_put(&t, t.len, phys[i], 8);
		fx_install(&t, FX_XSDT_PHYS);
	}
	memcpy(r + 9, FX_OEM_ID, 6);
	r[15] = rsdp_rev;
	memcpy(r + 16, &(uint32_t){ (uint32_t)FX_RSDT_PHYS }, 4);
	if (rsdp_rev >= 2) {
		r[20] = 36;                           /* Length */
		memcpy(r + 24, &(uint64_t){ FX_XSDT_PHYS }, 8);
	}
	fixture_put(FX_RSDP_PHYS, r, rsdp_rev >= 2 ? 36 : 20);
	fx_fix_rsdp(FX_RSDP_PHYS);
	fixture_set_rsdp(FX_RSDP_PHYS);
}

static uint32_t q35_apic(const struct fx_q35 *cfg, uint32_t i)
{
	return cfg->apic_ids ? cfg->apic_ids[i] : i;
}

void fx_q35_madt(const struct fx_q35 *cfg, struct fx_table *t)
{
	static const uint8_t pci_irqs[] = { 5, 9, 10, 11 };
	bool x2apic = false;

	fx_begin(t, "APIC", 3, 44);
	fx_put(t, 36, FX_LAPIC_ADDR, 4);          /* Local Interrupt Controller Address */
	fx_put(t, 40, 1, 4);                      /* Flags: PCAT_COMPAT */
	for (uint32_t i = 0; i < cfg->n_cpus; i++) {
		uint32_t id = q35_apic(cfg, i);
		uint32_t flags = i < cfg->n_enabled ? 1 : cfg->online_capable ? 2 : 0;

		if (id < FX_MAX_X2APIC_BELOW) {
			fx_madt_lapic(t, (uint8_t)i, (uint8_t)id, flags);
		} else {
			fx_madt_x2apic(t, i, id, flags);
			x2apic = true;
		}
	}
	fx_append(t, (uint8_t[]){ 1, 12, 0, 0 }, 4);           /* I/O APIC, ID 0 */
	fx_put(t, t->len, FX_IOAPIC_ADDR, 4);
	fx_put(t, t->len, 0, 4);                               /* GSI base */
	fx_append(t, (uint8_t[]){ 2, 10, 0, 0, 2, 0, 0, 0, 0, 0 }, 10); /* ISO IRQ0 -> GSI2 */
	for (size_t i = 0; i < sizeof(pci_irqs); i++)          /* ISO, level, active high */
		fx_append(t, (uint8_t[]){ 2, 10, 0, pci_irqs[i], pci_irqs[i], 0, 0, 0, 0xd, 0 }, 10);
	if (x2apic)                                            /* Local x2APIC NMI, all, LINT1 */
		fx_append(t, (uint8_t[]){ 10, 12, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0 }, 12);
	else                                                   /* Local APIC NMI, all, LINT1 */
		fx_append(t, (uint8_t[]){ 4, 6, 0xff, 0, 0, 1 }, 6);
}

static void q35_srat(const struct fx_q35 *cfg, struct fx_table *t)
{
	uint64_t m = cfg->node_mem;

	fx_begin(t, "SRAT", 1, 48);
	fx_put(t, 36, 1, 4);                      /* Reserved, must be 1 */
	for (uint32_t i = 0; i < cfg->n_cpus; i++) {
		uint32_t id = q35_apic(cfg, i), node = i * cfg->n_nodes / cfg->n_cpus;

		if (id < FX_MAX_X2APIC_BELOW)
			fx_srat_cpu(t, (uint8_t)id, node, 1);
		else
			fx_srat_x2apic(t, id, node, 1);
	}
	fx_srat_mem(t, 0, FX_HOLE_START, 0, 1);
	fx_srat_mem(t, FX_HOLE_END, m - FX_HOLE_END, 0, 1);
	for (uint32_t n = 1; n < cfg->n_nodes; n++)
		fx_srat_mem(t, n * m, m, n, 1);
	fx_srat_mem(t, 0, 0, 0, 0);               /* QEMU's disabled padding */
	fx_srat_mem(t, 0, 0, 0, 0);
}

void fx_build_q35(const struct fx_q35 *cfg)
{
	static struct fx_table t;
	uint64_t list[8];
	uint32_t n = 0;

	fixture_reset();

	fx_begin(&t, "FACP", 3, 244);
	fx_put(&t, 46, 9, 2);                     /* SCI_INT */
	fx_put(&t, 48, 0xb2, 4);                  /* SMI_CMD */
	fx_put(&t, 52, 0x0302, 2);                /* ACPI_ENABLE, ACPI_DISABLE */
	fx_put(&t, 56, 0x600, 4);                 /* PM1a_EVT_BLK */
	fx_put(&t, 64, 0x604, 4);                 /* PM1a_CNT_BLK */
	fx_put(&t, 76, FX_PM_TMR_PORT, 4);        /* PM_TMR_BLK */
	fx_put(&t, 80, 0x620, 4);                 /* GPE0_BLK */
	fx_put(&t, 88, 0x10000204, 4);            /* PM1_EVT_LEN 4, PM1_CNT_LEN 2, PM_TMR_LEN 4, GPE0_BLK_LEN 16 */
	fx_put(&t, 112, FX_FADT_FLAGS, 4);        /* Flags */
	fx_put(&t, 116, 0x00000801, 4);           /* RESET_REG: I/O, 8 bits */
	fx_put(&t, 120, FX_RESET_PORT, 8);
	fx_put(&t, 128, FX_RESET_VALUE, 1);       /* RESET_VALUE */
	fx_put(&t, 131, 1, 1);                    /* FADT Minor Version */
	fx_put(&t, 208, 0x00002001, 4);           /* X_PM_TMR_BLK: I/O, 32 bits */
	fx_put(&t, 212, FX_PM_TMR_PORT, 8);
	fx_install(&t, FX_FADT_PHYS);
	list[n++] = FX_FADT_PHYS;

	fx_q35_madt(cfg, &t);
	fx_install(&t, FX_MADT_PHYS);
	list[n++] = FX_MADT_PHYS;

	fx_begin(&t, "HPET", 1, 56);
	fx_put(&t, 36, FX_HPET_ID, 4);            /* Event Timer Block ID */
	fx_put(&t, 40, 0, 4);                     /* BASE_ADDRESS: memory, 0 bits */
	fx_put(&t, 44, FX_HPET_BASE, 8);
	fx_put(&t, 53, FX_HPET_MIN_TICK, 2);      /* Main Counter Minimum Clock Tick */
	fx_install(&t, FX_HPET_PHYS);
	list[n++] = FX_HPET_PHYS;

	if (cfg->n_nodes) {
		q35_srat(cfg, &t);
		fx_install(&t, FX_SRAT_PHYS);
		list[n++] = FX_SRAT_PHYS;
	}

	fx_begin(&t, "SPCR", 2, 80);
	fx_put(&t, 36, ACPI_SPCR_IF_16550, 1);    /* Interface Type */
	fx_put(&t, 40, 0x01000801, 4);            /* Base Address: I/O, 8 bits, byte access */
	fx_put(&t, 44, FX_COM1_PORT, 8);
	fx_put(&t, 52, ACPI_SPCR_INT_8259, 1);    /* Interrupt Type */
	fx_put(&t, 53, 4, 1);                     /* IRQ */
	fx_put(&t, 54, 4, 4);                     /* Global System Interrupt */
	fx_put(&t, 58, 7, 1);                     /* Configured Baud Rate: 115200 */
	fx_put(&t, 60, 1, 1);                     /* Stop Bits */
	fx_put(&t, 62, 3, 1);                     /* Terminal Type: ANSI */
	fx_put(&t, 64, 0xffffffff, 4);            /* PCI Device ID, Vendor ID: not PCI */
	fx_install(&t, FX_SPCR_PHYS);
	list[n++] = FX_SPCR_PHYS;

	fx_begin(&t, "WAET", 1, 40);
	fx_put(&t, 36, 2, 4);                     /* ACPI PM timer good */
	fx_install(&t, FX_WAET_PHYS);
	list[n++] = FX_WAET_PHYS;

	fx_install_roots(cfg->rsdp_rev, list, n);
}
