/* demand.c - demand-zero regions: page-table bookkeeping and the fault path (Intel SDM vol. 3A §4.5, §4.7, §4.10.4); see demand.h. */
#include "demand.h"
#include "console.h"
#include "lib.h"
#include "pmm.h"
#include "spinlock.h"

/* ---- Constants: entry bits, Intel SDM vol. 3A §4.5 Tables 4-15..4-20 ------ */
#define PTE_P (1ull << 0)
#define PTE_W (1ull << 1)
#define PTE_PS (1ull << 7)
#define PTE_ADDR 0x000ffffffffff000ull
#define PF_ERR_PRESENT (1ull << 0)  /* #PF error code: 1 = protection violation, 0 = not present */
#define PAGE 0x1000ull
#define ENTRIES 512
#define GIB_SHIFT 30
#define MIB2_SHIFT 21
#define PAGE_SHIFT 12
#define FIRST_SLOT ((DEMAND_VA_BASE >> 39) & (ENTRIES - 1))
#define LOCK_MS 10000               /* a handler never holds the lock this long */

/* ---- Private Variables ---------------------------------------------------- */
static struct demand_region regions[DEMAND_MAX_REGIONS];
static struct spinlock alloc_lock = SPINLOCK_INIT; /* the page allocator is not reentrant: one CPU in it at a time */
/* Freed 4 KiB pages, per node, linked through their first word. Two regions
 * faulted in alternately (a copy's src and dst) own alternate pages: freeing
 * one page by page would leave a hole per page, more than pmm's range table
 * holds (PMM_MAX_RANGES), and pmm would lose the rest. So freed pages wait
 * here, are reused by later faults, and go back to pmm sorted by address,
 * where they merge, once no region is left. */
static uint64_t pending[QB_MAX_NODES];

/* ---- Private Functions ---------------------------------------------------- */
/* False, reported, when the lock stays held past LOCK_MS (a stopped holder,
 * or a fault inside the allocator): the caller then goes without it and
 * never releases it. */
static bool lock(struct demand_region *r)
{
	(void)r;
	if (spin_lock_ms(&alloc_lock, LOCK_MS, (int32_t)demand_hw_cpu()))
		return true;
	console_error("demand", "CPU %u waited %u ms for the page allocator's lock (held by CPU %d): "
		      "a page not taken or not given back", demand_hw_cpu(), LOCK_MS, (int)alloc_lock.owner);
	return false;
}

static void unlock(struct demand_region *r)
{
	(void)r;
	spin_unlock(&alloc_lock);
}

static uint64_t *table(uint64_t phys)
{
	return demand_hw_phys(phys & PTE_ADDR);
}

static uint64_t new_table(struct demand_region *r)
{
	uint64_t p = pmm_alloc(1, PMM_ANY_NODE, PAGE, 0, PMM_KERNEL);
	if (p) {
		memset(demand_hw_phys(p), 0, PAGE);
		r->table_bytes += PAGE;
	}
	return p;
}

/* The leaf entry for byte offset off: a PTE (4 KiB pages) or a PDE (2 MiB). */
static volatile uint64_t *leaf(const struct demand_region *r, uint64_t off)
{
	uint64_t *pd = table(r->pd[off >> GIB_SHIFT]);
	uint64_t *pde = &pd[(off >> MIB2_SHIFT) & (ENTRIES - 1)];
	if (r->page == DEMAND_PAGE_2M)
		return pde;
	return &table(*pde)[(off >> PAGE_SHIFT) & (ENTRIES - 1)];
}

static uint64_t page_frames(const struct demand_region *r)
{
	return r->page / PAGE;
}

/* The link word of a pending page. */
static uint64_t *next_of(uint64_t phys)
{
	return demand_hw_phys(phys);
}

/* A pending page on node (any node but `node` if other), or 0. Lock held. */
static uint64_t pending_pop(int node, bool other)
{
	for (int n = 0; n < QB_MAX_NODES; n++) {
		if ((n == node) == other || !pending[n])
			continue;
		uint64_t p = pending[n];
		pending[n] = *next_of(p);
		return p;
	}
	return 0;
}

