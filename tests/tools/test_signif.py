"""test_signif - is a difference real (tools/qblib/signif.py): Mann-Whitney U against cases whose answer is known,
on samples converted to the measure; a side without samples cannot tell; qb report uses the same test;
Benjamini-Hochberg against the worked example of its paper and on its line; Welch's t against R's published output
and scipy; runs tested as runs, Welch's t deciding; Mann-Whitney U with ties against an exact enumeration."""
import itertools
import math
import random
import statistics

import numpy as np
import pytest

import qbtest  # noqa: F401 (puts tools/ on the path)

from qblib import figure, signif  # noqa: E402


class Run:
    boot = {"tsc_hz": 1e9}

    def of_kind(self, kind):
        return []


def fig(samples, iters=1000, flagged=None, **kw):
    xs = sorted(samples) if samples else [100]
    r = {"kind": "result", "workload": "counter", "variant": "packed", "threads": 2,
         "params": {"iters": iters, "placement": "compact"}, "unit": "ticks", "n": len(xs),
         "median": float(statistics.median(xs)), "mean": sum(xs) / len(xs), "min": xs[0], "max": xs[-1], "cv": 0.1,
         "figure": "clean", "noisy": False, "samples": list(samples) if samples else None,
         "samples_flagged": flagged or [], "check": "ok"}
    r["clean"] = {"reps": len(xs) - len(flagged or []), "flagged": len(flagged or []), "n": len(xs),
                  "median": r["median"], "mean": r["mean"], "min": xs[0], "max": xs[-1], "cv": 0.1}
    r.update(kw)
    return figure.of(r, Run())


def test_identical_samples_are_not_significant():
    v = signif.test(fig(range(100, 110)), fig(range(100, 110)))
    assert v.state == signif.NOT_SIGNIFICANT and v.p == pytest.approx(1.0)
    v = signif.test(fig([7] * 10), fig([7] * 10))
    assert v.state == signif.NOT_SIGNIFICANT and v.ratio == 1.0


def test_two_separated_samples_of_ten_are_significant():
    v = signif.test(fig(range(100, 110)), fig(range(200, 210)))
    assert v.state == signif.SIGNIFICANT and v.significant
    assert v.p == pytest.approx(2 / math.comb(20, 10))   # the exact test: both orders of all 20 values
    assert v.ratio == pytest.approx(204.5 / 104.5)
    lo, hi = v.ci
    assert lo <= v.ratio <= hi and lo > 1.5 and hi < 2.5


def test_interleaved_samples_are_not_significant():
    v = signif.test(fig(range(100, 120, 2)), fig(range(101, 121, 2)))
    assert v.state == signif.NOT_SIGNIFICANT and v.p > 0.5


def test_a_side_without_samples_cannot_tell():
    v = signif.test(fig(range(100, 110)), fig(None))
    assert v.state == signif.CANNOT_TELL and v.why == "no samples in B" and v.p is None
    assert v.text() == "cannot tell: no samples in B"
    v = signif.test(fig(range(100, 103)), fig(range(200, 203)))   # 3 and 3: p can only reach 0.1
    assert v.state == signif.CANNOT_TELL and "too few samples (3 and 3" in v.why


def test_samples_compare_in_the_measure_and_flagged_ones_are_left_out():
    """Twice the increments in twice the ticks is the same rate: not significant (in ticks it would be);
    a clean figure's flagged repetition is not one of its samples."""
    v = signif.test(fig(range(100, 110)), fig(range(200, 220, 2), iters=2000))
    assert v.state == signif.NOT_SIGNIFICANT and v.ratio == pytest.approx(1.0)
    a = fig(list(range(100, 110)) + [10 ** 6] * 9, flagged=list(range(10, 19)))
    assert len(a.samples) == 10 and max(a.samples) < 1
    v = signif.test(a, fig(range(100, 110)))
    assert v.state == signif.NOT_SIGNIFICANT
    a_all = fig(list(range(100, 110)) + [10 ** 6] * 9)  # the same repetitions, none flagged: they count
    assert signif.test(a_all, fig(range(100, 110))).state == signif.SIGNIFICANT


def test_different_units_cannot_tell():
    lava = figure.of({"kind": "result", "workload": "counter", "variant": "packed", "threads": 2, "median": 5.0,
                      "unit": "ns", "params": {"case": 3}, "check": "ok"}, Run())
    v = signif.test(fig(range(100, 110)), lava)
    assert v.state == signif.CANNOT_TELL and "ns/increment" in v.why


