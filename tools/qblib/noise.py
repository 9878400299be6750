"""noise.py - the noise workload in words: how quiet each CPU was (qb table, compare, report).

The workload (`noise`, variant `tsc-gaps`; docs/records.md) spins on every online CPU reading the TSC
and keeps every gap between two reads above each CPU's own threshold. Its result carries `gaps`: the run
length per CPU, the thresholds, the number of gaps, the time lost in parts per million - the headline
`ppm`, every CPU's ticks lost over every CPU's ticks observed (pooled), with the mean of the CPUs' own
ratios and the worst CPU's beside it -, rtla's thresholds (`over_1us`, `over_5us`: gaps of 1 us and
5 us or more, their whole lengths, as rtla's hwnoise sums them), the bookkeeping after each gap (its
calibrated cost, and the stalls in it counted as gaps), the longest gap with its CPU and time, the gaps
above the attribution threshold attributed where the platform counts them (SMIs, interrupts, context
switches, migrations, faults, unexplained) and what that count means (`attribution_window`), and a
histogram merged over the CPUs. Records before the pooled figure and rtla's thresholds lack them: their
views say "not recorded", never a figure made up from the mean. Per-CPU `noise_cpu` records are not read
here. Runs of a side are summed up as the median of their figures (the longest gap: the longest).
Under a hypervisor the noise is the host's too, and under QEMU's TCG the host's and the emulator's: the
lines say whose it is (whose()).
"""
import numpy as np

from . import machine
from .text import grid, sig

WORKLOAD = "noise"
ATTRIBUTED = ("smi", "interrupts", "context_switches", "migrations", "faults", "unexplained")
ATTR_NAMES = {"smi": ("SMI", "SMIs"), "interrupts": ("interrupt", "interrupts"),
              "context_switches": ("context switch", "context switches"), "migrations": ("migration", "migrations"),
              "faults": ("fault", "faults"), "unexplained": ("unexplained", "unexplained")}
NONE_HERE = "no noise workload in these runs"
OVER = (("over_1us", "1 us"), ("over_5us", "5 us"))  # rtla's thresholds, as the records name them
NOT_RECORDED = "not recorded"
EMULATOR = "QEMU TCG"  # the hypervisor name of an emulator: its vCPUs are host threads
TESTED_OVER = "CPUs"  # what qb compare tests the noise pair over with fewer than 3 runs a side
PAIR_MEANS = ("ppm: all CPUs pooled (with several runs, the median of the runs' pooled ppm); tested over each side's "
              "CPUs' own ppm (CPUs p=) with fewer than 3 runs a side, over the runs' pooled ppm (Welch, one value a "
              "run) with 3 or more")
POOLED_MEANS = ("the ppm above: all CPUs pooled (their ticks lost over their ticks observed); q1-q3 and cv over the "
                "CPUs' own ppm")


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


def pooled(r):
    """The headline: the record's pooled ppm (gaps.ppm), or None (nothing observed, or a record before it)."""
    return _num((r.get("gaps") or {}).get("ppm"))


def has_pooled(r):
    return "ppm" in (r.get("gaps") or {})


def whose(run):
    """Whose noise a run saw, or None on bare metal: "the host's and the emulator's, not a machine's" under
    QEMU's TCG, "under KVM, the host's too" under a hypervisor."""
    hv = machine.hypervisor(run) if run is not None else None
    if hv is None:
        return None
    if hv == EMULATOR:
        return "the host's and the emulator's, not a machine's"
    return "under %s, the host's too" % ("a hypervisor" if hv == "unnamed" else hv)


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


def headline(r):
    """"0.41 ppm pooled (mean of CPUs 0.4, worst CPU 0.9)"; a record before the pooled figure: "- ppm pooled (not
    recorded; mean of CPUs 0.41, worst CPU 0.9)"."""
    g = r.get("gaps") or {}
    rest = "mean of CPUs %s, worst CPU %s" % (ppm(_num(g.get("ppm_mean"))), ppm(_num(g.get("ppm_max"))))
    if not has_pooled(r):
        return "- ppm pooled (%s; %s)" % (NOT_RECORDED, rest)
    return "%s ppm pooled (%s)" % (ppm(pooled(r)), rest)


def line(r, run=None):
    """One result as the serial line has it, with what it rests on: "noise: 0.41 ppm pooled (mean of CPUs 0.4,
    worst CPU 0.9), longest gap 2.1 us (CPU 1 at 0.31 s); 12 gaps in 1 s on 2 CPUs: 3 SMIs, 9 unexplained";
    "noise (the host's and the emulator's, not a machine's): ..." under QEMU's TCG."""
    g = r.get("gaps") or {}
    who = whose(run)
    out = "noise%s: %s, longest gap %s" % (" (%s)" % who if who else "", headline(r), longest(g))
    cpus = r.get("cpus") if isinstance(r.get("cpus"), list) else None
    n = len(cpus) if cpus else r.get("threads")
    out += "; %s gap%s in %s s on %s CPU%s" % (count(_num(g.get("count"))), "" if g.get("count") == 1 else "s",
                                             sig(_num(g.get("seconds")), 3), n if n else "?", "" if n == 1 else "s")
    att = attributed_text(g.get("attributed"))
    return out + (": " + att if att else "") + ("" if r.get("check") in (None, "ok") else " [%s]" % r["check"])


