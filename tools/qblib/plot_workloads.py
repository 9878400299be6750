"""plot_workloads.py - the figures of locality, first-touch, flush and every other workload."""
import os
import textwrap

from . import figure as qbfigure
from . import match
from .plot import (CHECK_COLOR, OWN_NOTE, WIDE, Skip, apply_scale, bar_panel, bars, choose_scale, errbar, errs, finish, measured,
                   noisy_legend_handle, noisy_style, placement, plt, spread_is_wide)
from .table import size_cell

LOCALITY_ORDER = ["interleaved", "blocked-strided", "blocked"]
LOCALITY_STARTS = ["resident", "cold"]  # at each size: from the cache, then from memory
PAGE_VARIANTS = ["page-fault-entry", "zero-rep-stosb", "zero-nt", "zero-clzero", "demand-zero-4k", "demand-zero-2m",
                 "tlb-miss", "tlb-miss-cached", "hot-access"]
OWN_PLOTTERS = ("counter", "locality", "first-touch", "flush", "noise")  # workloads with their own figures


# ---- locality ----------------------------------------------------------------------
def locality(run, outdir):
    """GB/s of each summing order at each size (its role on this machine, or its bytes) and start (cold
    or resident), at the most threads, compact: a panel per accumulator."""
    res = measured(run.results("locality"))
    if not res:
        raise Skip("no locality results")
    nmax = max(r.get("threads") or 0 for r in res)
    res = [r for r in res if r.get("threads") == nmax]
    places = list(dict.fromkeys(placement(r) for r in res))
    pl = "compact" if "compact" in places else places[0]
    res = [r for r in res if placement(r) == pl]
    name = "gb_per_s" if all(qbfigure.of(r, run, "gb_per_s") is not None for r in res) else None
    figs = {id(r): qbfigure.of(r, run, name) for r in res}
    accs = list(dict.fromkeys(str(r["params"].get("accumulator", "-")) for r in res))

    def where(r):
        return "%s\n%s" % (size_cell(r, run).replace(", ", "\n"), match.start(r) or "-")
    sizes = sorted(dict.fromkeys(where(r) for r in res),
                   key=lambda s: (next((r["params"].get("bytes") or 0 for r in res if where(r) == s), 0),
                                  LOCALITY_STARTS.index(s.rsplit("\n", 1)[1]) if s.rsplit("\n", 1)[1]
                                  in LOCALITY_STARTS else 9))
    variants = sorted(dict.fromkeys(r.get("variant") for r in res),
                      key=lambda v: (LOCALITY_ORDER.index(v) if v in LOCALITY_ORDER else 9, v))
    fig, axes = plt.subplots(1, len(accs), figsize=WIDE, sharey=True, squeeze=False)
    width = 0.8 / max(1, len(variants))
    drawn = []
    for ax, acc in zip(axes[0], accs):
        for k, var in enumerate(variants):
            for i, sz in enumerate(sizes):
                hit = [r for r in res if r.get("variant") == var and str(r["params"].get("accumulator", "-")) == acc
                       and where(r) == sz]
                f = figs[id(hit[0])] if hit else None
                if f is None or f.value is None:
                    continue
                x = i + (k - (len(variants) - 1) / 2) * width
                ax.bar([x], [f.value], width=width, yerr=errbar(f), capsize=2, ecolor="0.2",
                       label=var if i == 0 or not any(d[1] == var and d[3] is ax for d in drawn) else None,
                       **noisy_style(f, "C%d" % k))
                drawn.append((x, var, f, ax))
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels(sizes, fontsize=7)
        ax.set_xlabel("array size (its role on this machine, else bytes) and start", fontsize=8)
        ax.set_title("accumulator: %s" % acc, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    first = axes[0][0]
    decided = choose_scale([d[2].value for d in drawn])
    tops = [d[2].value + errs(d[2])[1] for d in drawn]
    for ax in axes[0]:
        mine = [d for d in drawn if d[3] is ax]
        apply_scale(ax, [d[2].value for d in mine], [d[0] for d in mine], tops=tops, decided=decided)
    unit = next((f.measure.label for f in figs.values() if f is not None and f.measure), "median")
    first.set_ylabel(unit)
    handles, labels = first.get_legend_handles_labels()
    if any(d[2].noisy for d in drawn):
        handles.append(noisy_legend_handle())
    first.legend(handles=handles, fontsize=7)
    fig.suptitle("locality: interleaved against blocked summing, %d threads, %s" % (nmax, pl))
    return [finish(fig, run, os.path.join(outdir, "locality.png"))]


# ---- first-touch -------------------------------------------------------------------
def first_touch_iterations(run, outdir):
    """Each timed iteration of the copies, in the results' measure (ns per page): the first pays for
    the page faults. Below, the faults each iteration took."""
    res = [r for r in run.results("first-touch") if isinstance(r.get("iteration_ticks"), list)]
    if not res:
        raise Skip("no first-touch results with iteration_ticks")
    faults = any(isinstance(r.get("iteration_faults"), list) for r in res)
    fig, axes = plt.subplots(2 if faults else 1, 1, figsize=WIDE, sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1]} if faults else None)
    n = max(len(r["iteration_ticks"]) for r in res)
    width = 0.8 / len(res)
    allv, label = [], None
    for k, r in enumerate(res):
        off = (k - (len(res) - 1) / 2) * width
        f = qbfigure.of(r, run)
        m = f.measure
        label = label or (m.label if m else "ticks")
        vals = [(m.of(t) if m and t is not None else t) or 0 for t in r["iteration_ticks"]]
        allv += vals
        axes[0][0].bar([i + 1 + off for i in range(len(vals))], vals, width=width, label=r.get("variant"),
                       **noisy_style(f, "C%d" % k))
        if faults and isinstance(r.get("iteration_faults"), list):
            fl = r["iteration_faults"]
            axes[1][0].bar([i + 1 + off for i in range(len(fl))], [x or 0 for x in fl], width=width, color="C%d" % k)
    top = axes[0][0]
    if spread_is_wide(allv, 100):
        top.set_yscale("log")
    else:
        top.set_ylim(0, max(allv + [1]) * 1.1)
    top.set_ylabel("%s, per iteration" % label, fontsize=9)
    handles, _ = top.get_legend_handles_labels()
    if any(qbfigure.of(r, run).noisy for r in res):
        handles.append(noisy_legend_handle())
    top.legend(handles=handles, fontsize=8)
    top.grid(True, axis="y", alpha=0.3)
    top.set_title("first-touch: each timed iteration (the first pays for the page faults)")
    bottom = axes[-1][0]
    if faults:
        bottom.set_ylabel("page faults")
        bottom.grid(True, axis="y", alpha=0.3)
    bottom.set_xticks(range(1, n + 1))
    bottom.set_xlabel("iteration")
    return [finish(fig, run, os.path.join(outdir, "first-touch-iterations.png"), notes=(OWN_NOTE,))]