def test_report_uses_the_same_test(monkeypatch):
    """qb report's cells get their arrows from signif.test: replace it, and the arrows follow."""
    from qblib import report
    a, b = fig(range(100, 110)), fig(range(200, 210))
    calls = []

    def fake(x, y, alpha=signif.ALPHA):
        calls.append((x, y))
        return signif.Verdict(signif.NOT_SIGNIFICANT, p=0.5)
    text, _, _ = report.cell(b.r, Run(), ref=a)
    assert "&#9650;" in text                        # significantly higher: an arrow up
    monkeypatch.setattr(report.signif, "test", fake)
    text, _, tip = report.cell(b.r, Run(), ref=a)
    assert "&#9650;" not in text and "p=0.5" in tip and len(calls) == 1


# ---- many tests, corrected: Benjamini-Hochberg ----------------------------------------------------------
# Benjamini and Hochberg (1995), their worked example: the 15 p-values of a trial of a front-loaded thrombolytic
# treatment (Neuhaus et al. 1992). At q = 0.05 their procedure rejects the four smallest (p <= 0.0095, the largest k with
# p(k) <= k/15 x 0.05 being 4); Bonferroni's 0.05/15 rejects three; each alone at 0.05 would reject nine.
BH1995 = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719,
          0.6528, 0.7590, 1.000]


def test_benjamini_hochberg_rejects_what_the_paper_rejects():
    assert signif.bh_reject(BH1995, 0.05) == [True] * 4 + [False] * 11
    assert sum(p < 0.05 for p in BH1995) == 9 and sum(p <= 0.05 / 15 for p in BH1995) == 3
    # The adjusted values, min over j >= i of p(j) x 15 / j, worked by hand: p(6) takes p(7)'s 0.0298 x 15/7.
    want = [0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.0298 * 15 / 7, 0.0298 * 15 / 7, 0.0645, 0.0765, 0.486,
            0.4262 * 15 / 11, 0.714875, 0.6528 * 15 / 13, 0.7590 * 15 / 14, 1.0]
    assert signif.bh_adjust(BH1995) == pytest.approx(want)


def test_benjamini_hochberg_keeps_the_order_and_skips_what_was_not_tested():
    shuffled = [BH1995[i] for i in (14, 3, 0, 9, 5, 1, 13, 2)] + [None]
    adj = signif.bh_adjust(shuffled)
    assert adj[-1] is None and signif.bh_reject(shuffled)[-1] is False
    assert adj[:8] == pytest.approx(signif.bh_adjust(shuffled[:8]))
    # of these 8 the five smallest survive (0.0278 x 8/5 = 0.0445), 0.3240 x 8/6 does not
    assert [a <= 0.05 for a in adj[:8]] == [False, True, True, False, True, True, False, True]
    assert adj[4] == pytest.approx(0.0278 * 8 / 5)
    assert signif.bh_adjust([]) == [] and signif.bh_adjust([0.3]) == [0.3]


def test_a_p_exactly_on_the_line_is_rejected():
    """p(12) = 0.025 of m = 24 at q = 0.05 is on the line, 0.025 x 24 = 0.05 x 12, which floats make
    0.05000000000000001 when divided out. Benjamini-Hochberg rejects it; 0.02501 just above is not."""
    assert 0.025 * 24 / 12 > 0.05
    ps = [0.001] * 11 + [0.025] + [0.9] * 12
    assert signif.bh_reject(ps) == [True] * 12 + [False] * 12
    assert signif.bh_reject(ps[:11] + [0.02501] + ps[12:]) == [True] * 11 + [False] * 13
    verdicts = [signif.Verdict(signif.NOT_SIGNIFICANT, p=p) for p in ps]
    assert signif.correct(verdicts) == (24, 12, 12) and verdicts[11].significant
    assert verdicts[11].text() == "p=0.025 adj=0.05 significant"


