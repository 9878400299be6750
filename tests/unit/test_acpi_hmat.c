/* test_acpi_hmat.c - host tests of kernel/acpi/acpi_hmat.c and acpi_slit.c (ACPI 6.5 5.2.28, 5.2.17): QEMU's own tables for a machine with memory-only nodes, a real server's HMAT and SLIT against ACPICA's iasl -d, a real revision-1 HMAT (ACPI 6.2) and the rule its units are read by, and malformed tables built byte by byte.
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
#include "numa_fw.h"

#define QEMU_FIXTURE "tests/fixtures/acpi/q35-smp4-numa4-hmat.bin"
#define TABLES_DIR_DEFAULT "tests/fixtures/real/tables"
#define EPS 1e-9
#define HMAT_FIXED 40
#define LB_FIXED 32
#define QEMU_GIB_MBS 1024.0   /* QEMU's "G" of bandwidth is GiB/s; the HMAT says MB/s (2^20 bytes) */
#define REV1_FIXTURE "tests/fixtures/real/supermicro-2s-clx.bin"
#define PS_PER_NS 1000.0
#define LINUX_REV1_DIV 10u    /* drivers/acpi/numa/hmat.c, hmat_normalize(): revision 1's entry x base / 10 */
#define DRAM_LOCAL_MIN_NS 70.0 /* a two-socket Xeon's local DRAM latency (issue 37), the band that */
#define DRAM_LOCAL_MAX_NS 90.0 /* tells the readings of a revision-1 entry apart */

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

/* ---- A real revision-1 HMAT: which reading of its entries ------------------- */

/* The first memory (hierarchy 0) structure of data type `type`, or NULL. */
static const struct acpi_hmat_lb *memory_lb(uint8_t type)
{
	for (uint32_t k = 0; k < info.hmat.n_lb; k++)
		if (info.hmat.lb[k].hierarchy == 0 && info.hmat.lb[k].data_type == type)
			return &info.hmat.lb[k];
	return NULL;
}

/* The memory domain that the domain attributes attach to initiator `init`, or ~0u. */
static uint32_t local_memory(uint32_t init)
{
	for (uint32_t k = 0; k < info.hmat.n_domains; k++) {
		const struct acpi_hmat_domain *d = &info.hmat.domains[k];
		if (d->memory_valid && d->initiator_valid && d->initiator_domain == init)
			return d->memory_domain;
	}
	return ~0u;
}

/* tests/fixtures/real/supermicro-2s-clx: a Supermicro server with two 24-core
 * Cascade Lake sockets, whose firmware (2024) still gives a revision-1 HMAT.
 * Its read latency, as iasl -d prints it: base 0x64, entries 0x02F8 to the
 * initiator's own memory and 0x054C to the other socket's. Of the three
 * readings of entry x base (ps, Linux's / 10, ns) only picoseconds lands in
 * the local band; the decoder must take it, for every data type. */
