"""signif.py - is the difference between two results real? The tests of qb compare and qb report, and the
correction for running many of them.

Two tests, by what a side has:
  - runs: with at least RUNS_MIN runs a side, the runs' own figures (each run's median in the measure) are
    tested, and Welch's t (scipy.stats.ttest_ind, equal_var=False) on them decides. This is the spread
    that matters: repetitions taken back to back in one boot move less than a figure moves from one boot
    to the next. From RUNS_RANK_MIN runs a side Mann-Whitney U on the same medians is shown beside it,
    uncorrected: it never vetoes, for at 5 against 5 its smallest p is 2/252 and a lone difference could
    never pass a correction over more than 6 tests. Where neither side's runs spread at all, Welch's t
    cannot run (it divides by the spread) and the rank test decides alone, counted only where it can
    reach the false discovery rate (correct()).
  - repetitions: with fewer runs, Mann-Whitney U (two-sided) on the two sides' repetitions, each converted
    to the measure (figure.py: a sample in ticks times the result's own scale, so runs of other iteration
    counts or TSC frequencies compare), the flagged repetitions left out where the figure is the clean one.
    It understates the spread between boots, and the views say so.
Mann-Whitney U's p (mann_whitney) is exact up to EXACT_MAX (n1 x n2, 20 x 20): scipy's exact distribution
without ties; with ties, the exact distribution conditional on them (exact_tied): over the C(n1+n2, n1)
ways to put n1 of the pooled midranks in A, the share whose |U - E[U]| is at least the observed one. Past
EXACT_MAX, scipy's normal approximation with its tie correction. Where a side has no samples, or an
outcome could not reach ALPHA given the sizes and the ties (smallest_p: 3 against 3 cannot fall below
0.1, [1,1,1,1] against [2,2,2,2] below 2/70), the test cannot tell, and says why. Beside it: the ratio of
the medians B/A with an interval over the same values: from CI_MIN values a side, a percentile bootstrap
95% confidence interval (a fixed seed: the same runs give the same interval); with fewer, the range
min(B)/max(A) to max(B)/min(A), labelled "range" and never called a confidence interval: the bootstrap of a
median of 3 to 5 values puts more than 2.5% of its draws on the extremes, so its percentile interval is
that range and claims a confidence it does not have.

Many tests, corrected: a compare or a report runs one test per pair, hundreds of them, and at 0.05
about one in twenty would be called significant by chance. correct() applies the Benjamini-Hochberg
procedure (1995) over all the tests of one invocation, one p per pair (the deciding test's): each p gets
its adjusted value (bh_adjust), and a difference is significant only when its adjusted p is at most the
false discovery rate Q, within BH_TOL of it for float rounding, so that a p on the line is rejected as the
procedure says.
"""
import math
import warnings
from collections import Counter

import numpy as np

from .text import sig

ALPHA = 0.05   # one test's level, before any correction (the "too few samples" bound)
Q = 0.05       # the false discovery rate of the Benjamini-Hochberg correction
BH_TOL = 1e-9  # relative: p(k) m <= q k within float rounding is on the line (0.025 x 24 / 12 = 0.05000000000000001)
BOOT = 2000
EXACT_MAX = 400  # n1 x n2 up to which Mann-Whitney U is exact, with ties or without: 20 x 20 in ~0.03 s
SEED = 23
RUNS_MIN = 3       # runs a side from which the runs' medians are tested (Welch's t)
RUNS_RANK_MIN = 5  # runs a side from which Mann-Whitney U on the runs' medians is shown beside Welch's t
CI_MIN = 6         # values a side from which B/A gets a bootstrap 95% interval; with fewer, the range
CI, RANGE = "95% CI", "range"  # what Verdict.ci is (Verdict.ci_kind)
REPS, RUNS = "repetitions", "runs"    # what was tested (Verdict.method)
WELCH, RANK = "Welch", "rank"         # which test decides a verdict on runs (Verdict.decider)
STATED_REPS = ("Mann-Whitney U, two-sided, on each side's repetitions in the measure (exact up to n1 x n2 = %d, "
               "given the ties where there are any; beyond, the normal approximation; repetitions of one boot, taken "
               "back to back: this understates the spread between boots; give %d runs a side to test the runs)"
               % (EXACT_MAX, RUNS_MIN))
STATED_RUNS = ("Welch's t on the runs' medians, two-sided, decides; with %d runs a side or more Mann-Whitney U on the "
               "same medians is shown beside it (rank p=, uncorrected), and never vetoes; where neither side's runs "
               "spread, Welch's t cannot run and the rank test decides alone (rank p= adj=), counted only where its "
               "smallest possible p times the number of tests reaches the false discovery rate" % RUNS_RANK_MIN)
