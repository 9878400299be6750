/* test_acpi_files.c - host tests of kernel/acpi*.c on any input: truncation and mutation sweeps over QEMU q35-like tables, the QBACPI01 fixture file format, the tools/acpi-fixture round trip, and every .bin file in tests/fixtures/acpi with its damaged derivatives.
 *
 * QB_ACPI_FIXTURE_DIR overrides the fixture directory; paths are relative to the repository root. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "lib.h"
#include "acpi.h"
#include "acpi_fixture.h"
#include "acpi_testlib.h"

#define FIXTURE_DIR_DEFAULT "tests/fixtures/acpi"

static struct acpi_info info;

/* ---- Any input: truncations and mutations --------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t bound)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % bound);
}

/* What every parse result must satisfy, whatever the input was. */
static void check_invariants(void)
{
	const struct acpi_srat_info *s = &info.srat;

	CHECK(info.n_tables <= QB_MAX_ACPI_TABLES);
	CHECK(info.n_errors <= ACPI_MAX_ERRORS);
	for (uint32_t i = 0; i < info.n_errors && i < ACPI_MAX_ERRORS; i++) {
		CHECK(memchr(info.errors[i].msg, 0, ACPI_ERR_MSG_LEN) != NULL);
		CHECK(strlen(info.errors[i].sig) == 4);
	}
	CHECK(info.madt.n_cpus <= QB_MAX_CPUS);
	CHECK(info.madt.n_enabled <= info.madt.n_cpus);
	for (uint32_t i = 0; i < info.madt.n_cpus && i < QB_MAX_CPUS; i++)
		for (uint32_t j = 0; j < i; j++)
			CHECK(info.madt.cpus[i].apic_id != info.madt.cpus[j].apic_id);
	CHECK(s->n_nodes <= QB_MAX_NODES && s->n_cpus <= QB_MAX_CPUS && s->n_mem <= QB_MAX_SRAT_MEM);
	for (uint32_t i = 1; i < s->n_nodes && i < QB_MAX_NODES; i++)
		CHECK(s->nodes[i - 1].domain < s->nodes[i].domain);
	for (uint32_t i = 0; i < s->n_cpus && i < QB_MAX_CPUS; i++)
		CHECK(s->cpus[i].node < s->n_nodes);
	for (uint32_t i = 0; i < s->n_mem && i < QB_MAX_SRAT_MEM; i++) {
		CHECK(s->mem[i].node < s->n_nodes);
		CHECK(s->mem[i].length && s->mem[i].base + s->mem[i].length > s->mem[i].base);
	}
	CHECK(!info.hpet.present || info.hpet.base);
	CHECK(info.slit.n <= QB_MAX_NODES && (!info.slit.present || info.slit.n == MIN(info.slit.localities, QB_MAX_NODES)));
	for (uint32_t i = 0; info.slit.present && i < info.slit.n; i++)
		for (uint32_t j = 0; j < info.slit.n; j++)
			CHECK(i == j ? info.slit.dist[i][j] == 10 : info.slit.dist[i][j] > 10);
	const struct acpi_hmat_info *h = &info.hmat;
	CHECK(h->n_domains <= ACPI_HMAT_MAX_DOMAINS && h->n_lb <= ACPI_HMAT_MAX_LB && h->n_caches <= ACPI_HMAT_MAX_CACHES);
	CHECK(h->n_entries <= ACPI_HMAT_MAX_ENTRIES);
	for (uint32_t k = 0; k < h->n_lb && k < ACPI_HMAT_MAX_LB; k++)
		CHECK(h->lb[k].n_init <= ACPI_HMAT_MAX_LIST && h->lb[k].n_target <= ACPI_HMAT_MAX_LIST &&
		      h->lb[k].first + h->lb[k].n_init * h->lb[k].n_target <= h->n_entries);
}

