"""compare.py - two sides paired result by result (qb compare): bare metal against Linux, two machines,
two profiles; each side one run or several runs of one machine (sides.py).

Results pair on what defines a measurement (match.py: workload, variant, threads, placement, size
role, locality's accumulator and start), never on iteration counts or the profile, and are compared
in their primary measure (a rate or a time per unit, never a total). Each pair shows both sides' figures (clean first, ~ where noisy;
with several runs, the median of the runs' figures), both spreads each side has (cv within a run and
between runs, sides.py), the ratio B/A of the medians with its bootstrap interval, and whether the
difference is significant (signif.py): with at least 3 runs a side Welch's t on the runs' medians
decides (Mann-Whitney U on them shown beside it from 5 runs a side, never vetoing; deciding alone only
where neither side's runs spread), with fewer Mann-Whitney U on the repetitions within a run, which
understates the spread between boots, and the header says which. The ratio's interval is a bootstrap
95% CI from 6 values a side, and below that the plain range, labelled so (signif.py). Every p is adjusted by
Benjamini-Hochberg over all the tests of the invocation, and only what survives is marked. Where a
side kept no samples the test cannot tell, and says so. Each side's clock (clock.py) is shown, and a
pair whose clocks differ by more than 5% (to 0.1%) says that its ratio includes that difference. The noise
workload of both sides is set side by side (noise.py); its pair's figure is the pooled ppm, tested over its
CPUs (labelled so, never reps) with fewer than 3 runs a side, over the runs' pooled ppm with 3 or more. What only one side has is listed once, at
the end. `--spread` gives the spreads alone (spread()), the table of docs/measured.md.
"""
from . import clock
from . import figure as qbfigure
from . import machine
from . import match
from . import memory
from . import noise as qbnoise
from . import signif
from .sides import SideFigure
from .text import grid, sig, value

# Params that say how a run was done, not what it measured: shown when they differ (the flush a result got,
# its verdict from the run's flush check and the fallback, among them).
PLATFORM_PARAMS = ("flush", "flush_verdict", "flush_fallback", "platform", "os", "loader")
# Params in which a workload adapts to the machine it runs on (flush sizes its sets to the LLC, picks
# CLFLUSHOPT where it exists, and has a WBINVD reference only on bare metal): shown, never paired on.
ADAPTED_PARAMS = {"flush": ("set_bytes", "evict_bytes", "instruction", "cold_reference")}
PAIRED_ON = ("paired on workload, variant, threads, placement and size role (L2, LLC, DRAM as on each machine; "
             "bytes where a size has no role) and locality's accumulator and start (cold where an older record "
             "has none, resident under its flush=none); never on iteration counts, repetitions, "
             "passes or the profile")
CV_MEANS = ("cv A, cv B: coefficients of variation in percent, within a run (of the repetitions its figure is "
            "over; with several runs, their median; - for noise, whose statistics are over its CPUs) / between runs "
            "(of the runs' figures; - with one run)")


def _values(runs, n):
    """A param's values over the runs of a side. A resident locality pass takes no flush by design (its
    params.flush is none): it says nothing of how the run flushed."""
    out = set()
    for run in runs:
        out |= {str((r.get("params") or {})[n]) for r in run.results() if n in (r.get("params") or {})
                and not (n == "flush" and match.start(r) == "resident")}
    return sorted(out)


def differing(runs_a, runs_b, names):
    """Params whose values differ between the sides, e.g. flush (wbinvd / none)."""
    out = []
    for n in names:
        va, vb = _values(runs_a, n), _values(runs_b, n)
        if va != vb:
            out.append("%s (%s / %s)" % (n, ",".join(va) or "-", ",".join(vb) or "-"))
    return out


def profile(run):
    """profile= from the command line the run reports (full when it names none)."""
    words = str(run.boot.get("cmdline") or "").split()
    given = [w.split("=", 1)[1] for w in words if w.startswith("profile=")]
    return given[-1] if given else "full"


