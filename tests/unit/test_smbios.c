/* test_smbios.c - the SMBIOS entry points and parser (kernel/lib/smbios_ep.c, kernel/acpi/smbios*.c) on bad input: entry points with a wrong checksum, length or anchor; the legacy scan's order; tables cut short, structures shorter than their header or than their type, strings past the table, bad string numbers, bytes that are not ASCII, blanks; a size of 7FFFh without its extended size, the 3.3 extended speeds; each an error or a null with its state, and everything else kept. Then DIMMs set against nodes on two real machines' tables, and where that cannot be done, why. */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "smbios.h"
#include "smbios_fixture.h"
#include "smbios_summary.h"

static struct smbios_fixture fx;
static struct smbios_info info;
static uint8_t buf[8192];
static size_t used;

/* ---- a table built byte by byte ----------------------------------------- */

/* Append a structure: its formatted bytes (header included, length set here) and its strings. */
static void put(const uint8_t *formatted, uint8_t n, const char *const *strings, unsigned n_strings)
{
	memcpy(buf + used, formatted, n);
	buf[used + 1] = n;
	used += n;
	for (unsigned i = 0; i < n_strings; i++) {
		size_t k = strlen(strings[i]) + 1;
		memcpy(buf + used, strings[i], k);
		used += k;
	}
	if (!n_strings)
		buf[used++] = 0;
	buf[used++] = 0;
}

static void end_of_table(void)
{
	static const uint8_t eot[4] = { 127, 4, 0xfe, 0xff };
	put(eot, 4, NULL, 0);
}

/* ---- entry points -------------------------------------------------------- */

TEST(entry_points)
{
	struct smbios_ep ep;
	const char *why = NULL;
	CHECK(smbios_fixture_load("qemu72-seabios-q35", &fx));
	uint8_t ep21[32];
	memcpy(ep21, fx.data, sizeof(ep21));
	CHECK(smbios_ep_decode(ep21, 0x1f, &ep, &why) && !ep.v3 && ep.major == 2 && ep.minor == 8 && ep.table_address == 32);
	CHECK(!smbios_ep_decode(ep21, 0x1e, &ep, &why));          /* cut short */
	ep21[4]++;                                                 /* checksum */
	CHECK(!smbios_ep_decode(ep21, 0x1f, &ep, &why) && !strcmp(why, "2.1 entry point checksum"));
	ep21[4]--;
	ep21[0x16]++;                                              /* the table length: the intermediate sum... */
	ep21[4]--;                                                 /* ...with the whole one made right again */
	CHECK(!smbios_ep_decode(ep21, 0x1f, &ep, &why) && !strcmp(why, "2.1 entry point intermediate checksum"));
	ep21[0x16]--;
	ep21[4]++;
	ep21[0x10] = 'X';                                          /* no _DMI_ */
	ep21[4] = (uint8_t)(ep21[4] + '_' - 'X');
	CHECK(!smbios_ep_decode(ep21, 0x1f, &ep, &why) && strstr(why, "_DMI_"));

	CHECK(smbios_fixture_load("qemu72-ovmf-q35-smbios3", &fx));
	uint8_t ep30[32];
	memcpy(ep30, fx.data, sizeof(ep30));
	CHECK(smbios_ep_decode(ep30, 0x18, &ep, &why) && ep.v3 && ep.major == 3 && ep.table_address == 32);
	CHECK(!smbios_ep_decode(ep30, 0x17, &ep, &why));
	ep30[6] = 0x10;                                            /* a length below 0x18 */
	CHECK(!smbios_ep_decode(ep30, 0x18, &ep, &why) && strstr(why, "length"));
	CHECK(!smbios_ep_decode((const uint8_t *)"_SM4_", 5, &ep, &why) && !strcmp(why, "no _SM3_ or _SM_ anchor"));
	CHECK(!smbios_ep_decode(NULL, 0, &ep, NULL));
}