TEST(test_fuzz_truncate_and_mutate)
{
	static const struct {
		uint64_t phys;
		int (*parse)(const void *table, uint32_t len, struct acpi_info *out);
	} t[] = {
		{ FX_MADT_PHYS, acpi_parse_madt }, { FX_SRAT_PHYS, acpi_parse_srat },
		{ FX_FADT_PHYS, acpi_parse_fadt }, { FX_HPET_PHYS, acpi_parse_hpet },
		{ FX_SPCR_PHYS, acpi_parse_spcr },
	};

	fx_build_q35(&x2apic300);
	for (size_t k = 0; k < ARRAY_SIZE(t); k++) {
		uint32_t full = fixture_len(t[k].phys), last_cpus = 0;
		const uint8_t *orig = fixture_bytes(t[k].phys);

		for (uint32_t cut = 0; cut <= full; cut++) {
			uint8_t *buf = malloc(cut ? cut : 1); /* exact size: ASan sees any overread */

			memcpy(buf, orig, cut);
			if (cut >= 8)
				memcpy(buf + 4, &cut, 4);
			memset(&info, 0, sizeof(info));
			t[k].parse(buf, cut, &info);
			check_invariants();
			CHECK(info.madt.n_cpus >= last_cpus);
			last_cpus = info.madt.n_cpus;
			free(buf);
		}
		if (t[k].phys == FX_MADT_PHYS)
			CHECK_EQ_U(last_cpus, 4);
		for (int iter = 0; iter < 2000; iter++) {
			uint8_t *buf = malloc(full);
			uint32_t flips = 1 + rnd(4);

			memcpy(buf, orig, full);
			while (flips--)
				buf[4 + rnd(full - 4)] = (uint8_t)rnd(256);
			memset(&info, 0, sizeof(info));
			t[k].parse(buf, full, &info);
			check_invariants();
			free(buf);
		}
	}

	/* Whole walks over mutated memory, half of them with checksums fixed up. */
	for (int iter = 0; iter < 400; iter++) {
		uint64_t phys;
		uint32_t len;

		fx_build_q35(&x2apic300);
		fixture_region(rnd(fixture_count()), &phys, &len);
		fixture_bytes(phys)[rnd(len)] = (uint8_t)rnd(256);
		if (iter & 1) {
			fx_fix_checksum(phys);
			fx_fix_rsdp(FX_RSDP_PHYS);
		}
		acpi_parse(fixture_rsdp(), &info);
		check_invariants();
	}
}

/* ---- Fixture files ---------------------------------------------------------- */

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fwrite(p, 1, n, f);
	return fclose(f);
}

TEST(test_fixture_file_format)
{
	char dir[] = "/tmp/qb-acpi-XXXXXX", path[64];
	uint8_t bad[64] = "QBACPI01";
	uint32_t n_before;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/f.bin", dir);
	fx_build_q35(&smp8_numa2);
	n_before = fixture_count();
	CHECK_EQ_U(fixture_save(path), 0);
	fixture_reset();
	CHECK_EQ_I(fixture_load(path), 0);
	CHECK_EQ_U(fixture_count(), n_before);
	CHECK_EQ_U(fixture_rsdp(), FX_RSDP_PHYS);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.madt.n_enabled, 8);
	CHECK_EQ_U(info.srat.n_nodes, 2);

	memcpy(bad + 8, &(uint64_t){ FX_RSDP_PHYS }, 8);
	CHECK(write_file(path, bad, 16) == 0);                  /* no record holds the RSDP */
	CHECK_EQ_I(fixture_load(path), -1);
	CHECK(write_file(path, bad, 21) == 0);                  /* truncated record header */
	CHECK_EQ_I(fixture_load(path), -1);
	memcpy(bad + 16, &(uint64_t){ FX_RSDP_PHYS }, 8);
	CHECK(write_file(path, bad, 28) == 0);                  /* record of length 0 */
	CHECK_EQ_I(fixture_load(path), -1);
	bad[24] = 36;
	CHECK(write_file(path, bad, 40) == 0);                  /* 36 bytes promised, 12 there */
	CHECK_EQ_I(fixture_load(path), -1);
	bad[7] = '2';
	CHECK(write_file(path, bad, 64) == 0);                  /* bad magic */
	CHECK_EQ_I(fixture_load(path), -1);
	CHECK_EQ_U(fixture_count(), 0);
	unlink(path);
	CHECK_EQ_I(fixture_load(path), -1);           /* missing */
	rmdir(dir);
}

