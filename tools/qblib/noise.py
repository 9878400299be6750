"""noise.py - the noise workload in words: how quiet each CPU was (qb table, compare, report).

The workload (`noise`, variant `tsc-gaps`; docs/records.md) spins on every online CPU reading the TSC
and keeps every gap between two reads above a threshold. Its result carries `gaps`: the run length per
CPU, the thresholds, the number of gaps, the time lost per second in parts per million (the mean over
CPUs and the worst CPU's), the longest gap with its CPU and time, the gaps above the attribution
threshold attributed where the platform counts them (SMIs, interrupts, context switches, migrations,
faults, unexplained) and a histogram merged over the CPUs. Per-CPU `noise_cpu` records are not read
here. Runs of a side are summed up as the median of their figures (the longest gap: the longest).
"""
import numpy as np

from .text import grid, sig

WORKLOAD = "noise"
ATTRIBUTED = ("smi", "interrupts", "context_switches", "migrations", "faults", "unexplained")
ATTR_NAMES = {"smi": ("SMI", "SMIs"), "interrupts": ("interrupt", "interrupts"),
              "context_switches": ("context switch", "context switches"), "migrations": ("migration", "migrations"),
              "faults": ("fault", "faults"), "unexplained": ("unexplained", "unexplained")}
NONE_HERE = "no noise workload in these runs"


def results(run):
    """The run's noise results that measured (a `gaps` object), in order."""
    return [r for r in run.results(WORKLOAD) if isinstance(r.get("gaps"), dict)]


def first(run):
    got = results(run)
    return got[0] if got else None


def skipped(run):
    """The noise results that did not measure, with why: ["skipped: reason"]."""
    return ["%s: %s" % (r.get("check", "-"), r.get("reason") or "no gaps object")
            for r in run.results(WORKLOAD) if not isinstance(r.get("gaps"), dict)]


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def duration(ns):
    """ns as people read a gap: "850 ns", "2.1 us", "180 us", "3.2 ms", "1.2 s"."""
    if ns is None:
        return "-"
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if ns >= div:
            return "%s %s" % (sig(ns / div, 3), unit)
    return "%s ns" % sig(ns, 3)


def ppm(v):
    """Parts per million with thousands separated: "0.41", "1,800"."""
    if v is None:
        return "-"
    if v >= 1000:
        return "{:,}".format(int(round(v)))
    return sig(v, 2 if v < 10 else 3)


def count(v):
    return "-" if v is None else "{:,}".format(int(v))


def longest(g):
    """"2.1 us (CPU 1 at 0.31 s)"."""
    ns = _num(g.get("longest_ns"))
    if ns is None:
        return "-"
    where = []
    if g.get("longest_cpu") is not None:
        where.append("CPU %s" % g["longest_cpu"])
    if _num(g.get("longest_at_s")) is not None:
        where.append("at %s s" % sig(g["longest_at_s"], 2))
    return duration(ns) + (" (%s)" % " ".join(where) if where else "")


def attributed_text(att):
    """"3 SMIs, 2 unexplained" (every key the platform counts, in a fixed order), or ""."""
    if not isinstance(att, dict):
        return ""
    keys = [k for k in ATTRIBUTED if k in att] + sorted(k for k in att if k not in ATTRIBUTED)
    out = []
    for k in keys:
        n = _num(att[k])
        one, many = ATTR_NAMES.get(k, (k.replace("_", " "), k.replace("_", " ")))
        out.append("%s %s" % (count(n), one if n == 1 else many))
    return ", ".join(out)


def line(r):
    """One result as the serial line has it, with what it rests on: "noise: 0.41 ppm (worst CPU 0.9),
    longest gap 2.1 us (CPU 1 at 0.31 s); 12 gaps in 1 s on 2 CPUs: 3 SMIs, 9 unexplained"."""
    g = r.get("gaps") or {}
    out = "noise: %s ppm (worst CPU %s), longest gap %s" % (ppm(_num(g.get("ppm_mean"))),
                                                           ppm(_num(g.get("ppm_max"))), longest(g))
    cpus = r.get("cpus") if isinstance(r.get("cpus"), list) else None
    n = len(cpus) if cpus else r.get("threads")
    out += "; %s gap%s in %s s on %s CPU%s" % (count(_num(g.get("count"))), "" if g.get("count") == 1 else "s",
                                             sig(_num(g.get("seconds")), 3), n if n else "?", "" if n == 1 else "s")
    att = attributed_text(g.get("attributed"))
    return out + (": " + att if att else "") + ("" if r.get("check") in (None, "ok") else " [%s]" % r["check"])


