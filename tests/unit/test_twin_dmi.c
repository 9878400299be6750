/* test_twin_dmi.c - the Linux twin's SMBIOS (tools/twin/hostdmi.c) on a sysfs of the test's own: the tables of a real machine under /sys/firmware/dmi/tables decoded as the kernel decodes them, its DIMMs set on nodes by /sys/devices/system/memory; without the tables, the fields /sys/class/dmi/id gives anyone (a real machine's, from its dmidecode output), root-only ones said so; with neither, as on this project's VM, a record that says so. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "hostdmi.h"
#include "report_smbios.h"
#include "smbios_console.h"
#include "smbios_fixture.h"

static char root[64];
static struct smbios_fixture fx;
static struct hostdmi dmi;

uint32_t hostnuma_nodes(void) { return 1; }  /* hostdmi_report only: not called here */

static void mk(const char *rel)
{
	char p[512], *s;
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const void *data, size_t n)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "wb");
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
}

static void put_text(const char *rel, const char *text) { put(rel, text, strlen(text)); }

static void clean(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		printf("  could not remove %s\n", root);
	mkdir(root, 0755);
}

/* The tables as root reads them: a Threadripper's, two nodes in /sys/devices/system/memory. */
TEST(tables)
{
	clean();
	CHECK(smbios_fixture_load("gigabyte-x399", &fx));
	mk("sys/firmware/dmi/tables");
	put("sys/firmware/dmi/tables/smbios_entry_point", fx.ep, 0x18);
	put("sys/firmware/dmi/tables/DMI", fx.table, fx.table_len);
	mk("sys/devices/system/memory");
	put_text("sys/devices/system/memory/block_size_bytes", "80000000\n");       /* 2 GiB blocks */
	mk("sys/devices/system/memory/memory0/node0");                                /* [0, 2 GiB) */
	mk("sys/devices/system/memory/memory31/node0");                               /* up to 64 GiB */
	mk("sys/devices/system/memory/memory32/node1");
	mk("sys/devices/system/memory/memory64/node1");                               /* 0x2000000000 - 1 */
	mk("sys/devices/system/memory/memory63/node1");
	hostdmi_read(root, 2, &dmi);
	CHECK_STR(dmi.source, "sysfs-tables");
	CHECK_STR(dmi.note, "");
	CHECK(dmi.info.ep_valid && dmi.info.ep.v3);
	CHECK(dmi.info.board.product.state == SMBIOS_STR_OK && !strncmp(dmi.info.board.product.s, "X399 AORUS XTREME-CF", 20));
	CHECK_EQ_U(dmi.info.n_devices, 8);
	CHECK(dmi.place.known && dmi.place.per_node[0] == 4 && dmi.place.per_node[1] == 4);
	char line[SMBIOS_CONFIG_LEN];
	CHECK(smbios_memory_config(&dmi.info, &dmi.place, line, sizeof(line)));
	CHECK_STR(line, "8 of 8 slots: 8 x 16 GiB DDR4-2933 UDIMM, no ECC; 4 per node");
	/* Without the memory blocks, the nodes are not guessed. */
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/devices/system/memory", root);
	CHECK(system(cmd) == 0);
	hostdmi_read(root, 2, &dmi);
	CHECK(!dmi.place.known && strstr(dmi.place.why, "outside every SRAT memory range"));
}

/* /sys/class/dmi/id alone: a Dell PowerEdge R630's fields, as its dmidecode output gives them. */
TEST(class_dmi_id)
{
	clean();
	mk("sys/class/dmi/id");
	put_text("sys/class/dmi/id/sys_vendor", "Dell Inc.\n");
	put_text("sys/class/dmi/id/product_name", "PowerEdge R630\n");
	put_text("sys/class/dmi/id/product_sku", "SKU=NotProvided;ModelName=PowerEdge R630\n");
	put_text("sys/class/dmi/id/bios_vendor", "Dell Inc.\n");
	put_text("sys/class/dmi/id/bios_version", "2.3.4\n");
	put_text("sys/class/dmi/id/bios_date", "11/08/2016\n");
	put_text("sys/class/dmi/id/board_name", "02C2CP\n");
	put_text("sys/class/dmi/id/chassis_type", "23\n");
	put_text("sys/class/dmi/id/product_uuid", "4c4c4544-0051-3510-8057-b4c04f4d4b32\n");
	put_text("sys/class/dmi/id/product_serial", "5Q2MKB2\n");
	char p[256];
	snprintf(p, sizeof(p), "%s/sys/class/dmi/id/product_serial", root);
	chmod(p, 0400);
	hostdmi_read(root, 1, &dmi);
	CHECK_STR(dmi.source, "sysfs-id");
	CHECK(strstr(dmi.note, "no /sys/firmware/dmi on this system") != NULL);
	CHECK(strstr(dmi.note, "what /sys/class/dmi/id shows") != NULL);
	const struct smbios_system *y = &dmi.info.system;
	CHECK(y->product.state == SMBIOS_STR_OK && y->product.len == 14 && !strncmp(y->product.s, "PowerEdge R630", 14));
	CHECK(y->manufacturer.state == SMBIOS_STR_OK && !strncmp(y->manufacturer.s, "Dell Inc.", 9));
	CHECK_EQ_U(y->version.state, SMBIOS_STR_NO_FILE);
	CHECK_EQ_U(dmi.info.chassis.type, 23);
	CHECK_EQ_U(y->uuid_state, SMBIOS_UUID_OK);
	if (geteuid() == 0)                                  /* root reads a 0400 file: the serial is there */
		CHECK(y->serial.state == SMBIOS_STR_OK);
	else
		CHECK_EQ_U(y->serial.state, SMBIOS_STR_ROOT_ONLY);
	/* The record: the product named, the UUID hashed as the kernel hashes the same UUID. */
	struct report_smbios_in in = { &dmi.info, NULL, dmi.source, dmi.note, 0, false };
	console_reset();
	report_smbios(&in);
	const char *m = console_find("machine");
	CHECK(m && strstr(m, "\"source\":\"sysfs-id\""));
	CHECK(m && strstr(m, "\"product\":\"PowerEdge R630\""));
	CHECK(m && strstr(m, "\"uuid\":\"sha256:a88442c14cd0\""));
	CHECK(m && strstr(m, "\"chassis\":{\"type\":\"Rack Mount Chassis\""));
	CHECK(m && strstr(m, "\"version\":null") && strstr(m, "\"version\":\"not in /sys/class/dmi/id\""));
	CHECK(m && strstr(m, "\"memory_config\":null"));
	CHECK(strstr(console_text, "system: Dell Inc. PowerEdge R630, BIOS 2.3.4 (11/08/2016)") != NULL);
}

/* Neither, as on this project's VM: the record says so. */
TEST(nothing)
{
	clean();
	hostdmi_read(root, 1, &dmi);
	CHECK_STR(dmi.source, "none");
	CHECK_STR(dmi.note, "no /sys/firmware/dmi on this system (Linux found no SMBIOS table); no /sys/class/dmi/id either");
	CHECK(!dmi.info.present && dmi.info.system.product.state == SMBIOS_STR_ABSENT);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/qb-twin-dmi-%d", (int)getpid());
	RUN(tables);
	RUN(class_dmi_id);
	RUN(nothing);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		printf("could not remove %s\n", root);
	console_reset();
	return check_summary("twin_dmi");
}
