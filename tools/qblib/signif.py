"""signif.py - is the difference between two results real? The tests of qb compare and qb report, and the
correction for running many of them.

Two tests, by what a side has:
  - runs: with at least RUNS_MIN runs a side, the runs' own figures (each run's median in the measure) are
    tested: Welch's t (scipy.stats.ttest_ind, equal_var=False), and with at least RUNS_RANK_MIN a side
    Mann-Whitney U on the same medians as well. This is the spread that matters: repetitions taken back
    to back in one boot move less than a figure moves from one boot to the next.
  - repetitions: with fewer runs, Mann-Whitney U (scipy.stats.mannwhitneyu, two-sided; its exact
    distribution for small samples without ties, else the normal approximation) on the two sides'
    repetitions, each converted to the measure (figure.py: a sample in ticks times the result's own scale,
    so runs of other iteration counts or TSC frequencies compare), the flagged repetitions left out where
    the figure is the clean one. It understates the spread between boots, and the views say so.
Where a side has no samples, or so few that no outcome could reach ALPHA (3 against 3: the smallest
two-sided p is 0.1), the test cannot tell, and says why. Beside it: the ratio of the medians B/A with an
interval over the same values: from CI_MIN values a side, a percentile bootstrap 95% confidence interval (a fixed seed: the same
runs give the same interval); with fewer, the range min(B)/max(A) to max(B)/min(A), labelled "range" and
never called a confidence interval: the bootstrap of a median of 3 to 5 values puts more than 2.5% of its
draws on the extremes, so its percentile interval is that range and claims a confidence it does not have.

Many tests, corrected: a compare or a report runs one test per pair, hundreds of them, and at 0.05
about one in twenty would be called significant by chance. correct() applies the Benjamini-Hochberg
procedure (1995) over all the tests of one invocation: each p gets its adjusted value (bh_adjust), and
a difference is significant only when its adjusted p is at most the false discovery rate Q. Where the
rank test on runs ran too, it is corrected over its own family and must survive as well.
"""
import math

import numpy as np

from .text import sig

ALPHA = 0.05   # one test's level, before any correction (the "too few samples" bound)
Q = 0.05       # the false discovery rate of the Benjamini-Hochberg correction
BOOT = 2000
EXACT_MAX = 400  # n1 x n2 up to which the exact distribution is used (without ties): 20 x 20 in ~0.03 s
SEED = 23
RUNS_MIN = 3       # runs a side from which the runs' medians are tested (Welch's t)
RUNS_RANK_MIN = 5  # runs a side from which Mann-Whitney U on the runs' medians is added
CI_MIN = 6         # values a side from which B/A gets a bootstrap 95% interval; with fewer, the range
CI, RANGE = "95% CI", "range"  # what Verdict.ci is (Verdict.ci_kind)
REPS, RUNS = "repetitions", "runs"
STATED_REPS = ("Mann-Whitney U, two-sided, on each side's repetitions in the measure (repetitions of one boot, "
               "taken back to back: this understates the spread between boots; give %d runs a side to test "
               "the runs)" % RUNS_MIN)
STATED_RUNS = ("Welch's t on the runs' medians, two-sided (with %d runs a side or more, Mann-Whitney U on the "
               "same medians as well, labelled rank)" % RUNS_RANK_MIN)
METHOD = "Benjamini-Hochberg false discovery rate"

SIGNIFICANT, NOT_SIGNIFICANT, CANNOT_TELL = "significant", "not significant", "cannot tell"


class Verdict:
    """state: SIGNIFICANT, NOT_SIGNIFICANT or CANNOT_TELL; p (or None); why (for CANNOT_TELL);
    ratio: B/A of the figures' medians (None without both); ci: (low, high) of the ratio or None, and
    ci_kind what it is: CI (a bootstrap 95% interval) or RANGE (fewer than CI_MIN values a side).
    method: REPS or RUNS (what was tested); p_adj: p after the correction (None before it);
    rank_p, rank_adj: Mann-Whitney U on the runs' medians beside Welch's, where it ran."""

    def __init__(self, state, p=None, why=None, ratio=None, ci=None, method=REPS, rank_p=None, ci_kind=CI):
        self.state, self.p, self.why, self.ratio, self.ci = state, p, why, ratio, ci
        self.method, self.rank_p, self.ci_kind = method, rank_p, ci_kind
        self.p_adj = self.rank_adj = None

    @property
    def significant(self):
        return self.state == SIGNIFICANT

    def text(self):
        """"p=0.002 adj=0.01 significant", "p=0.41", "Welch p=0.003 adj=0.02; rank p=0.008 adj=0.03",
        "cannot tell: no samples in B"."""
        if self.state == CANNOT_TELL:
            return "cannot tell: " + self.why
        out = ("Welch " if self.method == RUNS else "") + _pair(self.p, self.p_adj)
        if self.rank_p is not None:
            out += "; rank " + _pair(self.rank_p, self.rank_adj)
        return out + (" significant" if self.significant else "")

    def interval_text(self, digits=3):
        """"CI 0.95-1.05" (a bootstrap 95% interval), "range 0.90-1.10", or "-" without one."""
        if not self.ci:
            return "-"
        return "%s %s-%s" % ("CI" if self.ci_kind == CI else RANGE, sig(self.ci[0], digits), sig(self.ci[1], digits))

    def __repr__(self):
        return "Verdict(%s, %s, p=%r, adj=%r, rank=%r/%r, why=%r, ratio=%r, %s=%r)" % (
            self.state, self.method, self.p, self.p_adj, self.rank_p, self.rank_adj, self.why, self.ratio,
            self.ci_kind, self.ci)


