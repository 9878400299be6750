"""plot_counter.py - the counter workload's figures: slowdown against threads, and the pairs by distance."""
import os

from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from . import figure as qbfigure
from .plot import (CHECK_COLOR, WIDE, Skip, apply_scale, errbar, errs, finish, measured, noisy_legend_handle, noisy_style, placement, plt,
                   spread_is_wide)
from .table_counter import PAIR_MEANING, base_figure, is_pair, slowdown
from .text import sig

STYLE = {"compact": ("-", "o"), "scatter": ("--", "s")}  # line style and marker per placement
OTHER_STYLE = (":", "^")


def counter_slowdown(run, outdir):
    """Each layout's slowdown against its own 1-thread figure (compact), by thread count: the seed's
    question. The 1-thread figures themselves, in ns per increment, are in the legend."""
    res = [r for r in measured(run.results("counter")) if not is_pair(r)]
    pts = {}
    for r in res:
        f = qbfigure.of(r, run)
        b = base_figure(res, r, run)
        if f.value is None or b is None or not b.value:
            continue
        k = 100.0 / b.value
        lo, hi = errs(f, factor=k)
        pts.setdefault((r.get("variant"), placement(r)), []).append((r["threads"], f.value * k, lo, hi, bool(f.noisy)))
    if not pts:
        raise Skip("no counter results")
    fig, ax = plt.subplots(figsize=WIDE)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    layouts = list(dict.fromkeys(lay for lay, _ in pts))
    threads = sorted({p[0] for ps in pts.values() for p in ps})
    noisy_any = False
    for (lay, pl), ps in pts.items():
        ps.sort()
        color = colors[layouts.index(lay) % len(colors)]
        ls, mk = STYLE.get(pl, OTHER_STYLE)
        one = [r for r in res if r.get("variant") == lay and r.get("threads") == 1 and placement(r) == pl]
        base = base_figure(res, one[0], run) if one else None
        label = "%s, %s" % (lay, pl) + (" (1 thread: %s %s)" % (sig(base.value, 3), base.unit)
                                        if base is not None and pl == "compact" else "")
        ax.errorbar([p[0] for p in ps], [p[1] for p in ps], yerr=[[p[2] for p in ps], [p[3] for p in ps]],
                    linestyle=ls, marker=None, capsize=2, color=color, label=label)
        for t, v, _, _, noisy in ps:
            ax.plot([t], [v], marker=mk, color=color, markerfacecolor="white" if noisy else color,
                    markeredgewidth=1.5, linestyle="none")
            noisy_any |= noisy
    ax.axhline(100, color="0.6", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(threads)
    ax.set_xticklabels([str(t) for t in threads])
    ax.xaxis.set_minor_locator(NullLocator())
    values = [p[1] for ps in pts.values() for p in ps]
    if spread_is_wide(values):
        ax.set_yscale("log")
    else:
        ax.set_ylim(0, max(values + [p[1] + p[3] for ps in pts.values() for p in ps]) * 1.1)
    ax.set_ylabel("slowdown (% of 1 thread, same layout, compact)")
    ax.set_xlabel("threads")
    fig.suptitle("counter: false sharing, slowdown against threads (solid compact, dashed scatter)", fontsize=12)
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if noisy_any:
        handles.append(Line2D([], [], marker="o", color="0.3", markerfacecolor="white", linestyle="none",
                              label="hollow: noisy (under half the repetitions clean)"))
    ax.legend(handles=handles, fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return [finish(fig, run, os.path.join(outdir, "counter-slowdown.png"), top=0.96)]


def counter_pairs(run, outdir):
    """One packed pair per topology relation, nearest first: ns per increment, the record's slowdown
    above each bar, and the packed 1-thread figure as a dashed line named in the legend."""
    pairs = [r for r in run.results("counter") if is_pair(r)]
    if not pairs:
        raise Skip("no counter pair results")
    res = [r for r in run.results("counter") if not is_pair(r)]
    fig, ax = plt.subplots(figsize=WIDE)
    xs = list(range(len(pairs)))
    figs = [qbfigure.of(r, run) if r.get("check") != "skipped" else None for r in pairs]
    vals = [f.value if f is not None else None for f in figs]
    kind = apply_scale(ax, vals, xs, tops=[f.q3 for f in figs if f is not None and f.q3 is not None])
    top = ax.get_ylim()[1]
    for x, r, f in zip(xs, pairs, figs):
        if f is None or f.value is None:
            ax.text(x, top * 0.02 if kind != "log" else ax.get_ylim()[0], "skipped", ha="center", va="bottom",
                    rotation=90, fontsize=8, color="0.4")
            continue
        hi = errs(f)[1]
        ax.bar([x], [f.value], yerr=errbar(f), capsize=3, width=0.6, ecolor="0.2",
               **noisy_style(f, CHECK_COLOR.get(r.get("check"), "C3")))
        pct = slowdown(pairs + res, r, run, f)
        if pct is not None:
            ax.text(x, min(f.value + hi, top), "%.0f%%" % pct, ha="center", va="bottom", fontsize=9)
    handles = []
    one = [r for r in measured(run.results("counter"))
           if r.get("variant") == "packed" and r.get("threads") == 1 and placement(r) == "compact"]
    fb = qbfigure.of(one[0], run) if one else None
    if fb is not None and fb.value is not None:
        handles.append(ax.axhline(fb.value, color="0.45", linestyle="--", linewidth=0.9,
                                  label="packed, 1 thread: %s %s" % (sig(fb.value, 3), fb.unit)))
    if any(f is not None and f.noisy for f in figs):
        handles.append(noisy_legend_handle())
    if handles:
        ax.legend(handles=handles, fontsize=8, loc="upper left")
    ax.set_xticks(xs)
    ax.set_xticklabels(["%s\n%s\n%s" % (placement(r), PAIR_MEANING.get(placement(r), ""),
                                        "CPUs " + ",".join(str(c) for c in r.get("cpus", [])) if r.get("cpus") else "")
                        for r in pairs], fontsize=8)
    unit = next((f.measure.label for f in figs if f is not None and f.measure), "ns per increment")
    ax.set_ylabel(unit)
    ax.set_xlabel("pair of CPUs, nearest first (above each bar: its slowdown against packed, 1 thread)", fontsize=9)
    ax.set_title("counter: one packed pair per topology relation")
    ax.grid(True, axis="y", alpha=0.3)
    return [finish(fig, run, os.path.join(outdir, "counter-pairs.png"))]
