"""plot.py - PNG plots of a run with matplotlib's Agg backend (python3-matplotlib).

One plotter per figure. Each finds its records by the field names of
docs/records.md and the workload plans (counter today; locality and
first-touch as they arrive) and raises Skip when its data is absent. Every
figure has a title, axes with units, and the machine and date in a footer.
"""
import math
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402

from .table import PAIR_MEANING  # noqa: E402

DPI = 100
WIDE = (9.0, 5.5)    # inches: 900 x 550 pixels at DPI
SQUARE = (8.0, 7.0)  # heat maps: 800 x 700 pixels
# A bar's colour by its check: a short result (cut by the budget) is a figure, but not a full one.
CHECK_COLOR = {"ok": "C0", "short": "C1"}
STYLE = {"compact": ("-", "o"), "scatter": ("--", "s")}  # line style and marker per placement
OTHER_STYLE = (":", "^")
SIZE_ORDER = ["small", "llc", "dram"]
LOCALITY_ORDER = ["interleaved", "blocked-strided", "blocked"]
PAGE_VARIANTS = ["page-fault-entry", "zero-rep-stosb", "zero-nt", "zero-clzero", "demand-zero-4k", "demand-zero-2m",
                 "tlb-miss", "tlb-miss-cached", "hot-access"]
OWN_PLOTTERS = ("counter", "locality", "first-touch", "flush")  # workloads with their own figures
ANNOTATE_MAX = 12  # heat maps up to this size get their values written in the cells


class Skip(Exception):
    """The plot's data is not in this run."""


def placement(r):
    return str((r.get("params") or {}).get("placement", "-"))


def measured(rs):
    return [r for r in rs if r.get("check") != "skipped" and r.get("median") is not None]


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return ("%d %s" if float(n).is_integer() else "%.1f %s") % (n, unit)
        n /= 1024.0
    return str(n)


def finish(fig, run, path, top=1.0):
    """Footer (machine and date, build and log), layout (below `top`, where a
    suptitle sits), save, close."""
    fig.text(0.01, 0.012, run.footer(), fontsize=8, color="0.35", ha="left", va="bottom")
    fig.text(0.99, 0.012, "QuietBench %s, %s" % (run.boot.get("build", "?"), os.path.basename(run.source)),
             fontsize=8, color="0.35", ha="right", va="bottom")
    fig.tight_layout(rect=(0, 0.04, 1, top))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def spread_is_wide(values, factor=50.0):
    v = [x for x in values if x and x > 0]
    return bool(v) and max(v) / min(v) > factor


