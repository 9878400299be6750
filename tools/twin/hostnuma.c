/* hostnuma.c - memory and NUMA nodes on Linux (proc(5) meminfo, sysfs node directories, mbind(2), move_pages(2)); see hostnuma.h. */
#define _GNU_SOURCE
#include "hostnuma.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "console.h"
#include "qb_limits.h"

/* ---- Constants ------------------------------------------------------------ */
#define NODE_DIR "/sys/devices/system/node"
#define HOST_MAX_OS_CPUS 8192          /* OS CPU numbers we map to nodes */
#define MPOL_BIND 2                    /* <linux/mempolicy.h> */
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_F_ADDR (1 << 1)           /* get_mempolicy: the policy of the range at addr */
#define MASK_WORDS ((QB_MAX_NODES + 63) / 64)
#define LINE_MAX_LEN 256
#define KIB 1024ull

/* ---- Private Variables ---------------------------------------------------- */
static uint32_t n_nodes = 1;
static bool numa;                      /* more than one node, and the system calls work */
static int32_t node_of_cpu[HOST_MAX_OS_CPUS];

/* ---- Private Functions ---------------------------------------------------- */
/* Mark every CPU of a cpulist ("0-3,8,10-11") as on node. */
static void parse_cpulist(const char *s, int32_t node)
{
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			return;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long c = a; c <= b && c < HOST_MAX_OS_CPUS; c++)
			node_of_cpu[c] = node;
		s = *end == ',' ? end + 1 : end;
		if (*s == '\n')
			return;
	}
}

/* The number after "key:" in a meminfo-style file; "kB" values in bytes, counts as they are. */
static uint64_t read_field(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[LINE_MAX_LEN];
	size_t klen = strlen(key);
	uint64_t v = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *k = strstr(line, key);
		if (!k || k[klen] != ':')
			continue;
		char *unit;
		v = strtoull(k + klen + 1, &unit, 10);
		if (strncmp(unit, " kB", 3) == 0)
			v *= KIB;
		break;
	}
	fclose(f);
	return v;
}

/* ---- Public Functions ----------------------------------------------------- */
void hostnuma_init(void)
{
	DIR *d = opendir(NODE_DIR);
	struct dirent *e;
	uint32_t highest = 0;
	bool any = false;
	if (!d)
		return; /* no NUMA in this kernel: one node */
	while ((e = readdir(d))) {
		unsigned n;
		char path[300], list[4096];
		if (sscanf(e->d_name, "node%u", &n) != 1 || n >= QB_MAX_NODES)
			continue;
		any = true;
		highest = n > highest ? n : highest;
		snprintf(path, sizeof(path), NODE_DIR "/%s/cpulist", e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fgets(list, sizeof(list), f))
			parse_cpulist(list, (int32_t)n);
		if (f)
			fclose(f);
	}
	closedir(d);
	n_nodes = any ? highest + 1 : 1;
	if (n_nodes > 1 && syscall(SYS_get_mempolicy, 0, 0, 0, 0, 0) != 0 && errno == ENOSYS) {
		console_error("numa", "%u nodes in sysfs but no NUMA system calls: treated as one node", n_nodes);
		n_nodes = 1;
		memset(node_of_cpu, 0, sizeof(node_of_cpu));
	}
	numa = n_nodes > 1;
}

uint32_t hostnuma_nodes(void)
{
	return n_nodes;
}

int32_t hostnuma_node_of_cpu(uint32_t os_cpu)
{
	return os_cpu < HOST_MAX_OS_CPUS ? node_of_cpu[os_cpu] : 0;
}

bool hostnuma_keep(void *addr, size_t len)
{
	return syscall(SYS_mbind, addr, len, MPOL_LOCAL, 0, 0, 0) == 0 || errno == ENOSYS;
}

bool hostnuma_bind(void *addr, size_t len, int node)
{
	unsigned long mask[MASK_WORDS] = { 0 };
	if (!numa)
		return node <= 0 && hostnuma_keep(addr, len); /* one node: a policy of its own all the same */
	if (node < 0 || node >= QB_MAX_NODES)
		return false;
	mask[node / 64] = 1ul << (node % 64);
	/* maxnode counts bits and the kernel drops the last one (mbind(2) NOTES). */
	return syscall(SYS_mbind, addr, len, MPOL_BIND, mask, (unsigned long)QB_MAX_NODES + 1, 0) == 0;
}

bool hostnuma_local(void *addr, size_t len)
{
	if (!numa)
		return hostnuma_keep(addr, len);
	return syscall(SYS_mbind, addr, len, MPOL_LOCAL, 0, 0, 0) == 0;
}

bool hostnuma_interleave(void *addr, size_t len, uint64_t nodes)
{
	unsigned long mask[MASK_WORDS] = { 0 }, got[MASK_WORDS + 1] = { 0 }; /* room for the bit past QB_MAX_NODES */
	int mode = -1;
	if (!numa)
		return nodes != 0 && hostnuma_keep(addr, len);
	mask[0] = (unsigned long)nodes; /* QB_MAX_NODES <= 64 (demand.h) */
	if (syscall(SYS_mbind, addr, len, MPOL_INTERLEAVE, mask, (unsigned long)QB_MAX_NODES + 1, 0) != 0)
		return false;
	if (syscall(SYS_get_mempolicy, &mode, got, (unsigned long)QB_MAX_NODES + 1, addr, MPOL_F_ADDR) != 0)
		return false;
	/* The kernel keeps the nodes of the mask that have memory. */
	return mode == MPOL_INTERLEAVE && got[0] && !(got[0] & ~(unsigned long)nodes);
}

bool hostnuma_nodes_of(void **pages, size_t n, int *status)
{
	if (!numa) {
		for (size_t i = 0; i < n; i++)
			status[i] = 0;
		return true;
	}
	/* No target nodes: move_pages only reports where each page is (-ENOENT: not present). */
	bool ok = syscall(SYS_move_pages, 0, n, pages, 0, status, 0) == 0;
	for (size_t i = 0; i < n; i++)
		if (!ok || status[i] < 0)
			status[i] = -1;
	return ok;
}

int hostnuma_node_of_addr(const void *addr)
{
	void *page = (void *)((uintptr_t)addr & ~(uintptr_t)4095);
	int st;
	hostnuma_nodes_of(&page, 1, &st);
	return st;
}

uint64_t hostmem_meminfo(const char *key)
{
	return read_field("/proc/meminfo", key);
}

uint64_t hostmem_node_free(int node)
{
	char path[96];
	if (node < 0 || (uint32_t)node >= n_nodes)
		return 0;
	if (n_nodes == 1)
		return hostmem_meminfo("MemAvailable"); /* one node: all of the machine's */
	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", node);
	return read_field(path, "MemFree");
}
