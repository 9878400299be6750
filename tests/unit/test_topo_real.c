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
 * The AMD parts of before family 17h have two nodes (dies) per package, each
 * with its own L3, which APIC IDs do not delimit: the L3's sharers are a
 * node's CPUs (0x8000001E on family 15h; MSR C001_100C on family 10h, whose
 * value the fixture gives as Linux would read it). This project's own VM
 * (bhyve) gives an L3 whose ways are "in 0x8000001D", a leaf it leaves empty.
 *
 * QB_CPUID_REAL_DIR overrides the directory; paths are relative to the repository root. */
#include <stdlib.h>

#include "check.h"
#include "cpuid_fixture.h"
#include "lib.h"
#include "cpuid_snap.h"
#include "topo.h"

static struct cpuid_snap snaps[QB_MAX_CPUS];
static struct topo T;

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
	uint32_t dies;                  /* distinct (package, die) pairs; 0: one per package */
	const char *l3_source;          /* the L3's source, when the test says */
	const char *note;               /* the topology's note, NULL for none */
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
	    { 3, U, 16 * MB, 16, 64, 32, 8 } }, 0, NULL, NULL },
	/* AMD EPYC 9654 (Zen 4 "Genoa"), two sockets: 96 cores, 12 CCDs of 8
	 * cores per socket, 32 MiB L3 per CCD, 1 MiB L2 per core. */
	{ "epyc-9654-2p", "AMD EPYC 9654 product page; PPR 19h/11h", 2, 192, 384,
	  { { 1, D, 32 * K, 8, 64, 192, 2 }, { 1, I, 32 * K, 8, 64, 192, 2 }, { 2, U, 1 * MB, 8, 64, 192, 2 },
	    { 3, U, 32 * MB, 16, 64, 24, 16 } }, 0, NULL, NULL },
	/* AMD Ryzen 9 9950X (Zen 5 "Granite Ridge"): 16 cores in 2 CCDs, 48 KiB
	 * 12-way L1d, 1 MiB 16-way L2 per core, 32 MiB L3 per CCD. */
	{ "ryzen-9950x", "AMD Ryzen 9 9950X product page; Zen 5 software optimization guide", 1, 16, 32,
	  { { 1, D, 48 * K, 12, 64, 16, 2 }, { 1, I, 32 * K, 8, 64, 16, 2 }, { 2, U, 1 * MB, 16, 64, 16, 2 },
	    { 3, U, 32 * MB, 16, 64, 2, 16 } }, 0, NULL, NULL },
	/* Intel Core i9-14900K (Raptor Lake refresh): 8 P-cores with SMT, 48 KiB
	 * 12-way L1d, 32 KiB L1i and 2 MiB 16-way L2 each; 16 E-cores in 4
	 * clusters sharing 4 MiB 16-way L2, with 32 KiB L1d and 64 KiB L1i
	 * each; 36 MiB 12-way L3 for all (Intel ARK; optimization manual,
	 * table "Cache parameters of Raptor Lake"). */
	{ "core-i9-14900k", "Intel ARK i9-14900K; Intel 64 and IA-32 Optimization Reference Manual", 1, 24, 32,
	  { { 1, D, 48 * K, 12, 64, 8, 2 }, { 1, D, 32 * K, 8, 64, 16, 1 }, { 1, I, 32 * K, 8, 64, 8, 2 },
	    { 1, I, 64 * K, 8, 64, 16, 1 }, { 2, U, 2 * MB, 16, 64, 8, 2 }, { 2, U, 4 * MB, 16, 64, 4, 4 },
	    { 3, U, 36 * MB, 12, 64, 1, 32 } }, 0, NULL, NULL },
	/* Intel Xeon w9-3475X (Sapphire Rapids): 36 cores with SMT, 48 KiB
	 * L1d, 32 KiB L1i, 2 MiB 16-way L2 per core, 82.5 MiB 15-way L3. */
	{ "xeon-w9-3475x", "Intel ARK w9-3475X; Intel optimization manual (Golden Cove)", 1, 36, 72,
	  { { 1, D, 48 * K, 12, 64, 36, 2 }, { 1, I, 32 * K, 8, 64, 36, 2 }, { 2, U, 2 * MB, 16, 64, 36, 2 },
	    { 3, U, 82 * MB + 512 * K, 15, 64, 1, 72 } }, 0, NULL, NULL },
	/* AMD Ryzen 5 7600 (Zen 4 "Raphael"): 6 cores in one CCD, 32 MiB L3. */
	{ "ryzen-7600", "AMD Ryzen 5 7600 product page; PPR 19h/61h", 1, 6, 12,
	  { { 1, D, 32 * K, 8, 64, 6, 2 }, { 1, I, 32 * K, 8, 64, 6, 2 }, { 2, U, 1 * MB, 8, 64, 6, 2 },
	    { 3, U, 32 * MB, 16, 64, 1, 12 } }, 0, NULL, NULL },
	/* AMD Opteron 6238 (family 15h "Interlagos"), two sockets: 12 cores in
	 * 6 compute units per socket (0x8000001E counts a unit's two cores as
	 * its threads, as Linux does), on two dies of 3 units, each die with its
	 * own L3; 16 KiB 4-way L1d per core, 64 KiB 2-way L1i and 2 MiB 16-way
	 * L2 per unit; the L3 that 0x8000001D gives per die is 6 MiB 48-way
	 * (AIDA64's line in the dump agrees). APIC IDs 0x20-0x25 are die 0 and
	 * 0x26-0x2B die 1 (0x8000001E NodeId), so 3 APIC ID bits would join
	 * two of die 1's cores to die 0's L3. */
	{ "opteron-6238-2p", "AMD Opteron 6200 Series product brief; BKDG 15h models 00h-0Fh, Fn8000_001E", 2, 12, 24,
	  { { 1, D, 16 * K, 4, 64, 24, 1 }, { 1, I, 64 * K, 2, 64, 12, 2 }, { 2, U, 2 * MB, 16, 64, 12, 2 },
	    { 3, U, 6 * MB, 48, 64, 4, 6 } }, 4, "0x8000001d, per node (0x8000001e)", NULL },
	/* AMD Opteron 6344 (family 15h "Abu Dhabi", Piledriver), two sockets:
	 * the same layout as the 6238. */
	{ "opteron-6344-2p", "AMD Opteron 6300 Series product brief; BKDG 15h models 00h-0Fh, Fn8000_001E", 2, 12, 24,
	  { { 1, D, 16 * K, 4, 64, 24, 1 }, { 1, I, 64 * K, 2, 64, 12, 2 }, { 2, U, 2 * MB, 16, 64, 12, 2 },
	    { 3, U, 6 * MB, 48, 64, 4, 6 } }, 4, "0x8000001d, per node (0x8000001e)", NULL },
	/* AMD family 10h model 9 ("Magny-Cours", Opteron 6100; an engineering
	 * sample), two sockets of 12 cores on two dies of 6. No TOPOEXT: L1 and
	 * L2 from 0x80000005/6 per core (64 KiB 2-way L1d and L1i, 512 KiB
	 * 16-way L2); 0x80000006 gives the package's L3, 10 MiB 96-way, so a die
	 * has half (Linux amd_cpuid4 under AMD_DCM): 5 MiB 48-way, its cores
	 * told by MSR C001_100C (the fixture's values, see its README). */
	{ "opteron-6100-es-2p", "AMD Opteron 6100 Series product brief; BKDG 10h, MSRC001_100C", 2, 24, 24,
	  { { 1, D, 64 * K, 2, 64, 24, 1 }, { 1, I, 64 * K, 2, 64, 24, 1 }, { 2, U, 512 * K, 16, 64, 24, 1 },
	    { 3, U, 5 * MB, 48, 64, 4, 6 } }, 4, "0x80000006, per node (MSR C001_100C)", NULL },
	/* This project's VM: 2 vCPUs of an "Oxide Virtual Turin-like Processor"
	 * under bhyve, each its own package (0x80000008 ECX 0). 0x80000005/6
	 * give a 48 KiB 12-way L1d and a 1 MiB 8-way L2; the L3's associativity
	 * is 9, "value for all fields should be determined from Fn8000_001D"
	 * (its size field, 508 MiB, is the host package's), and that leaf is
	 * empty without TOPOEXT: the L3 is left undescribed, with a note, not
	 * rejected as an error. The host's APIC IDs show through leaf 1, so
	 * they change between dumps. */
	{ "oxide-bhyve-2vcpu", "this project's VM; APM vol. 3, table E-4, associativity 9", 2, 2, 2,
	  { { 1, D, 48 * K, 12, 64, 2, 1 }, { 1, I, 32 * K, 8, 64, 2, 1 }, { 2, U, 1 * MB, 8, 64, 2, 1 } },
	  0, NULL, "L3 not described: 0x80000006 refers to 0x8000001D, which is empty" },
};

