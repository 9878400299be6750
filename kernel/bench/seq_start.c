/* seq_start.c - the start of a run, the same on both platforms; see seq_start.h. */
#include "seq_start.h"
#include "flushcheck.h"
#include "run.h"
#include "sequence.h"
#include "topo_online.h"

unsigned seq_workload_names(const struct workload *const *table, unsigned n, const char **names, unsigned cap)
{
	unsigned k = n < cap ? n : cap;
	for (unsigned i = 0; i < k; i++)
		names[i] = table[i]->name;
	return k;
}

void seq_check_flushes(const struct options *o, const struct seq_platform *pf)
{
	struct flushcheck_cfg cfg = { pf->online, topo_online(), topo_online_cpu_of_topo(),
				      o->profile == OPT_PROFILE_QUICK, pf->has_wbinvd };
	run_flush_noop(o->flush_noop == OPT_ON);
	run_flush_partial(o->flush_partial);
	flushcheck_run(&cfg);
}

void seq_run_all(const struct options *o, const struct seq_platform *pf, const struct workload *const *table,
		 unsigned n)
{
	static struct seq_run seq;
	seq_from_options(&seq, o);
	seq.table = table;
	seq.n_table = n;
	seq.ctx.online = pf->online;
	seq.ctx.topo = topo_online();
	seq.ctx.cpu_of_topo = topo_online_cpu_of_topo();
	seq.ctx.bsp_cpuid = pf->bsp_cpuid;
	seq.ctx.nodes = pf->nodes ? pf->nodes : 1;
	seq.ctx.platform = pf->name;
	seq.ctx.has_wbinvd = pf->has_wbinvd;
	seq.ctx.has_fault_internals = pf->has_fault_internals;
	seq.start_tsc = pf->start_tsc;
	seq.serial_bytes_per_s = pf->serial_bytes_per_s;
	seq.after_workload = pf->after_workload;
	seq_go(&seq);
}
