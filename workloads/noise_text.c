/* noise_text.c - the noise workload's text: a line per CPU, the summary line (screen and serial) and the run's last line, the pooled ppm first, rtla's thresholds beside it, and under a hypervisor whose noise it is; see noise_run.h. */
#include "noise_run.h"
#include "console.h"
#include "disturb.h"
#include "fmt.h"
#include "lib.h"
#include "report_machine.h"

/* ---- Constants ------------------------------------------------------------ */
#define TEXT_CPUS 8                    /* CPUs with a text line of their own, at most */
#define NUM_LEN 32
#define WHOSE_LEN 96
#define THOUSAND 1000
#define HV_EMULATOR "QEMU TCG"         /* cpuid_hv_name's emulator: the vCPUs are host threads */

/* ---- Private Variables ---------------------------------------------------- */
/* How the line names each cause (gaps_cause_name is the records' key). */
static const char *const cause_words[GAPS_CAUSES] = {
	[GAPS_SMI] = "SMIs",
	[GAPS_INTERRUPT] = "interrupts",
	[GAPS_SWITCH] = "context switches",
	[GAPS_MIGRATION] = "migrations",
	[GAPS_FAULT] = "faults",
};

/* ---- Private Functions ---------------------------------------------------- */
/* "180 ns", "2.1 us", "3.4 ms", "1.2 s". */
static void dur_text(char *b, size_t cap, double ns)
{
	if (ns < THOUSAND - 0.5)
		fmt_snprintf(b, cap, "%.0f ns", ns);
	else if (ns < 1e6 - 50)
		fmt_snprintf(b, cap, "%.1f us", ns / 1e3);
	else if (ns < 1e9 - 5e4)
		fmt_snprintf(b, cap, "%.1f ms", ns / 1e6);
	else
		fmt_snprintf(b, cap, "%.2f s", ns / 1e9);
}

/* "2,412": a whole number with its thousands set apart. */
static void count_text(char *b, size_t cap, uint64_t v)
{
	char digits[NUM_LEN];
	int n = fmt_snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int i = 0; i < n && o + 1 < cap; i++) {
		if (i && (n - i) % 3 == 0 && o + 2 < cap)
			b[o++] = ',';
		b[o++] = digits[i];
	}
	b[o] = 0;
}

/* ppm with about three significant digits: "0.412", "12.3", "1,800"; "-"
 * for none (negative: nothing observed). */
static void ppm_text(char *b, size_t cap, double ppm)
{
	if (ppm < 0)
		fmt_snprintf(b, cap, "-");
	else if (ppm >= THOUSAND)
		count_text(b, cap, (uint64_t)(ppm + 0.5));
	else
		fmt_snprintf(b, cap, "%.*f", ppm >= 100 ? 0 : ppm >= 10 ? 1 : ppm >= 1 ? 2 : 3, ppm);
}

/* Whose noise the loop saw, or NULL on bare metal: under QEMU's TCG the
 * vCPUs are host threads and the TSC the host's, so the gaps are the
 * host's and the emulator's; under a hypervisor the host takes its share
 * too. brief: the summary line's few words. */
static const char *whose(const struct wl_ctx *ctx, char *b, size_t cap, bool brief)
{
	char sig[CPUID_HV_SIG_LEN + 1];
	const char *hv = ctx->bsp_cpuid ? report_hypervisor(ctx->bsp_cpuid, sig) : 0;
	if (!hv)
		return 0;
	if (!strcmp(hv, HV_EMULATOR))
		fmt_snprintf(b, cap, "%s", brief ? "the emulator's" : "the host's and the emulator's, not a machine's");
	else
		fmt_snprintf(b, cap, brief ? "under %s" : "under %s, the host's too", hv);
	return b;
}

/* "; >= 1 us: 3 gaps, 0.12 ppm; >= 5 us: 0 gaps, 0.000 ppm" (rtla's thresholds, pooled; brief: "; >=1 us 3
 * (0.12 ppm), >=5 us 0 (0.000 ppm)"), or why there are none. */
static size_t over_text(char *b, size_t cap, const struct gaps_cfg *cfg, const struct gaps_sum *s, bool brief)
{
	if (!cfg->over[0])
		return (size_t)fmt_snprintf(b, cap, "; >= 1 us, >= 5 us: unknown (no TSC frequency)");
	size_t len = 0;
	for (uint32_t k = 0; k < GAPS_OVER && len < cap; k++) {
		char c[NUM_LEN], p[NUM_LEN];
		unsigned long long us = (unsigned long long)(gaps_over_ns[k] / THOUSAND);
		count_text(c, sizeof(c), s->over_count[k]);
		ppm_text(p, sizeof(p), gaps_sum_over_ppm(s, k));
		if (brief)
			len += (size_t)fmt_snprintf(b + len, cap - len, "%s>=%llu us %s (%s ppm)", k ? ", " : "; ", us, c, p);
		else
			len += (size_t)fmt_snprintf(b + len, cap - len, "; >= %llu us: %s gap%s, %s ppm", us, c,
						    s->over_count[k] == 1 ? "" : "s", p);
	}
	return len;
}

