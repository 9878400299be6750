/* hostdmi.c - SMBIOS on Linux: the raw tables where root may read them, else /sys/class/dmi/id, each saying what it is; see hostdmi.h. */
#define _GNU_SOURCE
#include "hostdmi.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostnuma.h"
#include "lib.h"
#include "report_smbios.h"

/* ---- Constants ------------------------------------------------------------ */
#define TABLES "/sys/firmware/dmi/tables"
#define EP_FILE TABLES "/smbios_entry_point"
#define DMI_FILE TABLES "/DMI"
#define ID_DIR "/sys/class/dmi/id"
#define MEMORY_DIR "/sys/devices/system/memory"
#define PATH_LEN 512
#define FIELD_LEN 256
#define UUID_HEX 32

/* The files of /sys/class/dmi/id read, in the order of fields[]. */
enum id_field {
	ID_BIOS_VENDOR, ID_BIOS_VERSION, ID_BIOS_DATE, ID_SYS_VENDOR, ID_PRODUCT_NAME, ID_PRODUCT_VERSION,
	ID_PRODUCT_SERIAL, ID_PRODUCT_SKU, ID_PRODUCT_FAMILY, ID_BOARD_VENDOR, ID_BOARD_NAME, ID_BOARD_VERSION,
	ID_BOARD_SERIAL, ID_CHASSIS_VENDOR, ID_CHASSIS_SERIAL, ID_FIELDS
};
static const char *const id_files[ID_FIELDS] = {
	"bios_vendor", "bios_version", "bios_date", "sys_vendor", "product_name", "product_version",
	"product_serial", "product_sku", "product_family", "board_vendor", "board_name", "board_version",
	"board_serial", "chassis_vendor", "chassis_serial",
};

/* ---- Private Variables ---------------------------------------------------- */
static uint8_t ep_buf[SMBIOS_EP_MAX];
static uint8_t *table;                 /* the DMI file, kept: the decoding's strings point into it */
static char fields[ID_FIELDS][FIELD_LEN];
static const char *root_dir = "";

/* ---- Private Functions ---------------------------------------------------- */

static void path(char *out, const char *a, const char *b)
{
	snprintf(out, PATH_LEN, "%s%s%s%s", root_dir, a, b ? "/" : "", b ? b : "");
}

/* The whole file into a malloc'd buffer (at most max bytes); its length, or -1 with errno. */
static long slurp(const char *p, uint8_t **out, size_t max)
{
	FILE *f = fopen(p, "rb");
	if (!f)
		return -1;
	uint8_t *b = malloc(max);
	size_t n = b ? fread(b, 1, max, f) : 0;
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (!b || err) {
		free(b);
		errno = b ? err : ENOMEM;
		return -1;
	}
	*out = b;
	return (long)n;
}

/* The node of a physical address from the memory block holding it (memoryN/nodeM), or -1. */
static int node_of(void *ctx, uint64_t phys)
{
	(void)ctx;
	char p[PATH_LEN], line[64];
	path(p, MEMORY_DIR, "block_size_bytes");
	FILE *f = fopen(p, "r");
	unsigned long long bs = 0;
	bool ok = f && fgets(line, sizeof(line), f) && (bs = strtoull(line, 0, 16)) != 0;
	if (f)
		fclose(f);
	if (!ok)
		return -1;
	char block[32];
	snprintf(block, sizeof(block), "memory%llu", (unsigned long long)(phys / bs));
	path(p, MEMORY_DIR, block);
	DIR *d = opendir(p);
	int node = -1;
	for (struct dirent *e; d && (e = readdir(d));)
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			node = atoi(e->d_name + 4);
	if (d)
		closedir(d);
	return node;
}

static bool read_tables(struct hostdmi *out, unsigned n_nodes)
{
	char p[PATH_LEN];
	uint8_t *ep = 0;
	path(p, EP_FILE, 0);
	long ep_len = slurp(p, &ep, SMBIOS_EP_MAX);
	int ep_err = errno;
	path(p, DMI_FILE, 0);
	free(table);
	table = 0;
	long len = slurp(p, &table, QB_SMBIOS_MAX_TABLE);
	int dmi_err = errno;
	if (len <= 0) {
		path(p, TABLES, 0);
		DIR *d = opendir(p);
		if (d)
			closedir(d);
		int err = ep_len < 0 ? ep_err : dmi_err;
		snprintf(out->note, sizeof(out->note), "%s", !d && errno == ENOENT ? "no /sys/firmware/dmi on this system (Linux found no SMBIOS table)"
			 : err == EACCES || err == EPERM ? "/sys/firmware/dmi/tables is readable by root only"
			 : "/sys/firmware/dmi/tables/DMI could not be read");
		free(ep);
		return false;
	}
	if (ep_len > 0)
		memcpy(ep_buf, ep, (size_t)ep_len);
	free(ep);
	smbios_parse(ep_len > 0 ? ep_buf : 0, ep_len > 0 ? (size_t)ep_len : 0, table, (size_t)len, &out->info);
	smbios_place(&out->info, n_nodes, node_of, 0, &out->place);
	out->source = "sysfs-tables";
	out->note[0] = 0;
	return true;
}