static uint64_t merge_sorted(uint64_t a, uint64_t b)
{
	uint64_t head = 0, *tail = &head;
	while (a && b) {
		uint64_t *take = a < b ? &a : &b;
		*tail = *take;
		tail = next_of(*take);
		*take = *tail;
	}
	*tail = a ? a : b;
	return head;
}

/* Merge sort of a pending list by address. */
static uint64_t sort_pages(uint64_t head)
{
	if (!head || !*next_of(head))
		return head;
	uint64_t slow = head, fast = *next_of(head);
	while (fast && *next_of(fast)) {
		slow = *next_of(slow);
		fast = *next_of(*next_of(fast));
	}
	uint64_t second = *next_of(slow);
	*next_of(slow) = 0;
	return merge_sorted(sort_pages(head), sort_pages(second));
}

/* Every pending page back to pmm, in address order, one call per contiguous run. */
static void pending_flush(void)
{
	if (!lock(0))
		return; /* they wait for the next flush */
	for (int n = 0; n < QB_MAX_NODES; n++) {
		uint64_t p = sort_pages(pending[n]);
		pending[n] = 0;
		while (p) {
			uint64_t start = p, pages = 0;
			do {
				pages++;
				p = *next_of(p);
			} while (p && p == start + pages * PAGE);
			pmm_free(start, pages, PMM_WORKLOAD);
		}
	}
	unlock(0);
}

static void give_back(struct demand_region *r, uint64_t phys)
{
	if (!lock(r))
		return; /* lost, and said */
	if (r->zeroing == DEMAND_PREZEROED && r->pool_len < r->pool_pages) {
		memset(demand_hw_phys(phys), 0, r->page);
		r->pool[r->pool_len++] = phys;
	} else if (r->page == PAGE) {
		int n = pmm_node_of(phys);
		n = n >= 0 && n < QB_MAX_NODES ? n : 0;
		*next_of(phys) = pending[n];
		pending[n] = phys;
	} else {
		pmm_free(phys, page_frames(r), PMM_WORKLOAD);
	}
	unlock(r);
}

/* A page on node n from the pending pages or the allocator, or 0. Lock held. */
static uint64_t from_node(struct demand_region *r, int n)
{
	uint64_t p = r->page == PAGE ? pending_pop(n, false) : 0;
	return p ? p : pmm_alloc_own_map(page_frames(r), n, r->page);
}

/* A page for a fault: from the pool (prezeroed), the pending pages or the
 * allocator, on node if it can; an interleave's full node passes it to the
 * next node of the set first. *off_node: it came from another node. */
static uint64_t take_page(struct demand_region *r, int node, bool *off_node)
{
	uint64_t p = 0;
	bool small = r->page == PAGE;
	*off_node = false;
	if (!lock(r))
		return 0; /* the fault fails, and is said */
	if (r->zeroing == DEMAND_PREZEROED) {
		if (r->pool_len)
			p = r->pool[--r->pool_len];
	} else {
		p = from_node(r, node);
		for (int k = 1; !p && r->policy == DEMAND_INTERLEAVE && k < QB_MAX_NODES; k++) {
			int n = (node + k) % QB_MAX_NODES;
			if (r->nodes >> n & 1)
				p = from_node(r, n);
		}
		if (!p) {
			p = pmm_alloc_own_map(page_frames(r), PMM_ANY_NODE, r->page);
			if (!p && small)
				p = pending_pop(node, true);
		}
		*off_node = p != 0 && pmm_node_of(p) != node;
	}
	unlock(r);
	return p;
}

/* The node a fault at offset off by the calling CPU asks for. */
static int wanted_node(const struct demand_region *r, uint64_t off)
{
	if (r->policy == DEMAND_FIRST_TOUCH)
		return demand_hw_node();
	if (r->policy == DEMAND_INTERLEAVE)
		return demand_interleave_node(r->nodes, off / r->page);
	return r->node;
}

