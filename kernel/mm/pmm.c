/* pmm.c - physical page allocator over a sorted list of free ranges; see pmm.h. */
#include "pmm.h"
#include "lib.h"
#include "qb_limits.h"

/* ---- Types ---------------------------------------------------------------- */
struct free_range {
	uint64_t base, end;
	int32_t node;
};

/* ---- Private Variables ---------------------------------------------------- */
static struct free_range ranges[PMM_MAX_RANGES];
static uint32_t n_ranges;
static struct pmm_node_range nodes[QB_MAX_SRAT_MEM];
static uint32_t n_nodes;
static uint64_t used[2], peak[2], lost;
static pmm_workload_hook_fn workload_hook;

/* ---- Private Functions ---------------------------------------------------- */
/* Insert keeping ranges sorted by base, merging with neighbours on the same node. */
static bool insert_range(uint64_t base, uint64_t end, int32_t node)
{
	uint32_t i = 0;
	while (i < n_ranges && ranges[i].base < base)
		i++;
	bool merge_prev = i > 0 && ranges[i - 1].end == base && ranges[i - 1].node == node;
	bool merge_next = i < n_ranges && ranges[i].base == end && ranges[i].node == node;
	if (merge_prev && merge_next) {
		ranges[i - 1].end = ranges[i].end;
		memmove(&ranges[i], &ranges[i + 1], (n_ranges - i - 1) * sizeof(ranges[0]));
		n_ranges--;
		return true;
	}
	if (merge_prev) {
		ranges[i - 1].end = end;
		return true;
	}
	if (merge_next) {
		ranges[i].base = base;
		return true;
	}
	if (n_ranges >= PMM_MAX_RANGES)
		return false;
	memmove(&ranges[i + 1], &ranges[i], (n_ranges - i) * sizeof(ranges[0]));
	ranges[i].base = base;
	ranges[i].end = end;
	ranges[i].node = node;
	n_ranges++;
	return true;
}

/* Add [base, end), cut at node boundaries. */
static bool add_split(uint64_t base, uint64_t end)
{
	while (base < end) {
		int32_t node = 0;
		uint64_t piece_end = end;
		for (uint32_t i = 0; i < n_nodes; i++) {
			if (base >= nodes[i].base && base < nodes[i].end) {
				node = nodes[i].node;
				piece_end = MIN(end, nodes[i].end);
				break;
			}
			/* A later node range starting inside this piece cuts it. */
			if (nodes[i].base > base && nodes[i].base < piece_end)
				piece_end = nodes[i].base;
		}
		if (!insert_range(base, piece_end, node))
			return false;
		base = piece_end;
	}
	return true;
}

static void account(enum pmm_owner owner, uint64_t bytes, bool alloc)
{
	if (alloc) {
		used[owner] += bytes;
		if (used[owner] > peak[owner])
			peak[owner] = used[owner];
	} else {
		used[owner] -= MIN(bytes, used[owner]);
	}
}

/* pmm_alloc without the workload hook: the block, or 0. */
static uint64_t carve(uint64_t pages, int node, uint64_t align, uint64_t max_end, enum pmm_owner owner)
{
	if (pages == 0 || pages > (~0ull >> 12) || align < PMM_PAGE || (align & (align - 1)))
		return 0;
	uint64_t bytes = pages * PMM_PAGE;
	for (uint32_t k = n_ranges; k-- > 0;) {
		struct free_range *r = &ranges[k];
		if (node != PMM_ANY_NODE && r->node != node)
			continue;
		uint64_t top = r->end;
		if (max_end && top > max_end)
			top = ALIGN_DOWN(max_end, PMM_PAGE);
		if (top < r->base + bytes)
			continue;
		uint64_t base = ALIGN_DOWN(top - bytes, align);
		if (base < r->base)
			continue;
		uint64_t end = base + bytes;
		/* Carve [base, end) out of r, which may split it in two. */
		if (base == r->base && end == r->end) {
			memmove(r, r + 1, (n_ranges - k - 1) * sizeof(*r));
			n_ranges--;
		} else if (base == r->base) {
			r->base = end;
		} else if (end == r->end) {
			r->end = base;
		} else {
			if (n_ranges >= PMM_MAX_RANGES)
				continue; /* cannot split here; try elsewhere */
			uint64_t old_end = r->end;
			r->end = base;
			memmove(r + 2, r + 1, (n_ranges - k - 1) * sizeof(*r));
			r[1].base = end;
			r[1].end = old_end;
			r[1].node = r->node;
			n_ranges++;
		}
		account(owner, bytes, true);
		return base;
	}
	return 0;
}