/* How many kinds of cache the part lists at c's level and type (2 on hybrid parts). */
static unsigned level_types(const struct part *p, const struct want_cache *c)
{
	unsigned n = 0;
	for (unsigned w = 0; w < ARRAY_SIZE(p->cache) && p->cache[w].level; w++)
		n += p->cache[w].level == c->level && p->cache[w].type == c->type;
	return n;
}

static void check_part(const struct part *p)
{
	bool loaded = cpuid_fixture_load(p->name);
	CHECK(loaded);
	if (!loaded) {
		printf("  %s: cannot load %s/%s.cpuid\n", p->name, CPUID_FIXTURE_DIR, p->name);
		return;
	}
	for (uint32_t i = 0; i < cpuid_fixture_cpus(); i++)
		cpuid_fixture_snap(i, &snaps[i]);
	int rc = topo_decode(snaps, NULL, cpuid_fixture_cpus(), &T);
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
	uint32_t dies = 0;
	for (uint32_t i = 0; i < T.ncpu; i++) {
		bool seen = false;
		for (uint32_t j = 0; j < i; j++)
			seen |= T.cpu[j].package == T.cpu[i].package && T.cpu[j].die == T.cpu[i].die;
		dies += !seen;
	}
	CHECK_EQ_U(dies, p->dies ? p->dies : p->packages);
	const struct topo_cache *l3 = topo_cpu_cache(&T, 0, 3);
	if (p->l3_source)
		CHECK_STR(l3 ? l3->source : NULL, p->l3_source);
	CHECK_STR(T.note, p->note ? p->note : "");
	for (uint8_t level = 1; level <= 4; level++) { /* no level the part does not have */
		bool want = false;
		for (unsigned w = 0; w < ARRAY_SIZE(p->cache) && p->cache[w].level; w++)
			want |= p->cache[w].level == level;
		CHECK_EQ_U(topo_cpu_cache(&T, 0, level) != NULL, want);
	}
	printf("  %-14s %3u threads, %3u cores, %u package(s), %3u caches (%s)\n", p->name, T.ncpu, T.ncores,
	       T.npackages, T.ncaches, p->source);
}