/* Map the page at offset off (page-aligned) as a fault by the calling CPU
 * would: 1 mapped by this call (*zero: the ticks its zeroing took), 0
 * already mapped (another CPU was first), -1 out of memory. */
static int map_page(struct demand_region *r, uint64_t off, uint64_t *zero, bool *off_node)
{
	volatile uint64_t *e = leaf(r, off);
	*zero = 0;
	*off_node = false;
	if (*e & PTE_P)
		return 0;
	uint64_t phys = take_page(r, wanted_node(r, off), off_node);
	if (!phys)
		return -1;
	if (r->zeroing != DEMAND_PREZEROED) { /* on any access, read or write */
		uint64_t z0 = demand_hw_ticks();
		memset(demand_hw_phys(phys), 0, r->page);
		*zero = demand_hw_ticks() - z0;
	}
	uint64_t want = phys | PTE_P | PTE_W | demand_hw_nx_bit() | (r->page == DEMAND_PAGE_2M ? PTE_PS : 0);
	uint64_t expected = 0;
	if (!__atomic_compare_exchange_n(e, &expected, want, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		give_back(r, phys); /* lost a race with another CPU */
		*off_node = false;
		return 0;
	}
	int pnode = pmm_node_of(phys);
	if (pnode >= 0 && pnode < QB_MAX_NODES)
		__atomic_add_fetch(&r->pages_by_node[pnode], 1, __ATOMIC_RELAXED);
	return 1;
}

static struct demand_region *region_of(uint64_t va)
{
	for (unsigned i = 0; i < DEMAND_MAX_REGIONS; i++) {
		struct demand_region *r = &regions[i];
		if (r->active && va >= r->base && va - r->base < r->size)
			return r;
	}
	return 0;
}

static void free_tables(struct demand_region *r)
{
	for (uint64_t g = 0; g < DEMAND_PDS; g++) {
		if (!r->pd[g])
			continue;
		uint64_t *pd = table(r->pd[g]);
		if (r->page == DEMAND_PAGE_4K)
			for (unsigned i = 0; i < ENTRIES; i++)
				if (pd[i])
					pmm_free(pd[i] & PTE_ADDR, 1, PMM_KERNEL);
		pmm_free(r->pd[g], 1, PMM_KERNEL);
		r->pd[g] = 0;
	}
	if (r->pdpt)
		pmm_free(r->pdpt, 1, PMM_KERNEL);
	r->pdpt = 0;
	if (r->pool_phys)
		pmm_free(r->pool_phys, r->pool_pages ? ALIGN_UP(r->pool_pages * 8, PAGE) / PAGE : 0, PMM_KERNEL);
	r->pool_phys = 0;
	r->table_bytes = 0;
}

/* demand_create and demand_create_interleaved: nodes is the interleave's mask. */
struct demand_region *demand_create_region(uint64_t size, uint64_t page, enum demand_policy policy,
				    enum demand_zeroing zeroing, int node, uint64_t nodes, const char **why)
{
	struct demand_region *r = 0;
	unsigned slot = 0;
	for (unsigned i = 0; i < DEMAND_MAX_REGIONS; i++) {
		if (!regions[i].active) {
			r = &regions[i];
			slot = i;
			break;
		}
	}
	if (!r) {
		*why = "all demand-zero regions are in use";
		return 0;
	}
	if (!demand_region_init(r, size, page, policy, zeroing, node, why))
		return 0;
	r->nodes = nodes;
	r->slot = (unsigned)FIRST_SLOT + slot;
	r->base = DEMAND_VA_BASE + (uint64_t)slot * DEMAND_VA_STRIDE;
	r->huge_source = page == DEMAND_PAGE_2M ? DEMAND_HUGE_KERNEL : 0;

	/* Tables now, so the handler never allocates one: PDPT, PDs, and PTs for 4 KiB pages. */
	r->pdpt = new_table(r);
	bool ok = r->pdpt != 0;
	for (uint64_t off = 0; ok && off < r->size; off += 1ull << GIB_SHIFT) {
		uint64_t g = off >> GIB_SHIFT;
		r->pd[g] = new_table(r);
		ok = r->pd[g] != 0;
		if (ok)
			table(r->pdpt)[g] = r->pd[g] | PTE_P | PTE_W;
		for (uint64_t o = off; ok && page == DEMAND_PAGE_4K && o < r->size && o < off + (1ull << GIB_SHIFT);
		     o += 1ull << MIB2_SHIFT) {
			uint64_t pt = new_table(r);
			ok = pt != 0;
			table(r->pd[g])[(o >> MIB2_SHIFT) & (ENTRIES - 1)] = pt ? (pt | PTE_P | PTE_W) : 0;
		}
	}
	if (ok && zeroing == DEMAND_PREZEROED) {
		r->pool_pages = r->size / page;
		uint64_t pool_bytes = ALIGN_UP(r->pool_pages * sizeof(uint64_t), PAGE);
		r->pool_phys = pmm_alloc(pool_bytes / PAGE, PMM_ANY_NODE, PAGE, 0, PMM_KERNEL);
		ok = r->pool_phys != 0;
		if (ok) {
			r->pool = demand_hw_phys(r->pool_phys);
			for (uint64_t i = 0; ok && i < r->pool_pages; i++) {
				uint64_t p = pmm_alloc_own_map(page_frames(r), node, page);
				if (!p)
					p = pmm_alloc_own_map(page_frames(r), PMM_ANY_NODE, page);
				ok = p != 0;
				if (ok) {
					memset(demand_hw_phys(p), 0, page);
					r->pool[r->pool_len++] = p;
				}
			}
		}
	}
	if (!ok || !demand_hw_set_pml4(r->slot, r->pdpt | PTE_P | PTE_W)) {
		while (r->pool && r->pool_len)
			pmm_free(r->pool[--r->pool_len], page_frames(r), PMM_WORKLOAD);
		free_tables(r);
		*why = ok ? "cannot install the region's page tables" : "out of memory for the region";
		return 0;
	}
	r->active = true;
	return r;
}

/* ---- Public Functions ----------------------------------------------------- */

bool demand_fault(uint64_t va, uint64_t err)
{
	struct demand_region *r = region_of(va);
	if (!r || (err & PF_ERR_PRESENT))
		return false; /* not ours, or a protection fault: a real bug */
	uint64_t t0 = demand_hw_ticks();
	uint64_t off = ALIGN_DOWN(va - r->base, r->page), zero;
	struct demand_cpu_stats *st = &r->cpu[demand_hw_cpu() % QB_MAX_CPUS];
	bool off_node;
	int got = map_page(r, off, &zero, &off_node);
	if (got < 0)
		return false; /* out of memory: reported as the fault it is */
	demand_hw_invlpg(r->base + off);
	if (!got)
		return true; /* another CPU mapped it first: the access can simply be retried */
	st->faults++;
	st->zero_ticks += zero;
	st->off_node += off_node;
	st->handler_ticks += demand_hw_ticks() - t0;
	return true;
}

bool demand_prefault(struct demand_region *r, uint64_t off, uint64_t len)
{
	struct demand_cpu_stats *st = &r->cpu[demand_hw_cpu() % QB_MAX_CPUS];
	uint64_t end = MIN(r->size, off + len);
	for (uint64_t o = ALIGN_DOWN(off, r->page); o < end; o += r->page) {
		uint64_t zero;
		bool off_node;
		int got = map_page(r, o, &zero, &off_node);
		if (got < 0)
			return false;
		if (got)
			demand_hw_invlpg(r->base + o);
		st->off_node += off_node;
	}
	return true;
}

uint64_t demand_page_nodes(const struct demand_region *r, uint64_t first, uint64_t n, int16_t *node)
{
	uint64_t present = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = (first + i) * r->page;
		uint64_t v = off < r->size ? *leaf(r, off) : 0;
		node[i] = (int16_t)((v & PTE_P) ? pmm_node_of(v & PTE_ADDR) : -1);
		present += (v & PTE_P) != 0;
	}
	return present;
}

