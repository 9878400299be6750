"""figure.py - the figure of a result: the statistics every view shows for it, clean first.

A result's figure is its clean repetitions' statistics when it is not noisy, and otherwise the
statistics over all its repetitions under the noisy mark. A result is noisy when fewer than half of
its repetitions are clean (2 x clean < n). Newer records say so themselves (`noisy`, `figure`,
quartiles in each statistics block, `measures`, `samples_flagged`; docs/records.md); for older ones
the same is derived here from `clean` and `samples`. Results measured over one span (first-touch per
page) have no clean block: their figure is over all of it, not noisy.

The figure is given in the result's primary measure (measure.py), or any other it has, as its median
and quartiles (q1, q3: numpy's default linear interpolation, as the kernel's), with the samples of
the same repetitions converted to the measure for the significance test (signif.py). A statistic of
nothing is None, never 0.

The noise workload's figure is its pooled ppm (`gaps.ppm`: every CPU's ticks lost over every CPU's
ticks observed), the headline of every view, while its quartiles, cv and samples stay the CPUs' own
ppm (its statistics are over CPUs, statistics_of): a record before the pooled figure keeps its median
over the CPUs.
"""
import numpy as np

from . import measure as qbmeasure

MARK = "~"  # the noisy mark in text views
MARK_MEANS = "~ noisy: fewer than half of the repetitions clean; the figure is over all of them"


def flags(r):
    n = r.get("noise")
    return sorted(n.get("flags") or []) if isinstance(n, dict) else []


def noisy(r):
    """{"clean": c, "reps": n, "flags": [...]} when the result is noisy, else None."""
    if "noisy" in r:
        v = r["noisy"]
        return v if isinstance(v, dict) and v else None
    c, n = r.get("clean"), r.get("n")
    if not isinstance(c, dict) or not isinstance(n, int) or n <= 0 or not isinstance(c.get("reps"), int):
        return None
    if 2 * c["reps"] < n:
        return {"clean": c["reps"], "reps": n, "flags": flags(r)}
    return None


def basis(r):
    """Which statistics are the figure: "clean", "all", or None (no repetitions, or skipped)."""
    if "figure" in r:
        return r["figure"] if r["figure"] in ("clean", "all") else None
    if not r.get("n") or r.get("median") is None:
        return None
    c = r.get("clean")
    if noisy(r) is None and isinstance(c, dict) and c.get("n") and c.get("median") is not None:
        return "clean"
    return "all"


def quartiles(xs):
    """(q1, q3) of the values, type 7 like numpy.percentile's default; (None, None) of nothing."""
    xs = [x for x in xs or [] if x is not None]
    if not xs:
        return None, None
    q1, q3 = np.percentile(np.asarray(xs, dtype=float), [25, 75])
    return float(q1), float(q3)


def tick_samples(r, which):
    """The samples (ticks) of the repetitions the figure is over, and why there are none (or None)."""
    xs = r.get("samples")
    if not isinstance(xs, list) or not xs:
        return None, "no samples (a run with samples=off, or before samples were kept)"
    if which == "all":
        return [x for x in xs if x is not None], None
    bad = r.get("samples_flagged")
    if isinstance(bad, list):
        bad = set(bad)
        return [x for i, x in enumerate(xs) if i not in bad and x is not None], None
    c = r.get("clean") or {}
    if c.get("flagged") == 0 or c.get("reps") == len(xs):
        return [x for x in xs if x is not None], None
    return None, "its flagged samples are not identified (a record without samples_flagged)"


def block(r, which):
    """The statistics block of `which` ("clean" or "all") as a dict, quartiles filled in from the samples
    when an older record lacks them and its samples are those repetitions."""
    src = r.get("clean") if which == "clean" else r
    out = {k: src.get(k) for k in ("n", "min", "q1", "median", "q3", "mean", "max", "stddev", "cv")} \
        if isinstance(src, dict) else {}
    if out.get("q1") is None and out.get("median") is not None:
        xs, _ = tick_samples(r, which)
        if xs and len(xs) == out.get("n"):
            out["q1"], out["q3"] = quartiles(xs)
    return out


