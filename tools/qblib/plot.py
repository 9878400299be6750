"""plot.py - PNG plots of a run with matplotlib's Agg backend (python3-matplotlib): what every figure shares.

One plotter per figure (plot_counter.py, plot_matrix.py, plot_workloads.py, plot_noise.py). Each finds its records
by the field names of docs/records.md and raises Skip when its data is absent. Every figure draws a
result's figure (figure.py: clean first) in the unit its experiment speaks, with error bars from the
quartiles q1..q3 (none where a record has no quartiles: an older run without samples), on an axis
that starts at zero, or on a log or clipped axis where one result would flatten the rest (clipped
ones are marked with their value). Noisy results are drawn hollow and hatched, with a legend entry.
Every figure has a title, axes with units, the machine and date in a footer, and under a hypervisor
the line saying what is virtual there.
"""
import os
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import figure as qbfigure  # noqa: E402
from . import machine  # noqa: E402
from .text import sig  # noqa: E402

DPI = 100
WIDE = (9.0, 5.5)    # inches: 900 x 550 pixels at DPI
SQUARE = (8.0, 7.0)  # heat maps: 800 x 700 pixels
WIDE_SPREAD = 50.0   # max/min past this: one scale would flatten the small ones
CLIP_OVER = 10.0     # a value past this many times the median of the rest is an outlier ...
CLIP_MAX_SHARE = 0.2  # ... and at most this share of them may be clipped (else: log)
SPREAD_NOTE = "error bars: quartiles q1-q3 of the repetitions (none where the record has no quartiles)"
NOISY_HATCH = "////"
NOISY_LABEL = "noisy (hollow, hatched): under half the repetitions clean; figure over all"
OWN_NOTE = "bars: each timed iteration in the result's measure; hatched: a noisy result"
CLIP_COLOR = "C3"
# A bar's colour by its check (a failed or overrun one: red): a short result, cut by the budget, is a figure but
# not a full one.
CHECK_COLOR = {"ok": "C0", "short": "C1"}


class Skip(Exception):
    """The plot's data is not in this run."""


def placement(r):
    return str((r.get("params") or {}).get("placement", "-"))


def measured(rs):
    return [r for r in rs if r.get("check") != "skipped" and r.get("median") is not None]


def finish(fig, run, path, top=1.0, notes=(SPREAD_NOTE,)):
    """Footer (machine and date, build and log), caption lines above it (`notes`; under a hypervisor
    the line saying what is virtual there, in red), layout (below `top`, where a suptitle sits), save,
    close."""
    step = 15.0 / (fig.get_figheight() * DPI)  # one caption line, as a fraction of the figure's height
    fig.text(0.01, 0.012, run.footer(), fontsize=8, color="0.35", ha="left", va="bottom")
    fig.text(0.99, 0.012, "QuietBench %s, %s" % (run.boot.get("build", "?"), os.path.basename(run.source)),
             fontsize=8, color="0.35", ha="right", va="bottom")
    width = int(fig.get_figwidth() * DPI / 5.6)  # characters of 7 pt text across the figure
    lines = [(x, "0.35") for n in notes if n for x in textwrap.wrap(n, width)]
    note = machine.virtual_note(run)
    if note:
        lines += [(x, "C3") for x in textwrap.wrap(note, width)]
    for i, (text, color) in enumerate(reversed(lines), 1):  # stacked upwards: the first line on top
        fig.text(0.01, 0.012 + i * step, text, fontsize=7, color=color, ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.012 + (len(lines) + 1) * step, 1, top))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def errs(f, value=None, factor=1.0):
    """(down, up) error bar lengths for figure f: its quartiles around its median, times factor (a
    slowdown's 100 / base); (0, 0) where it has none. Never below zero."""
    v = f.value if value is None else value
    if f is None or f.value is None or f.q1 is None or f.q3 is None or v is None:
        return 0.0, 0.0
    return max(0.0, (f.value - f.q1) * factor), max(0.0, (f.q3 - f.value) * factor)


def errbar(f, factor=1.0):
    """The error bar argument (yerr or xerr) for one bar of figure f: [[down], [up]], or None where the
    figure has no quartiles (no bar, rather than a bar of nothing)."""
    if f is None or f.q1 is None or f.q3 is None:
        return None
    lo, hi = errs(f, factor=factor)
    return [[lo], [hi]]


def noisy_style(f, color):
    """Bar keyword arguments: solid for a clean figure, hollow and hatched for a noisy one."""
    if f is not None and f.noisy:
        return {"facecolor": "white", "edgecolor": color, "hatch": NOISY_HATCH, "linewidth": 1.2}
    return {"color": color}


def noisy_legend_handle():
    return Patch(facecolor="white", edgecolor="0.3", hatch=NOISY_HATCH, label=NOISY_LABEL)


def spread_is_wide(values, factor=WIDE_SPREAD):
    v = [x for x in values if x and x > 0]
    return bool(v) and max(v) / min(v) > factor