void demand_reset(struct demand_region *r)
{
	for (uint64_t off = 0; off < r->size; off += r->page) {
		volatile uint64_t *e = leaf(r, off);
		uint64_t v = *e;
		if (!(v & PTE_P))
			continue;
		*e = 0;
		give_back(r, v & PTE_ADDR & ~(r->page - 1));
	}
	demand_hw_flush_all_tlbs();
	memset((void *)r->pages_by_node, 0, sizeof(r->pages_by_node));
	memset(r->cpu, 0, sizeof(r->cpu));
}

bool demand_populate(struct demand_region *r, int node)
{
	for (uint64_t off = 0; off < r->size; off += r->page) {
		volatile uint64_t *e = leaf(r, off);
		if (*e & PTE_P)
			continue;
		uint64_t p = pmm_alloc_own_map(page_frames(r), node, r->page);
		if (!p)
			p = pmm_alloc_own_map(page_frames(r), PMM_ANY_NODE, r->page);
		if (!p)
			return false;
		memset(demand_hw_phys(p), 0, r->page);
		*e = p | PTE_P | PTE_W | demand_hw_nx_bit() | (r->page == DEMAND_PAGE_2M ? PTE_PS : 0);
	}
	demand_hw_flush_all_tlbs();
	return true;
}

void demand_destroy(struct demand_region *r)
{
	if (!r || !r->active)
		return;
	demand_reset(r);
	demand_hw_set_pml4(r->slot, 0);
	demand_hw_flush_all_tlbs();
	while (r->pool && r->pool_len)
		pmm_free(r->pool[--r->pool_len], page_frames(r), PMM_WORKLOAD);
	free_tables(r);
	r->active = false;
	for (unsigned i = 0; i < DEMAND_MAX_REGIONS; i++)
		if (regions[i].active)
			return;
	pending_flush();
}