/* The legacy scan takes a 3.0 entry point before a 2.1 one, on 16-byte boundaries only. */
TEST(legacy_scan)
{
	static uint8_t seg[256];
	struct smbios_fixture three;
	CHECK(smbios_fixture_load("qemu72-seabios-q35", &fx));
	CHECK(smbios_fixture_load("qemu72-ovmf-q35-smbios3", &three));
	memset(seg, 0, sizeof(seg));
	memcpy(seg + 0x20, fx.data, 0x1f);
	memcpy(seg + 0x81, three.data, 0x18);                      /* not on a paragraph: not found */
	CHECK_EQ_U(smbios_ep_scan(seg, sizeof(seg)), 0x20);
	memcpy(seg + 0x90, three.data, 0x18);
	CHECK_EQ_U(smbios_ep_scan(seg, sizeof(seg)), 0x90);
	seg[0x95]++;                                               /* a 3.0 one that does not sum: the 2.1 one */
	CHECK_EQ_U(smbios_ep_scan(seg, sizeof(seg)), 0x20);
	memset(seg, 0, sizeof(seg));
	CHECK(smbios_ep_scan(seg, sizeof(seg)) == (size_t)-1);
	memcpy(seg + sizeof(seg) - 16, fx.data, 16);               /* an anchor whose entry point runs past the end */
	CHECK(smbios_ep_scan(seg, sizeof(seg)) == (size_t)-1);
}

/* ---- tables that are not whole ------------------------------------------- */

/* A real table cut, or a structure broken, anywhere: an error, and what came before it kept. */
TEST(table_cut_short)
{
	CHECK(smbios_fixture_load("supermicro-x9dbl", &fx));
	smbios_fixture_parse(&fx, &info);
	uint32_t whole = info.n_devices;
	CHECK(whole == 6 && info.n_errors == 0);
	/* The table cut in the middle of its last memory device's strings. */
	size_t cut = 0;
	for (size_t off = 0; off + 4 <= fx.table_len;) {
		size_t n = smbios_struct_size(fx.table + off, fx.table_len - off);
		if (fx.table[off] == SMBIOS_TYPE_MEMORY_DEVICE)
			cut = off + n - 3;
		off += n;
	}
	smbios_parse(fx.ep, SMBIOS_EP_MAX, fx.table, cut, &info);
	CHECK_EQ_U(info.n_devices, whole - 1);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK(strstr(info.errors[0].msg, "strings run past the table") != NULL);
	CHECK(info.system.product.state == SMBIOS_STR_OK);        /* what came before is kept */
	CHECK(!info.end_found);
	/* A structure length below the header: the walk stops there, with an error. */
	static uint8_t copy[SMBIOS_FIXTURE_MAX];
	memcpy(copy, fx.table, fx.table_len);
	size_t at = 0;                                             /* the second array's offset */
	for (size_t off = 0; off + 4 <= fx.table_len;) {
		size_t n = smbios_struct_size(copy + off, fx.table_len - off);
		if (copy[off] == SMBIOS_TYPE_MEMORY_ARRAY) {
			at = off;
			break;
		}
		off += n;
	}
	copy[at + 1] = 3;
	smbios_parse(fx.ep, SMBIOS_EP_MAX, copy, fx.table_len, &info);
	CHECK_EQ_U(info.n_arrays, 0);
	CHECK_EQ_U(info.n_errors, 1);
	CHECK(strstr(info.errors[0].msg, "below its header") != NULL);
	CHECK_EQ_U(info.errors[0].offset, at);
	CHECK(info.bios.present && info.system.present);
	/* Nothing at all. */
	smbios_parse(NULL, 0, NULL, 0, &info);
	CHECK(!info.present && !info.ep_valid && info.n_errors == 0);
	/* A bad entry point is an error; the table is still read. */
	uint8_t bad_ep[32];
	memcpy(bad_ep, fx.ep, 32);
	bad_ep[4] ^= 1;
	smbios_parse(bad_ep, 32, fx.table, fx.table_len, &info);
	CHECK(!info.ep_valid && info.n_errors == 1 && info.n_devices == whole);
}

/* ---- structures built byte by byte ---------------------------------------- */