def choose_scale(values):
    """How to draw these positive values: ("linear", None), ("clip", limit) when a few outliers would
    flatten the rest, or ("log", None) when they span orders of magnitude throughout."""
    v = sorted(x for x in values if x is not None and x > 0)
    if not v or v[-1] / v[0] <= WIDE_SPREAD and v[-1] <= CLIP_OVER * v[len(v) // 2]:
        return "linear", None
    mid = v[len(v) // 2]
    out = [x for x in v if x > CLIP_OVER * mid]
    rest = [x for x in v if x <= CLIP_OVER * mid]
    if out and len(out) <= max(1, int(len(v) * CLIP_MAX_SHARE)) and rest and rest[-1] / rest[0] <= WIDE_SPREAD:
        return "clip", rest[-1] * 1.3
    return "log", None


def apply_scale(ax, values, positions, horizontal=False, tops=None, decided=None):
    """Put the value axis on the scale choose_scale picks (or `decided`, for panels that share it):
    from zero, clipped (the clipped ones marked with an arrow and their value) or log (zeros marked).
    `tops` are the ends of the error bars, which a linear axis must hold. Returns the kind."""
    kind, limit = decided or choose_scale(values)
    setlim = ax.set_xlim if horizontal else ax.set_ylim
    if kind == "log":
        (ax.set_xscale if horizontal else ax.set_yscale)("log")
        show_zeros_on_log(ax, positions, values, horizontal)
        return kind
    if kind == "clip":
        setlim(0, limit)
        for p, v in zip(positions, values):
            if v is not None and v > limit:
                mark_clipped(ax, p, v, limit, horizontal)
        return kind
    hi = max([x for x in list(values) + list(tops or []) if x is not None] or [1.0])
    setlim(0, hi * 1.12 if hi > 0 else 1.0)
    return kind


def mark_clipped(ax, pos, value, limit, horizontal):
    """A bar cut at the axis' end: an arrow there and its value beside it."""
    text = sig(value, 3)
    if horizontal:
        ax.plot([limit], [pos], marker=">", color=CLIP_COLOR, clip_on=False, markersize=7)
        ax.text(limit * 0.98, pos, text + " (clipped) ", va="center", ha="right", fontsize=7, color=CLIP_COLOR,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
    else:
        ax.plot([pos], [limit], marker="^", color=CLIP_COLOR, clip_on=False, markersize=7)
        ax.text(pos, limit * 0.97, text + "\n(clipped)", va="top", ha="center", fontsize=7, color=CLIP_COLOR,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})


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


def bar_panel(ax, run, res, name=None, label=lambda r: "%s, %s thr" % (r.get("variant"), r.get("threads"))):
    """Horizontal bars of each result's figure (in its primary measure, or `name`) with quartile bars;
    failed checks red, noisy ones hollow and hatched. Returns the figures drawn."""
    figs = [qbfigure.of(r, run, name) for r in res]
    ys = list(range(len(res)))[::-1]
    vals = [f.value if f is not None else None for f in figs]
    for y, r, f in zip(ys, res, figs):
        if f is None or f.value is None:
            continue
        color = CHECK_COLOR.get(r.get("check"), "C3")
        ax.barh([y], [f.value], xerr=errbar(f), capsize=3, height=0.6, ecolor="0.2", **noisy_style(f, color))
    ax.set_yticks(ys)
    ax.set_yticklabels([label(r) for r in res], fontsize=8 if len(res) < 30 else 6)
    apply_scale(ax, vals, ys, horizontal=True, tops=[f.q3 for f in figs if f is not None])
    ax.grid(True, axis="x", alpha=0.3)
    units = list(dict.fromkeys(f.measure.label for f in figs if f is not None and f.measure))
    ax.set_xlabel(" / ".join(units) or "median", fontsize=9)
    if any(f is not None and f.noisy for f in figs):
        ax.legend(handles=[noisy_legend_handle()], fontsize=7, loc="lower right")
    return figs


def bars(run, res, path, title):
    """Horizontal bars: the figure of each result with its quartiles."""
    fig, ax = plt.subplots(figsize=WIDE)
    bar_panel(ax, run, res)
    ax.set_title(title)
    return finish(fig, run, path)


def plotters():
    from . import plot_counter, plot_matrix, plot_noise, plot_numa, plot_workloads
    return [
        ("counter slowdown", plot_counter.counter_slowdown),
        ("counter pairs", plot_counter.counter_pairs),
        ("matrices", plot_matrix.matrices),
        ("NUMA claims", plot_numa.claims),
        ("locality", plot_workloads.locality),
        ("first-touch iterations", plot_workloads.first_touch_iterations),
        ("first-touch per-page", plot_workloads.first_touch_pages),
        ("first-touch other", plot_workloads.first_touch_other),
        ("flush", plot_workloads.flush),
        ("noise histogram", plot_noise.histogram),
        ("other workloads", plot_workloads.others),
    ]


def plot_all(run, outdir, quiet=False):
    """Run every plotter; print what was written or skipped (unless quiet); return the paths."""
    os.makedirs(outdir, exist_ok=True)
    written = []
    say = (lambda s: None) if quiet else print
    for name, fn in plotters():
        try:
            paths = fn(run, outdir)
        except Skip as e:
            say("plot: skipped %s: %s" % (name, e))
            continue
        for p in paths:
            say("plot: wrote %s" % p)
        written += paths
    if not written:
        say("plot: nothing to plot in %s" % run.source)
    return written