def is_page_step(r):
    return r.get("variant") in PAGE_VARIANTS or "page_bytes" in r


def is_2m(r):
    return "2m" in str(r.get("variant")) or (r.get("params") or {}).get("page_bytes") == 2 << 20 \
        or r.get("page_bytes") == 2 << 20


def first_touch_pages(run, outdir):
    """The cost of each step of a page's first touch, per page: a panel for 4 KiB pages and one for
    2 MiB pages, each on its own scale (they differ by orders of magnitude)."""
    res = [r for r in measured(run.results("first-touch")) if is_page_step(r)]
    if not res:
        raise Skip("no first-touch per-page results")
    res.sort(key=lambda r: PAGE_VARIANTS.index(r["variant"]) if r.get("variant") in PAGE_VARIANTS else 99)
    groups = [(name, [r for r in res if is_2m(r) == big]) for name, big in (("4 KiB pages", False),
                                                                             ("2 MiB pages", True))]
    groups = [(n, g) for n, g in groups if g]
    fig, axes = plt.subplots(len(groups), 1, figsize=(WIDE[0], WIDE[1] + 0.6 * (len(groups) - 1)), squeeze=False,
                             gridspec_kw={"height_ratios": [max(1, len(g)) for _, g in groups]})
    for ax, (name, g) in zip(axes[:, 0], groups):
        bar_panel(ax, run, g)
        ax.set_title(name, fontsize=10)
    fig.suptitle("first-touch: cost of each step of a page's first touch (per page)", fontsize=12, y=0.99)
    return [finish(fig, run, os.path.join(outdir, "first-touch-pages.png"), top=0.95)]


def first_touch_other(run, outdir):
    """The rest, e.g. the NUMA placement runs: their figures on their own scale."""
    res = [r for r in measured(run.results("first-touch"))
           if not isinstance(r.get("iteration_ticks"), list) and not is_page_step(r)]
    if not res:
        raise Skip("no other first-touch results")
    return [bars(run, res, os.path.join(outdir, "first-touch-other.png"),
                 "first-touch: %s" % ", ".join(dict.fromkeys(r.get("variant") for r in res)))]


# ---- flush -----------------------------------------------------------------------
def flush(run, outdir):
    """Each method: the timed pass after it (ns per access, its quartiles), and how cold that pass
    was (cold %: 0 as warm, 100 as after the cold reference)."""
    res = [r for r in run.results("flush") if r.get("check") != "skipped"]
    if not res:
        raise Skip("no flush results")
    fig, (left, right) = plt.subplots(1, 2, figsize=WIDE, sharey=True)
    ys = list(range(len(res)))[::-1]
    bar_panel(left, run, res)
    left.set_title("the pass after the flush", fontsize=10)
    for y, r in zip(ys, res):
        pct = r.get("cold_pct")
        if pct is None:
            note = textwrap.fill(r.get("cold_pct_note") or "not measured", 42, max_lines=3, placeholder=" ...")
            right.text(1, y, note, va="center", fontsize=7, color="0.4")
            continue
        right.barh([y], [pct], color=CHECK_COLOR.get(r.get("check"), "C3"), height=0.6)
        right.text(max(pct, 0) + 1, y, "%.0f%%" % pct, va="center", fontsize=8)
    right.axvline(100, color="0.5", linestyle="--", linewidth=0.8)
    right.set_xlim(min(0, min((r.get("cold_pct") or 0) for r in res) - 5),
                   max(130, max((r.get("cold_pct") or 0) for r in res) + 20))
    right.set_xlabel("cold % of that pass (100: as after the cold reference)", fontsize=9)
    right.grid(True, axis="x", alpha=0.3)
    fig.suptitle("flush: the pass after each method, and how cold it was", fontsize=12, y=0.985)
    return [finish(fig, run, os.path.join(outdir, "flush.png"), top=0.96)]


def others(run, outdir):
    out = []
    for wl in run.workloads():
        res = measured(run.results(wl))
        if wl not in OWN_PLOTTERS and res:
            out.append(bars(run, res, os.path.join(outdir, "%s.png" % wl), "%s: the figure of each result" % wl))
    if not out:
        raise Skip("no other workloads")
    return out