METHOD = "Benjamini-Hochberg false discovery rate"

SIGNIFICANT, NOT_SIGNIFICANT, CANNOT_TELL = "significant", "not significant", "cannot tell"


class Verdict:
    """state: SIGNIFICANT, NOT_SIGNIFICANT or CANNOT_TELL; p (or None): the deciding test's; why (for CANNOT_TELL);
    ratio: B/A of the figures' medians (None without both); ci: (low, high) of the ratio or None, and
    ci_kind what it is: CI (a bootstrap 95% interval) or RANGE (fewer than CI_MIN values a side).
    method: REPS or RUNS (what was tested); decider: on runs, WELCH or RANK (the rank test alone, where the runs
    have no spread for Welch's t); floor: the smallest p the rank test deciding alone could give (correct() counts
    it only where floor x tests can reach Q); p_adj: p after the correction (None before it); rank_p: Mann-Whitney
    U on the runs' medians shown beside Welch's, uncorrected, where it ran."""

    def __init__(self, state, p=None, why=None, ratio=None, ci=None, method=REPS, rank_p=None, ci_kind=CI,
                 decider=None, floor=None):
        self.state, self.p, self.why, self.ratio, self.ci = state, p, why, ratio, ci
        self.method, self.rank_p, self.ci_kind = method, rank_p, ci_kind
        self.decider, self.floor = decider, floor
        self.p_adj = None

    @property
    def significant(self):
        return self.state == SIGNIFICANT

    def text(self):
        """"p=0.002 adj=0.01 significant", "p=0.41", "Welch p=0.003 adj=0.02; rank p=0.008",
        "rank (no spread for Welch) p=0.008 adj=0.04", "cannot tell: no samples in B"."""
        if self.state == CANNOT_TELL:
            return "cannot tell: " + self.why
        if self.decider == RANK:
            out = "rank (no spread for Welch) " + _pair(self.p, self.p_adj)
        else:
            out = ("Welch " if self.method == RUNS else "") + _pair(self.p, self.p_adj)
        if self.rank_p is not None and self.decider != RANK:
            out += "; rank " + _pair(self.rank_p, None)
        return out + (" significant" if self.significant else "")

    def interval_text(self, digits=3):
        """"CI 0.95-1.05" (a bootstrap 95% interval), "range 0.90-1.10", or "-" without one."""
        if not self.ci:
            return "-"
        return "%s %s-%s" % ("CI" if self.ci_kind == CI else RANGE, sig(self.ci[0], digits), sig(self.ci[1], digits))

    def __repr__(self):
        return "Verdict(%s, %s, %s, p=%r, adj=%r, rank=%r, floor=%r, why=%r, ratio=%r, %s=%r)" % (
            self.state, self.method, self.decider, self.p, self.p_adj, self.rank_p, self.floor, self.why, self.ratio,
            self.ci_kind, self.ci)


def pvalue(p):
    return "%.2g" % p


def _pair(p, adj):
    return "p=%s" % pvalue(p) + ("" if adj is None else " adj=%s" % pvalue(adj))


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


# ---- Mann-Whitney U ---------------------------------------------------------------------------------------------
def _tied(xa, xb):
    return len(set(xa) | set(xb)) < len(xa) + len(xb)


def rank_sums(ranks2, n1):
    """counts[s]: of the C(n, n1) ways to choose which n1 of the n pooled values are A's, how many give A the
    rank sum s/2 (ranks2: the pooled midranks doubled, integers). Counted tie group by tie group rather than
    way by way: a group of t equal midranks r puts c of them in A in C(t, c) ways, each adding c r."""
    top = sum(sorted(ranks2)[-n1:]) + 1 if n1 else 1
    ways = np.zeros((n1 + 1, top), dtype=np.int64)  # ways[k, s]: k of the groups seen so far in A, summing to s
    ways[0, 0] = 1
    for r, t in sorted(Counter(ranks2).items()):
        new = np.zeros_like(ways)
        for c in range(min(t, n1) + 1):
            if c * r >= top:
                break
            new[c:, c * r:] += math.comb(t, c) * ways[:n1 + 1 - c, :top - c * r]
        ways = new
    return ways[n1]


