"""table_counter.py - the counter workload as text (qb table): the layouts x threads x placements sweep,
the pairs by distance in the cache hierarchy, and the core-to-core (or node-to-node) matrices.

Each cell is the result's figure in ns per increment (the slowest thread's), with the noisy mark,
and in brackets its slowdown: the figure against the figure of 1 thread of the same layout, compact
(a pair's against packed, 1 thread, compact).
"""
from . import figure as qbfigure
from . import match
from . import measure as qbmeasure
from .text import grid, pct, sig

PAIR_MEANING = {  # README "counter": one packed pair per topology relation
    "pair-smt": "SMT siblings",
    "pair-l2": "same L2",
    "pair-l3": "same L3",
    "pair-package": "same package",
    "pair-remote": "different packages",
}
MATRIX_FULL_MAX = 24  # above this many CPUs the matrix is summarised per row
CHECK_NOTE = {"ok": "", "overrun": " OVERRUN", "short": " SHORT"}


def placement(r):
    return str((r.get("params") or {}).get("placement", "-"))


def is_pair(r):
    return placement(r).startswith("pair-")


def base_figure(res, r, run, ticks=False):
    """The figure of 1 thread of r's layout (a pair's: packed), compact (else the first 1-thread
    placement), or None."""
    layout = "packed" if is_pair(r) else r.get("variant")
    ones = [x for x in res if x.get("variant") == layout and x.get("threads") == 1 and not is_pair(x)
            and x.get("check") != "skipped"]
    ones.sort(key=lambda x: placement(x) != "compact")
    return qbfigure.of(ones[0], run, ticks=ticks) if ones else None


def slowdown(res, r, run, f, ticks=False):
    """The slowdown in percent of r's figure f against its layout's 1-thread figure (compact); a pair's
    against packed, 1 thread, compact: figures against figures, clean first."""
    b = base_figure(res, r, run, ticks)
    if b is None or not b.value or f.value is None:
        return None
    return 100.0 * f.value / b.value


def cell(res, r, run, ticks=False):
    if r is None:
        return "-"
    if r.get("check") == "skipped":
        return "skipped"
    f = qbfigure.of(r, run, ticks=ticks)
    s = "%s%s %7s" % (sig(f.value), f.mark or " ", pct(slowdown(res, r, run, f, ticks)))
    return s + CHECK_NOTE.get(r.get("check"), " FAIL")


def sweep(run, res, ticks=False):
    """The layouts x threads x placements lists: a row per layout and thread count, a column per placement."""
    rows_in = [r for r in res if not is_pair(r)]
    placements, layouts = [], []
    for r in rows_in:
        for p in match.placements(r):
            if p not in placements:
                placements.append(p or "-")
        if r.get("variant") not in layouts:
            layouts.append(r.get("variant"))
    rows = []
    for lay in layouts:
        mine = [r for r in rows_in if r.get("variant") == lay]
        for i, t in enumerate(sorted({r.get("threads") or 0 for r in mine})):
            row = [lay if i == 0 else "", str(t)]
            for p in placements:
                hit = [r for r in mine if r.get("threads") == t and p in match.placements(r)]
                row.append(cell(res, hit[0] if hit else None, run, ticks))
            rows.append(row)
    same = sorted({" = ".join(match.placements(r)) for r in rows_in if len(match.placements(r)) > 1})
    notes = ["  %s on this machine (the same CPUs): one run stands for both" % x for x in same]
    return grid(["layout", "threads"] + placements, rows, right=range(1, 2 + len(placements))) + notes + [""] \
        if rows else []


def pairs(run, res, ticks=False):
    ps = [r for r in res if is_pair(r)]
    if not ps:
        return []
    out = ["  pairs (packed layout, 2 threads), by distance in the cache hierarchy; slowdown against packed, 1 thread:"]
    for r in ps:
        place = placement(r)
        if r.get("check") == "skipped":
            out.append("  %-13s skipped: %s" % (place, r.get("reason", "")))
            continue
        f = qbfigure.of(r, run, ticks=ticks)
        note = "-- %s, CPUs %s" % (PAIR_MEANING.get(place, place), ",".join(str(c) for c in r.get("cpus", [])))
        fail = "" if r.get("check") == "ok" else "  %s: %s" % (
            {"overrun": "OVERRUN", "short": "SHORT"}.get(r.get("check"), "FAIL"), r.get("reason", ""))
        out.append("  %-13s %9s%s %7s  %s%s" % (place, sig(f.value), f.mark or " ",
                                                pct(slowdown(res, r, run, f, ticks)), note, fail))
    out.append("")
    return out


def matrix(m, run):
    """A core-to-core (or node-to-node) matrix in ns (GB/s) where the TSC frequency is known; large ones
    as one summary row per CPU."""
    labels = m.get("cpus") or m.get("nodes") or list(range(len(m.get("values", []))))
    what = "CPU" if m.get("cpus") else "node"
    # first-touch's columns are its targets (memory nodes, and specific-purpose memory): named in full below
    cols = [str(t.get("node")) + ("sp" if t.get("memory") == "specific-purpose" else "")
            for t in m.get("targets") or [] if isinstance(t, dict)] or [str(x) for x in labels]
    unit, k = qbmeasure.matrix_unit(m, run)
    vals = [[None if v is None else v * k for v in row] for row in (m.get("values") or [])]
    out = ["  %s matrix (%s, %s, %s x %s%s):" % (
        "core-to-core" if what == "CPU" else "node-to-memory", m.get("variant"), unit,
        len(labels), len(cols), ", check %s" % m["check"] if "check" in m else "")]
    named = [t for t in m.get("targets") or [] if isinstance(t, dict)]
    if named:
        out.append("  columns: " + "; ".join(
            "%s = %s%s" % (c, t.get("name"), ", not measured: %s" % t["why"] if t.get("why") else "")
            for c, t in zip(cols, named)))
    if len(labels) <= MATRIX_FULL_MAX and len(cols) <= MATRIX_FULL_MAX:
        header = [what.lower()] + cols
        rows = [[str(labels[i])] + ["-" if v is None else sig(v, 3) for v in row] for i, row in enumerate(vals)]
        return out + grid(header, rows) + [""]
    rows = []
    for i, row in enumerate(vals):
        xs = sorted(v for v in row if v is not None)
        rows.append([str(labels[i]), sig(xs[0], 3) if xs else "-", sig(xs[len(xs) // 2], 3) if xs else "-",
                     sig(xs[-1], 3) if xs else "-"])
    return out + grid([what.lower(), "min", "median", "max"], rows) + [""]


def section(run, noise_line, ticks=False):
    res = run.results("counter")
    out = []
    if res:
        p = next((r.get("params") for r in res if (r.get("params") or {}).get("iters")), None) or {}
        measured = next((r for r in res if r.get("check") != "skipped"), None)
        m = qbmeasure.primary(measured, run, ticks) if measured else None
        out.append("counter: false sharing, %s increments per thread, %s repetitions, flush=%s"
                   % (p.get("iters", "?"), measured.get("n", "?") if measured else "?", p.get("flush", "?")))
        out.append("  %s; in brackets the slowdown against 1 thread of the same layout (compact)"
                   % (m.label if m else "ns per increment"))
        out.append("")
        out += sweep(run, res, ticks) + pairs(run, res, ticks) + noise_line(res, run)
    for mx in run.matrices("counter"):
        out += matrix(mx, run)
    return out
