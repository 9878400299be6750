/* pmm.c - the workload half of pmm.h on Linux: anonymous mmap(2) memory, aligned as asked, bound with mbind(2) (to its node, or MPOL_LOCAL, so that NUMA balancing leaves it alone) and touched so that it is real memory, as the kernel's pages are.
 *
 * "Physical" addresses are the virtual ones on the host: workloads only cast
 * them to pointers. The kernel-only calls (pmm_reset, pmm_set_nodes,
 * pmm_add) are not provided: nothing in the twin calls them. */
#define _GNU_SOURCE
#include "pmm.h"
#include <sys/mman.h>
#include "hostnuma.h"
#include "lib.h"

/* ---- Constants ------------------------------------------------------------ */
#define LARGE (2ull << 20)   /* the kernel maps RAM in 2 MiB pages where it can */

/* ---- Private Variables ---------------------------------------------------- */
static uint64_t used[2], peak[2];

/* ---- Private Functions ---------------------------------------------------- */
static void account(enum pmm_owner owner, uint64_t bytes, bool add)
{
	unsigned o = owner == PMM_KERNEL ? 0 : 1;
	used[o] = add ? used[o] + bytes : used[o] - MIN(used[o], bytes);
	peak[o] = MAX(peak[o], used[o]);
}

/* ---- Public Functions ----------------------------------------------------- */
uint64_t pmm_alloc(uint64_t pages, int node, uint64_t align, uint64_t max_end, enum pmm_owner owner)
{
	/* A physical limit (max_end) cannot be honoured from user space. */
	if (!pages || max_end || align < PMM_PAGE || (align & (align - 1)))
		return 0;
	uint64_t len = pages * PMM_PAGE, map = len + align - PMM_PAGE;
	if (node != PMM_ANY_NODE && hostmem_node_free(node) < len)
		return 0; /* as the kernel: no room on that node; MPOL_BIND would call the OOM killer instead */
	uint8_t *p = mmap(0, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	uint8_t *a = (uint8_t *)ALIGN_UP((uintptr_t)p, align);
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + len < p + map)
		munmap(a + len, (size_t)(p + map - (a + len)));
	if (align >= LARGE && len >= LARGE)
		madvise(a, len, MADV_HUGEPAGE); /* best effort, like the kernel's 2 MiB mappings */
	if (node != PMM_ANY_NODE && !hostnuma_bind(a, len, node)) {
		munmap(a, len);
		return 0;
	}
	if (node == PMM_ANY_NODE)
		hostnuma_keep(a, len); /* a policy of its own: NUMA balancing leaves it alone (hostnuma.h) */
	/* Write every page once: real pages now, not the zero page later. */
	for (uint64_t off = 0; off < len; off += PMM_PAGE)
		((volatile uint8_t *)a)[off] = 0;
	account(owner, len, true);
	return (uint64_t)(uintptr_t)a;
}

void pmm_free(uint64_t base, uint64_t pages, enum pmm_owner owner)
{
	if (!base || !pages)
		return;
	munmap((void *)(uintptr_t)base, pages * PMM_PAGE);
	account(owner, pages * PMM_PAGE, false);
}

int pmm_node_of(uint64_t phys)
{
	int n = hostnuma_node_of_addr((const void *)(uintptr_t)phys);
	return n < 0 ? 0 : n;
}

int pmm_node_of_ptr(const void *p)
{
	return hostnuma_node_of_addr(p); /* move_pages: where Linux put it, -1 if not present */
}

uint64_t pmm_free_bytes(int node)
{
	return node == PMM_ANY_NODE ? hostmem_meminfo("MemAvailable") : hostmem_node_free(node);
}

uint64_t pmm_used_bytes(enum pmm_owner owner)
{
	return used[owner == PMM_KERNEL ? 0 : 1];
}

uint64_t pmm_peak_bytes(enum pmm_owner owner)
{
	return peak[owner == PMM_KERNEL ? 0 : 1];
}

uint64_t pmm_lost_bytes(void)
{
	return 0; /* munmap has no table to overflow */
}