TEST(test_real_cpus)
{
	for (unsigned i = 0; i < ARRAY_SIZE(parts); i++)
		check_part(&parts[i]);
}

/* Each core of a two-node part is on its node's die, as 0x8000001E or the
 * node MSR say: the L3's sharers are exactly the CPUs of one (package, die). */
TEST(test_l3_is_the_die)
{
	static const char *const names[] = { "opteron-6238-2p", "opteron-6100-es-2p" };
	static const char *const rel_6_7[] = { "smt", "l3" }; /* a compute unit's two cores; a die's */
	for (unsigned m = 0; m < ARRAY_SIZE(names); m++) {
		CHECK(cpuid_fixture_load(names[m]));
		for (uint32_t i = 0; i < cpuid_fixture_cpus(); i++)
			cpuid_fixture_snap(i, &snaps[i]);
		CHECK_EQ_U(topo_decode(snaps, NULL, cpuid_fixture_cpus(), &T), 0);
		for (uint32_t a = 0; a < T.ncpu; a++) {
			/* 12 cores per package, numbered in APIC ID order: 6 per die */
			CHECK_EQ_U(T.cpu[a].die, (a % 12) / 6);
			for (uint32_t b = 0; b < T.ncpu; b++)
				CHECK_EQ_U(topo_shares_cache(&T, a, b, 3), a / 6 == b / 6);
		}
		CHECK_STR(topo_rel_name(topo_relation(&T, 5, 6)), "package");
		CHECK_STR(topo_rel_name(topo_relation(&T, 6, 7)), rel_6_7[m]);
	}
}

