/* test_smbios_real.c - kernel/acpi/smbios*.c against SMBIOS tables of real machines and of QEMU (tests/fixtures/smbios, README.md there): every structure QuietBench reads decoded as Debian's dmidecode decodes the same bytes (NAME.expect, written by import.py), with no error; and the memory configuration line of each, as people would write it from dmidecode's output.
 *
 * A field dmidecode prints "Not Specified" is ours when we have no string
 * (string number 0) or the same words; "-" is a field dmidecode did not
 * print, which we must not have either. */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "smbios.h"
#include "smbios_fixture.h"
#include "smbios_summary.h"

#define MAX_FIELDS 20
#define LINE_LEN 2048

static struct smbios_fixture fx;
static struct smbios_info info;

/* Split a line on tabs, keeping empty fields; returns the count. */
static int split(char *line, char **f)
{
	int n = 0;
	line[strcspn(line, "\n")] = 0;
	f[n++] = line;
	for (char *p = line; *p && n < MAX_FIELDS; p++)
		if (*p == '\t') {
			*p = 0;
			f[n++] = p + 1;
		}
	return n;
}

/* dmidecode's text against our string: trailing spaces dropped on both sides. */
static bool same_str(const struct smbios_str *s, const char *theirs)
{
	size_t n = strlen(theirs);
	while (n && theirs[n - 1] == ' ')
		n--;
	if (!strcmp(theirs, "-"))
		return s->state == SMBIOS_STR_ABSENT;
	if (!strcmp(theirs, "<BAD INDEX>"))
		return s->state == SMBIOS_STR_BAD_INDEX;
	if (s->state == SMBIOS_STR_NONE || s->state == SMBIOS_STR_ABSENT)
		return !strcmp(theirs, "Not Specified");
	if (s->state == SMBIOS_STR_BLANK)
		return n == 0;
	if (s->state == SMBIOS_STR_NOT_ASCII)
		return true;                   /* dmidecode prints such bytes as '.' */
	return s->state == SMBIOS_STR_OK && s->len == n && !strncmp(s->s, theirs, n);
}

/* A number dmidecode printed, "-" (not printed) or "Unknown" being `unknown`. */
static bool same_num(uint64_t ours, const char *theirs, uint64_t unknown)
{
	if (!strcmp(theirs, "-") || !strcmp(theirs, "Unknown"))
		return ours == unknown;
	return ours == strtoull(theirs, 0, 0);
}

static void detail_text(uint16_t bits, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = 0;
	for (unsigned b = 1; b < SMBIOS_DETAIL_BITS; b++)
		if (bits & (1u << b))
			n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " " : "", smbios_detail_name(b));
	if (!n)
		snprintf(out, cap, "None");
}

static const struct smbios_device *device(uint16_t handle)
{
	for (uint32_t i = 0; i < info.n_devices; i++)
		if (info.devices[i].handle == handle)
			return &info.devices[i];
	return NULL;
}

static void check_device(char **f, int n, const char *name)
{
	CHECK(n == 17);
	if (n != 17)
		return;
	const struct smbios_device *d = device((uint16_t)strtoul(f[1], 0, 16));
	CHECK(d != NULL);
	if (!d) {
		printf("  %s: no device %s\n", name, f[1]);
		return;
	}
	char detail[256];
	detail_text(d->type_detail, detail, sizeof(detail));
	bool size_ok = !strcmp(f[5], "empty") ? d->size_state == SMBIOS_SIZE_EMPTY
		     : !strcmp(f[5], "unknown") ? d->size_state == SMBIOS_SIZE_UNKNOWN
						 : d->size_state == SMBIOS_SIZE_KNOWN && d->size_bytes == strtoull(f[5], 0, 10);
	/* dmidecode says Unknown for a width of 0 as of FFFFh, as the record says null for both. */
	uint16_t dw = d->data_width ? d->data_width : SMBIOS_WIDTH_UNKNOWN;
	uint16_t tw = d->total_width ? d->total_width : SMBIOS_WIDTH_UNKNOWN;
	bool ok = d->array_handle == strtoul(f[2], 0, 16) && same_str(&d->locator, f[3]) && same_str(&d->bank, f[4]) &&
		  size_ok && !strcmp(smbios_form_factor_name(d->form_factor), f[6]) &&
		  !strcmp(smbios_memory_type_name(d->type), f[7]) && !strcmp(detail, f[8]) &&
		  same_num(dw, f[12], SMBIOS_WIDTH_UNKNOWN) && same_num(tw, f[13], SMBIOS_WIDTH_UNKNOWN);
	/* For an empty slot dmidecode prints nothing past Type Detail (its "-"): nothing to compare. */
	if (d->size_state != SMBIOS_SIZE_EMPTY)
		ok = ok && same_num(d->speed_mts, f[9], 0) && same_num(d->configured_mts, f[10], 0) &&
		     same_num(d->rank, f[11], 0) && same_str(&d->manufacturer, f[14]) && same_str(&d->part, f[15]) &&
		     same_num(d->configured_mv, f[16], 0);
	CHECK(ok);
	if (!ok)
		printf("  %s: device %s: size %llu (%u), type %s, detail %s, speeds %u/%u, rank %u, widths %u/%u, mV %u\n",
		       name, f[1], (unsigned long long)d->size_bytes, d->size_state, smbios_memory_type_name(d->type), detail,
		       d->speed_mts, d->configured_mts, d->rank, d->data_width, d->total_width, d->configured_mv);
}

