"""signif.py - is the difference between two results real? One test for qb compare and qb report.

The test is Mann-Whitney U (scipy.stats.mannwhitneyu, two-sided; its exact distribution for small
samples without ties, else the normal approximation) on the two results' repetitions,
each converted to the measure (figure.py: a sample in ticks times the result's own scale, so runs of
other iteration counts or TSC frequencies compare), the flagged repetitions left out where the figure
is the clean one. The difference is significant when p < ALPHA. Where a side has no samples, or so
few that no outcome could reach ALPHA (3 against 3: the smallest two-sided p is 0.1), the test
cannot tell, and says why. Beside it: the ratio of the medians B/A with a percentile bootstrap 95%
confidence interval over the same samples (a fixed seed: the same runs give the same interval).
"""
import math

import numpy as np

ALPHA = 0.05
BOOT = 2000
EXACT_MAX = 400  # n1 x n2 up to which the exact distribution is used (without ties): 20 x 20 in ~0.03 s
SEED = 23
STATED = "Mann-Whitney U, two-sided, alpha %g, on each side's repetitions in the measure" % ALPHA

SIGNIFICANT, NOT_SIGNIFICANT, CANNOT_TELL = "significant", "not significant", "cannot tell"


class Verdict:
    """state: SIGNIFICANT, NOT_SIGNIFICANT or CANNOT_TELL; p (or None); why (for CANNOT_TELL);
    ratio: B/A of the figures' medians (None without both); ci: (low, high) of the ratio or None."""

    def __init__(self, state, p=None, why=None, ratio=None, ci=None):
        self.state, self.p, self.why, self.ratio, self.ci = state, p, why, ratio, ci

    @property
    def significant(self):
        return self.state == SIGNIFICANT

    def text(self):
        """"p=0.002 significant", "p=0.41", "cannot tell: no samples in B"."""
        if self.state == CANNOT_TELL:
            return "cannot tell: " + self.why
        return "p=%s%s" % (pvalue(self.p), " significant" if self.significant else "")

    def __repr__(self):
        return "Verdict(%s, p=%r, why=%r, ratio=%r, ci=%r)" % (self.state, self.p, self.why, self.ratio, self.ci)


def pvalue(p):
    return "%.2g" % p


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


def test(fa, fb, alpha=ALPHA):
    """The verdict on two figures (figure.Figure) of the same measurement."""
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
    ci = ratio_ci(xa, xb)
    if len(set(xa) | set(xb)) == 1:  # every repetition the same number: no difference at all
        return Verdict(NOT_SIGNIFICANT, p=1.0, ratio=ratio, ci=ci)
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        return Verdict(CANNOT_TELL, why="scipy is not installed (Debian's python3-scipy)", ratio=ratio, ci=ci)
    ties = len(set(xa) | set(xb)) < len(xa) + len(xb)
    exact = not ties and len(xa) * len(xb) <= EXACT_MAX
    p = float(mannwhitneyu(xa, xb, alternative="two-sided", method="exact" if exact else "asymptotic").pvalue)
    return Verdict(SIGNIFICANT if p < alpha else NOT_SIGNIFICANT, p=p, ratio=ratio, ci=ci)