/* One /sys/class/dmi/id file's first line, trailing spaces dropped, as a string field. */
static struct smbios_str id_field(enum id_field f)
{
	struct smbios_str s = { 0, 0, SMBIOS_STR_NO_FILE, 0 };
	char p[PATH_LEN];
	path(p, ID_DIR, id_files[f]);
	FILE *fp = fopen(p, "r");
	if (!fp) {
		s.state = errno == EACCES || errno == EPERM ? SMBIOS_STR_ROOT_ONLY : SMBIOS_STR_NO_FILE;
		return s;
	}
	char *b = fields[f];
	bool got = fgets(b, FIELD_LEN, fp) != 0;
	fclose(fp);
	if (!got) {
		s.state = SMBIOS_STR_BLANK;
		return s;
	}
	size_t n = strcspn(b, "\n");
	while (n && b[n - 1] == ' ')
		n--;
	b[n] = 0;
	bool ascii = true;
	for (size_t i = 0; i < n; i++)
		ascii &= b[i] >= 0x20 && b[i] <= 0x7e;
	s.state = !n ? SMBIOS_STR_BLANK : ascii ? SMBIOS_STR_OK : SMBIOS_STR_NOT_ASCII;
	if (s.state == SMBIOS_STR_OK) {
		s.s = b;
		s.len = (uint16_t)n;
	}
	return s;
}

/* product_uuid's text into the bytes the record's UUID is written from (its order: report_smbios.c). */
static void id_uuid(struct smbios_system *y)
{
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	char p[PATH_LEN], line[64];
	path(p, ID_DIR, "product_uuid");
	FILE *f = fopen(p, "r");
	bool got = f && fgets(line, sizeof(line), f);
	if (f)
		fclose(f);
	unsigned digits = 0, byte = 0;
	uint8_t raw[16] = { 0 };
	for (const char *c = got ? line : ""; *c && digits < UUID_HEX; c++) {
		int v = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
			: *c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
		if (v < 0)
			continue;
		byte = byte << 4 | (unsigned)v;
		if (++digits % 2 == 0)
			raw[digits / 2 - 1] = (uint8_t)byte, byte = 0;
	}
	if (digits != UUID_HEX)
		return;                        /* absent, or root only: uuid_state stays ABSENT */
	for (unsigned i = 0; i < 16; i++)
		y->uuid[order[i]] = raw[i];
	y->uuid_state = SMBIOS_UUID_OK;
}

static void read_id(struct hostdmi *out)
{
	struct smbios_info *si = &out->info;
	char p[PATH_LEN];
	path(p, ID_DIR, 0);
	DIR *d = opendir(p);
	if (!d) {
		size_t n = strlen(out->note);
		snprintf(out->note + n, sizeof(out->note) - n, "%s", "; no /sys/class/dmi/id either");
		return;
	}
	closedir(d);
	out->source = "sysfs-id";
	si->bios = (struct smbios_bios){ true, id_field(ID_BIOS_VENDOR), id_field(ID_BIOS_VERSION),
					 id_field(ID_BIOS_DATE), 0xff, 0xff };
	si->system.present = true;
	si->system.manufacturer = id_field(ID_SYS_VENDOR);
	si->system.product = id_field(ID_PRODUCT_NAME);
	si->system.version = id_field(ID_PRODUCT_VERSION);
	si->system.serial = id_field(ID_PRODUCT_SERIAL);
	si->system.sku = id_field(ID_PRODUCT_SKU);
	si->system.family = id_field(ID_PRODUCT_FAMILY);
	id_uuid(&si->system);
	si->board = (struct smbios_board){ true, id_field(ID_BOARD_VENDOR), id_field(ID_BOARD_NAME),
					   id_field(ID_BOARD_VERSION), id_field(ID_BOARD_SERIAL) };
	si->chassis.present = true;
	si->chassis.manufacturer = id_field(ID_CHASSIS_VENDOR);
	si->chassis.serial = id_field(ID_CHASSIS_SERIAL);
	path(p, ID_DIR, "chassis_type");
	FILE *f = fopen(p, "r");
	char line[16];
	if (f && fgets(line, sizeof(line), f))
		si->chassis.type = (uint8_t)atoi(line);
	if (f)
		fclose(f);
	size_t n = strlen(out->note);
	snprintf(out->note + n, sizeof(out->note) - n, "%s",
		 ": what /sys/class/dmi/id shows (no processors or memory devices; serial numbers and the UUID to root only)");
}

/* ---- Public Functions ----------------------------------------------------- */

void hostdmi_read(const char *root, unsigned n_nodes, struct hostdmi *out)
{
	memset(out, 0, sizeof(*out));
	root_dir = root ? root : "";
	out->source = "none";
	if (!read_tables(out, n_nodes))
		read_id(out);
}

void hostdmi_report(bool serials)
{
	static struct hostdmi dmi;
	hostdmi_read("", hostnuma_nodes(), &dmi);
	bool tables = !strcmp(dmi.source, "sysfs-tables");
	struct report_smbios_in in = { &dmi.info, tables ? &dmi.place : 0, dmi.source, dmi.note[0] ? dmi.note : 0, 0,
				       serials };
	report_smbios(&in);
}