def test_correct_marks_only_what_survives():
    """Seven pairs, one of them 5 against 5 repetitions fully apart (p = 2/252 = 0.0079), the rest alike:
    significant alone, not after the correction over seven (0.0079 x 7 = 0.056)."""
    apart = signif.test(fig(range(100, 105)), fig(range(200, 205)))
    same = [signif.test(fig(range(100, 110)), fig(range(100, 110))) for _ in range(6)]
    assert apart.significant and apart.p == pytest.approx(2 / 252)
    tests, raw, kept = signif.correct([apart] + same + [None])
    assert (tests, raw, kept) == (7, 1, 0)
    assert apart.state == signif.NOT_SIGNIFICANT and apart.p_adj == pytest.approx(7 * 2 / 252)
    assert apart.text() == "p=0.0079 adj=0.056"
    alone = signif.test(fig(range(100, 105)), fig(range(200, 205)))
    assert signif.correct([alone]) == (1, 1, 1) and alone.text() == "p=0.0079 adj=0.0079 significant"
    assert "Benjamini-Hochberg" in signif.correction_line((7, 1, 0)) and "0.05" in signif.correction_line((7, 1, 0))


# ---- runs as runs: Welch's t on the runs' medians ----------------------------------------------------------
# Student's sleep data (Cushny and Peebles 1905; R's `sleep`): extra hours of sleep under two drugs. R's
# t.test(extra ~ group, data = sleep), Welch's by default, prints t = -1.8608, df = 17.776, p-value = 0.07939.
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def test_welch_against_published_values_and_scipy():
    from scipy import stats
    t, df, p = signif.welch(SLEEP_1, SLEEP_2)
    assert t == pytest.approx(-1.8608, abs=1e-4) and df == pytest.approx(17.776, abs=1e-3)
    assert p == pytest.approx(0.07939, abs=1e-5)
    assert p == pytest.approx(stats.t.sf(abs(t), df) * 2)  # the p of that t at those degrees of freedom
    ref = stats.ttest_ind(SLEEP_1, SLEEP_2, equal_var=False)
    assert (t, p) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue))
    # Welch is not Student: with unequal spreads and sizes the pooled test differs
    a, b = [10.0, 10.2, 9.9, 10.1], [12.0, 8.0, 15.0, 7.0, 13.0, 9.0, 14.0]
    assert signif.welch(a, b)[2] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    assert signif.welch(a, b)[2] != pytest.approx(stats.ttest_ind(a, b).pvalue, rel=0.05)


def test_runs_are_decided_by_welch_from_three_with_rank_beside_from_five():
    v = signif.test_runs([1.0, 1.1, 0.9], [2.0, 2.1, 1.9])
    assert v.method == signif.RUNS and v.decider == signif.WELCH and v.rank_p is None
    assert v.p == pytest.approx(signif.welch([1.0, 1.1, 0.9], [2.0, 2.1, 1.9])[2]) and v.p < 0.001
    assert v.ratio == pytest.approx(2.0) and v.text().startswith("Welch p=")
    five = signif.test_runs([1.0, 1.1, 0.9, 1.05, 0.95], [2.0, 2.1, 1.9, 2.05, 1.95])
    assert five.rank_p == pytest.approx(2 / 252)  # Mann-Whitney on five medians against five, fully apart
    signif.correct([five])
    assert five.significant and five.text().endswith("; rank p=0.0079 significant")
    few = signif.test_runs([1.0, 1.1], [2.0, 2.1, 1.9])
    assert few.state == signif.CANNOT_TELL and "fewer than 3 runs" in few.why
    assert signif.test_runs([1.0] * 3, [1.0] * 3).state == signif.NOT_SIGNIFICANT


def test_the_rank_test_beside_welch_never_vetoes():
    """Issue 35: 5 runs a side, one pair wholly apart among 16 alike. The rank test's floor, 2/252, x 17 is 0.13:
    corrected over its own family it would veto the difference Welch's t finds. It is shown, and decides nothing."""
    apart = signif.test_runs([1.0, 1.01, 0.99, 1.02, 0.98], [1.5, 1.52, 1.49, 1.51, 1.48])
    alike = [signif.test_runs([1.0, 1.01, 0.99, 1.02, 0.98], [1.0, 1.02, 0.98, 1.01, 0.99]) for _ in range(16)]
    assert signif.correct([apart] + alike) == (17, 1, 1)
    assert apart.significant and apart.p_adj == pytest.approx(apart.p * 17)
    assert apart.rank_p == pytest.approx(2 / 252) and 2 / 252 * 17 > 0.05
    assert not any(v.significant for v in alike)