def machine_text(run):
    b = run.boot
    return "%s, %s CPUs" % (b.get("cpu_model", "unknown CPU"), b.get("cpus_found", "?"))


def differences(ra, rb):
    """What makes the two runs more than two measurements of one thing: machine, platform, profile,
    hypervisor and TSC source, each as "what (A / B)"."""
    out = []
    for what, f in (("machine", machine_text), ("platform", machine.platform), ("profile", profile),
                    ("hypervisor", lambda r: machine.hypervisor(r) or "none"),
                    ("TSC source", lambda r: r.boot.get("tsc_source", "?"))):
        va, vb = f(ra), f(rb)
        if va != vb:
            out.append("%s (%s / %s)" % (what, va, vb))
    return out


def describe(side):
    """"a.log: CPU, 2 CPUs, bare metal, build X, date" (several runs: their count and first and last dates)."""
    run = side.runs[0]
    b = run.boot
    when = run.footer().rsplit(", ", 1)[-1]
    if len(side) > 1:
        dates = sorted(r.footer().rsplit(", ", 1)[-1] for r in side.runs)
        when = dates[0] if dates[0] == dates[-1] else "%s to %s" % (dates[0], dates[-1])
    builds = ",".join(dict.fromkeys(str(r.boot.get("build", "?")) for r in side.runs))
    return "%s: %s, %s CPUs, %s, build %s, %s" % (side.label(), b.get("cpu_model", "unknown CPU"), run.cpus_online(),
                                                machine.platform(run), builds, when)


def _skipped(cells):
    """True when every result a side has for the row was skipped."""
    got = [c for c in cells if c is not None]
    return bool(got) and all(c.get("check") == "skipped" for c in got)


def _checks(cells, what):
    return any(c is not None and c.get("check") in what for c in cells)


class Pair:
    """One row of a compare: the row, each side's results and SideFigure, the verdict and its notes."""

    def __init__(self, row, na, sa, sb, ticks):
        self.row = row
        self.a, self.b = row.cells[:na], row.cells[na:]
        self.fa = SideFigure(self.a, sa.runs, ticks)
        self.fb = SideFigure(self.b, sb.runs, ticks)
        self.verdict, self.notes = None, []
        self.over = qbnoise.TESTED_OVER if row.key[0] == qbnoise.WORKLOAD else None  # noise: its CPUs, not reps
        if _skipped(self.a) or _skipped(self.b):
            self.skipped = "+".join(s for s, c in (("A", self.a), ("B", self.b)) if _skipped(c))
            return
        self.skipped = None
        if min(len(self.fa.values), len(self.fb.values)) >= signif.RUNS_MIN:
            self.verdict = signif.test_runs(self.fa.values, self.fb.values)
        else:
            self.verdict = signif.test(self.fa, self.fb)
        fails = [s for s, c in (("A", self.a), ("B", self.b)) if _checks(c, ("fail", "overrun"))]
        if fails:
            self.notes.append("check failed in " + "+".join(fails))
        shorts = [s for s, c in (("A", self.a), ("B", self.b)) if _checks(c, ("short",))]
        if shorts:  # the budget cut it short: fewer repetitions than a statistic needs
            self.notes.append("short in " + "+".join(shorts))
        note = clock.pair_note(clock.of_results(self.a), clock.of_results(self.b))
        if note:
            self.notes.append(note)
        note = memory.pair_note(sa.runs, sb.runs)  # configured speed, DIMMs per node, ECC (memory.py)
        if note:
            self.notes.append(note)
        note = qbnoise.pair_note(self.fa, self.fb) if self.over else None
        if note:
            self.notes.append(note)

    def difference(self, label_reps):
        if self.skipped:
            return "skipped in " + self.skipped
        text = self.verdict.text().replace(" significant", " *")
        if self.over and self.verdict.method == signif.REPS:  # tested over what its statistics are over
            text = ("%s " if self.verdict.p is not None else "%s: ") % self.over + text
        elif label_reps and self.verdict.method == signif.REPS and self.verdict.p is not None:
            text = "reps " + text
        return "; ".join([text] + self.notes)


