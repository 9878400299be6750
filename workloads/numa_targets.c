/* numa_targets.c - first-touch's NUMA matrix: its targets named as what they are, and its records with the firmware's claims (SLIT, HMAT) beside what was measured; see numa_targets.h. */
#include "numa_targets.h"
#include "console.h"
#include "flushcheck.h"
#include "fmt.h"
#include "lib.h"
#include "numa_fw.h"
#include "pmm.h"
#include "spmem.h"
#include "tsc.h"

/* ---- Constants ------------------------------------------------------------ */
#define INLINE_CELLS 256               /* up to this many cells a matrix's rows are in its own record */
#define NS_PER_S 1e9
#define SMALL_PAGE 4096ull
#define TEXT_LEN 160

/* ---- Types ---------------------------------------------------------------- */
/* What a record's per-pair arrays hold. */
enum field { F_TICKS_LAT, F_NS, F_CLAIM_NS, F_RATIO, F_DISTANCE, F_TICKS_BW, F_GBS, F_CLAIM_MBS };

struct field_def {
	const char *name;
	enum field f;
	int decimals;
};

/* ---- Private Variables ---------------------------------------------------- */
static const struct field_def lat_fields[] = {
	{ "values", F_TICKS_LAT, 3 }, { "ns", F_NS, 1 }, { "claimed_ns", F_CLAIM_NS, 1 },
	{ "ratio", F_RATIO, 3 }, { "distance", F_DISTANCE, 0 },
};
static const struct field_def bw_fields[] = {
	{ "values", F_TICKS_BW, 3 }, { "gb_per_s", F_GBS, 3 }, { "claimed_mb_per_s", F_CLAIM_MBS, 0 },
};

/* ---- Private Functions ---------------------------------------------------- */
/* One cell of a field; negative: null. */
static double cell(const struct numa_matrix *m, enum field f, uint32_t i, uint32_t j)
{
	double hz = (double)tsc_hz(), lat = m->lat[i][j], bw = m->bw[i][j];
	uint32_t node = m->target[j].node;
	switch (f) {
	case F_TICKS_LAT: return lat;
	case F_NS: return lat >= 0 && hz > 0 ? lat * NS_PER_S / hz : -1;
	case F_CLAIM_NS: return numa_fw_latency_ns(i, node, 0);
	case F_RATIO: {
		double ns = cell(m, F_NS, i, j), claim = cell(m, F_CLAIM_NS, i, j);
		return ns >= 0 && claim > 0 ? ns / claim : -1;
	}
	case F_DISTANCE: return numa_fw_distance(i, node);
	case F_TICKS_BW: return bw;
	case F_GBS: return bw >= 0 && hz > 0 ? bw * hz / NS_PER_S : -1;
	case F_CLAIM_MBS: return numa_fw_bandwidth_mbs(i, node, 0);
	}
	return -1;
}

static void put_row(struct rec *r, const char *key, const struct numa_matrix *m, const struct field_def *d, uint32_t i)
{
	rec_arr_begin(r, key);
	for (uint32_t j = 0; j < m->n_targets; j++) {
		double v = cell(m, d->f, i, j);
		if (v < 0)
			rec_null(r, 0);
		else
			rec_f64(r, 0, v, d->decimals);
	}
	rec_arr_end(r);
}

static void put_targets(struct rec *r, const struct numa_matrix *m)
{
	rec_arr_begin(r, "targets");
	for (uint32_t j = 0; j < m->n_targets; j++) {
		const struct numa_target *t = &m->target[j];
		struct numa_fw_node fw = numa_fw_node(t->node);
		rec_obj_begin(r, 0);
		rec_u64(r, "node", t->node);
		rec_str(r, "name", t->name);
		rec_str(r, "memory", t->sp ? "specific-purpose" : "general");
		if (fw.known) {
			rec_u64(r, "domain", fw.domain);
			rec_u64(r, "cpus", fw.cpus);
			rec_u64(r, "firmware_bytes", fw.mem_bytes);
		} else {
			rec_null(r, "domain");
		}
		if (fw.flags_known) {
			rec_bool(r, "hot_pluggable", fw.hot_pluggable);
			rec_bool(r, "non_volatile", fw.non_volatile);
		} else {
			rec_null(r, "hot_pluggable");
			rec_null(r, "non_volatile");
		}
		rec_u64(r, "free_bytes", t->free_bytes);
		bool measured = false;
		for (uint32_t i = 0; i < m->rows; i++)
			measured |= m->lat[i][j] >= 0;
		if (!measured)
			rec_str(r, "why", t->why ? t->why : "no CPU of the run measured it");
		rec_obj_end(r);
	}
	rec_arr_end(r);
}