static void check_line(char **f, int n, const char *name, uint32_t *procs, uint32_t *arrays, uint32_t *devs,
		       uint32_t *m19, uint32_t *m20)
{
	char version[16];
	bool ok = true;
	if (!strcmp(f[0], "version")) {
		if (info.ep.v3)
			snprintf(version, sizeof(version), "%u.%u.%u", info.ep.major, info.ep.minor, info.ep.docrev);
		else
			snprintf(version, sizeof(version), "%u.%u", info.ep.major, info.ep.minor);
		ok = n == 2 && !strcmp(version, f[1]);
	} else if (!strcmp(f[0], "bios")) {
		ok = n == 4 && same_str(&info.bios.vendor, f[1]) && same_str(&info.bios.version, f[2]) &&
		     same_str(&info.bios.date, f[3]);
	} else if (!strcmp(f[0], "system")) {
		const struct smbios_system *y = &info.system;
		ok = n == 6 && same_str(&y->manufacturer, f[1]) && same_str(&y->product, f[2]) &&
		     same_str(&y->version, f[3]) && same_str(&y->sku, f[4]) && same_str(&y->family, f[5]);
	} else if (!strcmp(f[0], "board")) {
		ok = n == 4 && same_str(&info.board.manufacturer, f[1]) && same_str(&info.board.product, f[2]) &&
		     same_str(&info.board.version, f[3]);
	} else if (!strcmp(f[0], "chassis")) {
		ok = n == 2 && !strcmp(smbios_chassis_name(info.chassis.type), f[1]);
	} else if (!strcmp(f[0], "cpu")) {
		const struct smbios_proc *c = *procs < info.n_procs ? &info.procs[(*procs)++] : NULL;
		ok = n == 9 && c && c->handle == strtoul(f[1], 0, 16) && same_str(&c->socket, f[2]) &&
		     same_str(&c->version, f[3]) && same_num(c->max_mhz, f[4], 0) && same_num(c->current_mhz, f[5], 0) &&
		     same_num(c->cores, f[6], 0) && same_num(c->threads, f[7], 0) &&
		     c->populated == !strcmp(f[8], "populated");
	} else if (!strcmp(f[0], "array")) {
		const struct smbios_array *a = *arrays < info.n_arrays ? &info.arrays[(*arrays)++] : NULL;
		ok = n == 6 && a && a->handle == strtoul(f[1], 0, 16) && !strcmp(smbios_location_name(a->location), f[2]) &&
		     !strcmp(smbios_use_name(a->use), f[3]) && !strcmp(smbios_ecc_name(a->ecc), f[4]) &&
		     a->slots == strtoul(f[5], 0, 10);
	} else if (!strcmp(f[0], "device")) {
		(*devs)++;
		check_device(f, n, name);
	} else if (!strcmp(f[0], "map19")) {
		const struct smbios_map19 *m = *m19 < info.n_map19 ? &info.map19[(*m19)++] : NULL;
		ok = n == 4 && m && m->start == strtoull(f[1], 0, 16) && m->end == strtoull(f[2], 0, 16) &&
		     m->array_handle == strtoul(f[3], 0, 16);
	} else if (!strcmp(f[0], "map20")) {
		const struct smbios_map20 *m = *m20 < info.n_map20 ? &info.map20[(*m20)++] : NULL;
		ok = n == 4 && m && m->start == strtoull(f[1], 0, 16) && m->end == strtoull(f[2], 0, 16) &&
		     m->device_handle == strtoul(f[3], 0, 16);
	}
	CHECK(ok);
	if (!ok)
		printf("  %s: differs from dmidecode: %s %s %s\n", name, f[0], n > 1 ? f[1] : "", n > 2 ? f[2] : "");
}

