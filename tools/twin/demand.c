/* demand.c - demand.h on Linux: the OS's own demand-zero path (mmap(2), madvise(2) MADV_DONTNEED and MADV_REMOVE, mincore(2), move_pages(2), mbind(2)) behind the kernel's region API.
 *
 * A region is an anonymous private mapping. Its pages appear on first touch
 * through Linux's page-fault handler, placed by Linux's first-touch policy
 * (MPOL_LOCAL), bound to a node (MPOL_BIND) or spread over nodes
 * (MPOL_INTERLEAVE). MADV_DONTNEED makes them fresh
 * again. What only a ring-0 handler can see (its own timings, a prezeroed
 * pool, TLB flushes on demand) is not available: wl_ctx.has_fault_internals
 * is false and the workload skips what needs it.
 *
 * Linux maps its shared zero page (or, with THP, the huge zero page) on the
 * first *read* of a never-written private page; it allocates and zeroes on
 * the first write. Both count as the page becoming present, as below. The
 * workloads time first writes, the same event on both platforms; a region
 * whose first touch is a read that must zero a page (DEMAND_ZERO_ON_READ:
 * the seed's fresh source, read by a copy) is shared anonymous memory
 * (shmem), whose first read allocates and zeroes a page of its own, as the
 * kernel's handler does: a private one would hand every read the one shared
 * zero page, so a copy would read one cached 4 KiB page over and over.
 *
 * A 2 MiB region asks for huge pages (hugetlbfs where its pool has them
 * free, else transparent huge pages: region.huge_source), but Linux may
 * serve any THP fault with a 4 KiB page instead (no free 2 MiB page, or huge
 * pages forbidden to the process); demand_whole_pages tells the two apart
 * straight after the first writes, with mincore (every 4 KiB piece present)
 * and then smaps (one 2 MiB mapping: tools/twin/smaps.h). tools/twin/thp.h
 * has the debug key that forces the fall-back. */
#define _GNU_SOURCE
#include "demand.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "console.h"
#include "fmt.h"
#include "hostnuma.h"
#include "lib.h"
#include "smaps.h"
#include "thp.h"

/* ---- Constants ------------------------------------------------------------ */
#define BASE_PAGE 4096ull
#define MAP_HUGE_SHIFT_ 26                     /* <linux/mman.h> MAP_HUGE_SHIFT */
#define MAP_HUGE_2MB_ (21 << MAP_HUGE_SHIFT_)  /* log2(2 MiB) */
#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define LINE_LEN 256
#define HOW_LEN 320

enum source { SRC_4K, SRC_HUGETLB, SRC_THP, SRC_SHARED_4K };