uint64_t demand_faults(const struct demand_region *r)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < QB_MAX_CPUS; c++)
		n += r->cpu[c].faults;
	return n;
}

uint64_t demand_handler_ticks(const struct demand_region *r)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < QB_MAX_CPUS; c++)
		n += r->cpu[c].handler_ticks;
	return n;
}

uint64_t demand_zero_ticks(const struct demand_region *r)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < QB_MAX_CPUS; c++)
		n += r->cpu[c].zero_ticks;
	return n;
}

uint64_t demand_present_pages(const struct demand_region *r)
{
	uint64_t n = 0;
	for (uint64_t off = 0; off < r->size; off += r->page)
		n += (*leaf(r, off) & PTE_P) != 0;
	return n;
}

int demand_node_at(const struct demand_region *r, uint64_t off)
{
	if (off >= r->size)
		return -1;
	uint64_t v = *leaf(r, ALIGN_DOWN(off, r->page));
	if (!(v & PTE_P))
		return -1;
	return pmm_node_of(v & PTE_ADDR);
}

uint64_t demand_phys_of(const struct demand_region *r, uint64_t off)
{
	if (off >= r->size)
		return 0;
	uint64_t v = *leaf(r, ALIGN_DOWN(off, r->page));
	if (!(v & PTE_P))
		return 0;
	return (v & PTE_ADDR & ~(r->page - 1)) + (off & (r->page - 1));
}

uint64_t demand_whole_pages(const struct demand_region *r, uint64_t n, bool *whole, const char **how)
{
	uint64_t got = 0;
	bool large = r->page == DEMAND_PAGE_2M;
	n = MIN(n, r->size / r->page);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = *leaf(r, i * r->page);
		whole[i] = (v & PTE_P) && (!large || (v & PTE_PS));
		got += whole[i];
	}
	*how = got == n ? (large ? "the page tables: each 2 MiB entry present with PS set" : "the page tables: each entry present")
			: (large ? "the page tables: a 2 MiB entry not present or without PS" : "the page tables: an entry not present");
	return got;
}

