"""table.py - a run as the text tables people read, shaped like the seed write-ups.

counter gets the seed's "2 = 42023726   (187%)" lists (in ticks per increment,
compact and scatter side by side), the pair classes and the core-to-core
matrix; selftest and every other workload get one generic row per result.
"""
from . import run as qbrun

PAIR_MEANING = {  # README "counter": one packed pair per topology relation
    "pair-smt": "SMT siblings",
    "pair-l2": "same L2",
    "pair-l3": "same L3",
    "pair-package": "same package",
    "pair-remote": "different packages",
}
MATRIX_FULL_MAX = 24  # above this many CPUs the matrix is summarised per row


def num(v, digits=3):
    """A number as the records give it: integers plain, decimals to `digits`."""
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return "%.*f" % (digits, v)
    return "%d" % v


def pct(v):
    return "-" if v is None else "(%.0f%%)" % v


def params_text(p, skip=()):
    return " ".join("%s=%s" % (k, v) for k, v in (p or {}).items() if k not in skip) or "-"


def _numeric(c):
    try:
        float(c.strip("()%"))
        return True
    except ValueError:
        return c == "-"


def grid(header, rows, indent="  ", right=()):
    """Text columns; columns in `right`, or whose cells are all numbers (or "-"), are right-aligned."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    right = [i in right or i > 0 and all(_numeric(str(r[i])) for r in rows) for i in range(len(header))]
    out = []
    for r in [header] + rows:
        cells = [str(c).rjust(widths[i]) if right[i] else str(c).ljust(widths[i]) for i, c in enumerate(r)]
        out.append(indent + "  ".join(cells).rstrip())
    return out


# ---- counter -------------------------------------------------------------------
def counter_cell(r):
    if r is None:
        return "-"
    if r.get("check") == "skipped":
        return "skipped"
    s = "%s %7s" % (num(r.get("ticks_per_increment")), pct(r.get("slowdown_pct")))
    return s + {"ok": "", "overrun": " OVERRUN", "short": " SHORT"}.get(r.get("check"), " FAIL")


def counter_sweep(res):
    """The layouts x threads x placements lists: "  2 =  41.261  (507%)" per cell."""
    sweep = [r for r in res if not str((r.get("params") or {}).get("placement", "")).startswith("pair-")]
    placements, layouts = [], []
    for r in sweep:
        p = (r.get("params") or {}).get("placement", "-")
        if p not in placements:
            placements.append(p)
        if r.get("variant") not in layouts:
            layouts.append(r.get("variant"))
    rows = []
    for lay in layouts:
        mine = [r for r in sweep if r.get("variant") == lay]
        for i, t in enumerate(sorted({r.get("threads") or 0 for r in mine})):
            row = [lay if i == 0 else "", "%d =" % t]
            for p in placements:
                hit = [r for r in mine if r.get("threads") == t and (r.get("params") or {}).get("placement", "-") == p]
                row.append(counter_cell(hit[0] if hit else None))
            rows.append(row)
    return grid(["layout", "threads"] + placements, rows, right=range(1, 2 + len(placements))) + [""] if rows else []


def counter_pairs(res):
    pairs = [r for r in res if str((r.get("params") or {}).get("placement", "")).startswith("pair-")]
    if not pairs:
        return []
    out = ["  pairs (packed layout, 2 threads), by distance in the cache hierarchy:"]
    for r in pairs:
        place = r["params"]["placement"]
        if r.get("check") == "skipped":
            out.append("  %-13s skipped: %s" % (place, r.get("reason", "")))
            continue
        note = "-- %s, CPUs %s" % (PAIR_MEANING.get(place, place), ",".join(str(c) for c in r.get("cpus", [])))
        fail = "" if r.get("check") == "ok" else "  %s: %s" % (
            {"overrun": "OVERRUN", "short": "SHORT"}.get(r.get("check"), "FAIL"), r.get("reason", ""))
        out.append("  %-13s %d = %9s %7s  %s%s" % (place, r.get("threads") or 2, num(r.get("ticks_per_increment")),
                                                  pct(r.get("slowdown_pct")), note, fail))
    out.append("")
    return out


def matrix(m):
    """A core-to-core (or node-to-node) matrix; large ones as one summary row per CPU."""
    labels = m.get("cpus") or m.get("nodes") or list(range(len(m.get("values", []))))
    what = "CPU" if m.get("cpus") else "node"
    vals = m.get("values") or []
    out = ["  %s matrix (%s, %s, %s x %s%s):" % (
        "core-to-core" if what == "CPU" else "node-to-node", m.get("variant"), m.get("unit", "?"),
        len(labels), len(labels), ", check %s" % m["check"] if "check" in m else "")]
    if len(labels) <= MATRIX_FULL_MAX:
        header = [what.lower()] + [str(x) for x in labels]
        rows = [[str(labels[i])] + ["-" if v is None else "%.1f" % v for v in row] for i, row in enumerate(vals)]
        return out + grid(header, rows) + [""]
    rows = []
    for i, row in enumerate(vals):
        xs = sorted(v for v in row if v is not None)
        rows.append([str(labels[i]), num(xs[0], 1) if xs else "-", num(xs[len(xs) // 2], 1) if xs else "-",
                     num(xs[-1], 1) if xs else "-"])
    return out + grid([what.lower(), "min", "median", "max"], rows) + [""]


def counter(run):
    res = run.results("counter")
    out = []
    if res:
        p = res[0].get("params") or {}
        out.append("counter: false sharing, %s increments per thread, %s repetitions, flush=%s"
                   % (p.get("iters", "?"), res[0].get("n", "?"), p.get("flush", "?")))
        out.append("  ticks per increment (slowest thread), slowdown against 1 thread of the same layout")
        out.append("")
        out += counter_sweep(res) + counter_pairs(res) + noise_line(res)
    for m in run.matrices("counter"):
        out += matrix(m)
    return out


# ---- selftest and everything else -------------------------------------------------
def common_params(res):
    """Params with one value in every measured result: said once in the heading, not per row."""
    measured = [r.get("params") or {} for r in res if r.get("check") != "skipped"]
    if len(measured) < 2:
        return {}
    return {k: v for k, v in measured[0].items() if all(p.get(k, object()) == v for p in measured[1:])}


UNSTABLE_CV = 0.05   # a result whose repetitions vary more than this is marked unstable


def checked(r):
    """True when a real noise detector (APERF/MPERF, SMI count, thermal, context
    switches) ran for the result; the TSC going backwards alone checks nothing
    that disturbs a measurement. Records without "detectors" predate it: None."""
    c = r.get("clean")
    if not isinstance(c, dict) or "detectors" not in c:
        return None
    return any(d != "tsc_backwards" for d in c.get("detectors") or [])


def clean_cell(r):
    """Clean repetitions out of all, e.g. "3/3"; "unchecked 3/3" when no real
    detector ran; "-" when the result has no repetition log."""
    c = r.get("clean")
    if not isinstance(c, dict):
        return "-"
    cell = "%s/%s" % (c.get("reps", "?"), r.get("n", "?"))
    return "unchecked " + cell if checked(r) is False else cell


def cv_cell(r):
    """The coefficient of variation, marked unstable past UNSTABLE_CV."""
    cv = r.get("cv")
    if cv is None:
        return "-"
    return "%.4f%s" % (cv, " unstable" if cv > UNSTABLE_CV else "")


def noise_line(res):
    """One line per workload: how many repetitions were clean, what flagged the others,
    and which noise sources were unavailable."""
    clean = flagged = unchecked = 0
    flags, unavailable = set(), set()
    for r in res:
        c = r.get("clean")
        if isinstance(c, dict):
            if checked(r) is False:
                unchecked += c.get("reps", 0)
            else:
                clean += c.get("reps", 0)
            flagged += c.get("flagged", 0)
        n = r.get("noise")
        if isinstance(n, dict):
            flags.update(n.get("flags") or [])
            unavailable.update(k for k, v in n.items() if v == "unavailable")
        if r.get("counters") == "unavailable":
            unavailable.add("counters")
    if not clean and not flagged and not unchecked:
        return []
    line = "  repetitions: %d clean, %d flagged" % (clean, flagged)
    if flags:
        line += " (%s)" % ", ".join(sorted(flags))
    if unchecked:
        line += ", %d unchecked (no noise detector ran)" % unchecked
    unstable = sum(1 for r in res if (r.get("cv") or 0) > UNSTABLE_CV)
    if unstable:
        line += "; %d result(s) unstable (cv > %g)" % (unstable, UNSTABLE_CV)
    if unavailable:
        line += "; unavailable: %s" % ", ".join(sorted(unavailable))
    return [line]


def generic(run, wl):
    res = run.results(wl)
    out = []
    if res:
        unit = next((r.get("unit") for r in res if r.get("unit")), "ticks")
        common = common_params(res)
        per_inc = any("ticks_per_increment" in r for r in res)
        per_iter = any(isinstance(r.get("iteration_ticks"), list) for r in res)  # first-touch
        per_flush = any("flush_ticks" in r for r in res)  # flush: the flush's own cost and how cold it left the set
        header = ["variant", "threads", "params", "median " + unit, "min", "max", "cv", "clean"]
        header += ["ticks/inc"] if per_inc else []
        header += ["per iteration"] if per_iter else []
        header += ["flush ticks", "cold %"] if per_flush else []
        header += ["check"]
        rows = []
        for r in res:
            row = [r.get("variant", "-"), num(r.get("threads")), params_text(r.get("params"), common),
                   num(r.get("median"), 1), num(r.get("min"), 1), num(r.get("max"), 1),
                   cv_cell(r), clean_cell(r)]
            row += [num(r.get("ticks_per_increment"))] if per_inc else []
            row += [" ".join(num(x, 1) for x in r.get("iteration_ticks") or []) or "-"] if per_iter else []
            row += [num(r.get("flush_ticks"), 1), num(r.get("cold_pct"), 1)] if per_flush else []
            check = r.get("check", "-")
            row.append(check + (": " + r["reason"] if r.get("reason") else ""))
            rows.append(row)
        out.append("%s: %d result(s)%s" % (wl, len(res), ", all with " + params_text(common) if common else ""))
        out += grid(header, rows) + noise_line(res)
        notes = [r for r in res if r.get("cold_pct") is None and r.get("cold_pct_note")]
        out += ["  cold %% of %s: %s" % (r.get("variant", "-"), r["cold_pct_note"]) for r in notes]
        out += [""]
    for m in run.matrices(wl):
        out += matrix(m)
    return out


def render(run):
    """The whole run as text lines."""
    b = run.boot
    out = [run.machine_line()]
    if run.lava_job:
        out.append("run: LAVA job %s from %s, a result export: medians in ns only; no build, command line, "
                   "records or error records in it" % (run.lava_job["id"], run.source))
    elif b:
        out.append("run: build %s, cmdline \"%s\", log %s" % (b.get("build", "?"), b.get("cmdline", ""), run.source))
    out.append("")
    for e in run.of_kind("error"):
        ctx = ", ".join("%s=%s" % (k, v) for k, v in e.items() if k not in ("v", "kind", "what"))
        out.append("error (line %d): %s: %s" % (e.line, e.get("what", "?"), ctx))
    if run.of_kind("error"):
        out.append("")
    for wl in run.workloads():
        out += counter(run) if wl == "counter" else generic(run, wl)
    d = run.done
    if run.lava_job:
        out.append("done: no done record in a LAVA result export; LAVA's job test case: %s" % run.lava_job["result"])
        out += ["problem: %s" % qbrun.describe(p) for p in run.problems]
        return out
    if d is None:
        out.append("done: MISSING - the run is incomplete")
    else:
        out.append("done: %s%s, %s records, %s errors, %s ms" % (
            d.get("status"), " (%s)" % d["reason"] if d.get("reason") else "", qbrun.fmt_none(d.get("records")),
            qbrun.fmt_none(d.get("errors")), qbrun.fmt_none(d.get("elapsed_ms"))))
    if run.problems:
        out.append("damaged: %d problem(s), see qb parse" % len(run.problems))
    return out