TEST(strings)
{
	/* Type 1: manufacturer a string of spaces, product not ASCII, version string 9 of 3, serial 0. */
	uint8_t t1[0x1b] = { 1, 0, 0x01, 0x00, 1, 2, 9, 0 };
	const char *s1[] = { "    ", "Caf\xc3\xa9", "SKU-1   " };
	t1[0x19] = 3;
	t1[0x1a] = 4;                                          /* family: string 4 of 3 */
	memset(t1 + 8, 0xff, 16);                              /* UUID all FFh: not present */
	used = 0;
	put(t1, sizeof(t1), s1, 3);
	uint8_t t0[0x12] = { 0, 0, 0x00, 0x00, 1, 0, 0, 0, 2 }; /* 2.0 BIOS: no release bytes */
	const char *s0[] = { "Vendor", "01/02/2003" };
	put(t0, sizeof(t0), s0, 2);
	end_of_table();
	smbios_parse(NULL, 0, buf, used, &info);
	const struct smbios_system *y = &info.system;
	CHECK(info.present && info.end_found && info.n_errors == 0);
	CHECK_EQ_U(y->manufacturer.state, SMBIOS_STR_BLANK);
	CHECK_EQ_U(y->product.state, SMBIOS_STR_NOT_ASCII);
	CHECK_EQ_U(y->version.state, SMBIOS_STR_BAD_INDEX);
	CHECK_EQ_U(y->serial.state, SMBIOS_STR_NONE);
	CHECK(y->sku.state == SMBIOS_STR_OK && y->sku.len == 5 && !strncmp(y->sku.s, "SKU-1", 5));  /* trailing spaces dropped */
	CHECK_EQ_U(y->family.state, SMBIOS_STR_BAD_INDEX);
	CHECK_EQ_U(y->uuid_state, SMBIOS_UUID_NOT_PRESENT);
	CHECK(info.bios.vendor.state == SMBIOS_STR_OK && info.bios.version.state == SMBIOS_STR_NONE);
	CHECK(info.bios.major == 0xff);                        /* not in a 2.0 structure */
	/* A type 1 of 2.0 (8 bytes): no UUID, no SKU, no family: ABSENT, not NONE. */
	used = 0;
	uint8_t t1old[8] = { 1, 0, 1, 0, 1, 1, 1, 0 };
	const char *one[] = { "X" };
	put(t1old, 8, one, 1);
	end_of_table();
	smbios_parse(NULL, 0, buf, used, &info);
	CHECK_EQ_U(info.system.sku.state, SMBIOS_STR_ABSENT);
	CHECK_EQ_U(info.system.uuid_state, SMBIOS_UUID_ABSENT);
	/* No strings at all, and a string number 1. */
	used = 0;
	put(t1old, 8, NULL, 0);
	end_of_table();
	smbios_parse(NULL, 0, buf, used, &info);
	CHECK_EQ_U(info.system.manufacturer.state, SMBIOS_STR_BAD_INDEX);
}