# ---- counter ---------------------------------------------------------------------
def counter_slowdown(run, outdir):
    res = [r for r in measured(run.results("counter"))
           if not placement(r).startswith("pair-") and r.get("slowdown_pct") is not None]
    if not res:
        raise Skip("no counter results")
    fig, ax = plt.subplots(figsize=WIDE)
    layouts = list(dict.fromkeys(r.get("variant") for r in res))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    threads = sorted({r["threads"] for r in res})
    for i, lay in enumerate(layouts):
        for pl in dict.fromkeys(placement(r) for r in res):
            pts = sorted((r["threads"], r["slowdown_pct"]) + errs(r, r["slowdown_pct"]) for r in res
                         if r.get("variant") == lay and placement(r) == pl)
            if not pts:
                continue
            ls, mk = STYLE.get(pl, OTHER_STYLE)
            yerr = [[p[2] for p in pts], [p[3] for p in pts]]
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=yerr, linestyle=ls,
                        marker=mk, capsize=2, color=colors[i % len(colors)], label="%s, %s" % (lay, pl))
    ax.axhline(100, color="0.6", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(threads)
    ax.set_xticklabels([str(t) for t in threads])
    ax.xaxis.set_minor_locator(NullLocator())
    if spread_is_wide([r["slowdown_pct"] for r in res]):
        ax.set_yscale("log")
    ax.set_ylabel("slowdown (% of 1 thread, same layout)")
    ax.set_xlabel("threads (%s)" % SPREAD_NOTE)
    ax.set_title("counter: false sharing, slowdown against threads (solid compact, dashed scatter)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return [finish(fig, run, os.path.join(outdir, "counter-slowdown.png"))]


def counter_pairs(run, outdir):
    pairs = [r for r in run.results("counter") if placement(r).startswith("pair-")]
    if not pairs:
        raise Skip("no counter pair results")
    fig, ax = plt.subplots(figsize=WIDE)
    xs = range(len(pairs))
    top = max([r.get("ticks_per_increment") or 0 for r in pairs] + [1])
    for x, r in zip(xs, pairs):
        if r.get("check") == "skipped" or r.get("ticks_per_increment") is None:
            ax.text(x, top * 0.02, "skipped", ha="center", va="bottom", rotation=90, fontsize=8, color="0.4")
            continue
        lo, hi = errs(r, r["ticks_per_increment"])
        ax.bar(x, r["ticks_per_increment"], yerr=[[lo], [hi]], capsize=3,
               color=CHECK_COLOR.get(r.get("check"), "C3"), width=0.6)
        if r.get("slowdown_pct") is not None:
            ax.text(x, r["ticks_per_increment"], "%.0f%%" % r["slowdown_pct"], ha="center", va="bottom", fontsize=9)
    one = [r for r in measured(run.results("counter"))
           if r.get("variant") == "packed" and r.get("threads") == 1 and placement(r) == "compact"]
    if one and one[0].get("ticks_per_increment") is not None:
        ax.axhline(one[0]["ticks_per_increment"], color="0.5", linestyle="--", linewidth=0.8)
        ax.text(len(pairs) - 0.5, one[0]["ticks_per_increment"], "packed, 1 thread ", va="bottom", ha="right",
                fontsize=8, color="0.4")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(["%s\n%s\n%s" % (placement(r), PAIR_MEANING.get(placement(r), ""),
                                        "CPUs " + ",".join(str(c) for c in r.get("cpus", [])) if r.get("cpus") else "")
                        for r in pairs], fontsize=8)
    ax.set_ylabel("ticks per increment (slowest thread)")
    ax.set_xlabel("pair of CPUs, by distance in the cache hierarchy (labels: slowdown against 1 thread; %s)"
                  % SPREAD_NOTE, fontsize=9)
    ax.set_title("counter: one packed pair per topology relation")
    ax.grid(True, axis="y", alpha=0.3)
    return [finish(fig, run, os.path.join(outdir, "counter-pairs.png"))]


# ---- matrices (counter core-to-core, first-touch NUMA) ----------------------------------
MATRIX_TITLES = {
    ("counter", "packed"): "counter: core-to-core cost of a packed pair",
    ("first-touch", "numa-latency"): "first-touch: NUMA latency, node to node",
    ("first-touch", "numa-bandwidth"): "first-touch: NUMA bandwidth, node to node",
}


CLIP_PCT = (2, 98)  # heat-map colour scale: percentiles, so one outlier does not flatten the rest


def topology(run):
    """CPU index -> (package, L3 instance, core) from the cpu and cache records."""
    l3 = {}
    for k, c in enumerate(run.of_kind("cache")):
        if c.get("level") == 3 and c.get("type") != "instruction":
            for i in c.get("shared_by") or []:
                l3[i] = k
    return {c["index"]: (c.get("package"), l3.get(c["index"]), (c.get("package"), c.get("die"), c.get("core")))
            for c in run.of_kind("cpu") if "index" in c}


def draw_boundaries(ax, labels, topo):
    """Lines between neighbouring CPUs of the matrix: thick white between packages,
    medium between L3s, thin between cores (SMT siblings stay inside). Returns the legend."""
    drawn = set()
    n = len(labels)
    for i in range(n - 1):
        a, b = topo.get(labels[i]), topo.get(labels[i + 1])
        if not a or not b:
            continue
        if a[0] != b[0]:
            kind, lw, col = "package", 2.4, "white"
        elif a[1] != b[1]:
            kind, lw, col = "L3", 1.4, "0.85"
        elif a[2] != b[2] and n <= 64:
            kind, lw, col = "core", 0.5, "0.6"
        else:
            continue
        drawn.add(kind)
        ax.axvline(i + 0.5, color=col, linewidth=lw)
        ax.axhline(i + 0.5, color=col, linewidth=lw)
    names = [k for k in ("package", "L3", "core") if k in drawn]
    return "lines between %s" % ", ".join(names) + (" (SMT siblings share a core)" if "core" in drawn else "") \
        if names else ""


def matrices(run, outdir):
    import numpy as np
    ms = [m for m in run.matrices() if m.get("values")]
    if not ms:
        raise Skip("no matrix records")
    topo = topology(run)
    out = []
    for m in ms:
        labels = m.get("cpus") or m.get("nodes") or list(range(len(m["values"])))
        numa = not m.get("cpus")
        vals = np.array([[np.nan if v is None else float(v) for v in row] for row in m["values"]])
        finite = vals[np.isfinite(vals)]
        fig, ax = plt.subplots(figsize=SQUARE)
        cmap = plt.get_cmap("viridis").copy()
        cmap.set_bad("0.85")
        vmin, vmax = (np.percentile(finite, CLIP_PCT[0]), np.percentile(finite, CLIP_PCT[1])) \
            if finite.size >= 8 else (finite.min() if finite.size else 0, finite.max() if finite.size else 1)
        if vmax <= vmin:
            vmin, vmax = (finite.min(), finite.max()) if finite.size else (0, 1)
        im = ax.imshow(vals, cmap=cmap, interpolation="nearest", vmin=vmin, vmax=vmax)
        unit = str(m.get("unit", "value")).replace("_", " ")
        high = np.argwhere(np.isfinite(vals) & (vals > vmax))
        low = np.argwhere(np.isfinite(vals) & (vals < vmin))
        clipped = len(high) + len(low)
        fig.colorbar(im, ax=ax, label=unit, extend="both" if clipped else "neither")
        n = len(labels)
        step = max(1, math.ceil(n / 32))
        ax.set_xticks(range(0, n, step))
        ax.set_xticklabels([str(x) for x in labels[::step]], fontsize=8, rotation=90 if n > 16 else 0)
        ax.set_yticks(range(0, n, step))
        ax.set_yticklabels([str(x) for x in labels[::step]], fontsize=8)
        if n <= ANNOTATE_MAX:
            mid = (vmin + vmax) / 2
            for i, row in enumerate(vals):
                for j, v in enumerate(row):
                    if v == v:
                        ax.text(j, i, "%.0f" % v if abs(v) >= 100 else "%.3g" % v, ha="center", va="center",
                                fontsize=7, color="black" if min(max(v, vmin), vmax) > mid else "white")
        # Cells beyond the colour scale: a triangle in the cell's corner (clear of
        # any value written in it) pointing the way the colour was clipped.
        size = max(5, min(30, 240 / n))
        off = 0.3 if n <= ANNOTATE_MAX else 0
        if len(high):
            ax.scatter(high[:, 1] + off, high[:, 0] - off, marker="^", s=size, color="red", linewidths=0)
        if len(low):
            ax.scatter(low[:, 1] + off, low[:, 0] - off, marker="v", s=size, color="cyan", linewidths=0)
        if numa:
            ax.set_xlabel("memory on node")
            ax.set_ylabel("CPU on node")
            note = ""
        else:
            ax.set_xlabel("CPU (second of the pair)")
            ax.set_ylabel("CPU (first of the pair)")
            note = draw_boundaries(ax, labels, topo)
        wl, var = m.get("workload", "?"), m.get("variant", "?")
        title = MATRIX_TITLES.get((wl, var), "%s: %s matrix" % (wl, var))
        clip = "colour scale clipped to the %d-%dth percentiles: %d cell(s) beyond (red up, cyan down)" \
            % (CLIP_PCT + (clipped,)) if clipped else ""
        sub = "\n".join(x for x in (note, clip) if x)
        top = 1.0
        if sub:
            fig.suptitle(title, fontsize=12, y=0.99)
            ax.set_title(sub, fontsize=8, color="0.3")
            top = 0.96
        else:
            ax.set_title(title)
        out.append(finish(fig, run, os.path.join(outdir, "%s-matrix-%s.png" % (wl, var)), top=top))
    return out


# ---- locality ----------------------------------------------------------------------
def locality(run, outdir):
    res = measured(run.results("locality"))
    if not res:
        raise Skip("no locality results")
    nmax = max(r.get("threads") or 0 for r in res)
    res = [r for r in res if r.get("threads") == nmax]
    places = list(dict.fromkeys(placement(r) for r in res))
    pl = "compact" if "compact" in places else places[0]
    res = [r for r in res if placement(r) == pl]
    rate = all(r.get("bytes_per_tick") is not None for r in res)
    accs = list(dict.fromkeys(str(r["params"].get("accumulator", "-")) for r in res))
    sizes = sorted(dict.fromkeys(str(r["params"].get("size", "-")) for r in res),
                   key=lambda s: (SIZE_ORDER.index(s) if s in SIZE_ORDER else len(SIZE_ORDER), s))
    variants = sorted(dict.fromkeys(r.get("variant") for r in res),
                      key=lambda v: (LOCALITY_ORDER.index(v) if v in LOCALITY_ORDER else 9, v))
    fig, axes = plt.subplots(1, len(accs), figsize=WIDE, sharey=True, squeeze=False)
    width = 0.8 / max(1, len(variants))
    for ax, acc in zip(axes[0], accs):
        for k, var in enumerate(variants):
            xs, ys, es = [], [], []
            for i, sz in enumerate(sizes):
                hit = [r for r in res if r.get("variant") == var and str(r["params"].get("accumulator", "-")) == acc
                       and str(r["params"].get("size", "-")) == sz]
                if hit:
                    xs.append(i + (k - (len(variants) - 1) / 2) * width)
                    ys.append(hit[0]["bytes_per_tick"] if rate else hit[0]["median"])
                    es.append(errs(hit[0], ys[-1], inverse=rate))
            ax.bar(xs, ys, width=width, yerr=[[e[0] for e in es], [e[1] for e in es]], capsize=2, label=var,
                   color="C%d" % k)
        labels = []
        for sz in sizes:
            b = next((r["params"].get("bytes") for r in res if str(r["params"].get("size")) == sz), None)
            labels.append(sz + ("\n" + human_bytes(b) if b else ""))
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels(labels)
        ax.set_xlabel("array size\n(%s)" % SPREAD_NOTE, fontsize=8)
        ax.set_title("accumulator: %s" % acc, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        if not rate:
            ax.set_yscale("log")
    axes[0][0].set_ylabel("bytes per tick (higher is faster)" if rate else "median ticks")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("locality: interleaved against blocked summing, %d threads, %s" % (nmax, pl))
    return [finish(fig, run, os.path.join(outdir, "locality.png"))]


# ---- first-touch -------------------------------------------------------------------
def first_touch_iterations(run, outdir):
    res = [r for r in run.results("first-touch") if isinstance(r.get("iteration_ticks"), list)]
    if not res:
        raise Skip("no first-touch results with iteration_ticks")
    faults = any(isinstance(r.get("iteration_faults"), list) for r in res)
    fig, axes = plt.subplots(2 if faults else 1, 1, figsize=WIDE, sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1]} if faults else None)
    n = max(len(r["iteration_ticks"]) for r in res)
    width = 0.8 / len(res)
    for k, r in enumerate(res):
        off = (k - (len(res) - 1) / 2) * width
        ticks = r["iteration_ticks"]
        axes[0][0].bar([i + 1 + off for i in range(len(ticks))], [t or 0 for t in ticks], width=width,
                       label=r.get("variant"), color="C%d" % k)
        if faults and isinstance(r.get("iteration_faults"), list):
            fl = r["iteration_faults"]
            axes[1][0].bar([i + 1 + off for i in range(len(fl))], [f or 0 for f in fl], width=width, color="C%d" % k)
    top = axes[0][0]
    if spread_is_wide([t for r in res for t in r["iteration_ticks"]], 100):
        top.set_yscale("log")
    top.set_ylabel("%s per iteration" % (res[0].get("unit") or "ticks"))
    top.legend(fontsize=8)
    top.grid(True, axis="y", alpha=0.3)
    top.set_title("first-touch: each timed iteration (the first pays for the page faults)")
    bottom = axes[-1][0]
    if faults:
        bottom.set_ylabel("page faults")
        bottom.grid(True, axis="y", alpha=0.3)
    bottom.set_xticks(range(1, n + 1))
    bottom.set_xlabel("iteration")
    return [finish(fig, run, os.path.join(outdir, "first-touch-iterations.png"))]


def is_page_step(r):
    return r.get("variant") in PAGE_VARIANTS or "page_bytes" in r


def is_2m(r):
    return "2m" in str(r.get("variant")) or (r.get("params") or {}).get("page_bytes") == 2 << 20


def first_touch_pages(run, outdir):
    res = [r for r in measured(run.results("first-touch")) if is_page_step(r)]
    if not res:
        raise Skip("no first-touch per-page results")
    res.sort(key=lambda r: PAGE_VARIANTS.index(r["variant"]) if r.get("variant") in PAGE_VARIANTS else 99)
    groups = [(name, [r for r in res if is_2m(r) == big]) for name, big in (("4 KiB pages", False),
                                                                             ("2 MiB pages", True))]
    groups = [(n, g) for n, g in groups if g]
    # 4 KiB and 2 MiB costs differ by orders of magnitude: a panel each, each on its own scale.
    fig, axes = plt.subplots(len(groups), 1, figsize=(WIDE[0], WIDE[1] + 0.6 * (len(groups) - 1)), squeeze=False,
                             gridspec_kw={"height_ratios": [max(1, len(g)) for _, g in groups]})
    for ax, (name, g) in zip(axes[:, 0], groups):
        bar_panel(ax, g)
        ax.set_title(name, fontsize=10)
    fig.suptitle("first-touch: cost of each step of a page's first touch (per page)", fontsize=12, y=0.99)
    return [finish(fig, run, os.path.join(outdir, "first-touch-pages.png"), top=0.95)]


def first_touch_other(run, outdir):
    """The rest, e.g. the NUMA placement runs: whole-buffer times, on their own scale."""
    res = [r for r in measured(run.results("first-touch"))
           if not isinstance(r.get("iteration_ticks"), list) and not is_page_step(r)]
    if not res:
        raise Skip("no other first-touch results")
    return [bars(run, res, os.path.join(outdir, "first-touch-other.png"),
                 "first-touch: %s" % ", ".join(dict.fromkeys(r.get("variant") for r in res)))]


# ---- everything else --------------------------------------------------------------------
def quartile(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    i = int(math.floor(k))
    return xs[i] + (xs[min(i + 1, len(xs) - 1)] - xs[i]) * (k - i)


def interval(r):
    """The spread of r's repetitions around its median, in its unit, as (low, high):
    the quartiles of its samples when the record lists them (samples=on; robust to
    the odd preempted repetition), else one standard deviation, never below 0."""
    med = r.get("median") or 0.0
    xs = r.get("samples")
    if isinstance(xs, list) and len(xs) >= 3:
        return min(quartile(xs, 0.25), med), max(quartile(xs, 0.75), med)
    sd = r.get("stddev") or 0.0
    return max(0.0, med - sd), med + sd


SPREAD_NOTE = "bars: quartiles of the repetitions, or 1 sd without samples=on"


def errs(r, value, inverse=False):
    """(down, up) error for a value proportional to r's median (or to its inverse,
    for a rate such as bytes per tick)."""
    med = r.get("median") or 0.0
    lo, hi = interval(r)
    if not med:
        return 0.0, 0.0
    if inverse:
        return value * (1 - med / hi) if hi else 0.0, value * (med / lo - 1) if lo else 0.0
    return value * (1 - lo / med), value * (hi / med - 1)


def show_zeros_on_log(ax, positions, values, horizontal):
    """A zero has no place on a log axis: mark it at the axis' low end and say "0"."""
    for p, v in zip(positions, values):
        if v == 0:
            if horizontal:
                lo = ax.get_xlim()[0]
                ax.plot([lo], [p], marker="<", color="C3", clip_on=False)
                ax.text(lo, p, "  0", va="center", ha="left", fontsize=8, color="C3")
            else:
                lo = ax.get_ylim()[0]
                ax.plot([p], [lo], marker="v", color="C3", clip_on=False)
                ax.text(p, lo, "0", va="bottom", ha="center", fontsize=8, color="C3")


def bar_panel(ax, res):
    """Horizontal bars of the medians with +-1 standard deviation over the repetitions."""
    ys = list(range(len(res)))[::-1]
    med = [r["median"] for r in res]
    e = [errs(r, r["median"]) for r in res]
    ax.barh(ys, med, xerr=[[x[0] for x in e], [x[1] for x in e]],
            color=[CHECK_COLOR.get(r.get("check"), "C3") for r in res], capsize=3, height=0.6)
    ax.set_yticks(ys)
    ax.set_yticklabels(["%s, %s thr" % (r.get("variant"), r.get("threads")) for r in res],
                       fontsize=8 if len(res) < 30 else 6)
    if spread_is_wide(med, 100):
        ax.set_xscale("log")
        show_zeros_on_log(ax, ys, med, horizontal=True)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_xlabel("median %s (%s)" % (res[0].get("unit") or "ticks", SPREAD_NOTE), fontsize=9)


def bars(run, res, path, title):
    """Horizontal bars: the median of each result with its spread."""
    fig, ax = plt.subplots(figsize=WIDE)
    bar_panel(ax, res)
    ax.set_title(title)
    return finish(fig, run, path)


# ---- flush -----------------------------------------------------------------------
def flush(run, outdir):
    """Each method: what the flush itself costs, and how cold the pass after it
    was (cold %: 0 as warm, 100 as after WBINVD on every CPU)."""
    res = [r for r in run.results("flush") if r.get("check") != "skipped"]
    if not res:
        raise Skip("no flush results")
    fig, (left, right) = plt.subplots(1, 2, figsize=WIDE, sharey=True)
    ys = list(range(len(res)))[::-1]
    names = ["%s, %s thr" % (r.get("variant"), r.get("threads")) for r in res]
    cost = [r.get("flush_ticks") or 0 for r in res]
    left.barh(ys, cost, color="C1", height=0.6)
    left.set_yticks(ys)
    left.set_yticklabels(names, fontsize=8)
    left.set_xlabel("the flush itself (median ticks)", fontsize=9)
    if spread_is_wide([c for c in cost if c], 100):
        left.set_xscale("log")
        show_zeros_on_log(left, ys, cost, horizontal=True)
    left.grid(True, axis="x", alpha=0.3)
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
    right.set_xlabel("cold % of the pass after it (100: as after WBINVD)", fontsize=9)
    right.grid(True, axis="x", alpha=0.3)
    fig.suptitle("flush: what each method costs, and how cold it leaves the caches", fontsize=12, y=0.985)
    return [finish(fig, run, os.path.join(outdir, "flush.png"), top=0.96)]


def others(run, outdir):
    out = []
    for wl in run.workloads():
        res = measured(run.results(wl))
        if wl not in OWN_PLOTTERS and res:
            out.append(bars(run, res, os.path.join(outdir, "%s.png" % wl), "%s: median of each result" % wl))
    if not out:
        raise Skip("no other workloads")
    return out


PLOTTERS = [
    ("counter slowdown", counter_slowdown),
    ("counter pairs", counter_pairs),
    ("matrices", matrices),
    ("locality", locality),
    ("first-touch iterations", first_touch_iterations),
    ("first-touch per-page", first_touch_pages),
    ("first-touch other", first_touch_other),
    ("flush", flush),
    ("other workloads", others),
]


def plot_all(run, outdir):
    """Run every plotter; print what was written or skipped; return the paths."""
    os.makedirs(outdir, exist_ok=True)
    written = []
    for name, fn in PLOTTERS:
        try:
            paths = fn(run, outdir)
        except Skip as e:
            print("plot: skipped %s: %s" % (name, e))
            continue
        for p in paths:
            print("plot: wrote %s" % p)
        written += paths
    if not written:
        print("plot: nothing to plot in %s" % run.source)
    return written
