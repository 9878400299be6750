"""plot_matrix.py - heat maps of the matrix records: counter's core-to-core cost of a packed pair (with the
package, L3 and core boundaries drawn from the cpu and cache records) and first-touch's node-to-node
latency and bandwidth, in ns or GB/s where the TSC frequency is known."""
import math
import os

from . import measure as qbmeasure
from . import numa_claims
from .plot import SQUARE, Skip, finish, plt

MATRIX_TITLES = {
    ("counter", "packed"): "counter: core-to-core cost of a packed pair",
    ("first-touch", "numa-latency"): "first-touch: NUMA latency, CPU node to memory",
    ("first-touch", "numa-bandwidth"): "first-touch: NUMA bandwidth, CPU node to memory",
}


CLIP_PCT = (2, 98)  # heat-map colour scale: percentiles, so one outlier does not flatten the rest
ANNOTATE_MAX = 12  # heat maps up to this size get their values written in the cells


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
        unit, k = qbmeasure.matrix_unit(m, run)
        vals = np.array([[np.nan if v is None else float(v) * k for v in row] for row in m["values"]])
        finite = vals[np.isfinite(vals)]
        fig, ax = plt.subplots(figsize=SQUARE)
        cmap = plt.get_cmap("viridis").copy()
        cmap.set_bad("0.85")
        vmin, vmax = (np.percentile(finite, CLIP_PCT[0]), np.percentile(finite, CLIP_PCT[1])) \
            if finite.size >= 8 else (finite.min() if finite.size else 0, finite.max() if finite.size else 1)
        if vmax <= vmin:
            vmin, vmax = (finite.min(), finite.max()) if finite.size else (0, 1)
        im = ax.imshow(vals, cmap=cmap, interpolation="nearest", vmin=vmin, vmax=vmax)
        high = np.argwhere(np.isfinite(vals) & (vals > vmax))
        low = np.argwhere(np.isfinite(vals) & (vals < vmin))
        clipped = len(high) + len(low)
        fig.colorbar(im, ax=ax, label=unit, extend="both" if clipped else "neither")
        n = len(labels)
        cols = numa_claims.target_names(m) if numa and m.get("targets") else [str(x) for x in labels]
        step = max(1, math.ceil(max(n, len(cols)) / 32))
        ax.set_xticks(range(0, len(cols), step))
        named = numa and m.get("targets")
        ax.set_xticklabels(cols[::step], fontsize=8, rotation=30 if named else 90 if len(cols) > 16 else 0,
                           ha="right" if named else "center")
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
            ax.set_xlabel("memory (a null column's reason is in the matrix record's targets)")
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
        out.append(finish(fig, run, os.path.join(outdir, "%s-matrix-%s.png" % (wl, var)), top=top, notes=()))
    return out