TEST(memory_devices)
{
	/* 3.3 memory device: 64 GiB through the extended size, speed words FFFFh with the extended speeds. */
	uint8_t d[0x5c] = { 17, 0, 0x10, 0x00, 0x00, 0x10, 0xfe, 0xff, 72, 0, 64, 0, 0xff, 0x7f, 0x09, 0, 1, 2, 0x22 };
	d[0x13] = 0x80;
	d[0x14] = 0x20;                                        /* type detail: synchronous, registered */
	d[0x15] = 0xff;
	d[0x16] = 0xff;
	d[0x1b] = 2;                                           /* rank 2 */
	d[0x1c] = 0x00;
	d[0x1d] = 0x00;
	d[0x1e] = 0x01;                                        /* extended size 0x10000 MiB */
	d[0x20] = 0xff;
	d[0x21] = 0xff;
	d[0x26] = 0x4c;
	d[0x27] = 0x04;                                        /* 1100 mV */
	d[0x54] = 0x40;
	d[0x55] = 0x1f;                                        /* 8000 MT/s */
	d[0x58] = 0x00;
	d[0x59] = 0x19;                                        /* 6400 MT/s */
	const char *s[] = { "DIMM A1", "P0 CH A" };
	uint8_t a[0x17] = { 16, 0, 0x00, 0x10, 0x03, 0x03, 0x06, 0, 0, 0, 0x80, 0xfe, 0xff, 1, 0 };
	used = 0;
	put(a, sizeof(a), NULL, 0);
	put(d, sizeof(d), s, 2);
	/* A 2.1 device of 7FFFh without the extended size field: unknown, and an error. */
	uint8_t old[0x15] = { 17, 0, 0x11, 0x00, 0x00, 0x10, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x09 };
	put(old, sizeof(old), NULL, 0);
	/* Size 8000h: 0 KiB, which no module is: unknown, not empty (a fuzzer found it, tests/fuzz/regress/smbios). */
	uint8_t zero_kib[0x15] = { 17, 0, 0x14, 0x00, 0x00, 0x10, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x80, 0x09 };
	put(zero_kib, sizeof(zero_kib), NULL, 0);
	/* A device shorter than 2.1's: skipped with an error. */
	uint8_t tiny[0x10] = { 17, 0, 0x12, 0x00 };
	put(tiny, sizeof(tiny), NULL, 0);
	/* Type 19 that ends before it starts: kept out, with an error. */
	uint8_t m19[0x0f] = { 19, 0, 0x13, 0x00, 0x00, 0x00, 0x10, 0x00, 0xff, 0x0f, 0x00, 0x00, 0x00, 0x10, 1 };
	put(m19, sizeof(m19), NULL, 0);
	end_of_table();
	smbios_parse(NULL, 0, buf, used, &info);
	CHECK_EQ_U(info.n_arrays, 1);
	CHECK(info.arrays[0].max_bytes == 0);                  /* 80000000h without the extended field */
	CHECK_EQ_U(info.n_devices, 3);
	CHECK_EQ_U(info.devices[2].size_state, SMBIOS_SIZE_UNKNOWN);
	const struct smbios_device *x = &info.devices[0];
	CHECK(x->size_state == SMBIOS_SIZE_KNOWN && x->size_bytes == 64ull << 30);
	CHECK_EQ_U(x->speed_mts, 8000);
	CHECK_EQ_U(x->configured_mts, 6400);
	CHECK_EQ_U(x->rank, 2);
	CHECK_EQ_U(x->configured_mv, 1100);
	CHECK_EQ_U(x->array, 0);
	CHECK_STR(smbios_module_name(x), "RDIMM");
	CHECK_STR(smbios_memory_type_name(x->type), "DDR5");
	CHECK_EQ_U(info.devices[1].size_state, SMBIOS_SIZE_UNKNOWN);
	CHECK_EQ_U(info.n_map19, 0);
	CHECK_EQ_U(info.n_errors, 3);
	CHECK(strstr(info.errors[0].msg, "7FFFh") && info.errors[0].handle == 0x11);
	CHECK(strstr(info.errors[1].msg, "shorter than its type") && info.errors[1].handle == 0x12);
	CHECK(strstr(info.errors[2].msg, "ends before it starts") && info.errors[2].type == SMBIOS_TYPE_ARRAY_MAPPED);
	char line[SMBIOS_CONFIG_LEN];
	static struct smbios_placement pl;
	smbios_place(&info, 1, NULL, NULL, &pl);
	CHECK(smbios_memory_config(&info, &pl, line, sizeof(line)));
	CHECK_STR(line, "3 of 3 slots: 1 x 64 GiB DDR5-6400 RDIMM + 2 x unknown size DIMM, ECC");
	/* No memory device at all. */
	used = 0;
	end_of_table();
	smbios_parse(NULL, 0, buf, used, &info);
	CHECK(!smbios_memory_config(&info, NULL, line, sizeof(line)));
	CHECK_STR(line, "the SMBIOS table lists no memory device (type 17)");
}

/* More errors than are kept: counted. */
TEST(errors_counted)
{
	uint8_t tiny[0x10] = { 17, 0, 0x12, 0x00 };
	used = 0;
	for (unsigned i = 0; i < SMBIOS_MAX_ERRORS + 5; i++)
		put(tiny, sizeof(tiny), NULL, 0);
	end_of_table();
	smbios_parse(NULL, 0, buf, used, &info);
	CHECK_EQ_U(info.n_errors, SMBIOS_MAX_ERRORS);
	CHECK_EQ_U(info.n_errors_lost, 5);
	CHECK_EQ_U(info.n_devices, 0);
}