def exact_tied(xa, xb):
    """Two-sided Mann-Whitney U p, exact and conditional on the ties: the share of the C(n1+n2, n1) ways to
    place n1 of the pooled midranks in A whose |U - E[U]| (|R - E[R]| of A's rank sum, the same) is at least
    the observed one. scipy.stats.permutation_test's two-sided p is not this on many tied samples."""
    from scipy.stats import rankdata
    n1, n = len(xa), len(xa) + len(xb)
    ranks2 = [int(round(2 * r)) for r in rankdata(list(xa) + list(xb))]
    counts = rank_sums(ranks2, n1)
    total = math.comb(n, n1)
    assert int(counts.sum()) == total, "rank_sums counted %d ways of %d" % (counts.sum(), total)
    centre = n1 * (n + 1)  # twice E[R] = n1 (n + 1) / 2
    far = np.abs(np.arange(counts.size) - centre) >= abs(sum(ranks2[:n1]) - centre)
    return min(1.0, int(counts[far].sum()) / total)


def mann_whitney(xa, xb):
    """Two-sided Mann-Whitney U p: exact up to EXACT_MAX (scipy's without ties, exact_tied with them), else
    scipy's normal approximation with its tie and continuity corrections."""
    from scipy.stats import mannwhitneyu
    if len(xa) * len(xb) <= EXACT_MAX:
        if _tied(xa, xb):
            return exact_tied(xa, xb)
        return float(mannwhitneyu(xa, xb, alternative="two-sided", method="exact").pvalue)
    return float(mannwhitneyu(xa, xb, alternative="two-sided", method="asymptotic").pvalue)


def smallest_p(xa, xb):
    """The smallest p mann_whitney could give two samples of these sizes and these ties: that of A holding
    the n1 lowest of the pooled values, or the n1 highest (the rank sums furthest from their centre). Without
    ties 2 / C(n1 + n2, n1); 1 where every value is the same."""
    pooled, n1 = sorted(list(xa) + list(xb)), len(xa)
    if not n1 or n1 == len(pooled) or pooled[0] == pooled[-1]:
        return 1.0
    return min(mann_whitney(pooled[:n1], pooled[n1:]), mann_whitney(pooled[-n1:], pooled[:-n1]))


def untied_smallest_p(n1, n2):
    """smallest_p without ties, from the sizes alone: both samples apart."""
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def welch(xa, xb):
    """Welch's t-test of two samples: (t, degrees of freedom, two-sided p). t and p are scipy's
    (ttest_ind with equal_var=False); the Welch-Satterthwaite degrees of freedom, which scipy 1.10 does
    not return, are computed here the same way."""
    from scipy.stats import ttest_ind
    a, b = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
    with warnings.catch_warnings():  # one side without spread is no fault: scipy warns of cancellation in its 0
        warnings.simplefilter("ignore", RuntimeWarning)
        res = ttest_ind(a, b, equal_var=False)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1)) if va + vb > 0 else float("nan")
    return float(res.statistic), float(df), float(res.pvalue)


# ---- many tests: Benjamini-Hochberg ----------------------------------------------------------------------------
def within(x, q=Q):
    """x <= q, within the relative BH_TOL of it: a value on the line, through float rounding, is on it."""
    return x <= q * (1.0 + BH_TOL)


def bh_adjust(ps):
    """Benjamini-Hochberg adjusted p-values, in the order given (None stays None): the i-th smallest of m
    becomes min over j >= i of p(j) * m / j, at most 1. A hypothesis is rejected at false discovery rate q
    when its adjusted p is at most q (within(), as bh_reject and correct() compare): the step-up rule of
    Benjamini and Hochberg (1995), "reject H(1)..H(k) for the largest k with p(k) <= k q / m"."""
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
    return [a is not None and within(a, q) for a in bh_adjust(ps)]


def _reachable(gated, others, q):
    """How many of the verdicts the rank test decides alone count, smallest floor first: the first k of them,
    for the largest k where the k-th's floor times the tests counted (others + k) is within q. A test that cannot
    reach q even alone would only raise m for the others (Tarone 1990's argument, here for the FDR)."""
    k = 0
    while k < len(gated) and within(gated[k].floor * (others + k + 1), q):
        k += 1
    return k


def correct(verdicts, q=Q):
    """Correct the verdicts of one invocation for their number, in place: every tested one gets p_adj by
    Benjamini-Hochberg over all of them (a verdict given twice counted once), and is significant only when it
    survives at q. A verdict the rank test decides alone counts only where its floor times the number of tests
    can reach q; otherwise it cannot tell, and says so. Returns (tests, raw p below ALPHA, surviving)."""
    tested = list({id(v): v for v in verdicts if v is not None and v.p is not None}.values())  # each once
    gated = sorted((v for v in tested if v.floor is not None), key=lambda v: v.floor)
    sure = [v for v in tested if v.floor is None]
    k = _reachable(gated, len(sure), q)
    for v in gated[k:]:
        v.state, v.p_adj = CANNOT_TELL, None
        v.why = ("no spread in either side's runs for Welch's t, and the rank test's smallest p, %s, times the %d "
                 "tests it would make, exceeds %g" % (pvalue(v.floor), len(sure) + k + 1, q))
    counted = sure + gated[:k]
    for v, adj in zip(counted, bh_adjust([v.p for v in counted])):
        v.p_adj = adj
        v.state = SIGNIFICANT if within(adj, q) else NOT_SIGNIFICANT
    raw = sum(1 for v in counted if v.p < ALPHA)
    return len(counted), raw, sum(1 for v in counted if v.significant)