/* Run tools/acpi-fixture on a log written from the builder and compare. */
TEST(test_fixture_tool)
{
	char dir[] = "/tmp/qb-acpi-XXXXXX", log[64], bin[64], cmd[256], *text, *hex;
	static uint8_t saved[FIXTURE_MAX_REGIONS][FX_MAX_TABLE];
	uint64_t phys[FIXTURE_MAX_REGIONS];
	uint32_t len[FIXTURE_MAX_REGIONS];
	unsigned n;
	long size;
	FILE *f;

	if (system("python3 -c '' 2>/dev/null") != 0) {
		printf("  SKIP test_fixture_tool: no python3\n");
		return;
	}
	CHECK(mkdtemp(dir) != NULL);
	snprintf(log, sizeof(log), "%s/serial.log", dir);
	snprintf(bin, sizeof(bin), "%s/out.bin", dir);
	fx_build_q35(&smp8_numa2);
	n = fixture_count();
	for (unsigned i = 0; i < n; i++) {
		fixture_region(i, &phys[i], &len[i]);
		memcpy(saved[i], fixture_bytes(phys[i]), len[i]);
	}
	CHECK_EQ_U(fixture_write_log(log), 0);
	snprintf(cmd, sizeof(cmd), "tools/acpi-fixture %s %s", log, bin);
	CHECK_EQ_U(system(cmd), 0);
	CHECK_EQ_I(fixture_load(bin), 0);
	CHECK_EQ_U(fixture_rsdp(), FX_RSDP_PHYS);
	CHECK_EQ_U(fixture_count(), n);
	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ_U(fixture_len(phys[i]), len[i]);
		CHECK(fixture_bytes(phys[i]) && !memcmp(fixture_bytes(phys[i]), saved[i], len[i]));
	}
	unlink(bin);

	/* One hex digit changed under an unchanged CRC: the tool must refuse. */
	f = fopen(log, "rb+");
	CHECK(f != NULL);
	if (f) {
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		text = calloc(1, (size_t)size + 1);
		rewind(f);
		CHECK_EQ_U(fread(text, 1, (size_t)size, f), size);
		hex = strstr(text, "\"hex\":\"");
		CHECK(hex != NULL);
		if (hex) {
			hex[7] = hex[7] == '0' ? '1' : '0';
			rewind(f);
			fwrite(text, 1, (size_t)size, f);
		}
		fclose(f);
		free(text);
	}
	snprintf(cmd, sizeof(cmd), "tools/acpi-fixture %s %s 2>/dev/null", log, bin);
	CHECK(system(cmd) != 0);
	CHECK(access(bin, F_OK) != 0);
	unlink(log);
	rmdir(dir);
}

/* N from a "<key>N" token of a fixture name such as q35-smp4-maxcpus8.bin; -1 if absent. */
static long name_count(const char *name, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = name; *p; p++) {
		if ((p == name || p[-1] == '-' || p[-1] == '_') && !strncmp(p, key, klen) &&
		    p[klen] >= '0' && p[klen] <= '9')
			return strtol(p + klen, NULL, 10);
	}
	return -1;
}

static bool part_present(const char *sig)
{
	if (!strcmp(sig, "APIC"))
		return info.madt.present;
	if (!strcmp(sig, "SRAT"))
		return info.srat.present;
	if (!strcmp(sig, "FACP"))
		return info.fadt.present;
	if (!strcmp(sig, "HPET"))
		return info.hpet.present;
	if (!strcmp(sig, "SPCR"))
		return info.spcr.present;
	if (!strcmp(sig, "SLIT"))
		return info.slit.present;
	if (!strcmp(sig, "HMAT"))
		return info.hmat.present;
	return false;
}