def cell(cells, f, unit):
    if _skipped(cells):
        return "skipped"
    return value(f, unit=unit)


def place_text(row, na):
    """The placement cell: one name, or "compact = scatter" where every run ran one configuration for these
    placements, else the row's with each side's merged ones."""
    lab = row.label()
    merged = row.merged()
    if merged and len(merged) == len(row.present) and len(set(merged.values())) == 1:
        return next(iter(merged.values()))
    per_side = {}
    for i, m in merged.items():
        per_side.setdefault("A" if i < na else "B", m)
    return lab["placement"] + "".join(" (%s: %s)" % (s, m) for s, m in per_side.items())


def label_cells(pairs, na):
    """The label columns' header and cells (placement, size and params only where some row has them)."""
    rows = [p.row for p in pairs]
    placed, sized, extra = (any(r.key[i] for r in rows) for i in (3, 4, 5))
    header = ["variant", "threads"] + (["placement"] if placed else []) + (["size"] if sized else []) + \
        (["params"] if extra else [])
    cells = []
    for r in rows:
        lab = r.label()
        cells.append([lab["variant"], lab["threads"]] + ([place_text(r, na)] if placed else []) +
                     ([lab["size"]] if sized else []) + ([lab["params"]] if extra else []))
    return header, cells


def measure_head(wl, pairs):
    figs = [f for p in pairs for f in (p.fa, p.fb)]
    units = {f.unit for f in figs if f.unit}
    label = next((f.measure.label for f in figs if f.measure), "")
    return len(units) <= 1, "%s: %s" % (wl, label if len(units) <= 1 else "figures in the unit each cell names")


def section(wl, pairs, na, label_reps):
    """One workload's pairs: a header naming the measure, then a row per pair."""
    one, head = measure_head(wl, pairs)
    header, labels = label_cells(pairs, na)
    header += ["A", "B", "cv A", "cv B", "B/A", "interval", "difference"]
    out_rows = []
    for p, lab in zip(pairs, labels):
        v = p.verdict
        ratio = v.ratio if v is not None else None
        ci = v.interval_text() if v is not None else "-"
        cvs = [f.cv_text() if not _skipped(c) else "-" for c, f in ((p.a, p.fa), (p.b, p.fb))]
        out_rows.append(lab + [cell(p.a, p.fa, not one), cell(p.b, p.fb, not one)] + cvs +
                        [sig(ratio, 3), ci, p.difference(label_reps)])
    n = len(header)
    means = ["  " + qbnoise.PAIR_MEANS] if wl == qbnoise.WORKLOAD else []
    return [head] + means + grid(header, out_rows, right=range(n - 7, n - 2)) + [""]


def what(r, run):
    """"counter packed, 2 threads, compact" or "locality blocked, 1 thread, compact, L2, accumulator=private"."""
    wl, var, thr, place, size, extra = match.key(r, run, match.placements(r)[0])
    parts = ["%s %s" % (wl, var)]
    if thr:
        parts.append("%s thread%s" % (thr, "" if thr == 1 else "s"))
    parts += [x for x in (" = ".join(match.placements(r)) if place else None, size) + extra if x]
    return ", ".join(parts)


def only_lines(side, found, ticks):
    """found: (result, run, in how many of the side's runs) for each row only this side has."""
    out = []
    for r, run, k, n in found:
        more = "" if n == 1 else " (in %d of %d runs)" % (k, n)
        if r.get("check") == "skipped":
            out.append("  %s: skipped: %s%s" % (what(r, run), r.get("reason", ""), more))
        else:
            out.append("  %s: %s%s" % (what(r, run), value(qbfigure.of(r, run, ticks=ticks), unit=True).rstrip(), more))
    return ["only in %s (%d):" % (side, len(out))] + out + [""] if out else []


