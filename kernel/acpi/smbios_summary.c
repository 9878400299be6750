/* smbios_summary.c - memory devices set against NUMA nodes, and the memory configuration line; see smbios_summary.h. */
#include "smbios_summary.h"
#include "fmt.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define KIB (1ull << 10)
#define NODE_UNKNOWN (-1)
#define NODE_SPLIT (-2)                /* ranges on two nodes */

/* ---- Private Functions ---------------------------------------------------- */

/* The node of [start, end], NODE_UNKNOWN if an end is on none, NODE_SPLIT if the ends differ. */
static int node_of_range(smbios_node_of_fn fn, void *ctx, uint64_t start, uint64_t end)
{
	int a = fn(ctx, start), b = fn(ctx, end);
	if (a < 0 || b < 0)
		return NODE_UNKNOWN;
	return a == b ? a : NODE_SPLIT;
}

/* Fold one range's node into what is known so far (first: -3). */
static int fold(int sofar, int n)
{
	if (sofar == -3)
		return n;
	if (sofar < 0 || n < 0)
		return sofar == NODE_UNKNOWN || n == NODE_UNKNOWN ? NODE_UNKNOWN : NODE_SPLIT;
	return sofar == n ? n : NODE_SPLIT;
}

static void say(struct smbios_placement *out, const struct smbios_device *d, const char *what)
{
	if (out->why[0])
		return;                        /* the first reason is the one given */
	char loc[48];
	if (d->locator.state == SMBIOS_STR_OK)
		fmt_snprintf(loc, sizeof(loc), "%.*s", (int)MIN(d->locator.len, 40), d->locator.s);
	else
		fmt_snprintf(loc, sizeof(loc), "handle 0x%04x", d->handle);
	fmt_snprintf(out->why, sizeof(out->why), "memory device %s: %s", loc, what);
}

/* The device's node from its own type 20 ranges, else its array's type 19 ranges. */
static int place_one(const struct smbios_info *si, const struct smbios_device *d, smbios_node_of_fn fn, void *ctx,
		     struct smbios_placement *out)
{
	int node = -3;
	for (uint32_t i = 0; i < si->n_map20; i++)
		if (si->map20[i].device_handle == d->handle)
			node = fold(node, node_of_range(fn, ctx, si->map20[i].start, si->map20[i].end));
	const char *from = "its type 20 ranges";
	if (node == -3) {
		from = "its array's type 19 ranges";
		for (uint32_t i = 0; i < si->n_map19; i++)
			if (si->map19[i].array_handle == d->array_handle)
				node = fold(node, node_of_range(fn, ctx, si->map19[i].start, si->map19[i].end));
	}
	char what[96];
	if (node == -3)
		say(out, d, "no type 20 range, and no type 19 range for its array");
	else if (node == NODE_UNKNOWN) {
		fmt_snprintf(what, sizeof(what), "%s lie outside every SRAT memory range", from);
		say(out, d, what);
	} else if (node == NODE_SPLIT) {
		fmt_snprintf(what, sizeof(what), "%s span several nodes", from);
		say(out, d, what);
	}
	return node < 0 ? NODE_UNKNOWN : node;
}

struct group {
	uint64_t bytes;
	uint8_t size_state, type;
	uint32_t mts;
	bool rated;                        /* mts is the rated speed: no configured one */
	const char *module;
	uint32_t count;
};

static bool same_group(const struct group *g, const struct group *h)
{
	return g->bytes == h->bytes && g->size_state == h->size_state && g->type == h->type && g->mts == h->mts &&
	       g->rated == h->rated && (g->module == h->module || (g->module && h->module && !strcmp(g->module, h->module)));
}

/* "ECC", "no ECC", "parity", "ECC unknown", or "ECC on some arrays" over the system memory arrays. */
static const char *ecc_text(const struct smbios_info *si)
{
	uint32_t ecc = 0, none = 0, parity = 0, other = 0;
	for (uint32_t a = 0; a < si->n_arrays; a++) {
		uint8_t v = si->arrays[a].ecc;
		if (si->arrays[a].use != SMBIOS_USE_SYSTEM)
			continue;
		if (smbios_ecc_is_ecc(v))
			ecc++;
		else if (v == SMBIOS_ECC_NONE)
			none++;
		else if (v == SMBIOS_ECC_PARITY)
			parity++;
		else
			other++;
	}
	if (ecc && !none && !parity && !other)
		return "ECC";
	if (none && !ecc && !parity && !other)
		return "no ECC";
	if (parity && !ecc && !none && !other)
		return "parity";
	if (ecc)
		return "ECC on some arrays";
	return "ECC unknown";
}

static size_t put(char *buf, size_t cap, size_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t cap, size_t len, const char *fmt, ...)
{
	if (len >= cap)
		return len;
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
	return n > 0 ? MIN(len + (size_t)n, cap - 1) : len;
}

/* ---- Public Functions ----------------------------------------------------- */