TEST(test_real_rev1)
{
	const struct acpi_hmat_lb *rd, *wr, *rbw, *wbw;
	const char *kind = NULL;
	double v;

	fixture_reset();
	CHECK_EQ_I(fixture_load(REV1_FIXTURE), 0);
	memset(&info, 0, sizeof(info));
	CHECK_EQ_I(acpi_parse(fixture_rsdp(), &info), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK(info.hmat.present && info.hmat.revision == 1 && !acpi_hmat_units_known(&info.hmat));
	CHECK(acpi_hmat_rule(&info.hmat) == ACPI_HMAT_RULE_REV1_AS_REV2);
	CHECK_STR(acpi_hmat_rule_name(acpi_hmat_rule(&info.hmat)), "rev1-as-rev2");
	CHECK_EQ_U(info.srat.n_nodes, 2);
	CHECK_EQ_U(info.hmat.n_domains, 6); /* one per address range: two on domain 0, four on domain 1 */
	rd = memory_lb(ACPI_HMAT_READ_LATENCY);
	wr = memory_lb(ACPI_HMAT_WRITE_LATENCY);
	rbw = memory_lb(ACPI_HMAT_READ_BANDWIDTH);
	wbw = memory_lb(ACPI_HMAT_WRITE_BANDWIDTH);
	CHECK(rd && wr && rbw && wbw);
	if (!rd || !wr || !rbw || !wbw)
		return;
	CHECK(rd->base_unit == 0x64 && rd->n_init == 2 && rd->n_target == 2);

	unsigned local = 0;
	for (uint32_t i = 0; i < rd->n_init; i++) {
		for (uint32_t j = 0; j < rd->n_target; j++) {
			uint64_t raw = (uint64_t)info.hmat.entries[rd->first + i * rd->n_target + j] * rd->base_unit;
			double ps = (double)raw / PS_PER_NS, linux_ns = (double)((raw + LINUX_REV1_DIV - 1) / LINUX_REV1_DIV);
			bool own = local_memory(rd->init[i]) == rd->target[j];
			CHECK(acpi_hmat_lb_value(&info.hmat, rd, i, j, &v) && fabs(v - ps) < EPS);
			CHECK(acpi_hmat_value(&info, rd->init[i], rd->target[j], ACPI_HMAT_READ_LATENCY, &v) &&
			      fabs(v - ps) < EPS);
			if (own) {
				local++;
				CHECK(v >= DRAM_LOCAL_MIN_NS && v <= DRAM_LOCAL_MAX_NS);
				CHECK(linux_ns > DRAM_LOCAL_MAX_NS && (double)raw > DRAM_LOCAL_MAX_NS);
				CHECK(fabs(v - 0x02F8 * 0x64 / PS_PER_NS) < EPS); /* 76.0 ns */
			} else {
				CHECK(fabs(v - 0x054C * 0x64 / PS_PER_NS) < EPS); /* 135.6 ns: the other socket */
			}
			/* Write latency and both bandwidths: the same entry x base, no division for MB/s. */
			CHECK(acpi_hmat_lb_value(&info.hmat, wr, i, j, &v) &&
			      fabs(v - info.hmat.entries[wr->first + i * wr->n_target + j] * (double)wr->base_unit /
					   PS_PER_NS) < EPS);
			CHECK(acpi_hmat_lb_value(&info.hmat, rbw, i, j, &v) &&
			      fabs(v - info.hmat.entries[rbw->first + i * rbw->n_target + j] * (double)rbw->base_unit) < EPS);
			CHECK(acpi_hmat_lb_value(&info.hmat, wbw, i, j, &v) &&
			      fabs(v - info.hmat.entries[wbw->first + i * wbw->n_target + j] * (double)wbw->base_unit) < EPS);
		}
	}
	CHECK_EQ_U(local, 2);
	CHECK(acpi_hmat_value(&info, 0, 0, ACPI_HMAT_READ_BANDWIDTH, &v) && fabs(v - 0x45EC) < EPS); /* 17900 MB/s */

	/* The claims the workloads set beside their measurements, by dense node. */
	numa_fw_set(&info);
	CHECK(numa_fw_claims_note() == NULL);
	CHECK(fabs(numa_fw_latency_ns(0, 0, &kind) - 76.0) < EPS && kind && !strcmp(kind, "read-latency"));
	CHECK(fabs(numa_fw_latency_ns(1, 0, NULL) - 135.6) < EPS);
	CHECK(fabs(numa_fw_bandwidth_mbs(1, 1, NULL) - 17900.0) < EPS);
	numa_fw_set(NULL);
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
	CHECK(acpi_hmat_units_known(&info.hmat) && acpi_hmat_rule(&info.hmat) == ACPI_HMAT_RULE_REV2);
	CHECK_STR(acpi_hmat_rule_name(ACPI_HMAT_RULE_REV2), "rev2");

	/* ACPI 6.2's revision 1: the same layout, read with revision 2's units
	 * (acpi_hmat.c; test_real_rev1 for why), not Linux's / 10 (9 ns here). */
	begin_hmat(1);
	put_lb(0, ACPI_HMAT_ACCESS_LATENCY, 100, 2, 3, e, 0);
	put_lb(0, ACPI_HMAT_READ_BANDWIDTH, 4, 1, 1, NULL, 0);
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK(info.hmat.present && info.hmat.n_lb == 2 && !acpi_hmat_units_known(&info.hmat));
	CHECK(acpi_hmat_rule(&info.hmat) == ACPI_HMAT_RULE_REV1_AS_REV2);
	CHECK(acpi_hmat_value(&info, 0, 10, ACPI_HMAT_ACCESS_LATENCY, &v) && fabs(v - 90.0) < EPS);
	CHECK(acpi_hmat_value(&info, 1, 12, ACPI_HMAT_ACCESS_LATENCY, &v) && fabs(v - 0.3) < EPS);
	CHECK(!acpi_hmat_value(&info, 0, 11, ACPI_HMAT_ACCESS_LATENCY, &v)); /* 0: not provided */
	CHECK(!acpi_hmat_value(&info, 0, 12, ACPI_HMAT_ACCESS_LATENCY, &v)); /* 0xffff */
	CHECK(acpi_hmat_value(&info, 0, 10, ACPI_HMAT_READ_BANDWIDTH, &v) && fabs(v - 4.0) < EPS); /* entry 1 x 4 MB/s */

	/* Any other revision: kept, no rule, no values. */
	static const uint8_t other[] = { 0, 3 };
	for (unsigned k = 0; k < sizeof(other); k++) {
		begin_hmat(other[k]);
		put_lb(0, ACPI_HMAT_ACCESS_LATENCY, 100, 2, 3, e, 0);
		CHECK_EQ_I(parse_hmat(), 0);
		CHECK(info.hmat.present && info.hmat.n_lb == 1 && !acpi_hmat_units_known(&info.hmat));
		CHECK(acpi_hmat_rule(&info.hmat) == ACPI_HMAT_RULE_NONE);
		CHECK(acpi_hmat_rule_name(acpi_hmat_rule(&info.hmat)) == NULL);
		CHECK(!acpi_hmat_value(&info, 0, 10, ACPI_HMAT_ACCESS_LATENCY, &v));
	}
	memset(&info, 0, sizeof(info)); /* no HMAT at all */
	CHECK(acpi_hmat_rule(&info.hmat) == ACPI_HMAT_RULE_NONE);
}

/* Revision 1's first structure gave the memory domain a valid bit (Flags bit
 * 1), reserved from revision 2 on, where the field is always valid. */
TEST(test_hmat_memory_valid)
{
	begin_hmat(1);
	put_domain(5, 0, true, 40);                 /* Flags 1: the processor domain only */
	put_domain(6, 1, true, 40);
	fx_put(&t, HMAT_FIXED + 40 + 8, 3, 2);      /* Flags 3: both */
	put_domain(7, 1, false, 40);
	fx_put(&t, HMAT_FIXED + 80 + 8, 2, 2);      /* Flags 2: the memory domain only */
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK_EQ_U(info.n_errors, 0);
	CHECK_EQ_U(info.hmat.n_domains, 3);
	CHECK(!info.hmat.domains[0].memory_valid && info.hmat.domains[0].initiator_valid);
	CHECK(info.hmat.domains[1].memory_valid && info.hmat.domains[1].initiator_valid &&
	      info.hmat.domains[1].memory_domain == 6 && info.hmat.domains[1].initiator_domain == 1);
	CHECK(info.hmat.domains[2].memory_valid && !info.hmat.domains[2].initiator_valid);

	begin_hmat(2);
	put_domain(5, 0, true, 40);                 /* Flags 1: bit 1 clear, reserved */
	CHECK_EQ_I(parse_hmat(), 0);
	CHECK(info.hmat.domains[0].memory_valid && info.hmat.domains[0].memory_domain == 5);
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
	RUN(test_real_rev1);
	RUN(test_hmat_values);
	RUN(test_hmat_memory_valid);
	RUN(test_hmat_malformed);
	RUN(test_slit);
	fixture_reset();
	return check_summary("acpi_hmat");
}