def _only(row, lo, hi, runs):
    """The first result of the row among cells lo..hi, its run, and how many of them have one."""
    idx = [i for i in range(lo, hi) if row.cells[i] is not None]
    return row.cells[idx[0]], runs[idx[0]], len(idx), hi - lo


def header_lines(sa, sb):
    """Warnings (what the sides differ in, within a side, a hypervisor), the sides, their clocks."""
    ra, rb = sa.runs[0], sb.runs[0]
    diffs = differences(ra, rb)
    out = ["warning: the runs differ in %s: a ratio mixes these with what you compare" % "; ".join(diffs)] \
        if diffs else []
    for name, side in (("A", sa), ("B", sb)):
        within = sorted({d.split(" (")[0] for r in side.runs[1:] for d in differences(side.runs[0], r)})
        if within:
            out.append("warning: %s's runs differ among themselves in %s: they are not repeats of one measurement"
                       % (name, ", ".join(within)))
    for name, side in (("A", sa), ("B", sb)):
        note = machine.virtual_note(side.runs[0])
        if note:
            out.append("warning: %s ran on a %s" % (name, note))
    out += ["A " + describe(sa), "B " + describe(sb)]
    (ca, ta), (cb, tb) = clock.side(sa.runs), clock.side(sb.runs)
    line = "clock: A %s, B %s" % (ta, tb)
    d = clock.difference_pct(ca, cb)
    if d is not None:
        line += "; they differ by %.1f%%%s" % (d, ": every ratio includes it (pairs over %g%% say so)"
                                               % clock.CLOCK_DIFF_PCT if clock.beyond(d) else "")
    boosts = [(n, clock.boost(s.runs[0])) for n, s in (("A", sa), ("B", sb))]
    if any(b for _, b in boosts):
        line += "; boost %s" % ", ".join("%s %s" % (n, b or "not recorded") for n, b in boosts)
    return out + [line, memory.header_line(sa.runs, sb.runs)]


def test_line(sa, sb):
    """Which test the pairs get, and why, in one line."""
    na, nb = len(sa), len(sb)
    if min(na, nb) >= signif.RUNS_MIN:
        return ("test: the runs as runs (%d and %d runs): %s; a pair that fewer runs measured falls back to the "
                "repetitions within them (reps p=), which understates the spread between boots"
                % (na, nb, signif.STATED_RUNS))
    runs = "one run a side" if na == nb == 1 else "%d and %d runs" % (na, nb)
    return "test: %s: %s" % (runs, signif.STATED_REPS)


def gather(sa, sb, ticks):
    """Every workload's pairs and what only one side has: ([(workload, [Pair])], only_a, only_b)."""
    runs = sa.runs + sb.runs
    na = len(sa)
    sections, only_a, only_b = [], [], []
    workloads = []
    for run in runs:
        workloads += [w for w in run.workloads() if w not in workloads]
    for wl in workloads:
        pairs = []
        for row in match.align(runs, wl):
            has_a = any(c is not None for c in row.cells[:na])
            has_b = any(c is not None for c in row.cells[na:])
            if has_a and has_b:
                pairs.append(Pair(row, na, sa, sb, ticks))
            elif has_a:
                only_a.append(_only(row, 0, na, runs))
            elif has_b:
                only_b.append(_only(row, na, len(runs), runs))
        if pairs:
            sections.append((wl, pairs))
    return sections, only_a, only_b


