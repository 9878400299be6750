/* machine_smbios.c - the SMBIOS table on bare metal: the loader's copy decoded, reported and shown; see machine_smbios.h. */
#include "machine_smbios.h"
#include "console.h"
#include "fbcon.h" /* fbcon hook */
#include "fmt.h"
#include "lib.h"
#include "report_smbios.h"
#include "smbios.h"
#include "smbios_summary.h"

/* ---- Constants ------------------------------------------------------------ */
#define DUMP_MAX 16384                  /* bytes of table a dump record carries (hex doubles them; a record is at most 64 KiB) */

/* ---- Private Variables ---------------------------------------------------- */
static struct smbios_info info;         /* strings point into the loader's copy, which stays */
static struct smbios_placement place;

/* ---- Private Functions ---------------------------------------------------- */

static int node_of(void *ctx, uint64_t phys)
{
	return acpi_node_of_addr(ctx, phys);
}

static const char *source_name(uint32_t s)
{
	switch (s) {
	case BOOT_SMBIOS_EFI3: return "uefi-smbios3";
	case BOOT_SMBIOS_EFI: return "uefi-smbios";
	case BOOT_SMBIOS_SCAN: return "bios-scan";
	}
	return "none";
}

/* Why the loader handed no table over, or NULL when it did. */
static const char *copy_note(const struct boot_info *bi)
{
	switch (bi->smbios_copy) {
	case BOOT_SMBIOS_COPIED:
		return bi->smbios_capped ? "the entry point allows more than 1 MiB: the first 1 MiB read" : NULL;
	case BOOT_SMBIOS_NOT_FOUND:
		return bi->loader == BOOT_LOADER_UEFI ? "no SMBIOS entry in the UEFI configuration table"
						      : "no entry point in 0xF0000-0xFFFFF (the loader passes no SMBIOS tag)";
	case BOOT_SMBIOS_BAD_EP: return "the entry point did not decode (see the error record)";
	case BOOT_SMBIOS_NO_MEMORY: return "the loader had no memory for a copy of the table";
	case BOOT_SMBIOS_UNREACHABLE: return "the table lies above 4 GiB, where the multiboot2 loader cannot read";
	case BOOT_SMBIOS_EMPTY: return "the table's first structure does not fit its stated length";
	}
	return "unknown loader status";
}

static const uint8_t *table_bytes(const struct boot_info *bi)
{
	if (bi->smbios_copy != BOOT_SMBIOS_COPIED || !bi->smbios_table_phys || !bi->smbios_table_len)
		return 0;
	return acpi_map(bi->smbios_table_phys, bi->smbios_table_len);
}

static void hex(char *out, const uint8_t *p, uint32_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (uint32_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = 0;
}

/* ---- Public Functions ----------------------------------------------------- */

void machine_report_smbios(const struct boot_info *bi, const struct acpi_info *ai, bool serials)
{
	const uint8_t *t = table_bytes(bi);
	bool have_ep = bi->smbios_copy != BOOT_SMBIOS_NOT_FOUND;
	smbios_parse(have_ep ? bi->smbios_ep : 0, sizeof(bi->smbios_ep), t, t ? bi->smbios_table_len : 0, &info);
	uint32_t nodes = ai->srat.present && ai->srat.n_nodes ? ai->srat.n_nodes : 1;
	smbios_place(&info, nodes, node_of, (void *)ai, &place);
	struct report_smbios_in in = { &info, &place, source_name(bi->smbios_source), copy_note(bi),
				       bi->smbios_ep_phys, serials };
	report_smbios(&in);

	/* fbcon hook: the system, its firmware and memory on the header's third line. */
	char product[REPORT_LINE_LEN / 2], fw[REPORT_LINE_LEN / 2], config[SMBIOS_CONFIG_LEN], line[FBCON_LINE_LEN];
	report_smbios_product(&info, product, sizeof(product));
	report_smbios_bios(&info, fw, sizeof(fw));
	smbios_memory_config(&info, &place, config, sizeof(config));
	fmt_snprintf(line, sizeof(line), "%s  |  %s  |  memory: %s", product, fw, config);
	fbcon_set_header_machine(line);
}

void machine_dump_smbios(const struct boot_info *bi)
{
	static char text[2 * DUMP_MAX + 1];
	const uint8_t *t = table_bytes(bi);
	if (!t || bi->smbios_table_len > DUMP_MAX) {
		console_error("dump", "SMBIOS table not dumped (%s)", t ? "longer than 16 KiB" : "no table copied");
		return;
	}
	struct rec *r = console_rec_open("smbios_table");
	rec_str(r, "source", source_name(bi->smbios_source));
	rec_hex(r, "entry_point_address", bi->smbios_ep_phys);
	hex(text, bi->smbios_ep, sizeof(bi->smbios_ep));
	rec_str(r, "entry_point", text);
	rec_hex(r, "table_copy", bi->smbios_table_phys);
	rec_u64(r, "len", bi->smbios_table_len);
	hex(text, t, bi->smbios_table_len);
	rec_str(r, "hex", text);
	console_rec_emit(r);
}