/* The first claim kind any pair has ("read-latency", ...), or NULL. */
static const char *claim_kind(const struct numa_matrix *m, bool latency)
{
	const char *kind = 0;
	for (uint32_t i = 0; i < m->rows && !kind; i++)
		for (uint32_t j = 0; j < m->n_targets && !kind; j++)
			if (latency)
				numa_fw_latency_ns(i, m->target[j].node, &kind);
			else
				numa_fw_bandwidth_mbs(i, m->target[j].node, &kind);
	return kind;
}

/* Pairs measured with a latency claim, and those of them NUMA_OFF_FACTOR or more apart. */
static uint32_t claims_off(const struct numa_matrix *m, uint32_t *claimed)
{
	uint32_t off = 0;
	*claimed = 0;
	for (uint32_t i = 0; i < m->rows; i++) {
		for (uint32_t j = 0; j < m->n_targets; j++) {
			double ratio = cell(m, F_RATIO, i, j);
			if (ratio < 0)
				continue;
			(*claimed)++;
			off += ratio > NUMA_OFF_FACTOR || ratio < 1.0 / NUMA_OFF_FACTOR;
		}
	}
	return off;
}

static void emit(const char *variant, const char *unit, const struct numa_matrix *m, const struct field_def *f,
		 size_t nf, bool latency)
{
	bool inline_rows = m->rows * m->n_targets <= INLINE_CELLS;
	const char *kind = claim_kind(m, latency), *note = numa_fw_claims_note(), *source = numa_fw_source();
	struct rec *r = console_rec_open("matrix");
	rec_str(r, "workload", "first-touch");
	rec_str(r, "variant", variant);
	rec_str(r, "unit", unit);
	rec_obj_begin(r, "params"); /* each cell's buffer CLFLUSHed, then the run's flush on its CPU */
	flushcheck_params(r, true, 0);
	rec_obj_end(r);
	rec_arr_begin(r, "nodes");
	for (uint32_t i = 0; i < m->rows; i++)
		rec_u64(r, 0, i);
	rec_arr_end(r);
	rec_arr_begin(r, "row_cpus");
	for (uint32_t i = 0; i < m->rows; i++)
		if (m->cpu[i] < 0)
			rec_null(r, 0);
		else
			rec_u64(r, 0, (uint64_t)m->cpu[i]);
	rec_arr_end(r);
	put_targets(r, m);
	if (kind)
		rec_str(r, "claim", kind);
	else
		rec_null(r, "claim");
	if (source)
		rec_str(r, "claims_source", source);
	else
		rec_null(r, "claims_source");
	if (note)
		rec_str(r, "claims_note", note);
	if (latency) {
		uint32_t claimed, off = claims_off(m, &claimed);
		rec_u64(r, "claims_compared", claimed);
		rec_u64(r, "claims_off", off);
		rec_f64(r, "claims_off_factor", NUMA_OFF_FACTOR, 1);
	}
	if (inline_rows) {
		for (size_t k = 0; k < nf; k++) {
			rec_arr_begin(r, f[k].name);
			for (uint32_t i = 0; i < m->rows; i++)
				put_row(r, 0, m, &f[k], i);
			rec_arr_end(r);
		}
	} else {
		rec_u64(r, "rows", m->rows); /* the rows follow, one matrix_row record each */
	}
	rec_str(r, "check", "ok");
	console_rec_emit(r);
	for (uint32_t i = 0; !inline_rows && i < m->rows; i++) {
		r = console_rec_open("matrix_row");
		rec_str(r, "workload", "first-touch");
		rec_str(r, "variant", variant);
		rec_u64(r, "row", i);
		for (size_t k = 0; k < nf; k++)
			put_row(r, f[k].name, m, &f[k], i);
		console_rec_emit(r);
	}
}

/* For people: each measured pair's latency beside its claim. */
static void text(const struct numa_matrix *m)
{
	uint32_t claimed, off = claims_off(m, &claimed);
	const char *kind = claim_kind(m, true);
	if (!claimed) {
		const char *note = numa_fw_claims_note();
		kprintf("  firmware's latency claims: none to compare (%s)\n", note ? note : "none for the pairs measured");
		return;
	}
	kprintf("  measured latency against the firmware's claim (HMAT %s), in ns:\n", kind ? kind : "latency");
	for (uint32_t i = 0; i < m->rows; i++) {
		for (uint32_t j = 0; j < m->n_targets; j++) {
			double ratio = cell(m, F_RATIO, i, j);
			if (ratio < 0)
				continue;
			bool far = ratio > NUMA_OFF_FACTOR || ratio < 1.0 / NUMA_OFF_FACTOR;
			kprintf("  node %u -> %-32s %9.1f measured %9.1f claimed  %6.2fx%s\n", i, m->target[j].name,
				cell(m, F_NS, i, j), cell(m, F_CLAIM_NS, i, j), ratio,
				far ? "  <- more than 2x off the claim" : "");
		}
	}
	if (off)
		kprintf("  %u of %u pairs differ from the firmware's latency claim by more than %.0fx: a finding about "
			"this machine or its firmware, not an error of the run\n", off, claimed, NUMA_OFF_FACTOR);
	else
		kprintf("  all %u pairs within %.0fx of the firmware's latency claims\n", claimed, NUMA_OFF_FACTOR);
}