class Figure:
    """The figure of one result in one measure. Fields (None when unknown):
    basis       "clean", "all" or None;   noisy: the noisy mark (a dict) or None
    n, reps     repetitions the figure is over, and in all
    cv_pct      their coefficient of variation, in percent
    over        what the statistics are over: None for repetitions, else the record's statistics_of (the noise
                workload's are over its CPUs: its cv is no spread of repetitions)
    measure     a measure.Measure (unit, label) or None
    value, q1, q3, lo, hi   median, quartiles, min and max in the measure (q1 <= q3 for rates too)
    ticks       the block in ticks (n, min, q1, median, q3, ...)
    samples     the figure's repetitions in the measure, or None with samples_note saying why
    pooled      True where value is the noise workload's pooled ppm (gaps.ppm), not its median over CPUs"""

    def __init__(self, r, run, m):
        self.r = r
        self.basis = basis(r)
        self.noisy = noisy(r)
        self.measure = m
        self.reps = r.get("n")
        self.ticks = block(r, self.basis) if self.basis else {}
        self.n = self.ticks.get("n")
        cv = self.ticks.get("cv")
        self.cv_pct = None if cv is None or self.ticks.get("mean") in (None, 0) else 100.0 * cv
        self.over = r.get("statistics_of")
        self.value = self.q1 = self.q3 = self.lo = self.hi = None
        self.samples, self.samples_note = None, "no figure"
        self.pooled = False
        if m is None or self.basis is None:
            if m is not None and r.get("median") is not None:  # a LAVA export's median, in its unit
                self.value = r["median"]
                self.samples_note = "a LAVA result export holds no samples"
            return
        if m.scale is None:
            self.value = r.get("median")
            self.samples_note = "no samples"
            return
        t = self.ticks
        if m.stats is not None:
            self.value, self.q1, self.q3 = m.stats.get("median"), m.stats.get("q1"), m.stats.get("q3")
        else:
            self.value, self.q1, self.q3 = m.of(t.get("median")), m.of(t.get("q1")), m.of(t.get("q3"))
        self.lo, self.hi = m.of(t.get("min")), m.of(t.get("max"))
        if m.inverse:
            if m.stats is None:
                self.q1, self.q3 = self.q3, self.q1
            self.lo, self.hi = self.hi, self.lo
        xs, self.samples_note = tick_samples(r, self.basis)
        if xs is not None:
            conv = [m.of(x) for x in xs]
            self.samples = [x for x in conv if x is not None]
            self.samples_note = None if self.samples else "its samples have no value in %s" % m.unit
        if pooled_ppm(r, m):
            self.value, self.pooled = r["gaps"]["ppm"], True

    @property
    def mark(self):
        return MARK if self.noisy else ""

    @property
    def unit(self):
        return self.measure.unit if self.measure else None

    def noisy_text(self):
        """"noisy: 0 of 10 clean (context_switch)" or ""."""
        z = self.noisy
        if not z:
            return ""
        fl = ", ".join(z.get("flags") or [])
        return "noisy: %s of %s clean%s" % (z.get("clean"), z.get("reps"), " (%s)" % fl if fl else "")

    def __repr__(self):
        return "Figure(%s %s, q1 %s, q3 %s, %s%s)" % (self.value, self.unit, self.q1, self.q3, self.basis,
                                                      ", noisy" if self.noisy else "")


def pooled_ppm(r, m):
    """True where the figure of r in measure m is the noise workload's pooled ppm: its record has gaps.ppm (a
    number, or null when nothing was observed) and m is in ppm."""
    g = r.get("gaps")
    return r.get("workload") == "noise" and isinstance(g, dict) and "ppm" in g and m is not None and m.unit == "ppm"


def of(r, run, name=None, ticks=False):
    """The figure of result r of run in its primary measure, or in the measure called `name`
    (then None when it has no such measure); ticks=True: in ticks per unit."""
    if name is None:
        m = qbmeasure.primary(r, run, ticks)
    else:
        m = qbmeasure.named(r, run, name, ticks)
        if m is None:
            return None
    return Figure(r, run, m)
