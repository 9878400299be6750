/* twin_cpus.h - CPUID of real CPUs for the Linux twin's tests: CPU 0 of a
 * tests/fixtures/cpuid capture, with the PMU leaves those captures do not keep
 * (they hold what the topology reads) taken from CPU 0 of the same
 * InstLatx64 dumps, and two more parts from InstLatx64 (a Zen 3 and a
 * family 10h); replayed through cpuid_snap_fill. */
#ifndef QB_TESTS_TWIN_CPUS_H
#define QB_TESTS_TWIN_CPUS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cpuid_snap.h"
#include "pmu.h"

#define FIXTURES "tests/fixtures/cpuid/"
#define MAX_LEAVES 160

struct leaf {
	uint32_t leaf, sub, r[4];
};

/* Leaves the fixtures do not keep (they hold what the topology reads), from CPU 0 of the same dumps. */
static const struct leaf __attribute__((unused)) x_i9_14900k[] = {	/* GenuineIntel00B0671_RaptorLake_13_CPUID.txt */
	{ 0xa, 0, { 0x07300605, 0x00000000, 0x00000007, 0x00008603 } },
};
static const struct leaf __attribute__((unused)) x_w9_3475x[] = {	/* GenuineIntel00806F8_SapphireRapids_06_CPUID.txt */
	{ 0xa, 0, { 0x08300805, 0x00000000, 0x0000000f, 0x00008604 } },
};
static const struct leaf __attribute__((unused)) x_ryzen_7600[] = {	/* AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt */
	{ 0x80000022, 0, { 0x00000003, 0x00084106, 0x00000003, 0x00000000 } },
};
/* Zen 3: Ryzen 9 5900X, InstLatx64 AuthenticAMD/AuthenticAMD0A20F10_K19_Vermeer2_CPUID.txt, CPU 0. */
static const struct leaf __attribute__((unused)) x_ryzen_5900x[] = {
	{ 0x0, 0, { 0x00000010, 0x68747541, 0x444d4163, 0x69746e65 } },
	{ 0x1, 0, { 0x00a20f10, 0x00180800, 0x7ed8320b, 0x178bfbff } },
	{ 0x80000000, 0, { 0x80000023, 0x68747541, 0x444d4163, 0x69746e65 } },
	{ 0x80000001, 0, { 0x00a20f10, 0x20000000, 0x75c237ff, 0x2fd3fbff } },
	{ 0x80000022, 0, { 0, 0, 0, 0 } },
};
/* Family 10h: Phenom II X4 940 (Deneb), InstLatx64 AuthenticAMD/AuthenticAMD0100F42_K10_Deneb_CPUID.txt, CPU 0. */
static const struct leaf __attribute__((unused)) x_phenom_940[] = {
	{ 0x0, 0, { 0x00000005, 0x68747541, 0x444d4163, 0x69746e65 } },
	{ 0x1, 0, { 0x00100f42, 0x00040800, 0x00802009, 0x178bfbff } },
	{ 0x80000000, 0, { 0x8000001b, 0x68747541, 0x444d4163, 0x69746e65 } },
	{ 0x80000001, 0, { 0x00100f42, 0x10001a86, 0x000037ff, 0xefd3fbff } },
};

static struct {
	struct leaf base[MAX_LEAVES];
	unsigned n;
	const struct leaf *extra;
	size_t n_extra;
	bool hypervisor;	/* leaf 1 ECX[31] set, as a guest sees it */
} M;

static inline const struct leaf *find(const struct leaf *t, size_t n, uint32_t leaf, uint32_t sub)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].leaf == leaf && t[i].sub == sub)
			return &t[i];
	return NULL;
}

static inline void query(void *ctx, uint32_t leaf, uint32_t sub, struct cpuid_regs *r)
{
	(void)ctx;
	const struct leaf *e = find(M.extra, M.n_extra, leaf, sub);
	if (!e)
		e = find(M.base, M.n, leaf, sub);
	memset(r, 0, sizeof(*r));
	if (e)
		*r = (struct cpuid_regs){ e->r[0], e->r[1], e->r[2], e->r[3] };
	if (leaf == 1 && M.hypervisor)
		r->ecx |= 1u << 31;
}

/* CPU 0 of fixture name (NULL: the extra leaves alone). */
static inline bool load(const char *name, const struct leaf *extra, size_t n_extra)
{
	memset(&M, 0, sizeof(M));
	M.extra = extra;
	M.n_extra = n_extra;
	if (!name)
		return true;
	char path[128], line[256];
	snprintf(path, sizeof(path), FIXTURES "%s.cpuid", name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	int cpu = -1;
	while (fgets(line, sizeof(line), f)) {
		struct leaf l;
		if (sscanf(line, "cpu %d", &cpu) == 1)
			continue;
		if (cpu == 0 && M.n < MAX_LEAVES &&
		    sscanf(line, "%x %x %x %x %x %x", &l.leaf, &l.sub, &l.r[0], &l.r[1], &l.r[2], &l.r[3]) == 6)
			M.base[M.n++] = l;
	}
	fclose(f);
	return M.n > 0;
}

static inline struct pmu_caps caps_os(void)
{
	struct cpuid_snap s;
	cpuid_snap_fill(&s, query, NULL);
	return pmu_detect_os(&s);
}

#endif
