/* test_acpi_hmat.c - host tests of kernel/acpi/acpi_hmat.c and acpi_slit.c (ACPI 6.5 5.2.28, 5.2.17): QEMU's own tables for a machine with memory-only nodes, a real server's HMAT and SLIT against ACPICA's iasl -d, and malformed tables built byte by byte.
 *
 * QB_ACPI_TABLES_DIR overrides tests/fixtures/real/tables; paths are relative to the repository root. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "lib.h"
#include "acpi.h"
#include "acpi_expect.h"
#include "acpi_fixture.h"
#include "acpi_testlib.h"

#define QEMU_FIXTURE "tests/fixtures/acpi/q35-smp4-numa4-hmat.bin"
#define TABLES_DIR_DEFAULT "tests/fixtures/real/tables"
#define EPS 1e-9
#define HMAT_FIXED 40
#define LB_FIXED 32
#define QEMU_GIB_MBS 1024.0   /* QEMU's "G" of bandwidth is GiB/s; the HMAT says MB/s (2^20 bytes) */

static struct acpi_info info;
static struct fx_table t;

/* ---- Building HMAT and SLIT tables ---------------------------------------- */

/* A 5.2.28.3 structure at the end of t. */
static void put_domain(uint32_t mem, uint32_t init, bool valid, uint32_t len)
{
	uint32_t o = t.len;
	fx_put(&t, o, 0, 2);
	fx_put(&t, o + 4, len, 4);
	fx_put(&t, o + 8, valid, 2);
	fx_put(&t, o + 12, init, 4);
	fx_put(&t, o + 16, mem, 4);
	t.len = o + len;
}

/* A 5.2.28.4 structure at the end of t: ni x nt entries from e (NULL: i * 16 + j + 1), stated length len (0: exact). */
static void put_lb(uint8_t flags, uint8_t type, uint64_t base, uint32_t ni, uint32_t nt, const uint16_t *e, uint32_t len)
{
	uint32_t o = t.len, need = LB_FIXED + 4 * (ni + nt) + 2 * ni * nt;
	fx_put(&t, o, 1, 2);
	fx_put(&t, o + 4, len ? len : need, 4);
	fx_put(&t, o + 8, flags, 1);
	fx_put(&t, o + 9, type, 1);
	fx_put(&t, o + 12, ni, 4);
	fx_put(&t, o + 16, nt, 4);
	fx_put(&t, o + 24, base, 8);
	for (uint32_t i = 0; i < ni; i++)
		fx_put(&t, o + LB_FIXED + 4 * i, i, 4);
	for (uint32_t j = 0; j < nt; j++)
		fx_put(&t, o + LB_FIXED + 4 * (ni + j), 10 + j, 4); /* targets: domains 10, 11, ... */
	for (uint32_t k = 0; k < ni * nt; k++)
		fx_put(&t, o + LB_FIXED + 4 * (ni + nt) + 2 * k, e ? e[k] : (k / nt) * 16 + k % nt + 1, 2);
	t.len = o + (len ? len : need);
}

static void begin_hmat(uint8_t rev)
{
	fx_begin(&t, "HMAT", rev, HMAT_FIXED);
}

static int parse_hmat(void)
{
	memset(&info, 0, sizeof(info));
	fx_end(&t);
	return acpi_parse_hmat(t.b, t.len, &info);
}

/* An n x n SLIT with 10 on the diagonal and 20 elsewhere. */
static void build_slit(uint64_t n, uint32_t bytes)
{
	fx_begin(&t, "SLIT", 1, 44);
	fx_put(&t, 36, n, 8);
	for (uint32_t k = 0; k < bytes; k++)
		fx_put(&t, 44 + k, k / n == k % n ? 10 : 20, 1);
}

static int parse_slit(void)
{
	memset(&info, 0, sizeof(info));
	fx_end(&t);
	return acpi_parse_slit(t.b, t.len, &info);
}

/* ---- QEMU: two nodes with CPUs, two memory-only nodes ---------------------- */

