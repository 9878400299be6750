"""test_v23_logs - issue 23's promises on real runs of its record format: a QEMU quick run, a Linux twin quick
run, and a twin run of the full profile cut by a budget (tests/tools/data/README.md says how each was made).

- No record holds a statistic of nothing, and every result says whether it is noisy, consistently.
- qb compare of the QEMU run and the twin run pairs every result both have, in the same units, with a
  significance column, and lists what only one has once, at the end.
- qb compare of two profiles pairs on what defines a measurement, not on iteration counts.
- No view shows a noisy figure without its mark."""
import os
import re

from qbtest import DATA, V23, qb
from qblib import run as qbrun  # noqa: E402

STATS = ("min", "q1", "median", "q3", "mean", "max", "stddev", "cv")


def load(key):
    return qbrun.load(os.path.join(DATA, V23[key]), warn=False)


def test_no_statistic_of_nothing_and_noisy_is_consistent():
    for key in V23:
        run = load(key)
        assert run.results(), key
        for r in run.results():
            for block in (r, r.get("clean")):
                if isinstance(block, dict) and block.get("n") == 0:
                    assert all(block.get(k) is None for k in STATS), (key, r.get("variant"), block)
            if r.get("check") == "skipped" or not isinstance(r.get("clean"), dict):
                continue
            n, clean = r.get("n") or 0, r["clean"].get("reps", 0)
            assert bool(r.get("noisy")) == (n > 0 and 2 * clean < n), (key, r.get("variant"), r.get("noisy"))
            assert r.get("figure") == (None if not n else "all" if r.get("noisy") else "clean"), (key, r)


def compare(a, b):
    out = qb("compare", os.path.join(DATA, V23[a]), os.path.join(DATA, V23[b]))
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def summary(lines):
    m = re.match(r"(\d+) paired: (\d+) significant, (\d+) not significant, (\d+) cannot tell, (\d+) skipped; "
                 r"(\d+) only in A, (\d+) only in B", lines[-1])
    assert m, lines[-1]
    return [int(x) for x in m.groups()]


def test_qemu_against_twin_pairs_everything_both_have():
    ra, rb = load("qemu"), load("twin")
    lines = compare("qemu", "twin")
    paired, sig, notsig, cannot, skipped, only_a, only_b = summary(lines)
    # The same workloads ran on both: every result has its counterpart, none is left over.
    assert {r["workload"] for r in ra.results()} == {r["workload"] for r in rb.results()}
    assert only_a == only_b == 0
    assert paired == sig + notsig + cannot + skipped
    assert sig > 0 and cannot == 0  # five repetitions a side: the rank test can tell
    # The same units on both sides of a row, and a verdict on every measured one.
    rows = [l for l in lines[:-1] if re.search(r" (p=[0-9.e-]+ adj=[0-9.e-]+( \*)?|cannot tell.*)$", l)]
    assert len(rows) == sig + notsig + cannot
    for l in lines:
        if "ns/increment" in l and " p=" in l:
            assert l.count("ns/increment") == 2, l  # selftest names its unit in each cell
    heads = [l for l in lines if l.startswith(("counter:", "locality:", "flush:"))]
    assert heads == ["counter: ns per increment (slowest thread)", "locality: ns per element summed",
                     "flush: ns per access"], heads


def test_two_profiles_pair_on_what_they_measured():
    quick, full = load("twin"), load("twin_full")
    iters = {r["params"].get("iters") for r in quick.results("counter") if r.get("params")} - {None}
    iters_full = {r["params"].get("iters") for r in full.results("counter") if r.get("params")} - {None}
    assert iters and iters_full and not iters & iters_full  # the profiles differ in iterations ...
    lines = compare("twin", "twin_full")
    counter = lines[lines.index("counter: ns per increment (slowest thread)") + 2:]
    packed = [l for l in counter if l.split()[:2] == ["packed", "1"]]
    assert packed and re.search(r"\d\s+\d", packed[0]), packed  # ... yet packed at 1 thread pairs, both measured


def test_no_noisy_figure_without_its_mark():
    for key in ("twin", "twin_full"):
        run = load(key)
        noisy = [r for r in run.results() if r.get("noisy") and r.get("check") != "skipped"]
        assert noisy, key  # the shared VM flags context switches: real noisy results to look at
        table = qb("table", os.path.join(DATA, V23[key]))
        assert table.returncode == 0, table.stderr
        text = table.stdout
        assert "~" in text and "noisy" in text
        for r in noisy:
            m = (r.get("measures") or {})
            first = next(iter(m.values()), {}) if isinstance(m, dict) else {}
            if first.get("median") is None:
                continue
            shown = [l for l in text.splitlines() if r["variant"] in l and "~" in l]
            assert shown, (key, r["workload"], r["variant"], "noisy but never marked")