def thresholds(r):
    """"gaps over 120 ns counted (loop minimum 30 ticks), over 1 us attributed"."""
    g = r.get("gaps") or {}
    parts = []
    if _num(g.get("threshold_ns")) is not None:
        parts.append("gaps over %s counted" % duration(g["threshold_ns"]) +
                     (" (loop minimum %s ticks)" % g["loop_min_ticks"] if g.get("loop_min_ticks") is not None else ""))
    if _num(g.get("attribute_ns")) is not None:
        parts.append("over %s attributed" % duration(g["attribute_ns"]))
    return ", ".join(parts)


def table_lines(run):
    """qb table's noise lines: one per noise result, its thresholds below it."""
    out = []
    for r in results(run):
        out.append("  " + line(r))
        t = thresholds(r)
        if t:
            out.append("    " + t)
    return out


def _median(vals):
    v = [x for x in vals if x is not None]
    return float(np.median(v)) if v else None


def _spread(vals, fmt):
    """"0.41" for one run, "0.41 (0.3-0.6 over 5 runs)" for several."""
    v = [x for x in vals if x is not None]
    if not v:
        return "-"
    if len(v) == 1:
        return fmt(v[0])
    return "%s (%s-%s over %d runs)" % (fmt(float(np.median(v))), fmt(min(v)), fmt(max(v)), len(v))


def side_ppm(runs):
    """The ppm_mean of a side: the median over its runs' noise results, or None."""
    return _median([_num((r.get("gaps") or {}).get("ppm_mean")) for run in runs for r in results(run)[:1]])


def side_ppm_text(runs):
    vals = [_num((r.get("gaps") or {}).get("ppm_mean")) for run in runs for r in results(run)[:1]]
    return _spread(vals, ppm) if any(v is not None for v in vals) else "-"


def side_by_side(sides):
    """The noise of each side (a list of (name, runs)) in columns: ppm, longest gap, gaps and what each
    platform attributed them to; [] when no side ran the noise workload."""
    per = [[results(run)[0] for run in runs if results(run)] for _, runs in sides]
    if not any(per):
        return []

    def row(title, f, fmt):
        return [title] + [_spread([f(r) for r in rs], fmt) if rs else "not run" for rs in per]

    def gap(r):
        return r.get("gaps") or {}
    rows = [row("ppm lost, mean of CPUs", lambda r: _num(gap(r).get("ppm_mean")), ppm),
            row("ppm lost, worst CPU", lambda r: _num(gap(r).get("ppm_max")), ppm)]
    longest_cells = []
    for rs in per:
        if not rs:
            longest_cells.append("not run")
            continue
        worst = max(rs, key=lambda r: _num(gap(r).get("longest_ns")) or -1)
        longest_cells.append(longest(gap(worst)) + (" (the longest of %d runs)" % len(rs) if len(rs) > 1 else ""))
    rows.append(["longest gap"] + longest_cells)
    rows.append(row("gaps", lambda r: _num(gap(r).get("count")), count))
    keys = []
    for rs in per:
        for r in rs:
            att = gap(r).get("attributed")
            keys += [k for k in (att if isinstance(att, dict) else {}) if k not in keys]
    keys = [k for k in ATTRIBUTED if k in keys] + [k for k in keys if k not in ATTRIBUTED]
    for k in keys:
        cells = []
        for rs in per:
            vals = [_num((gap(r).get("attributed") or {}).get(k)) for r in rs]
            if not rs:
                cells.append("not run")
            elif all(v is None for v in vals):
                cells.append("not counted here")
            else:
                cells.append(_spread(vals, count))
        rows.append(["  attributed: " + ATTR_NAMES.get(k, (k, k))[1]] + cells)
    rows.append(row("loop seconds per CPU", lambda r: _num(gap(r).get("seconds")), lambda v: sig(v, 3)))
    def over(r, key, loop):
        ns = _num(gap(r).get(key))
        if ns is None:
            return "-"
        return duration(ns) + (" (loop minimum %s ticks)" % gap(r)["loop_min_ticks"]
                               if loop and gap(r).get("loop_min_ticks") is not None else "")
    rows.append(["gaps counted over"] + [over(rs[0], "threshold_ns", True) if rs else "not run" for rs in per])
    rows.append(["attributed over"] + [over(rs[0], "attribute_ns", False) if rs else "not run" for rs in per])
    head = ["noise workload"] + [name for name, _ in sides]
    return ["noise: gaps in a loop reading the TSC on every CPU (the noise workload), time lost in parts per "
            "million"] + grid(head, rows, right=()) + [""]
