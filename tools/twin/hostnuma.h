/* hostnuma.h - the Linux twin's view of memory and NUMA nodes: /proc/meminfo, /sys/devices/system/node, and the mbind(2) and move_pages(2) system calls. */
#ifndef QB_TWIN_HOSTNUMA_H
#define QB_TWIN_HOSTNUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read the node directories: how many nodes, and each OS CPU's node. Without
 * /sys/devices/system/node (or without NUMA system calls) everything is node 0. */
void hostnuma_init(void);

/* Nodes as the workloads count them: the highest node number + 1 (1 without NUMA). */
uint32_t hostnuma_nodes(void);

/* The node of OS CPU os_cpu (0 when unknown). */
int32_t hostnuma_node_of_cpu(uint32_t os_cpu);

/* Place future pages of [addr, addr+len) on node (MPOL_BIND), or by first
 * touch on the touching CPU's node (MPOL_LOCAL). True when done. With one
 * node both are MPOL_LOCAL (hostnuma_keep): the range has a policy of its
 * own all the same. */
bool hostnuma_bind(void *addr, size_t len, int node);
bool hostnuma_local(void *addr, size_t len);

/* Spread future pages of [addr, addr+len) over the nodes of the mask (bit
 * n: node n) with MPOL_INTERLEAVE, then read the policy back
 * (get_mempolicy with MPOL_F_ADDR): true only when the range now
 * interleaves over exactly those nodes. Linux drops nodes without memory
 * from the set (mm/mempolicy.c: the mask meets N_MEMORY) and counts a
 * page's place in the interleave from its virtual address (a 2 MiB page's
 * from the huge page's index). With one node: hostnuma_keep. */
bool hostnuma_interleave(void *addr, size_t len, uint64_t nodes);

/* Give [addr, addr+len) a memory policy of its own, MPOL_LOCAL (where the
 * touching CPU is, as without one), even on one node: NUMA balancing
 * leaves a range with its own policy alone (its scanner skips a VMA whose
 * policy lacks MPOL_F_MOF: mm/mempolicy.c vma_policy_mof, task_numa_work).
 * True when done, or when the kernel has no NUMA system calls (nothing
 * balances then). */
bool hostnuma_keep(void *addr, size_t len);

/* The node of the page holding addr: its node, -1 if the page is not present
 * (or is the shared zero page), 0 without NUMA. */
int hostnuma_node_of_addr(const void *addr);

/* The same for n pages at once (move_pages with no target): status[i] gets
 * the node or -1. False if the system call failed (everything then -1). */
bool hostnuma_nodes_of(void **pages, size_t n, int *status);

/* /proc/meminfo: a field (key e.g. "MemTotal"), in bytes for kB fields and
 * as a plain count otherwise (HugePages_Free); 0 if absent. */
uint64_t hostmem_meminfo(const char *key);

/* Free bytes on a node: MemFree from /sys/devices/system/node/nodeN/meminfo
 * (the node files have no MemAvailable); with one node, MemAvailable. */
uint64_t hostmem_node_free(int node);

#endif
