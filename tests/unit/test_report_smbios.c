/* test_report_smbios.c - the `machine` and `memory_device` records (kernel/run/report_smbios*.c) from real tables: every field docs/records.md lists, valid JSON, serial numbers and the UUID as 12 hex digits of their SHA-256 by default and whole with serials=on, empty slots counted and never listed, a string the table does not give null with its note, a structure the table lacks said so, and each error of a broken table an error record that loses nothing else. */
#include <stdio.h>
#include "check.h"
#include "json_check.h"
#include "record.h"
#include "report_smbios.h"
#include "smbios_console.h"
#include "smbios_fixture.h"

static struct smbios_fixture fx;
static struct smbios_info info;
static struct smbios_placement pl;

static void report(const char *name, bool serials)
{
	CHECK(smbios_fixture_load(name, &fx));
	smbios_fixture_parse(&fx, &info);
	smbios_place(&info, 1, NULL, NULL, &pl);
	struct report_smbios_in in = { &info, &pl, "uefi-smbios", NULL, 0x3f520000, serials };
	console_reset();
	report_smbios(&in);
}

static bool valid(const char *line)
{
	const char *open = strchr(line, '{'), *close = strrchr(line, '}');
	return open && close && json_object_valid(open, (size_t)(close - open + 1));
}

static bool has(const char *line, const char *text)
{
	bool ok = line && strstr(line, text);
	if (!ok)
		printf("  wanted %s in %.300s\n", text, line ? line : "(no record)");
	return ok;
}

/* QEMU's table, as the boot tests ask for it: -smbios type=1 and type=17. */
TEST(qemu_machine_record)
{
	report("qemu72-ovmf-q35-smbios3", false);
	const char *m = console_find("machine");
	CHECK(m && valid(m));
	static const char *const fields[] = {
		"\"source\":\"uefi-smbios\"", "\"source_note\":null", "\"smbios_version\":\"3.0.0\"",
		"\"entry_point\":\"3.0 (_SM3_)\"", "\"entry_point_address\":\"0x3f520000\"", "\"table_bytes\":",
		"\"structures\":", "\"structures_dropped\":0", "\"serials\":\"sha256, first 12 hex digits\"",
		"\"bios\":{\"vendor\":\"EFI Development Kit II / OVMF\",\"version\":\"0.0.0\",\"date\":\"02/06/2015\",\"release\":\"0.0\"}",
		"\"manufacturer\":\"Acme Labs\",\"product\":\"Roadrunner 9000\",\"version\":\"pc-q35-7.2\",\"sku\":\"RR9\","
		"\"family\":\"Roadrunner\",\"serial\":\"sha256:2d06e505b73c\",\"uuid\":\"sha256:a88442c14cd0\"",
		"\"board\":{\"manufacturer\":null,\"product\":null,\"version\":null,\"serial\":null,\"note\":\"no type 2 structure in the table\"}",
		"\"chassis\":{\"type\":\"Other\",\"manufacturer\":\"QEMU\",\"serial\":null}",
		"\"sockets\":1,\"sockets_populated\":1,\"processors\":[{\"socket\":\"CPU 0\",\"manufacturer\":\"QEMU\",\"version\":\"pc-q35-7.2\","
		"\"max_mhz\":2000,\"current_mhz\":2000,\"cores\":2,\"cores_enabled\":2,\"threads\":2}]",
		"\"memory_arrays\":[{\"location\":\"Other\",\"use\":\"System Memory\",\"ecc\":\"Multi-bit ECC\",\"slots\":1,\"max_bytes\":1073741824}]",
		"\"memory_slots\":1,\"memory_populated\":1,\"memory_bytes\":1073741824",
		"\"memory_config\":\"1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC\"", "\"end_of_table\":true",
		"\"array_ranges\":1,\"device_ranges\":0,\"dimms_per_node\":[1]",
	};
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		CHECK(has(m, fields[i]));
	const char *d = console_find("memory_device");
	CHECK(d && valid(d));
	CHECK(has(d, "\"locator\":\"DIMM 0\",\"bank\":null,\"size_bytes\":1073741824,\"form_factor\":\"DIMM\","
		     "\"type\":\"RAM\",\"type_detail\":[\"Other\"],\"module\":\"DIMM\",\"speed_mts\":4800,\"configured_mts\":4800"));
	CHECK(has(d, "\"manufacturer\":\"Samsung\",\"part_number\":\"M321R4GA3BB6-CQK\""));
	CHECK(has(d, "\"serial\":\"sha256:"));
	CHECK(has(d, "\"notes\":{\"bank\":\"not given (string number 0)\"}"));
	CHECK(!strstr(d, "S4M5UNG1"));
	CHECK(has(console_text, "system: Acme Labs Roadrunner 9000, BIOS 0.0.0 (02/06/2015) (SMBIOS 3.0.0 from uefi-smbios)\n"));
	CHECK(has(console_text, "memory: 1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC\n"));
	CHECK_EQ_U(console_count("error"), 0);
}

