"""plot_numa.py - first-touch's NUMA latency measured against the firmware's claim (numa_claims.py): a heat map of
measured / claimed for each CPU node and memory target, on a log scale centred on 1 (blue: faster than claimed,
red: slower), each cell with both values in ns, and the pairs more than 2x off the claim outlined and counted in
the title. The verdict (a finding about the machine, not an error of the run) is the caption."""
import math
import os

from . import numa_claims
from .plot import SQUARE, Skip, finish, plt

ANNOTATE_MAX = 12  # cells get their measured/claimed values written up to this many rows and columns


def claims(run, outdir):
    import numpy as np
    from matplotlib.colors import LogNorm
    from matplotlib.patches import Rectangle
    lat, _ = numa_claims.matrices(run)
    if lat is None or not numa_claims.has_claims(lat):
        raise Skip("no NUMA matrix with the firmware's latency claims")
    pairs = numa_claims.latency_pairs(lat)
    rows = [r for r in lat.get("nodes") or [] if any(p["row"] == r for p in pairs)]  # CPU-less rows: none
    cols = numa_claims.target_names(lat)
    ratio = np.full((len(rows), len(cols)), np.nan)
    cell = {}
    for p in pairs:
        i, j = rows.index(p["row"]), cols.index(p["target"])
        cell[(i, j)] = p
        if p["ratio"] is not None:
            ratio[i, j] = p["ratio"]
    finite = ratio[np.isfinite(ratio)]
    span = max(4.0, float(np.nanmax(np.maximum(finite, 1 / finite)))) if finite.size else 4.0
    fig, ax = plt.subplots(figsize=SQUARE)
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("0.85")
    im = ax.imshow(ratio, cmap=cmap, norm=LogNorm(vmin=1 / span, vmax=span), interpolation="nearest")
    bar = fig.colorbar(im, ax=ax, label="measured / claimed latency (log scale; 1: as claimed)")
    ticks = [t for t in (0.1, 0.25, 0.5, 1, 2, 4, 10) if 1 / span <= t <= span]
    bar.set_ticks(ticks)
    bar.set_ticklabels(["%g" % t for t in ticks])
    small = len(rows) <= ANNOTATE_MAX and len(cols) <= ANNOTATE_MAX
    for (i, j), p in cell.items():
        if p["off"]:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2.2))
        if small:
            txt = "%s\n%s" % ("-" if p["measured_ns"] is None else "%.0f" % p["measured_ns"],
                              "-" if p["claimed_ns"] is None else "(%.0f)" % p["claimed_ns"])
            dark = p["ratio"] is not None and abs(math.log(p["ratio"])) > 0.6 * math.log(span)
            ax.text(j, i, txt, ha="center", va="center", fontsize=7, color="white" if dark else "black")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, fontsize=8, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["CPU on node %s" % r for r in rows], fontsize=8)
    n_off = len(numa_claims.findings(lat))
    fig.suptitle("first-touch: NUMA latency measured against the firmware's claim (HMAT %s)"
                 % (lat.get("claim") or "latency"), fontsize=11, y=0.99)
    ax.set_title("cells: measured ns, (claimed ns); outlined: more than %gx off the claim (%d pair%s)"
                 % (numa_claims.OFF_FACTOR, n_off, "" if n_off == 1 else "s"), fontsize=8, color="0.3")
    compared = sum(1 for p in pairs if p["ratio"] is not None)
    verdict = ("%d of %d pairs more than %gx off the firmware's latency claim: %s" % (
        n_off, compared, numa_claims.OFF_FACTOR, numa_claims.FINDING) if n_off else
        "all %d pairs within %gx of the firmware's latency claims" % (compared, numa_claims.OFF_FACTOR))
    return [finish(fig, run, os.path.join(outdir, "first-touch-numa-claims.png"), top=0.96, notes=(verdict,))]
