/* cpuid_fixture.c - replays tests/fixtures/cpuid/NAME.cpuid; see cpuid_fixture.h.
 *
 * A file lists logical CPU 0 whole and the others where they differ, so a
 * CPU's leaf comes from its own lines, else from CPU 0's. A leaf the dump
 * does not have reads as zeros (leaves 0xB and 0x1F echo the subleaf in
 * ECX[7:0], as an invalid level does). */
#include "cpuid_fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msr.h"
#include "qb_limits.h"

#define MAX_LEAVES 128
#define OWN_MAX 32      /* leaves in which a CPU differs from CPU 0 (hybrid parts: all of leaf 4) */
#define MAX_ASKED 256      /* queries of one snapshot remembered */

struct leaf {
	uint32_t leaf, sub, r[4];
	bool missing;
};

static struct machine {
	uint32_t n;
	struct leaf base[MAX_LEAVES];
	uint32_t nbase;
	struct leaf own[QB_MAX_CPUS][OWN_MAX];
	uint32_t nown[QB_MAX_CPUS];
	bool have_node_msr[QB_MAX_CPUS];
	uint64_t node_msr[QB_MAX_CPUS];
} M;

static uint32_t asked[MAX_ASKED], nasked;

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
	if (nasked < MAX_ASKED)
		asked[nasked++] = leaf;
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

bool cpuid_fixture_load(const char *name)
{
	const char *dir = getenv("QB_CPUID_REAL_DIR") ? getenv("QB_CPUID_REAL_DIR") : CPUID_FIXTURE_DIR;
	char path[512], line[256];
	int cpu = -1;
	bool ok = true;
	snprintf(path, sizeof(path), "%s/%s.cpuid", dir, name);
	memset(&M, 0, sizeof(M));
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		struct leaf l = { 0 };
		unsigned c, msr;
		unsigned long long v;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "cpu %u", &c) == 1) {
			cpu = (int)c;
			ok &= c < QB_MAX_CPUS && c == M.n;
			M.n = c + 1;
			continue;
		}
		if (sscanf(line, "msr %x %llx", &msr, &v) == 2) {
			ok &= cpu >= 0 && cpu < QB_MAX_CPUS && msr == MSR_AMD_NODE_ID;
			if (cpu >= 0 && cpu < QB_MAX_CPUS) {
				M.have_node_msr[cpu] = true;
				M.node_msr[cpu] = v;
			}
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

uint32_t cpuid_fixture_cpus(void)
{
	return M.n;
}

void cpuid_fixture_snap(uint32_t cpu, struct cpuid_snap *s)
{
	nasked = 0;
	cpuid_snap_fill(s, query, (void *)(uintptr_t)cpu);
	if (cpu < QB_MAX_CPUS && M.have_node_msr[cpu] && cpuid_snap_wants_node_msr(s)) {
		s->node_msr_state = CPUID_NODE_MSR_OK;
		s->node_msr = M.node_msr[cpu];
	}
}

uint32_t cpuid_fixture_asked(uint32_t leaf)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < nasked; i++)
		n += asked[i] == leaf;
	return n;
}