def over_cells(g, key):
    """rtla's threshold `key` of a gaps object: (gaps, ppm, longest) as text; "not recorded" for a record before
    it, "unknown" where the record says null (no TSC frequency)."""
    if key not in g:
        return (NOT_RECORDED,) * 3
    o = g[key]
    if not isinstance(o, dict):
        return ("unknown",) * 3
    ns = _num(o.get("longest_ns"))
    return count(_num(o.get("count"))), ppm(_num(o.get("ppm"))), duration(ns) if ns is not None else "none"


def over_text(r):
    """">= 1 us: 3 gaps, 0.12 ppm, longest 2.1 us; >= 5 us: 0 gaps, 0 ppm, longest none" (rtla's thresholds,
    every CPU pooled, whole gaps), or what the record says instead."""
    g = r.get("gaps") or {}
    if all(k not in g for k, _ in OVER):
        return "rtla's thresholds (1 us, 5 us): %s (a record before them)" % NOT_RECORDED
    if all(not isinstance(g.get(k), dict) for k, _ in OVER):
        return "rtla's thresholds (1 us, 5 us): unknown: %s" % (g.get("over_note") or "null")
    parts = []
    for key, name in OVER:
        n, p, lg = over_cells(g, key)
        parts.append(">= %s: %s gap%s, %s ppm, longest %s" % (name, n, "" if n == "1" else "s", p, lg))
    return "rtla's thresholds, whole gaps pooled: " + "; ".join(parts)


def thresholds(r):
    """"gaps over 120 ns counted (loop minimum 30 ticks), over 1 us attributed"; with each CPU's own base: "gaps
    over 80.2 ns counted (4 x each CPU's own loop minimum, 42 ticks), over 1 us attributed"."""
    g = r.get("gaps") or {}
    parts = []
    if _num(g.get("threshold_ns")) is not None:
        lo, hi = g.get("loop_min_ticks"), g.get("loop_min_ticks_max")
        if "loop_min_ticks_max" not in g:  # a record before each CPU had its own
            loop = " (loop minimum %s ticks)" % lo if lo is not None else ""
            parts.append("gaps over %s counted%s" % (duration(g["threshold_ns"]), loop))
        else:
            span = duration(g["threshold_ns"])
            if _num(g.get("threshold_ns_max")) is not None and g.get("threshold_ns_max") != g["threshold_ns"]:
                span += " to " + duration(g["threshold_ns_max"])
            ticks = "%s ticks" % lo if lo == hi else "%s to %s ticks" % (lo, hi)
            parts.append("gaps over %s counted (4 x each CPU's own loop minimum, %s)" % (span, ticks))
    if _num(g.get("attribute_ns")) is not None:
        parts.append("over %s attributed" % duration(g["attribute_ns"]))
    return ", ".join(parts)


def bookkeeping_text(r):
    """"bookkeeping after each gap 1.2 us to 1.4 us a CPU (left out of the time observed); 475 stalls in it counted
    as gaps, 2.44 ms lost", or "" for a record before it."""
    b = (r.get("gaps") or {}).get("bookkeeping")
    if not isinstance(b, dict):
        return ""
    lo, hi = _num(b.get("cost_ns_min")), _num(b.get("cost_ns_max"))
    cost = duration(lo) if lo == hi else "%s to %s" % (duration(lo), duration(hi))
    stall_s = _num(b.get("stall_lost_s"))
    return ("bookkeeping after each gap %s a CPU (its calibrated cost, left out of the time observed); %s stall%s in "
            "it counted as gaps, %s lost" % (cost, count(_num(b.get("stalls"))), "" if b.get("stalls") == 1 else "s",
                                             duration(stall_s * 1e9 if stall_s is not None else None)))


def window_text(r):
    """What an attributed gap's count means: the record's attribution_window, or the older records' rule."""
    g = r.get("gaps") or {}
    if "attribution_window" in g:
        return "attributed: " + str(g["attribution_window"])
    return "attributed: whatever counter moved since its last read (a record before attribution_window)"


def table_lines(run):
    """qb table's noise lines: one per noise result, then rtla's thresholds, the thresholds, the bookkeeping and
    what the attribution means below it."""
    out = []
    for r in results(run):
        out.append("  " + line(r, run))
        out += ["    " + t for t in (over_text(r), thresholds(r), bookkeeping_text(r), window_text(r)) if t]
        if has_pooled(r):
            out.append("    " + POOLED_MEANS)
    return out