/* ---- DIMMs against nodes --------------------------------------------------- */

struct node_range {
	uint64_t start, end;                   /* [start, end) */
};
struct node_map {
	unsigned n;
	struct node_range r[4];
};

static int node_of(void *ctx, uint64_t phys)
{
	const struct node_map *m = ctx;
	for (unsigned i = 0; i < m->n; i++)
		if (phys >= m->r[i].start && phys < m->r[i].end)
			return (int)i;
	return -1;
}

/* The test's own two-node SRAT for each machine, split where its bank locators
 * ("P0_Node0", "P1_Node1") and type 20 ranges put the second socket's memory. */
TEST(dimms_on_nodes)
{
	static struct smbios_placement pl;
	char line[SMBIOS_CONFIG_LEN];
	struct node_map x9 = { 2, { { 0, 0x600000000ull }, { 0x600000000ull, 0xc00000000ull } } };
	CHECK(smbios_fixture_load("supermicro-x9dbl", &fx));
	smbios_fixture_parse(&fx, &info);
	smbios_place(&info, 2, node_of, &x9, &pl);
	CHECK(pl.known);
	CHECK(pl.per_node[0] == 3 && pl.per_node[1] == 3);
	CHECK(pl.node[0] == 0 && pl.node[5] == 1);
	CHECK(smbios_memory_config(&info, &pl, line, sizeof(line)));
	CHECK_STR(line, "6 of 6 slots: 4 x 4 GiB DDR3-1333 RDIMM + 2 x 16 GiB DDR3-1333 RDIMM, ECC; 3 per node");
	/* A node with fewer modules says each node's count. */
	struct node_map lopsided = { 2, { { 0, 0x700000000ull }, { 0x700000000ull, 0xc00000000ull } } };
	smbios_place(&info, 2, node_of, &lopsided, &pl);
	CHECK(pl.known && pl.per_node[0] == 4 && pl.per_node[1] == 2);
	smbios_memory_config(&info, &pl, line, sizeof(line));
	CHECK(strstr(line, "; per node 4, 2") != NULL);
	/* A node map that leaves the second socket's memory out: unknown, and why. */
	struct node_map short_map = { 2, { { 0, 0x600000000ull }, { 0x600000000ull, 0x800000000ull } } };
	smbios_place(&info, 2, node_of, &short_map, &pl);
	CHECK(!pl.known && pl.per_node[0] == 0);
	CHECK_STR(pl.why, "memory device P2-DIMM1F: its type 20 ranges lie outside every SRAT memory range");
	smbios_memory_config(&info, &pl, line, sizeof(line));
	CHECK(strstr(line, "; nodes unknown") != NULL);

	/* Threadripper in NUMA mode: each die's four modules by their type 20 ranges. */
	struct node_map tr = { 2, { { 0, 0x1000000000ull }, { 0x1000000000ull, 0x2080000000ull } } };
	CHECK(smbios_fixture_load("gigabyte-x399", &fx));
	smbios_fixture_parse(&fx, &info);
	smbios_place(&info, 2, node_of, &tr, &pl);
	CHECK(pl.known && pl.per_node[0] == 4 && pl.per_node[1] == 4);

	/* No type 20 and one array over both sockets: its type 19 ranges span the nodes: not guessed. */
	struct node_map r630 = { 2, { { 0, 0x480000000ull }, { 0x480000000ull, 0x880000000ull } } };
	CHECK(smbios_fixture_load("dell-r630", &fx));
	smbios_fixture_parse(&fx, &info);
	smbios_place(&info, 2, node_of, &r630, &pl);
	CHECK(!pl.known);
	CHECK_STR(pl.why, "memory device A3: its array's type 19 ranges span several nodes");
	/* One node: every module is on it, whatever the ranges. */
	smbios_place(&info, 1, node_of, &r630, &pl);
	CHECK(pl.known && pl.per_node[0] == 2);
}

int main(void)
{
	RUN(entry_points);
	RUN(legacy_scan);
	RUN(table_cut_short);
	RUN(strings);
	RUN(memory_devices);
	RUN(errors_counted);
	RUN(dimms_on_nodes);
	return check_summary("smbios");
}
