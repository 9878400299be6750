/* locality_mem.c - where locality's array lives on a machine of several NUMA nodes: on the threads' node, interleaved over their nodes, or each blocked thread's part on its own node (demand-zero regions, kernel/mm/demand.h).
 *
 * One pmm block would be contiguous, so on one node: an all-CPU pass on two
 * sockets would measure that node's bandwidth plus the interconnect. Here
 * each configuration gets its array placed for its threads: every thread on
 * one node, the array on that node (`node N`); threads on several nodes, the
 * array interleaved page by page over their nodes that have memory
 * (`interleaved`, the default); or, for the blocked variants as a
 * configuration of their own, each page first touched by the thread whose
 * block holds its first byte (`thread-local`). Pages are 2 MiB where the
 * platform maps them so (the twin: 4 KiB where Linux gives no huge pages),
 * the page size every other buffer has.
 *
 * Every page is mapped before any timed pass (demand_prefault), then the
 * array is filled. Where the pages really are is read back after each
 * configuration (demand_page_nodes), never assumed: `pages_by_node`, and
 * `misplaced_pages` where a page is not where the placement asked (a node
 * without free memory hands its pages to another). A slot per kind of
 * placement keeps its array from one configuration to the next until the
 * placement changes, so a run that alternates compact and scatter does not
 * place the array over and over. A machine of one node keeps the one pmm
 * block (locality.c), and its records are as before. */
#include "locality.h"
#include "console.h"
#include "demand.h"
#include "fmt.h"
#include "lib.h"
#include "locality_loops.h"
#include "pmm.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define CHUNK_PAGES 512                      /* pages read back per demand_page_nodes call */
#define NOTE_LEN 160

/* ---- Types ---------------------------------------------------------------- */
/* One placed array: what it holds, for which threads, and how far. */
struct slot {
	struct demand_region *r;
	uint64_t nodes;                          /* the placement's node mask */
	struct cpuset set;                       /* thread-local: whose blocks */
	uint64_t bytes;                          /* mapped and filled: [0, bytes) */
};

/* ---- Private Variables ---------------------------------------------------- */
static struct slot slots[LOC_N_MEMS];
static int16_t page_node[CHUNK_PAGES];
static volatile uint8_t short_of_memory[QB_MAX_CPUS]; /* a thread's pre-fault ran out of memory */
static struct {
	enum loc_mem kind;
	uint64_t nodes;
	const struct slot *slot;
	uint64_t page_bytes;
	uint64_t by_node[QB_MAX_NODES];
	uint64_t pages, absent, misplaced;
	char note[NOTE_LEN];
} last;                                       /* the last configuration's placement, read back */

/* ---- Public Variables ----------------------------------------------------- */
const char *const loc_mem_names[LOC_N_MEMS] = { "node", "interleaved", "thread-local" };

/* ---- Private Functions ---------------------------------------------------- */
static int node_of_dense(const struct wl_ctx *ctx, uint32_t dense)
{
	for (uint32_t k = 0; k < ctx->topo->ncpu; k++)
		if (ctx->cpu_of_topo[k] == dense)
			return (int)ctx->topo->cpu[k].node;
	return 0;
}

static uint64_t threads_nodes(const struct wl_ctx *ctx, const struct cpuset *set)
{
	uint64_t m = 0;
	for (uint32_t i = 0; i < set->n; i++) {
		int n = node_of_dense(ctx, set->cpu[i]);
		if (n >= 0 && n < QB_MAX_NODES)
			m |= 1ull << n;
	}
	return m;
}