/* The machine tests/fixtures/acpi/q35-smp4-numa4-hmat.bin was dumped from (dump=acpi):
 * -machine hmat=on, nodes 2 and 3 memory-only with initiators 0 and 1, read
 * latency 90 ns local, 160 ns to the other socket, 250 ns to the memory-only
 * node behind the own socket and 400 ns to the other one; write latency 10 ns
 * more; read bandwidth 200G local, 100G remote, 30G to memory-only nodes;
 * a 16 MiB direct-mapped write-back memory-side cache on node 2 (64-byte
 * lines); -numa dist 0-1 21, 0-2 17, 0-3 28, 1-2 28, 1-3 17, 2-3 34. */
TEST(test_qemu_memory_only_nodes)
{
	static const double lat[2][4] = { { 90, 160, 250, 400 }, { 160, 90, 400, 250 } };
	static const double bw[2][4] = { { 200, 100, 30, 30 }, { 100, 200, 30, 30 } };
	static const uint8_t dist[4][4] = { { 10, 21, 17, 28 }, { 21, 10, 28, 17 }, { 17, 28, 10, 34 }, { 28, 17, 34, 10 } };
	double v;

	fixture_reset();
	CHECK_EQ_I(fixture_load(QEMU_FIXTURE), 0);
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.srat.n_nodes, 4);
	CHECK_EQ_U(info.srat.nodes[0].n_cpus, 2);
	CHECK_EQ_U(info.srat.nodes[1].n_cpus, 2);
	CHECK_EQ_U(info.srat.nodes[2].n_cpus, 0);
	CHECK_EQ_U(info.srat.nodes[3].n_cpus, 0);
	CHECK_EQ_U(info.srat.nodes[3].mem_bytes, 512 * MIB);
	CHECK_EQ_I(acpi_node_of_domain(&info, 3), 3);
	CHECK_EQ_I(acpi_node_of_domain(&info, 4), -1);

	CHECK(info.slit.present);
	CHECK_EQ_U(info.slit.localities, 4);
	for (uint32_t i = 0; i < 4; i++)
		for (uint32_t j = 0; j < 4; j++)
			CHECK_EQ_I(acpi_slit_distance(&info, i, j), dist[i][j]);
	CHECK_EQ_I(acpi_slit_distance(&info, 0, 4), -1);

	CHECK(info.hmat.present && acpi_hmat_units_known(&info.hmat));
	CHECK_EQ_U(info.hmat.n_domains, 4);
	CHECK(info.hmat.domains[2].memory_domain == 2 && info.hmat.domains[2].initiator_valid &&
	      info.hmat.domains[2].initiator_domain == 0);
	CHECK(info.hmat.domains[3].memory_domain == 3 && info.hmat.domains[3].initiator_domain == 1);
	CHECK_EQ_U(info.hmat.n_lb, 3);
	for (uint32_t i = 0; i < 2; i++) {
		for (uint32_t j = 0; j < 4; j++) {
			CHECK(acpi_hmat_value(&info, i, j, ACPI_HMAT_READ_LATENCY, &v) && fabs(v - lat[i][j]) < EPS);
			CHECK(acpi_hmat_value(&info, i, j, ACPI_HMAT_WRITE_LATENCY, &v) && fabs(v - lat[i][j] - 10) < EPS);
			CHECK(acpi_hmat_value(&info, i, j, ACPI_HMAT_READ_BANDWIDTH, &v) &&
			      fabs(v - bw[i][j] * QEMU_GIB_MBS) < EPS);
			CHECK(!acpi_hmat_value(&info, i, j, ACPI_HMAT_ACCESS_LATENCY, &v)); /* not given */
		}
	}
	CHECK(!acpi_hmat_value(&info, 2, 0, ACPI_HMAT_READ_LATENCY, &v)); /* no CPUs: not an initiator */
	CHECK_EQ_U(info.hmat.n_caches, 1);
	uint32_t a = info.hmat.caches[0].attributes;
	CHECK(info.hmat.caches[0].memory_domain == 2 && info.hmat.caches[0].size == 16 * MIB);
	CHECK(ACPI_HMAT_CACHE_LEVELS(a) == 1 && ACPI_HMAT_CACHE_LEVEL(a) == 1 && ACPI_HMAT_CACHE_ASSOC(a) == 1 &&
	      ACPI_HMAT_CACHE_POLICY(a) == 1 && ACPI_HMAT_CACHE_LINE(a) == 64);
	CHECK_STR(acpi_hmat_data_name(ACPI_HMAT_WRITE_BANDWIDTH), "write-bandwidth");
	CHECK_STR(acpi_hmat_data_name(6), "reserved");
}