def pair_note(fa, fb):
    """qb compare's note on a noise pair whose sides' figures are not the same statistic: a record before the
    pooled ppm has its CPUs' median instead (figure.Figure.pooled); None when they are alike."""
    old = [n for n, f in (("A", fa), ("B", fb)) if any(not x.pooled for x in f.figs if x.value is not None)]
    new = [f for f in (fa, fb) if any(x.pooled for x in f.figs)]
    if old and new:
        return "%s: the median of its CPUs' ppm, a record before the pooled ppm" % "+".join(old)
    return None


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


def _firsts(runs):
    return [r for run in runs for r in results(run)[:1]]


def side_ppm(runs):
    """The pooled ppm of a side: the median over its runs' noise results, or None."""
    return _median([pooled(r) for r in _firsts(runs)])


def side_ppm_text(runs):
    """The side's pooled ppm as text ("0.41 (0.3-0.6 over 5 runs)"); for runs before the pooled figure "not
    recorded (mean of CPUs 0.41)"; "-" without a noise result."""
    rs = _firsts(runs)
    vals = [pooled(r) for r in rs]
    if any(v is not None for v in vals):
        return _spread(vals, ppm)
    means = [_num((r.get("gaps") or {}).get("ppm_mean")) for r in rs if not has_pooled(r)]
    if any(v is not None for v in means):
        return "%s (mean of CPUs %s)" % (NOT_RECORDED, _spread(means, ppm))
    return "-"


def side_by_side(sides):
    """The noise of each side (a list of (name, runs)) in columns: the pooled ppm first, the mean and worst CPU's,
    rtla's thresholds, the longest gap, the gaps and what each platform attributed them to, the bookkeeping; []
    when no side ran the noise workload."""
    per = [[results(run)[0] for run in runs if results(run)] for _, runs in sides]
    if not any(per):
        return []

    def gap(r):
        return r.get("gaps") or {}

    def row(title, f, fmt, has=None):
        """A row of f over each side's runs; "not recorded" where no run's record has it (has: the key)."""
        cells = []
        for rs in per:
            if not rs:
                cells.append("not run")
            elif has is not None and not any(has(r) for r in rs):
                cells.append(NOT_RECORDED)
            else:
                cells.append(_spread([f(r) for r in rs], fmt))
        return [title] + cells

    rows = [row("ppm lost, all CPUs pooled", pooled, ppm, has_pooled),
            row("ppm lost, mean of CPUs", lambda r: _num(gap(r).get("ppm_mean")), ppm),
            row("ppm lost, worst CPU", lambda r: _num(gap(r).get("ppm_max")), ppm)]
    for key, name in OVER:
        def over(r, field, key=key):
            o = gap(r).get(key)
            return _num(o.get(field)) if isinstance(o, dict) else None

        def known(r, key=key):
            return key in gap(r)
        rows.append(row("gaps >= %s (rtla)" % name, lambda r, over=over: over(r, "count"), count, known))
        rows.append(row("  ppm of gaps >= %s, whole" % name, lambda r, over=over: over(r, "ppm"), ppm, known))
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

    def book(r, field):
        b = gap(r).get("bookkeeping")
        return _num(b.get(field)) if isinstance(b, dict) else None
    rows.append(row("bookkeeping stalls", lambda r: book(r, "stalls"), count, lambda r: "bookkeeping" in gap(r)))
    rows.append(row("loop seconds per CPU", lambda r: _num(gap(r).get("seconds")), lambda v: sig(v, 3)))

    def over_at(r, key, loop):
        ns = _num(gap(r).get(key))
        if ns is None:
            return "-"
        lo, hi = gap(r).get("loop_min_ticks"), gap(r).get("loop_min_ticks_max")
        if not loop or lo is None:
            return duration(ns)
        if hi is None:  # a record before each CPU had its own: the fastest CPU's for all
            return duration(ns) + " (loop minimum %s ticks)" % lo
        return "%s (each CPU 4 x its own loop minimum, %s)" % (duration(ns), "%s ticks" % lo if hi == lo
                                                                else "%s to %s ticks" % (lo, hi))
    rows.append(["gaps counted over"] + [over_at(rs[0], "threshold_ns", True) if rs else "not run" for rs in per])
    rows.append(["attributed over"] + [over_at(rs[0], "attribute_ns", False) if rs else "not run" for rs in per])
    head = ["noise workload"] + [name for name, _ in sides]
    out = ["noise: gaps in a loop reading the TSC on every CPU (the noise workload), time lost in parts per "
           "million; pooled: every CPU's ticks lost over every CPU's ticks observed; rtla: gaps of 1 us and 5 us or "
           "more, their whole lengths, as rtla's hwnoise counts them"]
    for (name, runs), rs in zip(sides, per):
        who = whose(runs[0]) if rs and runs else None
        if who:
            out.append("%s's noise is %s" % (name, who))
    return out + grid(head, rows, right=()) + [""]