/* Parse NAME and compare every line of NAME.expect; then the line people read. */
static void check_fixture(const char *name, const char *config)
{
	char path[512], line[LINE_LEN], *f[MAX_FIELDS];
	CHECK(smbios_fixture_load(name, &fx));
	smbios_fixture_parse(&fx, &info);
	CHECK(info.present && info.ep_valid);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.dropped, 0);
	for (uint32_t i = 0; i < info.n_errors; i++)
		printf("  %s: error %s (type %d at %u)\n", name, info.errors[i].msg, (int)info.errors[i].type,
		       info.errors[i].offset);
	smbios_fixture_path(name, ".expect", path, sizeof(path));
	FILE *fp = fopen(path, "r");
	CHECK(fp != NULL);
	uint32_t procs = 0, arrays = 0, devs = 0, m19 = 0, m20 = 0, lines = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		if (line[0] == '#')
			continue;
		int n = split(line, f);
		check_line(f, n, name, &procs, &arrays, &devs, &m19, &m20);
		lines++;
	}
	if (fp)
		fclose(fp);
	CHECK(lines > 3);
	/* Every structure of the types read is accounted for, none extra. */
	CHECK_EQ_U(procs, info.n_procs);
	CHECK_EQ_U(arrays, info.n_arrays);
	CHECK_EQ_U(devs, info.n_devices);
	CHECK_EQ_U(m19, info.n_map19);
	CHECK_EQ_U(m20, info.n_map20);
	char got[SMBIOS_CONFIG_LEN];
	static struct smbios_placement pl;
	smbios_place(&info, 1, NULL, NULL, &pl);
	CHECK(smbios_memory_config(&info, &pl, got, sizeof(got)));
	CHECK_STR(got, config);
}

/* QEMU's own tables: what -smbios type=1 and type=17 set, as the boot tests ask for them. */
TEST(qemu_tables)
{
	check_fixture("qemu72-ovmf-q35-smbios2", "1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC");
	CHECK(!info.ep.v3 && info.ep.major == 2 && info.ep.minor == 8);
	CHECK(info.system.product.state == SMBIOS_STR_OK && !strncmp(info.system.product.s, "Roadrunner 9000", 15));
	CHECK(info.devices[0].part.state == SMBIOS_STR_OK && !strncmp(info.devices[0].part.s, "M321R4GA3BB6-CQK", 16));
	CHECK(info.system.uuid_state == SMBIOS_UUID_NOT_SET);
	check_fixture("qemu72-ovmf-q35-smbios3", "1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC");
	CHECK(info.ep.v3 && info.ep.major == 3);
	CHECK(info.system.uuid_state == SMBIOS_UUID_OK);
	check_fixture("qemu72-seabios-q35", "1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC");
}

/* Real machines: 2.x and 3.x entry points, DDR3 to DDR5, ECC and not, empty slots, extended sizes. */
TEST(real_machines)
{
	check_fixture("supermicro-x9dbl", "6 of 6 slots: 4 x 4 GiB DDR3-1333 RDIMM + 2 x 16 GiB DDR3-1333 RDIMM, ECC");
	CHECK(info.n_arrays == 2);
	check_fixture("gigabyte-x399", "8 of 8 slots: 8 x 16 GiB DDR4-2933 UDIMM, no ECC");
	CHECK(info.ep.v3);
	check_fixture("beelink-eq12", "1 of 2 slots: 1 x 16 GiB DDR5-4800 SODIMM, no ECC");
	CHECK(info.ep.v3 && info.ep.major == 3 && info.ep.minor == 5);
	CHECK(!info.end_found);                    /* this dump ends after its last OEM structure */
	check_fixture("dell-r630", "2 of 24 slots: 2 x 16 GiB DDR4-1866 RDIMM, ECC");
	check_fixture("asrock-ryzen", "2 of 4 slots: 2 x 32 GiB DDR4-2400 UDIMM, no ECC");
	/* 32 GiB: Size says 7FFFh and the Extended Size holds it. */
	const struct smbios_device *d = device(0x17);
	CHECK(d && d->size_state == SMBIOS_SIZE_KNOWN && d->size_bytes == 32ull << 30);
	check_fixture("gigabyte-ga-ma74gmt-s2", "2 of 4 slots: 2 x 1 GiB 1066 MT/s (rated) DIMM, no ECC");
	CHECK(info.end_found);
	check_fixture("vmware", "1 of 128 slots: 1 x 1 GiB DRAM DIMM, no ECC");
}

int main(void)
{
	RUN(qemu_tables);
	RUN(real_machines);
	return check_summary("smbios_real");
}
