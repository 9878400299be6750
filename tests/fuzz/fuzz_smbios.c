/* fuzz_smbios.c - libFuzzer harness for the SMBIOS entry points and parser (kernel/lib/smbios_ep.c, kernel/acpi/smbios*.c) and what is made of them: the placement on nodes and the memory configuration line.
 *
 * Input: the format of the .bin files of tests/fixtures/smbios (dmidecode's dump): an
 * entry point in the first 32 bytes, the structure table from offset 32.
 * The same bytes are also scanned as the BIOS area and walked as a loader
 * walks them. Checked beyond "no crash": counts within their arrays; every
 * string that is kept lies inside the table, is printable ASCII and does not
 * end in a space; every error message printable; the table walked no
 * further than its bytes; each device's array index names a real array of
 * its handle; the placement's counts add up to the devices placed; the
 * memory line is printable and NUL-terminated in its buffer; a second parse
 * is the same; the loader's extent is whole structures. */
#include "fuzz.h"
#include "smbios.h"
#include "smbios_summary.h"

#define EP_BYTES 32
#define LINE_CAP 96                    /* smaller than SMBIOS_CONFIG_LEN: the line must cut cleanly */

static struct smbios_info a, b;
static struct smbios_placement pl;

static int node_of(void *ctx, uint64_t phys)
{
	(void)ctx;
	return (int)((phys >> 33) % 3) - 1;    /* nodes 0 and 1, and addresses on none */
}

static void printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(s[i] >= 0x20 && s[i] <= 0x7e);
}

static void check_str(const struct smbios_str *s, const uint8_t *t, size_t len)
{
	if (s->state != SMBIOS_STR_OK) {
		FUZZ_ASSERT(s->s == NULL);
		return;
	}
	FUZZ_ASSERT(s->len > 0 && (const uint8_t *)s->s >= t && (const uint8_t *)s->s + s->len <= t + len);
	printable(s->s, s->len);
	FUZZ_ASSERT(s->s[s->len - 1] != ' ');
}

static void check_info(const struct smbios_info *x, const uint8_t *t, size_t len)
{
	FUZZ_ASSERT(x->table_bytes <= len);
	FUZZ_ASSERT(x->n_procs <= SMBIOS_MAX_PROCS && x->n_arrays <= SMBIOS_MAX_ARRAYS &&
		    x->n_devices <= SMBIOS_MAX_DEVICES && x->n_map19 <= SMBIOS_MAX_MAP19 &&
		    x->n_map20 <= SMBIOS_MAX_MAP20 && x->n_errors <= SMBIOS_MAX_ERRORS);
	for (uint32_t i = 0; i < x->n_errors; i++)
		printable(x->errors[i].msg, strlen(x->errors[i].msg));
	const struct smbios_str *strs[] = { &x->bios.vendor, &x->bios.version, &x->bios.date, &x->system.manufacturer,
					    &x->system.product, &x->system.version, &x->system.serial, &x->system.sku,
					    &x->system.family, &x->board.manufacturer, &x->board.product,
					    &x->board.version, &x->board.serial, &x->chassis.manufacturer,
					    &x->chassis.serial };
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		check_str(strs[i], t, len);
	for (uint32_t i = 0; i < x->n_procs; i++) {
		check_str(&x->procs[i].socket, t, len);
		check_str(&x->procs[i].version, t, len);
	}
	for (uint32_t i = 0; i < x->n_devices; i++) {
		const struct smbios_device *d = &x->devices[i];
		check_str(&d->locator, t, len);
		check_str(&d->bank, t, len);
		check_str(&d->manufacturer, t, len);
		check_str(&d->serial, t, len);
		check_str(&d->part, t, len);
		FUZZ_ASSERT(d->array == SMBIOS_NONE ||
			    (d->array >= 0 && (uint32_t)d->array < x->n_arrays && x->arrays[d->array].handle == d->array_handle));
		FUZZ_ASSERT(d->size_state != SMBIOS_SIZE_KNOWN || d->size_bytes > 0);
	}
	for (uint32_t i = 0; i < x->n_map19; i++)
		FUZZ_ASSERT(x->map19[i].end >= x->map19[i].start);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ep = size >= EP_BYTES ? data : NULL;
	const uint8_t *t = size > EP_BYTES ? data + EP_BYTES : NULL;
	size_t len = size > EP_BYTES ? size - EP_BYTES : 0;
	smbios_parse(ep, ep ? EP_BYTES : 0, t, len, &a);
	check_info(&a, t, len);
	smbios_parse(ep, ep ? EP_BYTES : 0, t, len, &b);
	FUZZ_ASSERT(!memcmp(&a, &b, sizeof(a)));

	uint32_t nodes = size ? data[0] % 4 : 1;
	smbios_place(&a, nodes, node_of, NULL, &pl);
	uint32_t placed = 0, sum = 0;
	for (uint32_t i = 0; i < a.n_devices; i++)
		placed += pl.node[i] >= 0;
	for (uint32_t n = 0; n < QB_MAX_NODES; n++)
		sum += pl.per_node[n];
	FUZZ_ASSERT(!pl.known || sum == placed);
	FUZZ_ASSERT(pl.known || sum == 0);
	printable(pl.why, strlen(pl.why));

	char line[LINE_CAP + 1];
	memset(line, 'x', sizeof(line));
	smbios_memory_config(&a, &pl, line, LINE_CAP);
	FUZZ_ASSERT(memchr(line, 0, LINE_CAP) != NULL && line[LINE_CAP] == 'x');
	printable(line, strlen(line));

	/* The loader's view: the bytes as the BIOS area, and as a table to copy. */
	size_t at = smbios_ep_scan(data, size);
	struct smbios_ep e;
	FUZZ_ASSERT(at == (size_t)-1 || (at % SMBIOS_SCAN_STEP == 0 && smbios_ep_decode(data + at, size - at, &e, NULL)));
	size_t ext = smbios_table_extent(data, size);
	FUZZ_ASSERT(ext <= size);
	for (size_t off = 0; off < ext;) {
		size_t n = smbios_struct_size(data + off, ext - off);
		FUZZ_ASSERT(n > 0);
		off += n;
	}
	return 0;
}