/* The target's name: "node 2 (no CPUs, non-volatile)", "node 3 specific-purpose". */
static void name_target(struct numa_target *t, int32_t row_cpu)
{
	struct numa_fw_node fw = numa_fw_node(t->node);
	char what[NUMA_NAME_LEN] = "";
	size_t n = 0;
	bool no_cpus = fw.known ? fw.cpus == 0 : row_cpu < 0;
	const char *parts[] = { no_cpus ? "no CPUs" : 0, fw.known && !fw.mem_bytes ? "no memory" : 0,
				fw.hot_pluggable ? "hot-pluggable" : 0, fw.non_volatile ? "non-volatile" : 0 };
	for (size_t k = 0; k < ARRAY_SIZE(parts); k++)
		if (parts[k])
			n += (size_t)fmt_snprintf(what + n, sizeof(what) - MIN(n, sizeof(what)), "%s%s", n ? ", " : "",
						  parts[k]);
	if (t->sp)
		fmt_snprintf(t->name, sizeof(t->name), "node %u specific-purpose", t->node);
	else if (what[0])
		fmt_snprintf(t->name, sizeof(t->name), "node %u (%s)", t->node, what);
	else
		fmt_snprintf(t->name, sizeof(t->name), "node %u", t->node);
}

/* ---- Public Functions ----------------------------------------------------- */
void numa_targets(const struct wl_ctx *ctx, struct numa_matrix *m)
{
	m->rows = MIN(ctx->nodes, (uint32_t)QB_MAX_NODES);
	m->n_targets = 0;
	for (uint32_t i = 0; i < m->rows; i++) {
		m->cpu[i] = -1;
		for (uint32_t k = 0; k < ctx->topo->ncpu && m->cpu[i] < 0; k++)
			if (ctx->topo->cpu[k].node == i)
				m->cpu[i] = (int32_t)ctx->cpu_of_topo[k];
	}
	/* Every node is a target, wherever its memory lies: a node whose memory
	 * the allocator does not hold gets a null column that says why. */
	for (uint32_t j = 0; j < m->rows; j++) {
		struct numa_target *t = &m->target[m->n_targets++];
		*t = (struct numa_target){ .node = j, .free_bytes = pmm_free_bytes((int)j) };
		name_target(t, m->cpu[j]);
	}
	for (uint32_t j = 0; ctx->sp_memory && j < m->rows && m->n_targets < NUMA_MAX_TARGETS; j++) {
		if (!spmem_bytes((int)j))
			continue;
		struct numa_target *t = &m->target[m->n_targets++];
		*t = (struct numa_target){ .node = j, .sp = true, .free_bytes = spmem_bytes((int)j) };
		name_target(t, m->cpu[j]);
	}
	for (uint32_t i = 0; i < m->rows; i++)
		for (uint32_t j = 0; j < m->n_targets; j++)
			m->lat[i][j] = m->bw[i][j] = -1;
}

uint64_t numa_target_alloc(const struct numa_target *t, uint64_t bytes, uint64_t align, const char **why)
{
	if (t->sp)
		return spmem_borrow((int)t->node, bytes, align, why);
	uint64_t a = pmm_alloc(bytes / SMALL_PAGE, (int)t->node, align, 0, PMM_WORKLOAD);
	if (!a && align > SMALL_PAGE)
		a = pmm_alloc(bytes / SMALL_PAGE, (int)t->node, SMALL_PAGE, 0, PMM_WORKLOAD);
	if (!a)
		*why = !t->free_bytes ? (numa_fw_node(t->node).mem_bytes
					     ? "none of its memory is free to the allocator (not mapped, or in use)"
					     : "it has no memory")
				      : "no free block of the buffer's size on it";
	return a;
}

void numa_target_free(const struct numa_target *t, uint64_t addr, uint64_t bytes)
{
	if (t->sp)
		spmem_return(addr);
	else
		pmm_free(addr, bytes / SMALL_PAGE, PMM_WORKLOAD);
}

void numa_matrix_report(const struct wl_ctx *ctx, const struct numa_matrix *m)
{
	uint64_t sp = spmem_bytes(PMM_ANY_NODE);
	if (sp && !ctx->sp_memory)
		kprintf("  %llu MiB of specific-purpose memory not measured: sp_memory=off (the firmware reserved it "
			"for a purpose)\n", (unsigned long long)(sp >> 20));
	emit("numa-latency", "ticks_per_load", m, lat_fields, ARRAY_SIZE(lat_fields), true);
	emit("numa-bandwidth", "bytes_per_tick", m, bw_fields, ARRAY_SIZE(bw_fields), false);
	text(m);
}