def render(sa, sb, ticks=False):
    """The compare of two sides (sides.Side) as text lines; the last line counts the pairs."""
    out = header_lines(sa, sb)
    adapted = sorted({p for ps in ADAPTED_PARAMS.values() for p in ps})
    diff = differing(sa.runs, sb.runs, sorted(set(PLATFORM_PARAMS) | set(adapted)))
    out.append(PAIRED_ON + ("; they differ in %s" % "; ".join(diff) if diff else ""))
    several = max(len(sa), len(sb)) > 1
    out.append("figures: median of the clean repetitions%s; %s" % (
        "; with several runs, the median of the runs' figures, marked ~ where a run's is noisy" if several else "",
        qbfigure.MARK_MEANS))
    out.append(CV_MEANS)
    out.append(test_line(sa, sb))
    out.append("difference: p of the deciding test and adj, p adjusted by %s over every test of this compare "
               "(a rank p beside Welch's is not adjusted and decides nothing); * marks a difference whose adjusted "
               "p <= %g; B/A: ratio of the medians; interval: CI, its bootstrap 95%% confidence interval, from %d "
               "values a side; with fewer, range, min(B)/max(A) to max(B)/min(A), no confidence interval"
               % (signif.METHOD, signif.Q, signif.CI_MIN))
    out.append("")
    sections, only_a, only_b = gather(sa, sb, ticks)
    counts = signif.correct([p.verdict for _, pairs in sections for p in pairs])
    label_reps = min(len(sa), len(sb)) >= signif.RUNS_MIN
    tally = {signif.SIGNIFICANT: 0, signif.NOT_SIGNIFICANT: 0, signif.CANNOT_TELL: 0, None: 0}
    for wl, pairs in sections:
        out += section(wl, pairs, len(sa), label_reps)
        for p in pairs:
            tally[p.verdict.state if p.verdict is not None else None] += 1
    out += qbnoise.side_by_side([("A", sa.runs), ("B", sb.runs)])
    out += only_lines("A", only_a, ticks) + only_lines("B", only_b, ticks)
    paired = sum(len(pairs) for _, pairs in sections)
    out.append(signif.correction_line(counts))
    out.append("%d paired: %d significant, %d not significant, %d cannot tell, %d skipped; %d only in A, %d only in B"
               % (paired, tally[signif.SIGNIFICANT], tally[signif.NOT_SIGNIFICANT], tally[signif.CANNOT_TELL],
                  tally[None], len(only_a), len(only_b)))
    return out


def _cv(v):
    return "-" if v is None else "%.1f" % v


def spread(sa, sb, ticks=False):
    """The spreads alone (qb compare --spread): per workload and result, each side's cv within a run and
    between runs, and the noise workload's time lost; the last line counts the rows."""
    out = header_lines(sa, sb)
    out.append("spread: coefficients of variation in percent; within: of a run's repetitions (the record's cv of "
               "those its figure is over), the median over the side's runs; between: of the runs' figures (their "
               "medians), the sample standard deviation over the mean; - where a side has fewer than 2 runs or no "
               "figure, and within for noise (its statistics are over CPUs, not repetitions)")
    out.append("")
    sections, _, _ = gather(sa, sb, ticks)
    rows_total = 0
    for wl, pairs in sections:
        pairs = [p for p in pairs if p.fa.values or p.fb.values]
        if not pairs:
            continue
        one, head = measure_head(wl, pairs)
        head = "%s: cv %% of %s" % (wl, head.split(": ", 1)[1] if one else "each result's figure, in its own unit")
        header, labels = label_cells(pairs, len(sa))
        header += ["A within", "A between", "B within", "B between", "runs A/B"]
        rows = [lab + [_cv(p.fa.within_cv), _cv(p.fa.between_cv), _cv(p.fb.within_cv), _cv(p.fb.between_cv),
                       "%d/%d" % (len(p.fa.values), len(p.fb.values))] for p, lab in zip(pairs, labels)]
        out += [head] + grid(header, rows) + [""]
        rows_total += len(rows)
    pa, pb = qbnoise.side_ppm_text(sa.runs), qbnoise.side_ppm_text(sb.runs)
    if pa == pb == "-":
        out.append("noise workload, ppm lost (all CPUs pooled): %s" % qbnoise.NONE_HERE)
    else:
        out.append("noise workload, ppm lost (all CPUs pooled; the median over the side's runs): A %s, B %s" % (pa, pb))
    out.append("%d results with a spread; A %d run%s, B %d run%s" % (rows_total, len(sa), "" if len(sa) == 1 else "s",
                                                                    len(sb), "" if len(sb) == 1 else "s"))
    return out
