"""test_signif - is a difference real (tools/qblib/signif.py): Mann-Whitney U against cases whose answer is known,
on samples converted to the measure; a side without samples cannot tell; qb report uses the same test."""
import math
import statistics

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