bool smbios_is_system_slot(const struct smbios_info *si, const struct smbios_device *d)
{
	return d->array < 0 || si->arrays[d->array].use == SMBIOS_USE_SYSTEM;
}

bool smbios_is_populated(const struct smbios_device *d)
{
	return d->size_state != SMBIOS_SIZE_EMPTY;
}

void smbios_size_text(uint64_t bytes, char *buf, size_t cap)
{
	if (bytes && !(bytes % GIB))
		fmt_snprintf(buf, cap, "%llu GiB", (unsigned long long)(bytes / GIB));
	else if (bytes && !(bytes % MIB))
		fmt_snprintf(buf, cap, "%llu MiB", (unsigned long long)(bytes / MIB));
	else
		fmt_snprintf(buf, cap, "%llu KiB", (unsigned long long)(bytes / KIB));
}

void smbios_place(const struct smbios_info *si, uint32_t n_nodes, smbios_node_of_fn node_of, void *ctx,
		  struct smbios_placement *out)
{
	memset(out, 0, sizeof(*out));
	out->n_nodes = n_nodes ? MIN(n_nodes, (uint32_t)QB_MAX_NODES) : 1;
	out->known = true;
	for (uint32_t i = 0; i < si->n_devices; i++) {
		const struct smbios_device *d = &si->devices[i];
		out->node[i] = NODE_UNKNOWN;
		if (!smbios_is_populated(d) || !smbios_is_system_slot(si, d))
			continue;
		int node = out->n_nodes == 1 ? 0 : place_one(si, d, node_of, ctx, out);
		if (node < 0 || (uint32_t)node >= out->n_nodes) {
			out->known = false;
			continue;
		}
		out->node[i] = (int16_t)node;
		out->per_node[node]++;
	}
	if (!out->known)
		memset(out->per_node, 0, sizeof(out->per_node));
}

bool smbios_memory_config(const struct smbios_info *si, const struct smbios_placement *pl, char *buf, size_t cap)
{
	struct group groups[SMBIOS_CONFIG_GROUPS];
	uint32_t n_groups = 0, slots = 0, populated = 0, other_kinds = 0;
	for (uint32_t i = 0; i < si->n_devices; i++) {
		const struct smbios_device *d = &si->devices[i];
		if (!smbios_is_system_slot(si, d))
			continue;
		slots++;
		if (!smbios_is_populated(d))
			continue;
		populated++;
		struct group g = { d->size_state == SMBIOS_SIZE_KNOWN ? d->size_bytes : 0, d->size_state, d->type,
				   d->configured_mts ? d->configured_mts : d->speed_mts, !d->configured_mts && d->speed_mts,
				   smbios_module_name(d), 1 };
		uint32_t k = 0;
		while (k < n_groups && !same_group(&groups[k], &g))
			k++;
		if (k < n_groups)
			groups[k].count++;
		else if (n_groups < SMBIOS_CONFIG_GROUPS)
			groups[n_groups++] = g;
		else
			other_kinds++;
	}
	if (!slots) {
		fmt_snprintf(buf, cap, "%s", si->present ? "the SMBIOS table lists no memory device (type 17)"
							 : "no SMBIOS table read");
		return false;
	}
	size_t len = put(buf, cap, 0, "%u of %u slot%s", populated, slots, slots == 1 ? "" : "s");
	for (uint32_t k = 0; k < n_groups; k++) {
		const struct group *g = &groups[k];
		char size[24] = "unknown size";
		if (g->size_state == SMBIOS_SIZE_KNOWN)
			smbios_size_text(g->bytes, size, sizeof(size));
		/* "DDR5-4800" as modules are sold; without a known type "1066 MT/s". */
		bool typed = g->type > SMBIOS_TYPE_UNKNOWN;
		len = put(buf, cap, len, "%s%u x %s", k ? " + " : ": ", g->count, size);
		if (typed)
			len = put(buf, cap, len, " %s", smbios_memory_type_name(g->type));
		if (g->mts)
			len = put(buf, cap, len, typed ? "-%u%s" : " %u MT/s%s", g->mts, g->rated ? " (rated)" : "");
		if (g->module)
			len = put(buf, cap, len, " %s", g->module);
	}
	if (other_kinds)
		len = put(buf, cap, len, " + %u more", other_kinds);
	len = put(buf, cap, len, ", %s", ecc_text(si));
	if (pl && pl->n_nodes > 1 && !pl->known)
		len = put(buf, cap, len, "; nodes unknown");
	else if (pl && pl->n_nodes > 1) {
		bool even = true;
		for (uint32_t n = 1; n < pl->n_nodes; n++)
			even &= pl->per_node[n] == pl->per_node[0];
		if (even)
			len = put(buf, cap, len, "; %u per node", pl->per_node[0]);
		else
			for (uint32_t n = 0; n < pl->n_nodes; n++)
				len = put(buf, cap, len, "%s%u", n ? ", " : "; per node ", pl->per_node[n]);
	}
	(void)len;
	return true;
}