/* ---- Real servers: tests/fixtures/real/tables against iasl -d --------------- */

/* Parse the SLIT and HMAT of one tables-only fixture; returns the values compared. */
static unsigned check_tables(const char *dir, const char *name)
{
	char path[512], line[256];
	unsigned compared = 0;

	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	fixture_reset();
	CHECK_EQ_I(fixture_load(path), 0);
	memset(&info, 0, sizeof(info));
	CHECK_EQ_I(acpi_find_tables(fixture_rsdp(), &info), 0);
	for (unsigned k = 0; k < 2; k++) {
		const char *sig = k ? "HMAT" : "SLIT";
		const struct acpi_table_ref *ref = acpi_table(&info, sig);
		const void *p = ref ? acpi_table_map(ref, &info) : NULL;
		if (p)
			CHECK_EQ_I(k ? acpi_parse_hmat(p, ref->length, &info) : acpi_parse_slit(p, ref->length, &info), 0);
	}
	CHECK_EQ_U(info.n_errors, 0);
	snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		int bad = acpi_expect_numa_line(&info, name, line, &compared);
		if (line[0] != '#')
			CHECK(bad >= 0); /* every line is one the comparison knows */
		CHECK_EQ_I(bad > 0 ? bad : 0, 0);
	}
	if (f)
		fclose(f);
	printf("  %-28s SLIT of %u localities, HMAT with %u structures, %u values compared\n", name,
	       info.slit.n, info.hmat.n_domains + info.hmat.n_lb + info.hmat.n_caches, compared);
	return compared;
}

TEST(test_real_tables)
{
	const char *dir = getenv("QB_ACPI_TABLES_DIR") ? getenv("QB_ACPI_TABLES_DIR") : TABLES_DIR_DEFAULT;
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char name[256];
		if (l < 5 || strcmp(e->d_name + l - 4, ".bin") || l - 4 >= sizeof(name))
			continue;
		memcpy(name, e->d_name, l - 4);
		name[l - 4] = 0;
		CHECK(check_tables(dir, name) > 0);
		n++;
	}
	if (d)
		closedir(d);
	CHECK(n >= 1);
	/* The Intel server's claims as Linux's acpi/hmat printed them at boot (in
	 * the same source): read latency 91 ns (Linux rounds 90.7 up) local, 167
	 * to the other socket, 100 and 176 to the two CXL memory-only domains. */
	double v;
	CHECK(check_tables(dir, "intel-2s-cxl") > 0);
	CHECK(acpi_hmat_value(&info, 0, 0, ACPI_HMAT_READ_LATENCY, &v) && fabs(v - 90.7) < 1e-6);
	CHECK(acpi_hmat_value(&info, 0, 3, ACPI_HMAT_READ_LATENCY, &v) && fabs(v - 175.7) < 1e-6);
	CHECK(acpi_hmat_value(&info, 1, 0, ACPI_HMAT_READ_BANDWIDTH, &v) && fabs(v - 122900) < 1e-6);
}

/* ---- Malformed and edge-case tables ----------------------------------------- */