def test_runs_without_spread_leave_the_rank_test_to_decide_where_it_can():
    """Welch's t divides by the spread: where neither side's runs move, the rank test decides alone, counted only
    while its smallest p times the tests (it among them) can reach 0.05 (Tarone's argument: a test that cannot
    would only raise m for the others)."""
    flat = signif.test_runs([1.0] * 5, [2.0] * 5)
    assert flat.decider == signif.RANK and flat.p == pytest.approx(2 / 252) and flat.floor == pytest.approx(2 / 252)
    assert signif.correct([flat]) == (1, 1, 1) and flat.text() == "rank (no spread for Welch) p=0.0079 adj=0.0079 " \
        "significant"
    alike = [signif.test_runs([1.0, 1.1, 0.9], [1.0, 1.1, 0.9]) for _ in range(5)]
    assert signif.correct([flat] + alike) == (6, 1, 1) and flat.p_adj == pytest.approx(6 * 2 / 252)  # 0.048
    alike.append(signif.test_runs([1.0, 1.1, 0.9], [1.0, 1.1, 0.9]))
    assert signif.correct([flat] + alike) == (6, 0, 0)                                                 # 0.056: left out
    assert flat.state == signif.CANNOT_TELL and flat.p_adj is None
    assert flat.why == "no spread in either side's runs for Welch's t, and the rank test's smallest p, 0.0079, " \
        "times the 7 tests it would make, exceeds 0.05"
    # of two such, the one with the lower floor counts first: 2/252 x 7 = 0.056 no, 2/924 x 7 = 0.015 yes
    six = signif.test_runs([1.0] * 6, [3.0] * 6)
    assert six.floor == pytest.approx(2 / 924)
    assert signif.correct([flat, six] + alike) == (7, 1, 1) and six.significant and flat.state == signif.CANNOT_TELL
    three = signif.test_runs([1.0] * 3, [2.0] * 3)   # 0.1 at best: no test at all
    assert three.state == signif.CANNOT_TELL and "rank test on 3 and 3 cannot fall below 0.05" in three.why
    tied = signif.test_runs([1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 2.0])
    assert tied.decider == signif.WELCH    # B has a spread: Welch's t runs, the rank test (p = 1 at best) is not asked


# ---- Mann-Whitney U with ties: exact, conditional on them ------------------------------------------------------
def enumerated(xa, xb):
    """Two-sided Mann-Whitney U p by brute force, written apart from signif: U counts each (a, b) with a > b as
    one and a = b as a half; over every choice of which positions of the pooled values are A's, the share
    whose |U - n1 n2 / 2| is at least the observed one. Also the smallest p over all choices."""
    pooled, n1, n2 = np.asarray(list(xa) + list(xb)), len(xa), len(xb)
    pair = 2 * (pooled[:, None] > pooled[None, :]) + (pooled[:, None] == pooled[None, :])  # 2 x U's (i, j) term
    ina = np.zeros((math.comb(n1 + n2, n1), n1 + n2), dtype=np.int64)  # a row per choice: 1 where A
    for row, c in enumerate(itertools.combinations(range(n1 + n2), n1)):
        ina[row, list(c)] = 1
    twice_u = ((ina @ pair) * (1 - ina)).sum(axis=1)   # sum over i in A, j in B of pair[i, j]
    dev = np.abs(twice_u - n1 * n2)
    obs = abs(int(pair[:n1, n1:].sum()) - n1 * n2)
    return float((dev >= obs).mean()), float((dev == dev.max()).mean())


def test_tied_samples_get_the_exact_conditional_p():
    """[1,1,1,1] against [2,2,2,2]: of the C(8,4) = 70 ways, 2 are that far apart: p = 2/70 = 0.0286, where the
    normal approximation gave 0.013, below what any arrangement can give."""
    from scipy.stats import mannwhitneyu
    assert signif.mann_whitney([1, 1, 1, 1], [2, 2, 2, 2]) == pytest.approx(2 / 70)
    assert signif.smallest_p([1, 1, 1, 1], [2, 2, 2, 2]) == pytest.approx(2 / 70)
    assert enumerated([1, 1, 1, 1], [2, 2, 2, 2]) == (pytest.approx(2 / 70), pytest.approx(2 / 70))
    rng = random.Random(35)
    below = approximation_wrong = 0
    for case in range(400):   # 2 to 7 a side, values 0..1, 0..2 or 0..4, B's shifted by 0, 1 or 2: nearly all tied
        n1, n2, top_a, top_b, shift = (rng.randint(2, 7), rng.randint(2, 7), rng.choice((1, 2, 4)),
                                       rng.choice((1, 2, 4)), rng.choice((0, 1, 2)))
        xa = [rng.randint(0, top_a) for _ in range(n1)]
        xb = [rng.randint(0, top_b) + shift for _ in range(n2)]
        if len(set(xa + xb)) == 1:
            continue
        p, floor = enumerated(xa, xb)
        assert signif.mann_whitney(xa, xb) == pytest.approx(p, rel=1e-12), (xa, xb)
        assert signif.smallest_p(xa, xb) == pytest.approx(floor, rel=1e-12), (xa, xb)
        below += p < 0.05
        approximation_wrong += mannwhitneyu(xa, xb, method="asymptotic").pvalue < 0.05 <= p
    assert below > 50 and approximation_wrong > 5   # the cases reach the tail, where the approximation went wrong


