/* first_touch_measures.c - first-touch's measures per kind of result, their text, and the zero check of a fresh page; see first_touch_measures.h and the table in docs/records.md. */
#include "first_touch_measures.h"
#include "fmt.h"

/* ---- Constants ------------------------------------------------------------ */
#define FT_MEASURE_PAGE 4096.0   /* copies and sums count 4 KiB pages */

/* ---- Private Functions ---------------------------------------------------- */
static void set(struct ft_measures *fm, const char *name, const char *unit, double scale, bool inverse,
		enum limit_id limit, double cores)
{
	fm->m[fm->n++] = (struct report_measure){ name, unit, scale, inverse, limit, cores };
}

/* Decimals that show a figure's size without noise (fmt has no %g). */
static int decimals(double v)
{
	return v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : 3;
}

/* ---- Public Functions ----------------------------------------------------- */
void ft_measures_of(enum ft_measure kind, uint64_t page, uint64_t bytes, double cores, struct ft_measures *out)
{
	double pages = (double)bytes / FT_MEASURE_PAGE;
	*out = (struct ft_measures){ .n = 0, .rate_of = 0, .sample = "page" };
	switch (kind) {
	case FT_M_FAULT:
		set(out, "ns_per_page", "ns/page", report_ns_scale(1), false, LIMIT_FAULT_NS, 1);
		set(out, "gb_per_s", "GB/s", report_gbps_scale((double)page), true, LIMIT_ZERO_GBPS, 1);
		out->rate_of = "zeroing";
		break;
	case FT_M_TRAP:
		set(out, "ns_per_page", "ns/page", report_ns_scale(1), false, LIMIT_TRAP_NS, 1);
		break;
	case FT_M_ZERO:
		set(out, "ns_per_page", "ns/page", report_ns_scale(1), false, LIMIT_NONE, 1);
		set(out, "gb_per_s", "GB/s", report_gbps_scale((double)page), true, LIMIT_ZERO_GBPS, 1);
		out->rate_of = "zeroing";
		break;
	case FT_M_TLB:
		set(out, "ns_per_page", "ns/page", report_ns_scale(1), false, LIMIT_NONE, 1);
		break;
	case FT_M_ACCESS:
		set(out, "ns_per_access", "ns/access", report_ns_scale(FT_HOT_CHAIN), false, LIMIT_LOAD_NS, 1);
		out->sample = "access";
		break;
	case FT_M_COPY:
		set(out, "ns_per_page", "ns/page", report_ns_scale(pages), false, LIMIT_NONE, 1);
		set(out, "gb_per_s", "GB/s", report_gbps_scale((double)bytes), true, LIMIT_COPY_GBPS, 1);
		out->rate_of = "copying";
		out->sample = "iteration";
		break;
	case FT_M_SUM:
		set(out, "ns_per_page", "ns/page", report_ns_scale(pages), false, LIMIT_NONE, 1);
		set(out, "gb_per_s", "GB/s", report_gbps_scale((double)bytes), true, LIMIT_READ_GBPS, cores);
		out->rate_of = "reading";
		out->sample = "repetition";
		break;
	}
}

double ft_write_measures(struct rec *r, const struct ft_measures *fm, char *text, size_t cap)
{
	double first = report_measures(r, fm->m, fm->n);
	const struct stats *fig = report_figure();
	const char *noisy = report_figure_noisy() ? " (noisy)" : "";
	if (!fig) {
		fmt_snprintf(text, cap, "not measured");
		return first;
	}
	double v[FT_MEASURES_MAX];
	for (unsigned i = 0; i < fm->n; i++)
		v[i] = report_measure_value(&fm->m[i], fig->median);
	if (!fm->n || v[0] < 0) {
		fmt_snprintf(text, cap, "%.0f ticks per %s%s", fig->median, fm->sample, noisy);
		return first;
	}
	size_t len = (size_t)fmt_snprintf(text, cap, "%.*f %s", decimals(v[0]), v[0], fm->m[0].unit);
	for (unsigned i = 1; i < fm->n && len < cap; i++)
		if (v[i] >= 0)
			len += (size_t)fmt_snprintf(text + len, cap - len, ", %.*f %s%s%s", decimals(v[i]), v[i],
						    fm->m[i].unit, fm->rate_of ? " of " : "",
						    fm->rate_of ? fm->rate_of : "");
	if (len < cap)
		fmt_snprintf(text + len, cap - len, "%s", noisy);
	return first;
}

uint64_t ft_first_nonzero(const volatile uint64_t *p, uint64_t words, uint64_t skip)
{
	for (uint64_t k = 0; k < words; k++)
		if (k != skip && p[k])
			return k;
	return words;
}