TEST(test_hmat_values)
{
	static const uint16_t e[] = { 900, 0, 0xffff, 1, 2, 3 };

	begin_hmat(2);
	put_domain(10, 0, true, 40);
	put_lb(0x20, ACPI_HMAT_ACCESS_LATENCY, 100, 2, 3, e, 0);
	put_lb(1, ACPI_HMAT_READ_LATENCY, 10, 1, 1, NULL, 0);     /* a memory-side cache level: not memory's */
	put_lb(0, ACPI_HMAT_READ_BANDWIDTH, 0, 1, 1, NULL, 0);    /* base unit 0: no value */
	put_lb(0, 9, 100, 1, 1, NULL, 0);                         /* a reserved data type: kept, no value */
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.hmat.n_lb, 4);
	CHECK_EQ_U(info.hmat.n_entries, 9);
	CHECK(info.hmat.lb[0].flags == 0x20 && info.hmat.lb[0].hierarchy == 0 && info.hmat.lb[1].hierarchy == 1);
	double v;
	CHECK(acpi_hmat_value(&info, 0, 10, ACPI_HMAT_ACCESS_LATENCY, &v) && fabs(v - 90.0) < EPS);
	CHECK(!acpi_hmat_value(&info, 0, 11, ACPI_HMAT_ACCESS_LATENCY, &v)); /* 0: not provided */
	CHECK(!acpi_hmat_value(&info, 0, 12, ACPI_HMAT_ACCESS_LATENCY, &v)); /* 0xffff */
	CHECK(acpi_hmat_value(&info, 1, 12, ACPI_HMAT_ACCESS_LATENCY, &v) && fabs(v - 0.3) < EPS);
	CHECK(!acpi_hmat_value(&info, 0, 10, ACPI_HMAT_READ_LATENCY, &v));
	CHECK(!acpi_hmat_value(&info, 0, 10, ACPI_HMAT_READ_BANDWIDTH, &v));
	CHECK(!acpi_hmat_lb_value(&info.hmat, &info.hmat.lb[3], 0, 0, &v));
	CHECK(!acpi_hmat_lb_value(&info.hmat, &info.hmat.lb[0], 2, 0, &v)); /* past the initiators */

	/* ACPI 6.2's revision 1: the same layout, other units: kept, no values. */
	begin_hmat(1);
	put_lb(0, ACPI_HMAT_ACCESS_LATENCY, 100, 2, 3, e, 0);
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK(info.hmat.present && info.hmat.n_lb == 1 && !acpi_hmat_units_known(&info.hmat));
	CHECK(!acpi_hmat_value(&info, 0, 10, ACPI_HMAT_ACCESS_LATENCY, &v));
}

TEST(test_hmat_malformed)
{
	/* Lists that overrun their structure: what came before is kept. */
	begin_hmat(2);
	put_domain(1, 0, false, 40);
	put_lb(0, 0, 100, 2, 3, NULL, LB_FIXED + 20 + 10); /* 2 bytes short of the entries */
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "HMAT", "structure at offset 80: its lists overrun it", 80);
	CHECK(info.hmat.n_domains == 1 && info.hmat.n_lb == 0 && !info.hmat.domains[0].initiator_valid);

	begin_hmat(2);
	put_domain(1, 0, true, 36);
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_ERR(0, "HMAT", "structure at offset 40 has wrong length", 40);
	CHECK_EQ_U(info.hmat.n_domains, 0);

	begin_hmat(2);
	put_domain(1, 0, true, 40);
	fx_put(&t, t.len + 4, 4, 4); /* a structure of length 4 */
	t.len += 8;
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_ERR(0, "HMAT", "structure at offset 80 has length below 8", 80);
	CHECK_EQ_U(info.hmat.n_domains, 1);

	begin_hmat(2);
	fx_put(&t, 44, 400, 4); /* longer than the table */
	t.len = 48;
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_ERR(0, "HMAT", "structure at offset 40 overruns table", 40);

	begin_hmat(2);
	put_domain(1, 0, true, 40);
	t.len += 3; /* trailing bytes too few for a structure */
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_ERR(0, "HMAT", "structure at offset 80 overruns table", 80);

	/* Counts whose bytes wrap past 2^64 (2^32-2 initiators, 2^31-2 targets:
	 * 32 + 4(ni+nt) + 2 ni nt = 2^64 + 24) in a header-only structure: its
	 * lists overrun it, nothing read past it. */
	begin_hmat(2);
	fx_put(&t, 40, 1, 2);
	fx_put(&t, 44, LB_FIXED, 4);
	fx_put(&t, 52, 0xfffffffeu, 4);
	fx_put(&t, 56, 0x7ffffffeu, 4);
	t.len = 40 + LB_FIXED;
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "HMAT", "structure at offset 40: its lists overrun it", 40);
	CHECK(info.hmat.n_lb == 0 && info.hmat.n_dropped == 0);

	/* More initiators than kept: dropped and said, the rest read on. */
	begin_hmat(2);
	put_lb(0, 0, 100, QB_MAX_NODES + 1, 1, NULL, 0);
	put_domain(3, 0, true, 40);
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK_ERR(0, "HMAT", "structure limit, 1 structures dropped", 40);
	CHECK(info.hmat.n_lb == 0 && info.hmat.n_dropped == 1 && info.hmat.n_domains == 1);

	/* A cache whose SMBIOS handles overrun it; one below the header. */
	begin_hmat(2);
	fx_put(&t, 40, 2, 2);
	fx_put(&t, 44, 32, 4);
	fx_put(&t, 40 + 30, 1, 2);
	t.len = 72;
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_ERR(0, "HMAT", "structure at offset 40 has wrong length", 40);
	memset(&info, 0, sizeof(info));
	CHECK_EQ_I(acpi_parse_hmat(t.b, 30, &info), ACPI_ERR);
	CHECK_ERR(0, "HMAT", "buffer of 30 bytes below header", 0);
	CHECK(!info.hmat.present);
}