/* Family 10h where the node MSR cannot be read (the twin reads no MSRs, or
 * a #GP): the L3 stays the package's as 0x80000006 gives it, and the
 * topology says it assumed that and why. */
TEST(test_fam10h_without_node_msr)
{
	static const char twin_why[] = "unavailable: the Linux twin reads no MSRs";
	CHECK(cpuid_fixture_load("opteron-6100-es-2p"));
	for (uint32_t i = 0; i < cpuid_fixture_cpus(); i++) {
		cpuid_fixture_snap(i, &snaps[i]);
		snaps[i].node_msr_state = CPUID_NODE_MSR_UNAVAILABLE;
		snaps[i].node_msr_why = twin_why;
	}
	CHECK_EQ_U(topo_decode(snaps, NULL, cpuid_fixture_cpus(), &T), 0);
	const struct topo_cache *l3 = topo_cpu_cache(&T, 0, 3);
	CHECK(l3 && l3->size == 10 * MB && l3->ways == 96 && l3->nshared == 12 && l3->sharing_assumed);
	CHECK_STR(l3 ? l3->source : NULL, "0x80000006 assumed per package");
	CHECK_STR(T.note, "L3 per package assumed: MSR C001_100C (node ID) unavailable: the Linux twin reads no MSRs");
	CHECK_EQ_U(T.cpu[6].die, 0);
	CHECK(topo_shares_cache(&T, 0, 11, 3) && !topo_shares_cache(&T, 0, 12, 3));
}

/* The one L3 walk (topo_l3s, the kernel's and the twin's counters): on a
 * 2-socket EPYC 7742 (32 CCX L3s), a two-die Opteron (4 L3s) and a Core
 * i9 (one L3), every CPU is on the L3 that topo_shares_cache says, the L3s
 * are as many as the cache records, and each L3's first CPU is its lowest,
 * with the topology numbers mapped through cpu_of_topo (here reversed). */
TEST(test_l3_walk)
{
	static const struct { const char *name; uint32_t l3s; } want[] = {
		{ "epyc-7742-2p", 32 }, { "opteron-6238-2p", 4 }, { "core-i9-14900k", 1 },
	};
	static uint32_t cpu_of[QB_MAX_CPUS], l3_of[QB_MAX_CPUS], first[QB_MAX_CPUS];
	for (unsigned m = 0; m < ARRAY_SIZE(want); m++) {
		bool loaded = cpuid_fixture_load(want[m].name);
		CHECK(loaded);
		if (!loaded)
			continue;
		for (uint32_t i = 0; i < cpuid_fixture_cpus(); i++)
			cpuid_fixture_snap(i, &snaps[i]);
		CHECK_EQ_U(topo_decode(snaps, NULL, cpuid_fixture_cpus(), &T), 0);
		for (uint32_t k = 0; k < T.ncpu; k++)
			cpu_of[k] = T.ncpu - 1 - k;
		uint32_t n = topo_l3s(&T, cpu_of, l3_of, first);
		CHECK_EQ_U(n, want[m].l3s);
		uint32_t bad = 0;
		for (uint32_t a = 0; a < T.ncpu; a++) {
			uint32_t la = l3_of[cpu_of[a]];
			bad += la >= n;
			for (uint32_t b = 0; b < T.ncpu && la < n; b++)
				bad += (l3_of[cpu_of[b]] == la) != topo_shares_cache(&T, a, b, 3);
			/* the first CPU of its L3: no lower topology number shares it */
			bool lowest = true;
			for (uint32_t b = 0; b < a; b++)
				lowest &= !topo_shares_cache(&T, a, b, 3);
			bad += la < n && (first[la] == cpu_of[a]) != lowest;
		}
		CHECK_EQ_U(bad, 0);
		CHECK_EQ_U(l3_of[T.ncpu], TOPO_NO_L3); /* a slot past the topology's CPUs has none */
	}
}

int main(void)
{
	RUN(test_real_cpus);
	RUN(test_l3_is_the_die);
	RUN(test_fam10h_without_node_msr);
	RUN(test_l3_walk);
	return check_summary("topo_real");
}