/* ---- Public Functions ----------------------------------------------------- */
void pmm_reset(const struct pmm_node_range *node_ranges, uint32_t n)
{
	n_ranges = 0;
	n_nodes = 0;
	memset(used, 0, sizeof(used));
	memset(peak, 0, sizeof(peak));
	lost = 0;
	workload_hook = 0;
	for (uint32_t i = 0; i < n && n_nodes < QB_MAX_SRAT_MEM; i++)
		if (node_ranges[i].end > node_ranges[i].base)
			nodes[n_nodes++] = node_ranges[i];
}

void pmm_set_nodes(const struct pmm_node_range *node_ranges, uint32_t n)
{
	static struct free_range old[PMM_MAX_RANGES];
	uint32_t n_old = n_ranges;
	memcpy(old, ranges, n_old * sizeof(old[0]));
	n_nodes = 0;
	for (uint32_t i = 0; i < n && n_nodes < QB_MAX_SRAT_MEM; i++)
		if (node_ranges[i].end > node_ranges[i].base)
			nodes[n_nodes++] = node_ranges[i];
	n_ranges = 0;
	for (uint32_t i = 0; i < n_old; i++)
		if (!add_split(old[i].base, old[i].end))
			lost += old[i].end - old[i].base;
}

bool pmm_add(uint64_t base, uint64_t len)
{
	uint64_t end = base + len < base ? ~0ull : base + len;
	base = ALIGN_UP(base, PMM_PAGE);
	end = ALIGN_DOWN(end, PMM_PAGE);
	if (end <= base)
		return true;
	return add_split(base, end);
}

uint64_t pmm_alloc(uint64_t pages, int node, uint64_t align, uint64_t max_end, enum pmm_owner owner)
{
	uint64_t base = carve(pages, node, align, max_end, owner);
	if (base && owner == PMM_WORKLOAD && workload_hook)
		workload_hook(base, pages * PMM_PAGE);
	return base;
}

uint64_t pmm_alloc_own_map(uint64_t pages, int node, uint64_t align)
{
	return carve(pages, node, align, 0, PMM_WORKLOAD);
}

void pmm_set_workload_hook(pmm_workload_hook_fn fn)
{
	workload_hook = fn;
}

void pmm_free(uint64_t base, uint64_t pages, enum pmm_owner owner)
{
	uint64_t bytes = pages * PMM_PAGE;
	account(owner, bytes, false);
	if (!add_split(base, base + bytes))
		lost += bytes;
}

int pmm_node_of(uint64_t phys)
{
	for (uint32_t i = 0; i < n_nodes; i++)
		if (phys >= nodes[i].base && phys < nodes[i].end)
			return nodes[i].node;
	return 0;
}

uint64_t pmm_free_bytes(int node)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < n_ranges; i++)
		if (node == PMM_ANY_NODE || ranges[i].node == node)
			total += ranges[i].end - ranges[i].base;
	return total;
}

uint64_t pmm_used_bytes(enum pmm_owner owner)
{
	return used[owner];
}

uint64_t pmm_peak_bytes(enum pmm_owner owner)
{
	return peak[owner];
}

uint64_t pmm_lost_bytes(void)
{
	return lost;
}