/* The thread whose block (loc_block over n ints, p threads) holds byte off. */
static uint32_t owner_of(uint64_t off, uint64_t n, uint32_t p)
{
	uint64_t i = off / sizeof(uint32_t);
	uint32_t lo = 0, hi = p - 1;
	while (lo < hi) { /* the last thread whose block starts at or before i */
		uint32_t mid = (lo + hi + 1) / 2;
		uint64_t s, e;
		loc_block(n, p, mid, &s, &e);
		if (s <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* First touch by its thread: each thread maps the pages whose first byte
 * lies in its block, on its own node. */
static void prefault_thread(const struct run_thread *t)
{
	const struct slot *s = t->arg;
	uint64_t n = s->bytes / sizeof(uint32_t), page = s->r->page, start, end;
	loc_block(n, t->n, t->index, &start, &end);
	uint64_t first = ALIGN_UP(start * sizeof(uint32_t), page), last_byte = end * sizeof(uint32_t);
	short_of_memory[t->index] = first < last_byte && !demand_prefault(s->r, first, last_byte - first);
}

static bool same_set(const struct cpuset *a, const struct cpuset *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->cpu[i] != b->cpu[i])
			return false;
	return true;
}

/* Whether slot s holds what a configuration asks for. */
static bool holds(const struct slot *s, enum loc_mem kind, uint64_t nodes, uint64_t bytes)
{
	if (!s->r || s->nodes != nodes)
		return false;
	if (kind == LOC_MEM_THREAD_LOCAL) /* the blocks move with the size and the threads */
		return s->bytes == bytes && same_set(&s->set, &loc_set);
	return s->bytes >= bytes;         /* a prefix of a larger array is the same array */
}

/* A region for kind over nodes in pages of `page` bytes. */
static struct demand_region *create(enum loc_mem kind, uint64_t nodes, uint64_t bytes, uint64_t page, const char **why)
{
	if (kind == LOC_MEM_INTERLEAVED)
		return demand_create_interleaved(bytes, page, DEMAND_ZERO_STOSB, nodes, why);
	return demand_create(bytes, page, kind == LOC_MEM_NODE ? DEMAND_FIXED_NODE : DEMAND_FIRST_TOUCH, DEMAND_ZERO_STOSB,
			     __builtin_ctzll(nodes), why);
}

/* Place slot s anew: a region of bytes, every page mapped as kind asks, filled. */
static bool place(struct slot *s, enum loc_mem kind, uint64_t nodes, uint64_t bytes, uint64_t bound_ms, const char **why)
{
	demand_destroy(s->r);
	memset(s, 0, sizeof(*s));
	struct demand_region *r = create(kind, nodes, bytes, DEMAND_PAGE_2M, why);
	if (!r) /* the twin where Linux has no 2 MiB pages: 4 KiB ones, said in page_bytes */
		r = create(kind, nodes, bytes, DEMAND_PAGE_4K, why);
	if (!r)
		return false;
	s->r = r;
	s->nodes = nodes;
	s->bytes = bytes;
	bool ok;
	if (kind == LOC_MEM_THREAD_LOCAL) {
		s->set = loc_set;
		ok = run_on(&loc_set, prefault_thread, s, 0, bound_ms, 0) == RUN_OK;
		for (uint32_t t = 0; ok && t < loc_set.n; t++)
			ok = !short_of_memory[t];
	} else {
		ok = demand_prefault(r, 0, bytes);
	}
	if (!ok) {
		*why = "out of memory placing the array (demand_prefault)";
		demand_destroy(r);
		memset(s, 0, sizeof(*s));
		return false;
	}
	loc_fill(demand_base(r), bytes / sizeof(uint32_t));
	return true;
}

/* The node page i of the array should be on, or -1 when any node of the
 * set will do (an interleave: counted by how evenly they share). */
static int wanted_node(const struct wl_ctx *ctx, const struct slot *s, enum loc_mem kind, uint64_t i, uint64_t n)
{
	if (kind == LOC_MEM_NODE)
		return __builtin_ctzll(s->nodes);
	if (kind == LOC_MEM_THREAD_LOCAL)
		return node_of_dense(ctx, s->set.cpu[owner_of(i * s->r->page, n, s->set.n)]);
	return -1;
}

/* ---- Public Functions ----------------------------------------------------- */
bool loc_mem_placed(const struct wl_ctx *ctx)
{
	return ctx->nodes > 1;
}

enum loc_mem loc_mem_of(const struct wl_ctx *ctx, const struct cpuset *set, bool thread_local, uint64_t *nodes)
{
	uint64_t m = threads_nodes(ctx, set);
	*nodes = m;
	if (demand_node_count(m) < 2)
		return LOC_MEM_NODE;
	if (thread_local)
		return LOC_MEM_THREAD_LOCAL;
	/* As Linux does, an interleave leaves out the nodes without memory. */
	uint64_t with = 0;
	for (int n = 0; n < QB_MAX_NODES; n++)
		if ((m >> n & 1) && pmm_free_bytes(n) > 0)
			with |= 1ull << n;
	*nodes = with ? with : m;
	return LOC_MEM_INTERLEAVED;
}

bool loc_mem_place(enum loc_mem kind, uint64_t nodes, uint64_t bytes, uint64_t bound_ms, double *placed_s,
		   const char **why)
{
	struct slot *s = &slots[kind];
	*placed_s = 0;
	last.slot = 0;
	if (!holds(s, kind, nodes, bytes)) {
		uint64_t t0 = tsc_read();
		if (!place(s, kind, nodes, bytes, bound_ms, why))
			return false;
		*placed_s = tsc_seconds(tsc_read() - t0);
	}
	loc_job.a = demand_base(s->r);
	last.kind = kind;
	last.nodes = nodes;
	last.slot = s;
	return true;
}

bool loc_mem_read_back(const struct wl_ctx *ctx, uint64_t bytes, const char **why)
{
	const struct slot *s = last.slot;
	if (!s)
		return false;
	uint64_t pages = (bytes + s->r->page - 1) / s->r->page, n = bytes / sizeof(uint32_t);
	uint64_t want_each = (pages + (uint64_t)demand_node_count(s->nodes) - 1) / (uint64_t)demand_node_count(s->nodes);
	memset(last.by_node, 0, sizeof(last.by_node));
	last.pages = pages;
	last.absent = last.misplaced = 0;
	last.page_bytes = s->r->page;
	last.note[0] = 0;
	for (uint64_t first = 0; first < pages; first += CHUNK_PAGES) {
		uint64_t k = MIN((uint64_t)CHUNK_PAGES, pages - first);
		demand_page_nodes(s->r, first, k, page_node);
		for (uint64_t i = 0; i < k; i++) {
			int got = page_node[i];
			if (got < 0 || got >= QB_MAX_NODES) {
				last.absent++;
				continue;
			}
			last.by_node[got]++;
			int want = wanted_node(ctx, s, last.kind, first + i, n);
			last.misplaced += want >= 0 ? got != want : !(s->nodes >> got & 1);
		}
	}
	/* An interleave's share: a node of the set past its even share holds pages another should. */
	for (int nd = 0; last.kind == LOC_MEM_INTERLEAVED && nd < QB_MAX_NODES; nd++)
		if ((s->nodes >> nd & 1) && last.by_node[nd] > want_each)
			last.misplaced += last.by_node[nd] - want_each;
	uint64_t left_out = last.kind == LOC_MEM_INTERLEAVED ? threads_nodes(ctx, &loc_set) & ~s->nodes : 0;
	if (last.misplaced)
		fmt_snprintf(last.note, sizeof(last.note),
			     "%llu of %llu pages are not where the placement asks: a node without free memory gave them to another",
			     (unsigned long long)last.misplaced, (unsigned long long)pages);
	else if (left_out) /* as Linux leaves them out of an interleave */
		fmt_snprintf(last.note, sizeof(last.note), "node %d of the threads has no memory: left out of the interleave%s",
			     __builtin_ctzll(left_out), demand_node_count(left_out) > 1 ? " (and others)" : "");
	if (last.absent) {
		*why = "a page of the array was not present after the pass: a timed pass may have faulted";
		return false;
	}
	if (ctx->has_fault_internals && demand_faults(s->r)) {
		*why = "a page fault landed in a timed pass";
		return false;
	}
	return true;
}

void loc_mem_params(struct rec *r)
{
	if (!last.slot)
		return;
	rec_str(r, "memory_placement", loc_mem_text(last.kind, last.nodes));
	if (last.slot->r->huge_source) /* who serves its 2 MiB pages; not proven page by page, as first-touch's are */
		rec_str(r, "huge_source", last.slot->r->huge_source);
}

void loc_mem_report(const struct wl_ctx *ctx, struct rec *r)
{
	if (!last.slot)
		return;
	rec_arr_begin(r, "memory_nodes");
	for (int n = 0; n < QB_MAX_NODES; n++)
		if (last.nodes >> n & 1)
			rec_u64(r, 0, (uint64_t)n);
	rec_arr_end(r);
	rec_u64(r, "page_bytes", last.page_bytes);
	rec_arr_begin(r, "pages_by_node");
	for (uint32_t n = 0; n < ctx->nodes && n < QB_MAX_NODES; n++)
		rec_u64(r, 0, last.by_node[n]);
	rec_arr_end(r);
	rec_u64(r, "misplaced_pages", last.misplaced);
	if (last.note[0])
		rec_str(r, "memory_note", last.note);
}

const char *loc_mem_text(enum loc_mem kind, uint64_t nodes)
{
	static char text[24];
	if (kind != LOC_MEM_NODE)
		return loc_mem_names[kind];
	fmt_snprintf(text, sizeof(text), "node %d", nodes ? __builtin_ctzll(nodes) : 0);
	return text;
}

void loc_mem_line(const struct wl_ctx *ctx, char *buf, size_t cap)
{
	size_t at = 0;
	buf[0] = 0;
	if (!last.slot)
		return;
	at += (size_t)fmt_snprintf(buf, cap, "  %s", loc_mem_text(last.kind, last.nodes));
	for (uint32_t n = 0; n < ctx->nodes && n < QB_MAX_NODES && at < cap; n++)
		if (last.by_node[n] || (last.nodes >> n & 1))
			at += (size_t)fmt_snprintf(buf + at, cap - at, " %u:%llu", n, (unsigned long long)last.by_node[n]);
}

void loc_mem_end(void)
{
	for (unsigned k = 0; k < LOC_N_MEMS; k++) {
		demand_destroy(slots[k].r);
		memset(&slots[k], 0, sizeof(slots[k]));
	}
	last.slot = 0;
}