/* ---- Types ---------------------------------------------------------------- */
/* What the twin keeps next to each kernel-shaped region. */
struct twin_region {
	enum source src;
	uint64_t baseline;       /* pages present after demand_populate: mapped without a first touch */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct demand_region regions[DEMAND_MAX_REGIONS];
static struct twin_region twin[DEMAND_MAX_REGIONS];

/* ---- Private Functions ---------------------------------------------------- */
static bool thp_available(void)
{
	char line[LINE_LEN] = "";
	FILE *f = fopen(THP_ENABLED, "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	return strstr(line, "[always]") || strstr(line, "[madvise]");
}

/* Map r's range (at r->base when fixed) from its source; false on failure. */
static bool map_region(struct demand_region *r, enum source src, bool fixed)
{
	int flags = (src == SRC_SHARED_4K ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | (fixed ? MAP_FIXED : 0);
	uint64_t extra = src == SRC_THP && !fixed ? DEMAND_PAGE_2M : 0;
	/* hugetlbfs reserves its pages now (so a touch cannot fail later); others reserve nothing. */
	flags |= src == SRC_HUGETLB ? MAP_HUGETLB | MAP_HUGE_2MB_ : MAP_NORESERVE;
	uint8_t *p = mmap(fixed ? (void *)(uintptr_t)r->base : 0, r->size + extra, PROT_READ | PROT_WRITE, flags,
			  -1, 0);
	if (p == MAP_FAILED)
		return false;
	uint8_t *a = extra ? (uint8_t *)ALIGN_UP((uintptr_t)p, DEMAND_PAGE_2M) : p;
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (extra && a + r->size < p + r->size + extra)
		munmap(a + r->size, (size_t)(p + r->size + extra - (a + r->size)));
	r->base = (uint64_t)(uintptr_t)a;
	if (src != SRC_HUGETLB)
		madvise(a, r->size, src == SRC_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (src == SRC_THP)
		thp_advise(a, r->size); /* debug: thp=every-other */
	bool placed = r->policy == DEMAND_FIXED_NODE ? hostnuma_bind(a, r->size, r->node)
		      : r->policy == DEMAND_INTERLEAVE ? hostnuma_interleave(a, r->size, r->nodes)
							: hostnuma_local(a, r->size);
	if (!placed) {
		munmap(a, r->size);
		return false;
	}
	return true;
}

/* The log's line on a new 2 MiB region: what was asked, and what is known
 * before any fault (hugetlbfs reserved its pages at mmap; THP forbidden to
 * the process serves none). What served each page is said after its first
 * write (demand_whole_pages). */
static void say_source(enum source src)
{
	if (src == SRC_HUGETLB)
		kprintf("  (linux: 2 MiB pages from hugetlbfs (MAP_HUGETLB), reserved at mmap)\n");
	else if (thp_forbidden())
		kprintf("  (linux: 2 MiB pages asked of transparent huge pages, which are disabled for this process "
			"(prctl PR_SET_THP_DISABLE): every fault gets 4 KiB pages)\n");
	else if (thp_mode() == THP_EVERY_OTHER)
		kprintf("  (linux: 2 MiB pages asked of transparent huge pages (MADV_HUGEPAGE); thp=every-other leaves "
			"every other 2 MiB piece to 4 KiB pages)\n");
	else
		kprintf("  (linux: 2 MiB pages asked of transparent huge pages (MADV_HUGEPAGE); Linux may give 4 KiB "
			"pages instead)\n");
}

/* Which 4 KiB pieces are present (mincore); a malloc'd vector the caller frees. */
static unsigned char *present_map(const struct demand_region *r)
{
	unsigned char *v = malloc(r->size / BASE_PAGE);
	if (v && mincore((void *)(uintptr_t)r->base, r->size, v) != 0) {
		free(v);
		v = 0;
	}
	if (!v)
		console_error("first-touch", "cannot tell which pages are present (mincore)");
	return v;
}

/* Pages (of r->page) present now, and with NUMA the node of each, into
 * pages_by_node (the kernel counts them in its fault handler). A 2 MiB page
 * counts once any part of it is present: a first touch maps all of it. */
static uint64_t count_present(struct demand_region *r)
{
	unsigned char *v = present_map(r);
	uint64_t per = r->page / BASE_PAGE, n = 0;
	void **pages = v ? malloc(r->size / r->page * sizeof(void *)) : 0;
	int *node = pages ? malloc(r->size / r->page * sizeof(int)) : 0;
	memset((void *)r->pages_by_node, 0, sizeof(r->pages_by_node));
	for (uint64_t pg = 0; node && pg < r->size / r->page; pg++) {
		for (uint64_t k = 0; k < per; k++) {
			if (v[pg * per + k] & 1) {
				pages[n++] = (void *)(uintptr_t)(r->base + pg * r->page + k * BASE_PAGE);
				break;
			}
		}
	}
	if (node)
		hostnuma_nodes_of(pages, n, node); /* one move_pages call for all of them */
	for (uint64_t i = 0; node && i < n; i++)
		if (node[i] >= 0 && node[i] < QB_MAX_NODES)
			r->pages_by_node[node[i]]++;
	free(node);
	free(pages);
	free(v);
	return n;
}

/* demand_create and demand_create_interleaved: nodes is the interleave's mask. */
struct demand_region *demand_create_region(uint64_t size, uint64_t page, enum demand_policy policy,
				    enum demand_zeroing zeroing, int node, uint64_t nodes, const char **why)
{
	unsigned slot = DEMAND_MAX_REGIONS;
	for (unsigned i = 0; i < DEMAND_MAX_REGIONS && slot == DEMAND_MAX_REGIONS; i++)
		if (!regions[i].active)
			slot = i;
	if (slot == DEMAND_MAX_REGIONS) {
		*why = "all demand-zero regions are in use";
		return 0;
	}
	if (zeroing == DEMAND_PREZEROED) {
		*why = "a prezeroed pool needs the kernel's fault handler (ring 0)";
		return 0;
	}
	if (zeroing == DEMAND_ZERO_ON_READ && page != DEMAND_PAGE_4K) {
		*why = "a 2 MiB region zeroed on a first read needs shared huge pages (not provided)";
		return 0;
	}
	struct demand_region *r = &regions[slot];
	if (!demand_region_init(r, size, page, policy, zeroing, node, why))
		return 0;
	r->nodes = nodes;
	r->slot = slot;
	enum source src = zeroing == DEMAND_ZERO_ON_READ ? SRC_SHARED_4K : SRC_4K;
	if (page == DEMAND_PAGE_2M) {
		/* thp= (debug) acts on transparent huge pages only: hugetlbfs pages,
		 * always whole, would leave it nothing to test. */
		bool hugetlb = thp_mode() == THP_NORMAL && hostmem_meminfo("Hugepagesize") == DEMAND_PAGE_2M &&
			       hostmem_meminfo("HugePages_Free") >= r->size / DEMAND_PAGE_2M;
		if (!hugetlb && !thp_available()) {
			*why = "no 2 MiB pages: no free hugetlbfs pages and transparent huge pages are off";
			return 0;
		}
		src = hugetlb ? SRC_HUGETLB : SRC_THP;
	}
	bool mapped = map_region(r, src, false);
	if (!mapped && src == SRC_HUGETLB && thp_available())
		mapped = map_region(r, src = SRC_THP, false); /* the free pages went to someone else */
	if (!mapped) {
		*why = policy == DEMAND_FIXED_NODE    ? "cannot map the region on its node"
		       : policy == DEMAND_INTERLEAVE ? "cannot interleave the region over its nodes (mbind, get_mempolicy)"
						     : "cannot map the region";
		return 0;
	}
	if (page == DEMAND_PAGE_2M) {
		r->huge_source = src == SRC_HUGETLB ? DEMAND_HUGE_HUGETLBFS : DEMAND_HUGE_THP;
		say_source(src);
	}
	twin[slot] = (struct twin_region){ src, 0 };
	r->active = true;
	return r;
}

/* ---- Public Functions ----------------------------------------------------- */

void demand_reset(struct demand_region *r)
{
	/* Fresh pages again. hugetlbfs refused MADV_DONTNEED before Linux 5.18: map it anew in place.
	 * Shared memory keeps its pages after MADV_DONTNEED (they are only
	 * unmapped): MADV_REMOVE frees them. */
	int advice = twin[r->slot].src == SRC_SHARED_4K ? MADV_REMOVE : MADV_DONTNEED;
	if (madvise((void *)(uintptr_t)r->base, r->size, advice) != 0 && !map_region(r, twin[r->slot].src, true))
		console_error("first-touch", "cannot make a demand-zero region fresh again");
	twin[r->slot].baseline = 0;
	memset((void *)r->pages_by_node, 0, sizeof(r->pages_by_node));
	memset(r->cpu, 0, sizeof(r->cpu));
}

bool demand_populate(struct demand_region *r, int node)
{
	if (node >= 0 && !hostnuma_bind((void *)(uintptr_t)r->base, r->size, node))
		return false;
	for (uint64_t off = 0; off < r->size; off += BASE_PAGE)
		((volatile uint8_t *)(uintptr_t)r->base)[off] = 0; /* a write: a real zeroed page, not the zero page */
	twin[r->slot].baseline = count_present(r);
	return true;
}

/* A locked add of 0 is a write from the first access: Linux allocates the
 * page under the range's policy (and the calling thread's CPU for
 * MPOL_LOCAL) instead of mapping its zero page, and a mapped page keeps its
 * data. Every 4 KiB piece, so that a 2 MiB page Linux served in 4 KiB
 * pieces is whole too; mincore then proves every piece present. */
bool demand_prefault(struct demand_region *r, uint64_t off, uint64_t len)
{
	uint64_t start = ALIGN_DOWN(off, r->page), end = MIN(r->size, off + len);
	if (start >= end)
		return true;
	for (uint64_t o = start; o < end; o += BASE_PAGE)
		__atomic_fetch_add((uint8_t *)(uintptr_t)(r->base + o), 0, __ATOMIC_RELAXED);
	end = ALIGN_UP(end, BASE_PAGE);
	unsigned char *v = malloc((end - start) / BASE_PAGE);
	bool all = v && mincore((void *)(uintptr_t)(r->base + start), end - start, v) == 0;
	for (uint64_t i = 0; all && i < (end - start) / BASE_PAGE; i++)
		all = v[i] & 1;
	free(v);
	return all;
}

/* One mincore for presence and one move_pages query for the nodes, of each
 * page's first 4 KiB piece. */
uint64_t demand_page_nodes(const struct demand_region *r, uint64_t first, uint64_t n, int16_t *node)
{
	uint64_t have = first < r->size / r->page ? MIN(n, r->size / r->page - first) : 0, present = 0;
	unsigned char *v = malloc(have ? have * (r->page / BASE_PAGE) : 1);
	void **pages = malloc((have ? have : 1) * sizeof(void *));
	int *st = malloc((have ? have : 1) * sizeof(int));
	bool ok = v && pages && st &&
		  (!have || mincore((void *)(uintptr_t)(r->base + first * r->page), have * r->page, v) == 0);
	for (uint64_t i = 0; ok && i < have; i++)
		pages[i] = (void *)(uintptr_t)(r->base + (first + i) * r->page);
	if (ok && have)
		hostnuma_nodes_of(pages, have, st);
	for (uint64_t i = 0; i < n; i++) {
		bool in = ok && i < have && (v[i * (r->page / BASE_PAGE)] & 1);
		node[i] = (int16_t)(in ? st[i] : -1);
		present += in && st[i] >= 0;
	}
	if (!ok)
		console_error("memory", "cannot tell where pages are (mincore, move_pages)");
	free(st);
	free(pages);
	free(v);
	return present;
}

void demand_destroy(struct demand_region *r)
{
	if (!r || !r->active)
		return;
	munmap((void *)(uintptr_t)r->base, r->size);
	r->active = false;
}

/* The kernel counts one fault per page its handler maps, and nothing else
 * maps pages into a region, so its count is the number of pages present
 * since create or reset (after MADV_DONTNEED or MADV_REMOVE nothing is;
 * mincore counts a shared region's pages in its shmem file). Linux's count of
 * exceptions differs (a read maps the zero page, the first write then takes
 * a second, copy-on-write fault; with THP one fault maps 512 pieces), so the
 * twin counts what the kernel's count equals: pages present now (mincore),
 * less those demand_populate mapped without a touch. MADV_NOHUGEPAGE keeps a
 * 4 KiB region at one page per first touch. */
uint64_t demand_faults(const struct demand_region *r)
{
	uint64_t n = count_present((struct demand_region *)r); /* r was created non-const: refresh pages_by_node */
	return n - MIN(n, twin[r->slot].baseline);
}

/* Linux's fault handler cannot be timed from user space. 0 here is "not
 * measured", not a time: a workload must not print it unless
 * has_fault_internals is true. */
uint64_t demand_handler_ticks(const struct demand_region *r)
{
	(void)r;
	return 0;
}

uint64_t demand_zero_ticks(const struct demand_region *r)
{
	(void)r;
	return 0;
}

uint64_t demand_present_pages(const struct demand_region *r)
{
	return count_present((struct demand_region *)r);
}

int demand_node_at(const struct demand_region *r, uint64_t off)
{
	if (off >= r->size)
		return -1;
	unsigned char v = 0;
	void *pg = (void *)(uintptr_t)(r->base + ALIGN_DOWN(off, BASE_PAGE));
	if (mincore(pg, BASE_PAGE, &v) != 0 || !(v & 1))
		return -1;
	int node = hostnuma_node_of_addr(pg);
	return hostnuma_nodes() > 1 ? node : 0;
}

uint64_t demand_phys_of(const struct demand_region *r, uint64_t off)
{
	/* No physical addresses in user space: the virtual one, if present. */
	return demand_node_at(r, off) >= 0 ? r->base + off : 0;
}

/* A 2 MiB page a first write mapped whole has all 512 of its 4 KiB pieces
 * present; one Linux served with a 4 KiB page has the piece written (or a
 * few, with multi-size THP), the rest not present: nothing has read them
 * yet, which is why this must come before any read-back. All 512 present
 * is not yet one 2 MiB mapping (a split one, or 512 faults of 4 KiB, look
 * the same to mincore): smaps must prove each (AnonHugePages; hugetlbfs
 * pages, always whole, show as Private_Hugetlb). */
uint64_t demand_whole_pages(const struct demand_region *r, uint64_t n, bool *whole, const char **how)
{
	static char text[HOW_LEN];
	uint64_t per = r->page / BASE_PAGE, got = 0, most = 0;
	n = MIN(n, r->size / r->page);
	unsigned char *v = present_map(r);
	for (uint64_t pg = 0; pg < n; pg++) {
		uint64_t in = 0;
		for (uint64_t k = 0; v && k < per; k++)
			in += v[pg * per + k] & 1;
		whole[pg] = v && in == per;
		got += whole[pg];
		if (!whole[pg])
			most = MAX(most, in);
	}
	bool seen = v != 0;
	free(v);
	if (!seen) {
		*how = "mincore failed: whether the pages are 2 MiB cannot be told";
		return DEMAND_WHOLE_UNKNOWN;
	}
	if (per == 1) {
		*how = got == n ? "mincore: each page present" : "mincore: a page not present";
		return got;
	}
	bool hugetlb = twin[r->slot].src == SRC_HUGETLB;
	const char *field = hugetlb ? "Private_Hugetlb" : "AnonHugePages";
	uint64_t present = got, huge = 0;
	FILE *f = fopen(SMAPS_SELF, "r");
	if (!f) {
		fmt_snprintf(text, sizeof(text), "mincore: every 4 KiB piece present in %llu of %llu pages of 2 MiB; "
			     "%s unreadable: whether one 2 MiB mapping holds each cannot be told",
			     (unsigned long long)present, (unsigned long long)n, SMAPS_SELF);
		*how = text;
		return DEMAND_WHOLE_UNKNOWN;
	}
	got = smaps_prove_huge(f, r->base, n, hugetlb, whole, &huge);
	fclose(f);
	char others[LINE_LEN] = "";
	if (present < n)
		fmt_snprintf(others, sizeof(others), " (at most %llu of %llu in the others)", (unsigned long long)most,
			     (unsigned long long)per);
	fmt_snprintf(text, sizeof(text), "mincore: every 4 KiB piece present in %llu of %llu pages of 2 MiB%s; smaps: "
		     "%s %llu kB, one 2 MiB mapping each for %llu of them%s%s", (unsigned long long)present,
		     (unsigned long long)n, others, field, (unsigned long long)(huge >> 10), (unsigned long long)got,
		     present < n ? "; " : "", present < n ? thp_cause() : "");
	*how = text;
	char fell[LINE_LEN] = "", unproven[LINE_LEN] = "";
	if (present < n)
		fmt_snprintf(fell, sizeof(fell), ", %llu fell back to 4 KiB pages", (unsigned long long)(n - present));
	if (got < present)
		fmt_snprintf(unproven, sizeof(unproven), ", %llu with every 4 KiB piece present but not proven one mapping",
			     (unsigned long long)(present - got));
	kprintf("  (linux: %llu of %llu 2 MiB pages served whole by %s (smaps %s)%s%s)\n", (unsigned long long)got,
		(unsigned long long)n, hugetlb ? "hugetlbfs" : "transparent huge pages", field, fell, unproven);
	return got;
}

/* TLB flushes on demand need ring 0; the workload only calls this with
 * has_fault_internals (tlb_costs), which the twin never sets. */
void demand_hw_flush_all_tlbs(void)
{
}