def pvalue(p):
    return "%.2g" % p


def _pair(p, adj):
    return "p=%s" % pvalue(p) + ("" if adj is None else " adj=%s" % pvalue(adj))


def smallest_p(n1, n2):
    """The smallest two-sided p any outcome of the exact test can give: both samples apart."""
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def ratio_ci(xa, xb, level=0.95):
    """Percentile bootstrap interval of median(B)/median(A), or None where a median can be 0."""
    rng = np.random.default_rng(SEED)
    a, b = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
    ma = np.median(rng.choice(a, (BOOT, a.size)), axis=1)
    mb = np.median(rng.choice(b, (BOOT, b.size)), axis=1)
    if np.any(ma <= 0):
        return None
    r = mb / ma
    lo, hi = np.percentile(r, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def ratio_range(xa, xb):
    """The range of B/A over the values: min(B)/max(A) to max(B)/min(A), or None where an A can be 0."""
    if min(xa) <= 0:
        return None
    return float(min(xb)) / float(max(xa)), float(max(xb)) / float(min(xa))


def ratio_interval(xa, xb):
    """(interval, kind) of median(B)/median(A): the bootstrap 95% CI from CI_MIN values a side, else the range
    (RANGE)."""
    if min(len(xa), len(xb)) < CI_MIN:
        return ratio_range(xa, xb), RANGE
    return ratio_ci(xa, xb), CI


def mann_whitney(xa, xb):
    """Two-sided Mann-Whitney U p: exact for small samples without ties, else the normal approximation."""
    from scipy.stats import mannwhitneyu
    ties = len(set(xa) | set(xb)) < len(xa) + len(xb)
    exact = not ties and len(xa) * len(xb) <= EXACT_MAX
    return float(mannwhitneyu(xa, xb, alternative="two-sided", method="exact" if exact else "asymptotic").pvalue)


def welch(xa, xb):
    """Welch's t-test of two samples: (t, degrees of freedom, two-sided p). t and p are scipy's
    (ttest_ind with equal_var=False); the Welch-Satterthwaite degrees of freedom, which scipy 1.10 does
    not return, are computed here the same way."""
    from scipy.stats import ttest_ind
    a, b = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
    res = ttest_ind(a, b, equal_var=False)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1)) if va + vb > 0 else float("nan")
    return float(res.statistic), float(df), float(res.pvalue)


def bh_adjust(ps):
    """Benjamini-Hochberg adjusted p-values, in the order given (None stays None): the i-th smallest of m
    becomes min over j >= i of p(j) * m / j, at most 1. A hypothesis is rejected at false discovery rate q
    when its adjusted p is at most q: the step-up rule of Benjamini and Hochberg (1995), "reject H(1)..H(k)
    for the largest k with p(k) <= k q / m"."""
    idx = [i for i, p in enumerate(ps) if p is not None]
    out = [None] * len(ps)
    m = len(idx)
    if not m:
        return out
    order = sorted(idx, key=lambda i: ps[i])
    running = 1.0
    for rank in range(m, 0, -1):  # from the largest p down: the running minimum of p(j) m / j
        i = order[rank - 1]
        running = min(running, ps[i] * m / rank)
        out[i] = min(1.0, running)
    return out


def bh_reject(ps, q=Q):
    """Which hypotheses the Benjamini-Hochberg procedure rejects at false discovery rate q (None: not
    tested, never rejected)."""
    return [a is not None and a <= q for a in bh_adjust(ps)]