TEST(test_slit)
{
	build_slit(3, 9);
	fx_put(&t, 44 + 1, 0xff, 1); /* unreachable is a distance too */
	CHECK_EQ_I(parse_slit(), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK(info.slit.present && info.slit.n == 3);
	CHECK_EQ_I(acpi_slit_distance(&info, 0, 1), 0xff);
	CHECK_EQ_I(acpi_slit_distance(&info, 2, 1), 20);

	build_slit(3, 9);
	fx_put(&t, 44 + 4, 11, 1); /* locality 1 to itself */
	CHECK_EQ_I(parse_slit(), ACPI_ERR);
	CHECK_ERR(0, "SLIT", "invalid distance 11, table not used", 48);
	CHECK(!info.slit.present && acpi_slit_distance(&info, 0, 0) == -1);

	build_slit(3, 9);
	fx_put(&t, 44 + 5, 9, 1); /* 0-9 are reserved off the diagonal */
	CHECK_EQ_I(parse_slit(), ACPI_ERR);
	CHECK_ERR(0, "SLIT", "invalid distance 9, table not used", 49);

	build_slit(3, 8);
	CHECK_EQ_I(parse_slit(), ACPI_ERR);
	CHECK_ERR(0, "SLIT", "3 localities overrun the table", 44);

	build_slit(1ull << 40, 8); /* N x N would wrap a 32-bit size */
	CHECK_EQ_I(parse_slit(), ACPI_ERR);
	CHECK_ERR(0, "SLIT", "1099511627776 localities overrun the table", 44);

	build_slit(QB_MAX_NODES + 1, (QB_MAX_NODES + 1) * (QB_MAX_NODES + 1));
	CHECK_EQ_I(parse_slit(), 0);
	CHECK_ERR(0, "SLIT", "locality limit, 1 localities dropped", 44);
	CHECK(info.slit.present && info.slit.n == QB_MAX_NODES && info.slit.localities == QB_MAX_NODES + 1);
	CHECK_EQ_I(acpi_slit_distance(&info, QB_MAX_NODES - 1, QB_MAX_NODES - 1), 10);
	CHECK_EQ_I(acpi_slit_distance(&info, QB_MAX_NODES - 1, 0), 20);
}

int main(void)
{
	RUN(test_qemu_memory_only_nodes);
	RUN(test_real_tables);
	RUN(test_hmat_values);
	RUN(test_hmat_malformed);
	RUN(test_slit);
	fixture_reset();
	return check_summary("acpi_hmat");
}
