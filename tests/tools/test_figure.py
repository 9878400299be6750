"""test_figure - the figure of a result (tools/qblib/figure.py, measure.py): clean first, noisy when fewer than
half of the repetitions are clean, quartiles as numpy's type 7, nothing for nothing, and the units each
experiment speaks, checked against the records' own ns fields (the kernel's conversion, not ours)."""
import os
import statistics

import pytest

from qbtest import DATA
from qblib import figure, measure  # noqa: E402
from qblib import run as qbrun  # noqa: E402

HZ = 2e9


class Run:
    """A run with a boot record and cache records only, for records made up here."""

    def __init__(self, hz=HZ, line=64):
        self.boot = {"tsc_hz": hz}
        self.line = line

    def of_kind(self, kind):
        return [{"level": 1, "type": "data", "size": 32768, "line": self.line}] if kind == "cache" else []


def counter(**kw):
    r = {"kind": "result", "workload": "counter", "variant": "packed", "threads": 2,
         "params": {"iters": 1000, "placement": "compact"}, "unit": "ticks", "n": 10, "min": 100, "median": 200.0,
         "mean": 210.0, "max": 400, "cv": 0.3,
         "clean": {"reps": 8, "flagged": 2, "n": 8, "min": 100, "median": 150.0, "mean": 150.0, "max": 190,
                   "cv": 0.1}, "check": "ok"}
    r.update(kw)
    return r


def test_clean_first():
    f = figure.of(counter(), Run())
    assert f.basis == "clean" and f.noisy is None and f.mark == ""
    assert f.value == pytest.approx(150.0 / 1000 * 1e9 / HZ)  # the clean median, per increment, in ns
    assert f.unit == "ns/increment" and f.n == 8 and f.reps == 10
    assert f.cv_pct == pytest.approx(10.0)


def test_noisy_when_fewer_than_half_clean():
    r = counter(clean={"reps": 4, "flagged": 6, "n": 4, "min": 100, "median": 120.0, "mean": 120.0, "max": 130,
                       "cv": 0.1}, noise={"flags": ["context_switch"]})
    f = figure.of(r, Run())
    assert f.basis == "all" and f.mark == figure.MARK
    assert f.noisy == {"clean": 4, "reps": 10, "flags": ["context_switch"]}
    assert f.value == pytest.approx(200.0 / 1000 * 1e9 / HZ)  # all repetitions' median
    assert f.noisy_text() == "noisy: 4 of 10 clean (context_switch)"
    half = counter(clean=dict(r["clean"], reps=5))  # exactly half clean: not noisy
    assert figure.of(half, Run()).noisy is None


def test_new_records_say_it_themselves():
    r = counter(noisy={"clean": 0, "reps": 10, "flags": ["smi"]}, figure="all")
    assert figure.of(r, Run()).basis == "all" and figure.of(r, Run()).noisy["flags"] == ["smi"]
    r = counter(noisy=False, figure="clean", measures={
        "ns_per_increment": {"unit": "ns/increment", "median": 1.23, "q1": 1.2, "q3": 1.31, "scale": 5e-4}})
    f = figure.of(r, Run())
    assert (f.value, f.q1, f.q3, f.unit) == (1.23, 1.2, 1.31, "ns/increment")
    r["samples"], r["samples_flagged"] = [100, 5000, 120, 140], [1]
    f = figure.of(r, Run())
    assert f.samples == pytest.approx([0.05, 0.06, 0.07])  # scale x ticks, the flagged one left out
    r["measures"]["gb_per_s"] = {"unit": "GB/s", "median": 12.0, "q1": 11.0, "q3": 13.0, "scale": 2e3,
                                 "inverse": True}
    g = figure.of(r, Run(), "gb_per_s")
    assert g.samples == pytest.approx([20.0, 2e3 / 120, 2e3 / 140]) and g.q1 <= g.q3