/* Damage the region at phys one way, check it is refused, then restore it. */
static void check_derivative(uint64_t phys, uint32_t len, const struct acpi_info *good, int how)
{
	uint8_t *b = fixture_bytes(phys);
	static uint8_t saved[FIXTURE_MAX_REGION_LEN];
	bool is_root = phys == good->rsdp.root_phys;
	const char *msg = how == 0 ? "bad checksum" : how == 1 ? "length 20 below header"
								: "length overruns mapping";
	char sig[5] = { 0 };
	int rc;

	memcpy(saved, b, len);
	if (how == 0)
		b[len - 1] ^= 0x40;
	else
		set_len(phys, how == 1 ? 20 : len + 1, false);
	memcpy(sig, b, 4);
	rc = acpi_parse(fixture_rsdp(), &info);
	check_invariants();
	CHECK(info.n_errors > 0);
	if (info.n_errors) {
		CHECK_STR(info.errors[0].sig, is_root ? (good->rsdp.used_xsdt ? "XSDT" : "RSDT") : sig);
		CHECK_STR(info.errors[0].msg, msg);
		CHECK_EQ_U(info.errors[0].value, phys);
	}
	if (is_root) {
		CHECK(!info.rsdp.used_xsdt);
		CHECK(good->rsdp.used_xsdt || rc < 0);
	} else {
		for (uint32_t i = 0; i < info.n_tables; i++)
			if (info.tables[i].phys == phys)
				CHECK(!info.tables[i].valid);
		if (!acpi_table(&info, sig))
			CHECK(!part_present(sig));
		if (!strcmp(sig, "APIC") && !acpi_table(&info, "APIC"))
			CHECK(rc < 0);
	}
	memcpy(b, saved, len);
}

static void check_fixture_file(const char *path, const char *name)
{
	static struct acpi_info good;
	long smp = name_count(name, "smp"), numa = name_count(name, "numa");
	long max = name_count(name, "maxcpus") >= 0 ? name_count(name, "maxcpus") : name_count(name, "max");
	uint64_t phys;
	uint32_t len;

	CHECK_EQ_I(fixture_load(path), 0);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	for (uint32_t i = 0; i < info.n_errors && i < ACPI_MAX_ERRORS; i++)
		printf("  %s: error %s: %s (0x%llx)\n", name, info.errors[i].sig, info.errors[i].msg,
		       (unsigned long long)info.errors[i].value);
	CHECK_EQ_U(info.n_errors, 0);
	for (uint32_t i = 0; i < info.n_tables; i++)
		CHECK(info.tables[i].valid);
	CHECK(info.madt.present);
	CHECK(smp > 0);
	CHECK_EQ_U(info.madt.n_enabled, smp);
	CHECK_EQ_U(info.madt.n_cpus, max > 0 ? max : smp);
	CHECK_EQ_U(info.srat.n_nodes, numa > 0 ? numa : 0);
	printf("  %s: %u tables, %u cpus (%u enabled), %u nodes\n", name, info.n_tables,
	       info.madt.n_cpus, info.madt.n_enabled, info.srat.n_nodes);
	good = info;

	for (unsigned i = 0; fixture_region(i, &phys, &len); i++) {
		bool listed = false;

		for (uint32_t k = 0; k < good.n_tables; k++)
			listed |= good.tables[k].phys == phys;
		if (phys == fixture_rsdp()) {
			fixture_bytes(phys)[8] ^= 0x40;
			CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), ACPI_ERR);
			CHECK_ERR(0, "RSDP", "bad checksum", phys);
			fixture_bytes(phys)[8] ^= 0x40;
		} else if (listed || phys == good.rsdp.root_phys) {
			for (int how = 0; how < 3; how++)
				check_derivative(phys, len, &good, how);
		}
	}
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0); /* restored intact */
	CHECK_EQ_U(info.n_errors, 0);
}

TEST(test_fixture_files)
{
	const char *dir = getenv("QB_ACPI_FIXTURE_DIR") ? getenv("QB_ACPI_FIXTURE_DIR")
							: FIXTURE_DIR_DEFAULT;
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	int n = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < 5 || strcmp(e->d_name + l - 4, ".bin"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		check_fixture_file(path, e->d_name);
		n++;
	}
	closedir(d);
	printf("  %d fixture file(s) in %s\n", n, dir);
}

int main(void)
{
	RUN(test_fuzz_truncate_and_mutate);
	RUN(test_fixture_file_format);
	RUN(test_fixture_tool);
	RUN(test_fixture_files);
	fixture_reset();
	return check_summary("acpi_files");
}
