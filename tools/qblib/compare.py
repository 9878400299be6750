"""compare.py - two runs paired result by result (qb compare): bare metal against Linux, two machines,
two profiles.

Results pair on what defines a measurement (match.py: workload, variant, threads, placement, size
role, locality's accumulator and start), never on iteration counts or the profile, and are compared
in their primary measure (a rate or a time per unit, never a total). Each pair shows both figures (clean first, ~ where noisy), the
ratio B/A of the medians with its bootstrap interval, and whether the difference is significant
(signif.py: Mann-Whitney U, two-sided, at alpha 0.05); where a side kept no samples the test cannot
tell, and says so. What only one run has is listed once, at the end.
"""
from . import figure as qbfigure
from . import machine
from . import match
from . import signif
from .text import grid, sig, value

# Params that say how a run was done, not what it measured: shown when they differ.
PLATFORM_PARAMS = ("flush", "platform", "os", "loader")
# Params in which a workload adapts to the machine it runs on (flush sizes its sets to the LLC, picks
# CLFLUSHOPT where it exists, and has a WBINVD reference only on bare metal): shown, never paired on.
ADAPTED_PARAMS = {"flush": ("set_bytes", "evict_bytes", "instruction", "cold_reference")}
PAIRED_ON = ("paired on workload, variant, threads, placement and size role (L2, LLC, DRAM as on each machine; "
             "bytes where a size has no role) and locality's accumulator and start (cold where an older record "
             "has none, resident under its flush=none); never on iteration counts, repetitions, "
             "passes or the profile")


def differing(ra, rb, names):
    """Params whose values differ between the runs, e.g. flush (wbinvd / none). A resident locality pass
    takes no flush by design (its params.flush is none): it says nothing of how the run flushed."""
    def values(run, n):
        return sorted({str((r.get("params") or {})[n]) for r in run.results() if n in (r.get("params") or {})
                       and not (n == "flush" and match.start(r) == "resident")})
    out = []
    for n in names:
        va, vb = values(ra, n), values(rb, n)
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


def describe(run, arg):
    b = run.boot
    return "%s: %s, %s CPUs, %s, build %s, %s" % (arg, b.get("cpu_model", "unknown CPU"), run.cpus_online(),
                                                machine.platform(run), b.get("build", "?"),
                                                run.footer().rsplit(", ", 1)[-1])


def _state(r):
    return "skipped" if r.get("check") == "skipped" else None


def pair_verdict(fa, fb, a, b):
    """(the verdict, or None, and the text of the difference column) for one pair."""
    notes = []
    if _state(a) or _state(b):
        return None, "skipped in " + "+".join(s for s, r in (("A", a), ("B", b)) if _state(r))
    v = signif.test(fa, fb)
    text = v.text().replace(" significant", " *")
    fails = [s for s, r in (("A", a), ("B", b)) if r.get("check") in ("fail", "overrun")]
    if fails:
        notes.append("check failed in " + "+".join(fails))
    shorts = [s for s, r in (("A", a), ("B", b)) if r.get("check") == "short"]
    if shorts:  # the budget cut it short: fewer repetitions than a statistic needs
        notes.append("short in " + "+".join(shorts))
    return v, "; ".join([text] + notes)


def cell(r, f, unit):
    if r.get("check") == "skipped":
        return "skipped"
    return value(f, unit=unit)


