/* sizes.c - working sets named by the cache level they fit; see sizes.h. */
#include "sizes.h"
#include "fmt.h"
#include "lib.h"

/* ---- Public Functions ----------------------------------------------------- */
uint64_t size_level_bytes(const struct topo *t, uint8_t level, bool largest)
{
	uint64_t best = 0;
	for (uint32_t i = 0; i < t->ncaches; i++) {
		const struct topo_cache *c = &t->cache[i];
		if (c->level != level || c->type == TOPO_CACHE_INSTRUCTION || !c->size)
			continue;
		if (!best || (largest ? c->size > best : c->size < best))
			best = c->size;
	}
	return best;
}

enum size_role size_role_of(const struct topo *t, uint64_t bytes)
{
	uint8_t top = 0;
	for (uint32_t i = 0; i < t->ncaches; i++)
		if (t->cache[i].type != TOPO_CACHE_INSTRUCTION && t->cache[i].size)
			top = MAX(top, t->cache[i].level);
	if (!top || !bytes)
		return SIZE_ROLE_NONE;
	uint64_t l1 = size_level_bytes(t, 1, false), l2 = size_level_bytes(t, 2, false);
	if (l1 && bytes <= l1)
		return SIZE_ROLE_L1;
	if (l2 && bytes <= l2 && (!l1 || bytes > l1))
		return SIZE_ROLE_L2;
	uint64_t llc = top >= 3 ? size_level_bytes(t, top, false) : 0, llc_big = size_level_bytes(t, top, true);
	uint64_t below = l2 ? l2 : l1;
	if (llc && bytes <= llc && bytes > below)
		return SIZE_ROLE_LLC;
	if (llc_big && bytes / SIZE_DRAM_LLC_MULTIPLE >= llc_big)
		return SIZE_ROLE_DRAM;
	return SIZE_ROLE_NONE;
}

const char *size_role_name(enum size_role r)
{
	static const char *const names[] = { 0, "L1", "L2", "LLC", "DRAM" };
	return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : 0;
}

enum size_role size_name(const struct topo *t, uint64_t bytes, enum size_role want, char *out, size_t cap)
{
	static const char *const lower[] = { 0, "l1", "l2", "llc", "dram" };
	if (want != SIZE_ROLE_NONE && size_role_of(t, bytes) == want) {
		fmt_snprintf(out, cap, "%s", lower[want]);
		return want;
	}
	static const struct { uint64_t unit; const char *name; } units[] = {
		{ 1ull << 30, "gib" }, { 1ull << 20, "mib" }, { 1ull << 10, "kib" },
	};
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (bytes >= units[i].unit && bytes % units[i].unit == 0) {
			fmt_snprintf(out, cap, "%llu%s", (unsigned long long)(bytes / units[i].unit), units[i].name);
			return SIZE_ROLE_NONE;
		}
	}
	fmt_snprintf(out, cap, "%llub", (unsigned long long)bytes);
	return SIZE_ROLE_NONE;
}
