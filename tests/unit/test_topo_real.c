/* test_topo_real.c - kernel/measure/topo.c against CPUID dumps of every logical CPU of real machines (tests/fixtures/cpuid).
 *
 * Each NAME.cpuid comes from an InstLatx64 dump (tests/fixtures/cpuid/import.py):
 * logical CPU 0 whole, the others where they differ. Every CPU's snapshot is
 * replayed through cpuid_snap_fill, the whole machine is decoded, and the
 * result must match the part's published layout: packages, cores, threads,
 * and for each cache its size, ways, line, how many instances the machine
 * has and how many threads share each (AMD's product pages and PPRs, cited
 * per part). No decoder message may be raised: these are healthy machines.
 *
 * QB_CPUID_REAL_DIR overrides the directory; paths are relative to the repository root. */
#include <stdlib.h>

#include "check.h"
#include "lib.h"
#include "cpuid_snap.h"
#include "topo.h"

#define DIR_DEFAULT "tests/fixtures/cpuid"
#define MAX_LEAVES 128
#define OWN_MAX 32      /* leaves in which a CPU differs from CPU 0 (hybrid parts: all of leaf 4) */

struct leaf {
	uint32_t leaf, sub, r[4];
	bool missing;
};

/* One logical CPU's leaves: its own, then CPU 0's for the rest. */
static struct machine {
	uint32_t n;
	struct leaf base[MAX_LEAVES];
	uint32_t nbase;
	struct leaf own[QB_MAX_CPUS][OWN_MAX];
	uint32_t nown[QB_MAX_CPUS];
} M;

static struct cpuid_snap snaps[QB_MAX_CPUS];
static struct topo T;

static const struct leaf *find(const struct leaf *t, uint32_t n, uint32_t leaf, uint32_t sub)
{
	for (uint32_t i = 0; i < n; i++)
		if (t[i].leaf == leaf && t[i].sub == sub)
			return &t[i];
	return NULL;
}

static void query(void *ctx, uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	uint32_t cpu = (uint32_t)(uintptr_t)ctx;
	const struct leaf *e = find(M.own[cpu], M.nown[cpu], leaf, sub);
	memset(r, 0, sizeof(*r));
	if (!e)
		e = find(M.base, M.nbase, leaf, sub);
	if (!e || e->missing) {
		if (leaf == CPUID_LEAF_TOPO || leaf == CPUID_LEAF_TOPO_V2)
			r->ecx = sub & 0xff; /* an invalid level echoes ECX[7:0] */
		return;
	}
	*r = (struct cpuid_regs){ e->r[0], e->r[1], e->r[2], e->r[3] };
}

static bool load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int cpu = -1;
	bool ok = true;
	memset(&M, 0, sizeof(M));
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		struct leaf l = { 0 };
		unsigned c;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "cpu %u", &c) == 1) {
			cpu = (int)c;
			ok &= c < QB_MAX_CPUS && c == M.n;
			M.n = c + 1;
			continue;
		}
		int k = sscanf(line, "%x %x %x %x %x %x", &l.leaf, &l.sub, &l.r[0], &l.r[1], &l.r[2], &l.r[3]);
		if (k == 2 && strstr(line, "missing"))
			l.missing = true;
		else if (k != 6 || cpu < 0)
			continue;
		if (cpu == 0 && M.nbase < MAX_LEAVES)
			M.base[M.nbase++] = l;
		else if (cpu > 0 && cpu < QB_MAX_CPUS && M.nown[cpu] < OWN_MAX)
			M.own[cpu][M.nown[cpu]++] = l;
		else
			ok = false;
	}
	fclose(f);
	return ok && M.n > 0;
}

/* A cache level the part is published with. */
struct want_cache {
	uint8_t level, type;
	uint64_t size;
	uint32_t ways, line, instances, sharers;
};

struct part {
	const char *name;
	const char *source;             /* where the published layout comes from */
	uint32_t packages, cores, threads;
	struct want_cache cache[8];     /* hybrid parts list a level once per core type */
};

#define K 1024ull
#define MB (1024ull * 1024)
#define D TOPO_CACHE_DATA
#define I TOPO_CACHE_INSTRUCTION
#define U TOPO_CACHE_UNIFIED