def correct(verdicts, q=Q):
    """Correct the verdicts of one invocation for their number, in place: every tested one gets p_adj
    (and rank_adj) by Benjamini-Hochberg over all of them (a verdict given twice counted once), and is
    significant only when what it tested survives at q. Returns (tests, raw p below ALPHA, surviving)."""
    tested = list({id(v): v for v in verdicts if v is not None and v.p is not None}.values())  # each once
    for v, adj in zip(tested, bh_adjust([v.p for v in tested])):
        v.p_adj = adj
    ranked = [v for v in tested if v.rank_p is not None]
    for v, adj in zip(ranked, bh_adjust([v.rank_p for v in ranked])):
        v.rank_adj = adj
    raw = sum(1 for v in tested if v.p < ALPHA)
    for v in tested:
        ok = v.p_adj <= q and (v.rank_p is None or v.rank_adj <= q)
        v.state = SIGNIFICANT if ok else NOT_SIGNIFICANT
    return len(tested), raw, sum(1 for v in tested if v.significant)


def correction_line(counts, q=Q):
    """The line every table of verdicts ends with: the method, its level and what survived."""
    tests, raw, kept = counts
    if not tests:
        return "correction: %s %g: no test ran" % (METHOD, q)
    return ("correction: %s %g over the %d test%s of this invocation: %d with p < %g before it, %d significant "
            "after it (adjusted p <= %g)" % (METHOD, q, tests, "" if tests == 1 else "s", raw, ALPHA, kept, q))


def test(fa, fb, alpha=ALPHA):
    """The verdict on two figures (figure.Figure, or anything with value, unit, samples and samples_note)
    of the same measurement, on their repetitions. Its state is the uncorrected one: correct() decides."""
    ratio = fb.value / fa.value if fa.value and fb.value is not None else None
    if fa.value is None or fb.value is None:
        side = "A" if fa.value is None else "B"
        return Verdict(CANNOT_TELL, why="no figure in " + side)
    if fa.unit != fb.unit:
        return Verdict(CANNOT_TELL, why="A is in %s, B in %s" % (fa.unit, fb.unit))
    for side, f in (("A", fa), ("B", fb)):
        if not f.samples:
            note = f.samples_note or ""
            why = "no samples in %s" % side if f.samples is None and note.startswith(("no samples", "a LAVA")) \
                else "%s: %s" % (side, note or "no samples")
            return Verdict(CANNOT_TELL, why=why, ratio=ratio)
    xa, xb = fa.samples, fb.samples
    if smallest_p(len(xa), len(xb)) >= alpha:
        return Verdict(CANNOT_TELL, why="too few samples (%d and %d: p cannot fall below %g)"
                       % (len(xa), len(xb), alpha), ratio=ratio)
    ci, kind = ratio_interval(xa, xb)
    if len(set(xa) | set(xb)) == 1:  # every repetition the same number: no difference at all
        return Verdict(NOT_SIGNIFICANT, p=1.0, ratio=ratio, ci=ci, ci_kind=kind)
    try:
        p = mann_whitney(xa, xb)
    except ImportError:
        return Verdict(CANNOT_TELL, why="scipy is not installed (Debian's python3-scipy)", ratio=ratio, ci=ci,
                       ci_kind=kind)
    return Verdict(SIGNIFICANT if p < alpha else NOT_SIGNIFICANT, p=p, ratio=ratio, ci=ci, ci_kind=kind)


def test_runs(va, vb, alpha=ALPHA):
    """The verdict on two sides' runs of one measurement, from each run's figure (its median in the
    measure): Welch's t, and Mann-Whitney U as well from RUNS_RANK_MIN runs a side. Uncorrected, as test()."""
    va = [float(x) for x in va if x is not None]
    vb = [float(x) for x in vb if x is not None]
    if min(len(va), len(vb)) < RUNS_MIN:
        return Verdict(CANNOT_TELL, why="fewer than %d runs a side (%d and %d)" % (RUNS_MIN, len(va), len(vb)),
                       method=RUNS)
    ma, mb = float(np.median(va)), float(np.median(vb))
    ratio = mb / ma if ma else None
    ci, kind = ratio_interval(va, vb)
    if len(set(va) | set(vb)) == 1:
        return Verdict(NOT_SIGNIFICANT, p=1.0, ratio=ratio, ci=ci, method=RUNS, ci_kind=kind)
    if len(set(va)) == 1 and len(set(vb)) == 1:  # Welch divides by the spread: without any, no test
        return Verdict(CANNOT_TELL, why="no spread between the runs of either side: Welch's t needs some",
                       ratio=ratio, ci=ci, method=RUNS, ci_kind=kind)
    try:
        _, _, p = welch(va, vb)
        rank = mann_whitney(va, vb) if min(len(va), len(vb)) >= RUNS_RANK_MIN else None
    except ImportError:
        return Verdict(CANNOT_TELL, why="scipy is not installed (Debian's python3-scipy)", ratio=ratio, ci=ci,
                       method=RUNS, ci_kind=kind)
    ok = p < alpha and (rank is None or rank < alpha)
    return Verdict(SIGNIFICANT if ok else NOT_SIGNIFICANT, p=p, ratio=ratio, ci=ci, method=RUNS, rank_p=rank,
                   ci_kind=kind)
