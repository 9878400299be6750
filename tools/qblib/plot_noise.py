"""plot_noise.py - the noise workload's histogram of gaps, one run's (qb plot) or several runs' and both
sides' on one log-log axis (qb compare -o, qb report).

A histogram's bins are the record's own (`gaps.hist`: the lower edge of each bin in ns, powers of two
from the loop's minimum, the last bin open: 100 ms and beyond), drawn as steps over them; the open bin
is drawn as wide as a power of two and labelled so. Counts are divided by the CPU-seconds the loops
observed (`gaps.observed_cpu_s`, summed over the CPUs: a deadline may cut a loop short of its planned
`seconds`; an older record without it, its CPUs times its planned seconds), so runs of other lengths
and CPU counts, and the two platforms, share one axis: gaps per CPU-second. Empty bins have no place on
a log axis: they sit on the axis' floor, a third of the smallest bin drawn, from which every bin rises.
"""
import os

import numpy as np

from . import noise as qbnoise
from .plot import WIDE, Skip, finish, plt

NONE = "neither side ran the noise workload with a histogram"
SIDE_COLORS = ("C0", "C3", "C2", "C1", "C4", "C5")
Y_LABEL = "gaps per CPU-second in the bin"
X_LABEL = "gap between two TSC reads (ns; bins: powers of two, the last one open)"


def _positive(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def cpu_seconds(r):
    """The CPU-seconds the run's loops observed: gaps.observed_cpu_s, else (an older record) its CPUs times its
    planned seconds; None where neither is known."""
    g = r.get("gaps") or {}
    if _positive(g.get("observed_cpu_s")):
        return float(g["observed_cpu_s"])
    cpus = len(r["cpus"]) if isinstance(r.get("cpus"), list) and r["cpus"] else (r.get("threads") or 1)
    return cpus * float(g["seconds"]) if _positive(g.get("seconds")) else None


def hist(r):
    """(edges in ns with the open bin's drawn end appended, density per CPU-second, raw counts), or None."""
    g = r.get("gaps") or {}
    h = g.get("hist") if isinstance(g.get("hist"), dict) else None
    if not h:
        return None
    edges, counts = h.get("edges_ns"), h.get("counts")
    if not isinstance(edges, list) or not isinstance(counts, list) or not edges or len(edges) != len(counts):
        return None
    if any(not isinstance(e, (int, float)) or e <= 0 for e in edges):
        return None
    secs = cpu_seconds(r)
    counts = np.asarray([c if isinstance(c, (int, float)) else 0 for c in counts], dtype=float)
    dens = counts / secs if secs else counts
    ends = np.asarray(list(edges) + [edges[-1] * 2.0], dtype=float)
    return ends, dens, counts, secs is not None


def floor(results):
    """The value axis' floor for these results: a third of the smallest non-empty bin (1 without any)."""
    got = [h[1][h[1] > 0] for h in (hist(r) for r in results) if h is not None]
    low = [float(g.min()) for g in got if g.size]
    return min(low) / 3.0 if low else 1.0


def draw(ax, r, label, color, style="-", base=None):
    """One histogram as steps rising from `base` (the axis' floor; empty bins lie on it). Returns False when
    the result has none."""
    got = hist(r)
    if got is None:
        return False
    ends, dens, _, _ = got
    base = floor([r]) if base is None else base
    ax.stairs(np.where(dens > 0, dens, base), ends, color=color, linestyle=style, linewidth=1.4, label=label,
              baseline=base)
    return True


def _axes(ax, results, base):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=base)
    ax.set_xlabel(X_LABEL, fontsize=9)
    ax.set_ylabel(Y_LABEL, fontsize=9)
    ax.grid(True, which="both", alpha=0.25)
    opens = [hist(r)[0][-2] for r in results if hist(r) is not None]
    if opens:  # the open bin: every gap of 100 ms and more
        x = max(opens)
        ax.axvline(x, color="0.5", linewidth=0.8, linestyle=":")
        ax.text(x, 0.03, "%s and beyond " % qbnoise.duration(x), transform=ax.get_xaxis_transform(),
                fontsize=7, color="0.35", va="bottom", ha="right", rotation=90)


def _label(run, r):
    """"a.log: 0.41 ppm pooled, longest 2.1 us" (a record before the pooled figure: its mean of CPUs, said so)."""
    g = r.get("gaps") or {}
    if qbnoise.has_pooled(r):
        fig = "%s ppm pooled" % qbnoise.ppm(qbnoise.pooled(r))
    else:
        fig = "%s ppm, mean of CPUs" % qbnoise.ppm(g.get("ppm_mean"))
    return "%s: %s, longest %s" % (os.path.basename(run.source), fig, qbnoise.duration(g.get("longest_ns")))


def histogram(run, outdir):
    """qb plot: the run's noise histogram(s), noise-histogram.png."""
    res = [r for r in qbnoise.results(run) if hist(r) is not None]
    if not res:
        raise Skip("no noise workload with a histogram")
    fig, ax = plt.subplots(figsize=WIDE)
    base = floor(res)
    for i, r in enumerate(res):
        draw(ax, r, _label(run, r), SIDE_COLORS[i % len(SIDE_COLORS)], base=base)
    _axes(ax, res, base)
    ax.legend(fontsize=8, loc="best")
    ax.set_title("noise: gaps in a loop reading the TSC on every CPU")
    notes = ["; ".join(qbnoise.line(r, run) for r in res), "; ".join(qbnoise.thresholds(r) for r in res)]
    return [finish(fig, run, os.path.join(outdir, "noise-histogram.png"), notes=notes)]


def overlay(groups, path, title="noise: gaps in a loop reading the TSC, per CPU-second"):
    """Several runs' histograms on one log-log axis: groups are (name, runs), a colour each, a line per run.
    Returns the path, or None when no run has a noise histogram."""
    todo = [(k, j, run, r) for k, (_, runs) in enumerate(groups) for j, run in enumerate(runs)
            for r in qbnoise.results(run)[:1] if hist(r) is not None]
    if not todo:
        return None
    base = floor([r for _, _, _, r in todo])
    fig, ax = plt.subplots(figsize=WIDE)
    styles = ("-", "--", ":", "-.")
    drawn = []
    for k, j, run, r in todo:
        draw(ax, r, "%s %s" % (groups[k][0], _label(run, r)), SIDE_COLORS[k % len(SIDE_COLORS)],
             styles[j % len(styles)], base=base)
        drawn.append((run, r))
    _axes(ax, [r for _, r in drawn], base)
    ax.legend(fontsize=7, loc="best")
    ax.set_title(title)
    machines = []
    for name, runs in groups:
        got = [run for run in runs if any(run is d[0] for d in drawn)]
        if got:
            machines.append("%s: %s" % (name, got[0].footer()))
    return finish(fig, drawn[0][0], path, notes=["; ".join(machines)])


def compare_histograms(groups, outdir):
    """qb compare -o DIR: both sides' histograms in DIR/noise-histograms.png, or None without any."""
    os.makedirs(outdir, exist_ok=True)
    return overlay(groups, os.path.join(outdir, "noise-histograms.png"))