static const struct part parts[] = {
	/* AMD EPYC 7742 (Zen 2 "Rome"), two sockets: 64 cores and 16 CCXs of
	 * 4 cores per socket, 16 MiB L3 per CCX (AMD product page; PPR for
	 * family 17h model 31h, CPUID Fn8000_001D). */
	{ "epyc-7742-2p", "AMD EPYC 7742 product page; PPR 17h/31h", 2, 128, 256,
	  { { 1, D, 32 * K, 8, 64, 128, 2 }, { 1, I, 32 * K, 8, 64, 128, 2 }, { 2, U, 512 * K, 8, 64, 128, 2 },
	    { 3, U, 16 * MB, 16, 64, 32, 8 } } },
	/* AMD EPYC 9654 (Zen 4 "Genoa"), two sockets: 96 cores, 12 CCDs of 8
	 * cores per socket, 32 MiB L3 per CCD, 1 MiB L2 per core. */
	{ "epyc-9654-2p", "AMD EPYC 9654 product page; PPR 19h/11h", 2, 192, 384,
	  { { 1, D, 32 * K, 8, 64, 192, 2 }, { 1, I, 32 * K, 8, 64, 192, 2 }, { 2, U, 1 * MB, 8, 64, 192, 2 },
	    { 3, U, 32 * MB, 16, 64, 24, 16 } } },
	/* AMD Ryzen 9 9950X (Zen 5 "Granite Ridge"): 16 cores in 2 CCDs, 48 KiB
	 * 12-way L1d, 1 MiB 16-way L2 per core, 32 MiB L3 per CCD. */
	{ "ryzen-9950x", "AMD Ryzen 9 9950X product page; Zen 5 software optimization guide", 1, 16, 32,
	  { { 1, D, 48 * K, 12, 64, 16, 2 }, { 1, I, 32 * K, 8, 64, 16, 2 }, { 2, U, 1 * MB, 16, 64, 16, 2 },
	    { 3, U, 32 * MB, 16, 64, 2, 16 } } },
	/* Intel Core i9-14900K (Raptor Lake refresh): 8 P-cores with SMT, 48 KiB
	 * 12-way L1d, 32 KiB L1i and 2 MiB 16-way L2 each; 16 E-cores in 4
	 * clusters sharing 4 MiB 16-way L2, with 32 KiB L1d and 64 KiB L1i
	 * each; 36 MiB 12-way L3 for all (Intel ARK; optimization manual,
	 * table "Cache parameters of Raptor Lake"). */
	{ "core-i9-14900k", "Intel ARK i9-14900K; Intel 64 and IA-32 Optimization Reference Manual", 1, 24, 32,
	  { { 1, D, 48 * K, 12, 64, 8, 2 }, { 1, D, 32 * K, 8, 64, 16, 1 }, { 1, I, 32 * K, 8, 64, 8, 2 },
	    { 1, I, 64 * K, 8, 64, 16, 1 }, { 2, U, 2 * MB, 16, 64, 8, 2 }, { 2, U, 4 * MB, 16, 64, 4, 4 },
	    { 3, U, 36 * MB, 12, 64, 1, 32 } } },
	/* Intel Xeon w9-3475X (Sapphire Rapids): 36 cores with SMT, 48 KiB
	 * L1d, 32 KiB L1i, 2 MiB 16-way L2 per core, 82.5 MiB 15-way L3. */
	{ "xeon-w9-3475x", "Intel ARK w9-3475X; Intel optimization manual (Golden Cove)", 1, 36, 72,
	  { { 1, D, 48 * K, 12, 64, 36, 2 }, { 1, I, 32 * K, 8, 64, 36, 2 }, { 2, U, 2 * MB, 16, 64, 36, 2 },
	    { 3, U, 82 * MB + 512 * K, 15, 64, 1, 72 } } },
	/* AMD Ryzen 5 7600 (Zen 4 "Raphael"): 6 cores in one CCD, 32 MiB L3. */
	{ "ryzen-7600", "AMD Ryzen 5 7600 product page; PPR 19h/61h", 1, 6, 12,
	  { { 1, D, 32 * K, 8, 64, 6, 2 }, { 1, I, 32 * K, 8, 64, 6, 2 }, { 2, U, 1 * MB, 8, 64, 6, 2 },
	    { 3, U, 32 * MB, 16, 64, 1, 12 } } },
};

/* How many kinds of cache the part lists at c's level and type (2 on hybrid parts). */
static unsigned level_types(const struct part *p, const struct want_cache *c)
{
	unsigned n = 0;
	for (unsigned w = 0; w < ARRAY_SIZE(p->cache) && p->cache[w].level; w++)
		n += p->cache[w].level == c->level && p->cache[w].type == c->type;
	return n;
}

static void check_part(const char *dir, const struct part *p)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.cpuid", dir, p->name);
	bool loaded = load(path);
	CHECK(loaded);
	if (!loaded) {
		printf("  %s: cannot load %s\n", p->name, path);
		return;
	}
	for (uint32_t i = 0; i < M.n; i++)
		cpuid_snap_fill(&snaps[i], query, (void *)(uintptr_t)i);
	int rc = topo_decode(snaps, NULL, M.n, &T);
	CHECK_EQ_U(rc, 0);
	for (uint32_t i = 0; i < MIN(T.nmsgs, (uint32_t)TOPO_MAX_MSGS); i++)
		printf("  %s: msg: %s\n", p->name, T.msg[i]);
	CHECK_EQ_U(T.ncpu, p->threads);
	CHECK_EQ_U(T.npackages, p->packages);
	CHECK_EQ_U(T.ncores, p->cores);
	for (unsigned w = 0; w < ARRAY_SIZE(p->cache) && p->cache[w].level; w++) {
		const struct want_cache *c = &p->cache[w];
		uint32_t n = 0, bad = 0;
		for (uint32_t i = 0; i < T.ncaches; i++) {
			const struct topo_cache *k = &T.cache[i];
			if (k->level != c->level || k->type != c->type || (level_types(p, c) > 1 && k->size != c->size))
				continue;
			n++;
			if (k->size != c->size || k->ways != c->ways || k->line_size != c->line || k->nshared != c->sharers) {
				if (!bad++)
					printf("  %s: L%u %s: %llu B %u-way %u B line, %u sharers; expected %llu B %u-way, %u sharers\n",
					       p->name, c->level, topo_cache_type_name(c->type), (unsigned long long)k->size,
					       k->ways, k->line_size, k->nshared, (unsigned long long)c->size, c->ways,
					       c->sharers);
			}
		}
		CHECK_EQ_U(bad, 0);
		CHECK_EQ_U(n, c->instances);
	}
	printf("  %-14s %3u threads, %3u cores, %u package(s), %3u caches (%s)\n", p->name, T.ncpu, T.ncores,
	       T.npackages, T.ncaches, p->source);
}

TEST(test_real_cpus)
{
	const char *dir = getenv("QB_CPUID_REAL_DIR") ? getenv("QB_CPUID_REAL_DIR") : DIR_DEFAULT;
	for (unsigned i = 0; i < ARRAY_SIZE(parts); i++)
		check_part(dir, &parts[i]);
}

int main(void)
{
	RUN(test_real_cpus);
	return check_summary("topo_real");
}
