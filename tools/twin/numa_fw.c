/* numa_fw.c - the Linux twin's answers of kernel/run/numa_fw.h, from /sys/devices/system/node: the distances Linux took from the SLIT, and the HMAT claims it reports for each memory node's nearest initiators (access0, Documentation/admin-guide/mm/numaperf.rst). */
#define _GNU_SOURCE
#include "numa_fw.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hostnuma.h"
#include "qb_limits.h"

/* ---- Constants ------------------------------------------------------------ */
#define NODE_DIR "/sys/devices/system/node"
#define PATH_LEN 160
#define LIST_LEN 4096
#define KIB 1024ull

/* ---- Private Functions ---------------------------------------------------- */
/* The first line of a file into buf; false if it cannot be read. */
static bool read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(buf, (int)cap, f);
	if (f)
		fclose(f);
	return ok;
}

/* How many numbers a list ("0-3,8") names, and the position of `which` in it (-1: absent). */
static int list_count(const char *s, long which, int *pos)
{
	int n = 0;
	*pos = -1;
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b; c++, n++)
			if (c == which)
				*pos = n;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* A number from nodeN/access0/initiators/<name> of target node t, if initiator i is among them. */
static double access0(uint32_t i, uint32_t t, const char *name)
{
	char path[PATH_LEN], line[64];
	snprintf(path, sizeof(path), NODE_DIR "/node%u/access0/initiators/node%u", t, i);
	if (access(path, F_OK))
		return -1; /* Linux names only the nearest initiators of each target */
	snprintf(path, sizeof(path), NODE_DIR "/node%u/access0/initiators/%s", t, name);
	if (!read_line(path, line, sizeof(line)))
		return -1;
	double v = strtod(line, 0);
	return v > 0 ? v : -1;
}

/* ---- Public Functions ----------------------------------------------------- */
const char *numa_fw_source(void)
{
	return hostnuma_nodes() > 1 ? "linux sysfs" : 0;
}

struct numa_fw_node numa_fw_node(uint32_t node)
{
	struct numa_fw_node n = { 0 };
	char path[PATH_LEN], list[LIST_LEN];
	int pos;
	snprintf(path, sizeof(path), NODE_DIR "/node%u/cpulist", node);
	if (node >= QB_MAX_NODES || !read_line(path, list, sizeof(list)))
		return n;
	n.known = true;
	n.domain = node;
	n.cpus = (uint32_t)list_count(list, -1, &pos);
	snprintf(path, sizeof(path), NODE_DIR "/node%u/meminfo", node);
	FILE *f = fopen(path, "r");
	while (f && fgets(list, sizeof(list), f)) {
		char *k = strstr(list, "MemTotal:");
		if (k)
			n.mem_bytes = strtoull(k + strlen("MemTotal:"), 0, 10) * KIB;
	}
	if (f)
		fclose(f);
	return n; /* flags_known stays false: Linux does not show the SRAT's flags */
}

int numa_fw_distance(uint32_t from, uint32_t to)
{
	char path[PATH_LEN], list[LIST_LEN], online[LIST_LEN];
	int pos;
	/* nodeN/distance lists the distances to the online nodes, in order. */
	snprintf(path, sizeof(path), NODE_DIR "/node%u/distance", from);
	if (!read_line(NODE_DIR "/online", online, sizeof(online)) || !read_line(path, list, sizeof(list)))
		return -1;
	list_count(online, to, &pos);
	char *s = list;
	for (int k = 0; pos >= 0; k++) {
		char *end;
		long d = strtol(s, &end, 10);
		if (end == s)
			return -1;
		if (k == pos)
			return (int)d;
		s = end;
	}
	return -1;
}

double numa_fw_latency_ns(uint32_t initiator, uint32_t target, const char **kind)
{
	double v = access0(initiator, target, "read_latency");
	if (v >= 0 && kind)
		*kind = "read-latency";
	return v;
}

double numa_fw_bandwidth_mbs(uint32_t initiator, uint32_t target, const char **kind)
{
	double v = access0(initiator, target, "read_bandwidth");
	if (v >= 0 && kind)
		*kind = "read-bandwidth";
	return v;
}

const char *numa_fw_claims_note(void)
{
	for (uint32_t t = 0; t < hostnuma_nodes(); t++) {
		char path[PATH_LEN];
		snprintf(path, sizeof(path), NODE_DIR "/node%u/access0/initiators/read_latency", t);
		if (!access(path, R_OK))
			return 0;
	}
	return "Linux reports no HMAT claims (no node*/access0/initiators/read_latency: no HMAT, or a kernel "
	       "without CONFIG_HMEM_REPORTING)";
}