def correction_line(counts, q=Q):
    """The line every table of verdicts ends with: the method, its level and what survived."""
    tests, raw, kept = counts
    if not tests:
        return "correction: %s %g: no test ran" % (METHOD, q)
    return ("correction: %s %g over the %d test%s of this invocation: %d with p < %g before it, %d significant "
            "after it (adjusted p <= %g)" % (METHOD, q, tests, "" if tests == 1 else "s", raw, ALPHA, kept, q))


# ---- the verdicts -----------------------------------------------------------------------------------------------
NO_SCIPY = "scipy is not installed (Debian's python3-scipy)"


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
    few = "too few samples (%d and %d%%s: p cannot fall below %g)" % (len(xa), len(xb), alpha)
    if untied_smallest_p(len(xa), len(xb)) >= alpha:
        return Verdict(CANNOT_TELL, why=few % "", ratio=ratio)
    ci, kind = ratio_interval(xa, xb)
    if len(set(xa) | set(xb)) == 1:  # every repetition the same number: no difference at all
        return Verdict(NOT_SIGNIFICANT, p=1.0, ratio=ratio, ci=ci, ci_kind=kind)
    try:
        if smallest_p(xa, xb) >= alpha:  # the sizes allow it, their ties do not
            return Verdict(CANNOT_TELL, why=few % ", with these ties", ratio=ratio, ci=ci, ci_kind=kind)
        p = mann_whitney(xa, xb)
    except ImportError:
        return Verdict(CANNOT_TELL, why=NO_SCIPY, ratio=ratio, ci=ci, ci_kind=kind)
    return Verdict(SIGNIFICANT if p < alpha else NOT_SIGNIFICANT, p=p, ratio=ratio, ci=ci, ci_kind=kind)


def test_runs(va, vb, alpha=ALPHA):
    """The verdict on two sides' runs of one measurement, from each run's figure (its median in the
    measure): Welch's t decides, Mann-Whitney U shown beside it from RUNS_RANK_MIN runs a side; where neither
    side's runs spread, the rank test alone (floor: its smallest p, for correct()). Uncorrected, as test()."""
    va = [float(x) for x in va if x is not None]
    vb = [float(x) for x in vb if x is not None]
    if min(len(va), len(vb)) < RUNS_MIN:
        return Verdict(CANNOT_TELL, why="fewer than %d runs a side (%d and %d)" % (RUNS_MIN, len(va), len(vb)),
                       method=RUNS)
    ma, mb = float(np.median(va)), float(np.median(vb))
    ratio = mb / ma if ma else None
    ci, kind = ratio_interval(va, vb)
    if len(set(va) | set(vb)) == 1:
        return Verdict(NOT_SIGNIFICANT, p=1.0, ratio=ratio, ci=ci, method=RUNS, ci_kind=kind, decider=WELCH)
    try:
        if len(set(va)) == 1 and len(set(vb)) == 1:  # Welch divides by the spread: without any, the rank test
            floor = smallest_p(va, vb)
            if floor >= alpha:
                return Verdict(CANNOT_TELL, why="no spread in either side's runs for Welch's t, and the rank test "
                               "on %d and %d cannot fall below %g" % (len(va), len(vb), alpha),
                               ratio=ratio, ci=ci, method=RUNS, ci_kind=kind)
            p = mann_whitney(va, vb)
            return Verdict(SIGNIFICANT if p < alpha else NOT_SIGNIFICANT, p=p, ratio=ratio, ci=ci, method=RUNS,
                           ci_kind=kind, decider=RANK, floor=floor)
        _, _, p = welch(va, vb)
        rank = mann_whitney(va, vb) if min(len(va), len(vb)) >= RUNS_RANK_MIN else None
    except ImportError:
        return Verdict(CANNOT_TELL, why=NO_SCIPY, ratio=ratio, ci=ci, method=RUNS, ci_kind=kind)
    return Verdict(SIGNIFICANT if p < alpha else NOT_SIGNIFICANT, p=p, ratio=ratio, ci=ci, method=RUNS, rank_p=rank,
                   ci_kind=kind, decider=WELCH)