def test_exact_up_to_twenty_a_side_and_the_approximation_beyond():
    """10 against 10 with ties (184756 ways) against the enumeration; without ties the same as scipy's exact
    distribution; past 20 x 20, scipy's normal approximation with its tie correction."""
    from scipy.stats import mannwhitneyu
    xa, xb = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3], [5, 8, 9, 7, 9, 3, 2, 3, 8, 4]
    assert signif.mann_whitney(xa, xb) == pytest.approx(enumerated(xa, xb)[0], rel=1e-12)
    ua, ub = [0.5, 1.5, 2.7, 3.1, 4.4, 7.0], [2.2, 5.9, 6.1, 8.3, 9.9]
    assert signif.mann_whitney(ua, ub) == pytest.approx(mannwhitneyu(ua, ub, method="exact").pvalue)
    assert signif.mann_whitney(ua, ub) == pytest.approx(enumerated(ua, ub)[0])
    big_a, big_b = [i % 7 for i in range(21)], [i % 5 + 1 for i in range(20)]
    assert signif.mann_whitney(big_a, big_b) == pytest.approx(
        mannwhitneyu(big_a, big_b, method="asymptotic").pvalue)


def test_ties_that_cannot_reach_the_level_cannot_tell():
    """5 against 5 could reach 2/252 = 0.0079, but with eight of the ten the same value the most extreme
    arrangement (one side holds both others) has p = (56 + 56) / 252: the test cannot tell, and says it is the
    ties. With a lone odd one, either side holding it is as far from the centre: p = 1."""
    assert signif.smallest_p([100] * 5, [100] * 3 + [200] * 2) == pytest.approx(112 / 252)
    assert enumerated([100] * 5, [100] * 3 + [200] * 2)[1] == pytest.approx(112 / 252)
    assert signif.smallest_p([1.0] * 4, [1.0] * 3 + [2.0]) == 1.0
    v = signif.test(fig([100] * 5), fig([100] * 3 + [200] * 2))
    assert v.state == signif.CANNOT_TELL and v.why == "too few samples (5 and 5, with these ties: p cannot fall " \
        "below 0.05)"
    v = signif.test(fig([100] * 5), fig([200] * 5))   # apart: 2/252, and smallest_p says so
    assert v.p == pytest.approx(2 / 252) and v.state == signif.SIGNIFICANT


def test_below_six_values_a_side_the_interval_is_the_range_and_says_so():
    """A median of 3 to 5 values bootstrapped puts more than 2.5% of its draws on the extremes: its percentile
    "95% CI" is only min(B)/max(A)..max(B)/min(A). Below CI_MIN values a side that range is given as such."""
    v = signif.test_runs([1.0, 1.1, 0.9], [2.0, 2.1, 1.9])
    assert v.ci_kind == signif.RANGE and v.ci == pytest.approx((1.9 / 1.1, 2.1 / 0.9))
    assert v.interval_text() == "range 1.73-2.33"
    five = signif.test(fig([100, 101, 102, 103, 104]), fig([200, 201, 202, 203, 204]))
    assert five.ci_kind == signif.RANGE and five.ci == pytest.approx((200 / 104, 204 / 100))
    ten = signif.test(fig(range(100, 110)), fig(range(200, 210)))   # from 6 a side: the bootstrap interval
    assert ten.ci_kind == signif.CI and ten.interval_text().startswith("CI ")
    lo, hi = ten.ci
    assert 200 / 109 < lo <= ten.ratio <= hi < 209 / 100               # narrower than the range
    six = signif.test_runs([1.0, 1.1, 0.9, 1.05, 0.95, 1.0], [2.0, 2.1, 1.9, 2.05, 1.95, 2.0])
    assert six.ci_kind == signif.CI
    assert signif.Verdict(signif.CANNOT_TELL, why="x").interval_text() == "-"