/* serials=on: the serial numbers and the UUID in full (lower case, as Linux's product_uuid). */
TEST(serials_on)
{
	report("qemu72-ovmf-q35-smbios3", true);
	const char *m = console_find("machine");
	CHECK(has(m, "\"serials\":\"full (serials=on)\""));
	CHECK(has(m, "\"serial\":\"RR9-0042\",\"uuid\":\"4c4c4544-0051-3510-8057-b4c04f4d4b32\""));
	CHECK(has(console_find("memory_device"), "\"serial\":\"S4M5UNG1\""));
}

/* 24 slots, 2 populated: two memory_device records; ECC RDIMMs; the second socket unpopulated. */
TEST(empty_slots_counted)
{
	report("dell-r630", false);
	const char *m = console_find("machine");
	CHECK(m && valid(m));
	CHECK(has(m, "\"memory_slots\":24,\"memory_populated\":2,\"memory_bytes\":34359738368"));
	CHECK(has(m, "\"memory_config\":\"2 of 24 slots: 2 x 16 GiB DDR4-1866 RDIMM, ECC\""));
	CHECK(has(m, "\"product\":\"PowerEdge R630\""));
	CHECK(has(m, "\"chassis\":{\"type\":\"Rack Mount Chassis\""));
	CHECK(has(m, "\"sockets\":2,\"sockets_populated\":1,\"processors\":[{\"socket\":\"CPU1\""));
	CHECK(!strstr(m, "CPU2"));                 /* the empty socket counted, not listed */
	CHECK_EQ_U(console_count("memory_device"), 2);
	const char *d = console_find("memory_device");
	CHECK(has(d, "\"type_detail\":[\"Synchronous\",\"Registered (Buffered)\"],\"module\":\"RDIMM\""));
	CHECK(has(d, "\"rank\":2,\"data_width\":64,\"total_width\":72"));
	CHECK(has(d, "\"configured_mv\":1200"));
}

/* A broken table: an error record for it, and the machine record with everything before it. */
TEST(broken_table)
{
	CHECK(smbios_fixture_load("gigabyte-x399", &fx));
	size_t cut = fx.table_len - 7;
	smbios_parse(fx.ep, SMBIOS_EP_MAX, fx.table, cut, &info);
	smbios_place(&info, 1, NULL, NULL, &pl);
	struct report_smbios_in in = { &info, &pl, "bios-scan", NULL, 0xf0000, false };
	console_reset();
	report_smbios(&in);
	CHECK_EQ_U(console_count("error"), 1);
	const char *e = console_find("error");
	CHECK(e && valid(e) && has(e, "\"what\":\"smbios\""));
	const char *m = console_find("machine");
	CHECK(has(m, "\"memory_populated\":8") && has(m, "\"end_of_table\":false"));
	CHECK(has(m, "\"entry_point_address\":\"0xf0000\""));
}

/* A VMware guest's 128 sockets, each "populated": 64 listed, the rest counted (the record stays far below
 * 64 KiB); 127 empty slots counted, one memory_device record. */
TEST(vmware_counts)
{
	report("vmware", false);
	const char *m = console_find("machine");
	CHECK(m && valid(m) && strlen(m) < 16384);
	CHECK(has(m, "\"sockets\":128,\"sockets_populated\":128,\"processors\":[{"));
	CHECK(has(m, "],\"processors_not_listed\":64,"));
	CHECK(has(m, "\"memory_slots\":128,\"memory_populated\":1"));
	CHECK_EQ_U(console_count("memory_device"), 1);
}

/* No table: every field null, and why. */
TEST(no_table)
{
	smbios_parse(NULL, 0, NULL, 0, &info);
	struct report_smbios_in in = { &info, NULL, "none", "no SMBIOS entry in the UEFI configuration table", 0, false };
	console_reset();
	report_smbios(&in);
	const char *m = console_find("machine");
	CHECK(m && valid(m));
	CHECK(has(m, "\"source\":\"none\",\"source_note\":\"no SMBIOS entry in the UEFI configuration table\""));
	CHECK(has(m, "\"memory_config\":null,\"memory_config_note\":\"no SMBIOS table read\""));
	CHECK(has(m, "\"dimms_per_node\":null,\"dimms_per_node_note\":\"no SMBIOS table read\""));
	CHECK_EQ_U(console_count("memory_device"), 0);
}

int main(void)
{
	RUN(qemu_machine_record);
	RUN(serials_on);
	RUN(empty_slots_counted);
	RUN(broken_table);
	RUN(vmware_counts);
	RUN(no_table);
	console_reset();
	return check_summary("report_smbios");
}