/* "noise: 0.412 ppm pooled, longest gap 2.1 us; >= 1 us: 3 gaps, 0.2 ppm; >= 5 us: 0 gaps, 0.000 ppm; gaps of
 * 1.0 us or more: 3 SMIs, 1 unexplained"; "noise (the host's and the emulator's, not a machine's): ...". */
static void final_line(const struct wl_ctx *ctx, const struct noise_run *nr, const struct gaps_sum *s)
{
	char line[NOISE_LINE_LEN], p[NUM_LEN], d[NUM_LEN], a[NUM_LEN], c[NUM_LEN], w[WHOSE_LEN];
	uint32_t mask = noise_masks(nr, true), partly = noise_masks(nr, false) & ~mask;
	const char *who = whose(ctx, w, sizeof(w), false);
	double ppm = gaps_sum_ppm(s);
	ppm_text(p, sizeof(p), ppm);
	dur_text(d, sizeof(d), noise_ns(s->longest));
	dur_text(a, sizeof(a), noise_ns(nr->cfg.attr_threshold));
	size_t len = (size_t)fmt_snprintf(line, sizeof(line), "noise%s%s%s: %s ppm %s, longest gap %s",
					  who ? " (" : "", who ? who : "", who ? ")" : "", p,
					  ppm < 0 ? "(not observed)" : "pooled", s->count ? d : "none");
	if (len < sizeof(line))
		len += over_text(line + len, sizeof(line) - len, &nr->cfg, s, false);
	if (len < sizeof(line))
		len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, "; gaps of %s or more:", a);
	for (uint32_t k = 0; k < GAPS_CAUSES && len < sizeof(line); k++)
		if ((mask >> k) & 1) {
			count_text(c, sizeof(c), s->cause[k]);
			len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, " %s %s,", c, cause_words[k]);
		} else if ((partly >> k) & 1) {
			len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, " %s not counted on every CPU,",
						    cause_words[k]);
		}
	count_text(c, sizeof(c), s->unexplained);
	if (len < sizeof(line))
		len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, " %s unexplained%s", c,
					    (mask >> GAPS_SMI) & 1 ? "" : " (SMIs not counted here)");
	uint64_t irqs;
	const char *how;
	if (!((mask >> GAPS_INTERRUPT) & 1) && disturb_config_interrupts(&irqs, &how) && len < sizeof(line)) {
		count_text(c, sizeof(c), irqs);
		fmt_snprintf(line + len, sizeof(line) - len, "; %s interrupts on its CPUs (/proc/interrupts)", c);
	}
	wl_final_line(line);
}

/* ---- Public Functions ----------------------------------------------------- */
void noise_cpu_line(const struct noise_run *nr, uint32_t t)
{
	if (t >= TEXT_CPUS)
		return;
	const struct gaps_cpu *g = &nr->cpu[t];
	char p[NUM_LEN], d[NUM_LEN], o[NUM_LEN];
	ppm_text(p, sizeof(p), gaps_ppm(g));
	dur_text(d, sizeof(d), noise_ns(g->longest));
	ppm_text(o, sizeof(o), nr->cfg.over[0] ? gaps_over_ppm(g, 0) : -1);
	kprintf("  cpu %u: %llu gaps, %s ppm%s, longest %s; >= 1 us: %llu gaps, %s ppm; loop minimum %llu ticks, "
		"bookkeeping %.0f ns, %llu stalled\n", nr->set->cpu[t], (unsigned long long)g->count, p,
		gaps_observed(g) ? "" : " (not observed)", g->count ? d : "none", (unsigned long long)g->over_count[0], o,
		(unsigned long long)g->base, noise_ns(g->book), (unsigned long long)g->stalls);
}

void noise_lines(const struct wl_ctx *ctx, const struct noise_run *nr, const struct gaps_sum *s)
{
	char p[NUM_LEN], d[NUM_LEN], w[WHOSE_LEN], o[NOISE_LINE_LEN];
	const char *who = whose(ctx, w, sizeof(w), true);
	ppm_text(p, sizeof(p), gaps_sum_ppm(s));
	dur_text(d, sizeof(d), noise_ns(s->longest));
	over_text(o, sizeof(o), &nr->cfg, s, true);
	console_summary("noise      %u CPUs%s%s%s: %s ppm pooled, longest gap %s, %llu gaps%s", nr->set->n,
			who ? " (" : "", who ? who : "", who ? ")" : "", p, s->count ? d : "none",
			(unsigned long long)s->count, o);
	final_line(ctx, nr, s);
}

void noise_not_measured(const char *why)
{
	char line[NOISE_LINE_LEN];
	fmt_snprintf(line, sizeof(line), "noise: not measured (%s)", why);
	wl_final_line(line);
}