def test_nothing_is_null_never_zero():
    """No repetitions, or a skipped result: no figure, every statistic None. An old record's empty clean
    block written as zeros (0 clean of n) is noisy and never read."""
    for r in (counter(n=0, median=None, min=None, max=None, mean=None, cv=None, clean=None),
              {"kind": "result", "workload": "counter", "variant": "packed", "threads": 0,
               "params": {"placement": "pair-smt"}, "check": "skipped"}):
        f = figure.of(r, Run())
        assert f.basis is None
        assert (f.value, f.q1, f.q3, f.lo, f.hi, f.n, f.cv_pct, f.samples) == (None,) * 8
    zeros = counter(clean={"reps": 0, "flagged": 10, "n": 0, "min": 0, "median": 0.0, "mean": 0.0, "max": 0,
                           "cv": 0.0})
    f = figure.of(zeros, Run())
    assert f.noisy and f.basis == "all" and f.value > 0
    assert figure.quartiles([]) == (None, None)
    assert figure.of(counter(mean=0.0, cv=None, clean=None), Run()).cv_pct is None


def test_quartiles_are_type_7():
    xs = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
    q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    assert figure.quartiles(xs) == pytest.approx((q1, q3))
    r = counter(samples=[110, 120, 130, 140, 150, 160, 170, 180, 190, 9000],
                clean={"reps": 10, "flagged": 0, "n": 10, "min": 110, "median": 155.0, "mean": 1035.0,
                       "max": 9000, "cv": 2.6})
    f = figure.of(r, Run())
    q1, _, q3 = statistics.quantiles(r["samples"], n=4, method="inclusive")
    k = 1e9 / HZ / 1000
    assert (f.q1, f.q3) == pytest.approx((q1 * k, q3 * k))
    flagged_unknown = counter(samples=list(range(100, 110)))  # 2 of 10 flagged, which ones not said
    g = figure.of(flagged_unknown, Run())
    assert g.q1 is None and g.samples is None and "not identified" in g.samples_note


def test_units_without_a_tsc_frequency_are_ticks():
    f = figure.of(counter(), Run(hz=0))
    assert f.unit == "ticks/increment" and f.value == pytest.approx(0.15)


@pytest.mark.parametrize("name", ["counter-smp4.log", "locality-smp4.log", "twin-quick.log",
                                  os.path.join("lava-server", "job-4.log")])
def test_units_match_the_records_own_ns(name):
    """Every figure of an older record (no clean block, or all of it clean) equals what its median_ns,
    computed by the kernel from the same TSC frequency, gives in the experiment's unit."""
    run = qbrun.load(os.path.join(DATA, name))
    checked = 0
    for r in run.results():
        f = figure.of(r, run)
        if f.value is None or f.basis != "all" and (r["clean"]["median"] != r["median"]):
            continue
        ns, p = r["median_ns"], r.get("params") or {}
        want = {"counter": lambda: ns / p["iters"], "locality": lambda: ns / p["ints"],
                "flush": lambda: ns / (p["set_bytes"] / 64), "selftest": lambda: ns}.get(r["workload"])
        if r["workload"] == "first-touch":
            want = (lambda: ns / (p["bytes"] / 4096)) if r["variant"].startswith("copy-") else (lambda: ns)
        assert f.value == pytest.approx(want(), rel=2e-3, abs=0.06), (r["workload"], r["variant"], f)
        if r["workload"] == "locality":
            assert figure.of(r, run, "gb_per_s").value == pytest.approx(p["bytes"] / ns, rel=2e-3)
        if r["variant"] in measure.ZEROING:
            page = r.get("page_bytes") or 4096
            assert figure.of(r, run, "gb_per_s").value == pytest.approx(page / ns, rel=2e-3)
        checked += 1
    assert checked >= 10


def test_noisy_real_results_marked():
    """The twin's quick run: each result with fewer than half of its repetitions clean is noisy and shows
    the median over all of them; every other figure is the clean median."""
    run = qbrun.load(os.path.join(DATA, "twin-quick.log"))
    noisy = clean = 0
    for r in run.results():
        c = r.get("clean")
        if not isinstance(c, dict) or not r.get("n"):
            continue
        f = figure.of(r, run, ticks=True)
        if 2 * c["reps"] < r["n"]:
            noisy += 1
            assert f.noisy and f.ticks["median"] == r["median"]
        else:
            clean += 1
            assert not f.noisy and f.ticks["median"] == c["median"]
    assert noisy and clean