def section(wl, rows, runs, ticks):
    """One workload's pairs: a header naming the measure, then a row per pair."""
    ra, rb = runs
    figs = [(qbfigure.of(row.cells[0], ra, ticks=ticks), qbfigure.of(row.cells[1], rb, ticks=ticks)) for row in rows]
    units = {f.unit for pair in figs for f in pair if f.unit}
    one = len(units) <= 1
    label = next((f.measure.label for pair in figs for f in pair if f.measure), "")
    placed = any(row.key[3] for row in rows)
    sized = any(row.key[4] for row in rows)
    extra = any(row.key[5] for row in rows)
    header = ["variant", "threads"] + (["placement"] if placed else []) + (["size"] if sized else []) + \
        (["params"] if extra else []) + ["A", "B", "B/A", "95% CI", "difference"]
    out_rows, verdicts = [], []
    for row, (fa, fb) in zip(rows, figs):
        a, b = row.cells
        lab = row.label()
        merged = row.merged()
        if len(merged) == 2 and len(set(merged.values())) == 1:
            place = merged[0]  # both ran one configuration for these placements
        else:
            place = lab["placement"] + "".join(" (%s: %s)" % ("AB"[i], m) for i, m in merged.items())
        v, diff = pair_verdict(fa, fb, a, b)
        verdicts.append(v)
        ratio = v.ratio if v is not None else None
        ci = "%s-%s" % (sig(v.ci[0], 3), sig(v.ci[1], 3)) if v is not None and v.ci else "-"
        out_rows.append([lab["variant"], lab["threads"]] + ([place] if placed else []) +
                        ([lab["size"]] if sized else []) + ([lab["params"]] if extra else []) +
                        [cell(a, fa, not one), cell(b, fb, not one), sig(ratio, 3), ci, diff])
    head = "%s: %s" % (wl, label if one else "figures in the unit each cell names")
    nright = len(header) - 2
    return [head] + grid(header, out_rows, right=range(nright - 3, nright)) + [""], verdicts


def what(r, run):
    """"counter packed, 2 threads, compact" or "locality blocked, 1 thread, compact, L2, accumulator=private"."""
    wl, var, thr, place, size, extra = match.key(r, run, match.placements(r)[0])
    parts = ["%s %s" % (wl, var)]
    if thr:
        parts.append("%s thread%s" % (thr, "" if thr == 1 else "s"))
    parts += [x for x in (" = ".join(match.placements(r)) if place else None, size) + extra if x]
    return ", ".join(parts)


def only_lines(side, results, run, ticks):
    out = []
    for r in results:
        if r.get("check") == "skipped":
            out.append("  %s: skipped: %s" % (what(r, run), r.get("reason", "")))
        else:
            out.append("  %s: %s" % (what(r, run), value(qbfigure.of(r, run, ticks=ticks), unit=True).rstrip()))
    return ["only in %s (%d):" % (side, len(out))] + out + [""] if out else []


def render(ra, rb, name_a, name_b, ticks=False):
    diffs = differences(ra, rb)
    out = ["warning: the runs differ in %s: a ratio mixes these with what you compare" % "; ".join(diffs)] \
        if diffs else []
    for side, run in (("A", ra), ("B", rb)):
        note = machine.virtual_note(run)
        if note:
            out.append("warning: %s ran on a %s" % (side, note))
    out += ["A " + describe(ra, name_a), "B " + describe(rb, name_b)]
    adapted = sorted({p for ps in ADAPTED_PARAMS.values() for p in ps})
    diff = differing(ra, rb, sorted(set(PLATFORM_PARAMS) | set(adapted)))
    out.append(PAIRED_ON + ("; they differ in %s" % "; ".join(diff) if diff else ""))
    out.append("figures: median of the clean repetitions; " + qbfigure.MARK_MEANS)
    out.append("difference: %s; * marks a significant one; B/A: ratio of the medians, with its 95%% bootstrap "
               "interval" % signif.STATED)
    out.append("")
    counts = {signif.SIGNIFICANT: 0, signif.NOT_SIGNIFICANT: 0, signif.CANNOT_TELL: 0, None: 0}
    paired, only_a, only_b = 0, [], []
    workloads = list(dict.fromkeys(ra.workloads() + rb.workloads()))
    for wl in workloads:
        rows = match.align([ra, rb], wl)
        both = [row for row in rows if len(row.present) == 2]
        only_a += [row.cells[0] for row in rows if row.present == [0]]
        only_b += [row.cells[1] for row in rows if row.present == [1]]
        if not both:
            continue
        lines, verdicts = section(wl, both, (ra, rb), ticks)
        out += lines
        paired += len(both)
        for v in verdicts:
            counts[v.state if v is not None else None] += 1
    out += only_lines("A", only_a, ra, ticks) + only_lines("B", only_b, rb, ticks)
    out.append("%d paired: %d significant, %d not significant, %d cannot tell, %d skipped; %d only in A, %d only in B"
               % (paired, counts[signif.SIGNIFICANT], counts[signif.NOT_SIGNIFICANT], counts[signif.CANNOT_TELL],
                  counts[None], len(only_a), len(only_b)))
    return out
