"""test_qb_runs - qb compare of runs as runs (issue 31): folders of committed real logs (3 QEMU and 3 twin quick
counter runs, tests/tools/data/README.md) tested by Welch's t on the runs' medians, recomputed here from the
records with scipy; both spreads per pair; every p adjusted by Benjamini-Hochberg and only survivors marked; the
comma form and a parsed run's folder; fewer runs fall back to repetitions and say so; five runs add the rank
test; --spread."""
import glob
import json
import os
import re

import numpy as np
import pytest
from scipy import stats

from qbtest import DATA, qb, synthetic_log
import qbrecords  # noqa: E402
from qblib import signif  # noqa: E402

QEMU = os.path.join(DATA, "runs-qemu-quick-counter")
TWIN = os.path.join(DATA, "runs-twin-quick-counter")


def figures(folder):
    """{(variant, threads, placement): [each run's ns per increment, from its record's own measure]}."""
    out = {}
    for log in sorted(glob.glob(os.path.join(folder, "*.log"))):
        for r in qbrecords.parse_file(log)[0]:
            if r["kind"] == "result" and r.get("workload") == "counter" and r.get("check") != "skipped":
                place = " = ".join(r.get("same_placements") or [r["params"]["placement"]])
                ns = r["measures"]["ns_per_increment"]["median"]
                out.setdefault((r["variant"], r["threads"], place), []).append(ns)
    return out


def row(text, key):
    var, thr, place = key
    got = [ln for ln in text.splitlines() if re.match(r"  %s +%d +%s  " % (re.escape(var), thr, re.escape(place)), ln)]
    assert len(got) == 1, (key, got)
    return got[0]


def cv(v):
    return 100 * np.std(v, ddof=1) / np.mean(v)


def test_folders_of_real_runs_are_tested_as_runs():
    r = qb("compare", QEMU, TWIN)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "A %s: 3 runs (qemu-1.log, qemu-2.log, qemu-3.log): QEMU TCG" % QEMU in out
    assert "B %s: 3 runs (twin-1.log, twin-2.log, twin-3.log)" % TWIN in out
    assert "test: the runs as runs (3 and 3 runs): Welch's t on the runs' medians" in out
    a, b = figures(QEMU), figures(TWIN)
    both = sorted(set(a) & set(b))
    assert len(both) == 11 and all(len(a[k]) == len(b[k]) == 3 for k in both)
    ps = {k: stats.ttest_ind(a[k], b[k], equal_var=False).pvalue for k in both}
    adjusted = dict(zip(both, signif.bh_adjust([ps[k] for k in both])))
    for k in both:
        line = row(out, k)
        m = re.search(r"Welch p=(\S+) adj=(\S+)( \*)?$", line)
        assert m, line
        assert float(m.group(1)) == pytest.approx(ps[k], rel=0.06), (k, line)  # printed to 2 digits
        assert float(m.group(2)) == pytest.approx(adjusted[k], rel=0.06), (k, line)
        assert bool(m.group(3)) == (adjusted[k] <= 0.05), (k, line)          # marked only when it survives
        cells = line.split()
        within_between = [c for c in cells if re.fullmatch(r"[0-9.-]+/[0-9.-]+", c)]
        assert within_between[0].split("/")[1] == "%.1f" % cv(a[k]), (k, line)  # between runs, A
        assert within_between[1].split("/")[1] == "%.1f" % cv(b[k]), (k, line)
        assert float(cells[cells.index(within_between[1]) + 1]) == pytest.approx(np.median(b[k]) / np.median(a[k]),
                                                                                 rel=5e-3)  # 3 digits
        # 3 runs a side: the ratio's interval is their range, labelled so, never a "95% CI"
        assert cells[cells.index(within_between[1]) + 2] == "range", (k, line)
        lo, hi = (float(x) for x in cells[cells.index(within_between[1]) + 3].split("-"))
        assert lo == pytest.approx(min(b[k]) / max(a[k]), rel=5e-3) and hi == pytest.approx(max(b[k]) / min(a[k]),
                                                                                          rel=5e-3), (k, line)
    raw = sum(p < 0.05 for p in ps.values())
    kept = sum(v <= 0.05 for v in adjusted.values())
    assert ("correction: Benjamini-Hochberg false discovery rate 0.05 over the 11 tests of this invocation: "
            "%d with p < 0.05 before it, %d significant after it" % (raw, kept)) in out
    assert out.rstrip().endswith("15 paired: %d significant, %d not significant, 0 cannot tell, 4 skipped; "
                                 "0 only in A, 0 only in B" % (kept, 11 - kept))


def test_comma_joined_logs_are_the_folder():
    logs = [sorted(glob.glob(os.path.join(d, "*.log"))) for d in (QEMU, TWIN)]
    r = qb("compare", ",".join(logs[0]), ",".join(logs[1]))
    f = qb("compare", QEMU, TWIN)
    assert r.returncode == 0, r.stderr

    def body(text):
        return [ln for ln in text.splitlines() if not ln.startswith(("A ", "B "))]
    assert body(r.stdout) == body(f.stdout)
    assert "A %s: 3 runs" % ",".join(logs[0]) in r.stdout


def test_one_run_a_side_tests_repetitions_and_says_it_understates(tmp_path):
    one = os.path.join(QEMU, "qemu-1.log")
    parsed = tmp_path / "q1.run"
    assert qb("parse", one, "-o", parsed).returncode == 0
    r = qb("compare", parsed, os.path.join(TWIN, "twin-1.log"))  # a folder with a results.json: one run
    assert r.returncode == 0, r.stderr
    assert "test: one run a side: Mann-Whitney U" in r.stdout and "understates the spread between boots" in r.stdout
    assert "Welch" not in r.stdout.split("\n\n", 1)[1]
    assert re.search(r"^  packed +1 +compact = scatter .* p=[0-9.e-]+ adj=[0-9.e-]+( \*)?$", r.stdout, re.M)
    mixed = qb("compare", one, TWIN)  # 1 against 3: still the repetitions, pooled on B's side
    assert "test: 1 and 3 runs: Mann-Whitney U" in mixed.stdout and "Welch p=" not in mixed.stdout
    assert re.search(r"^  packed +1 +compact = scatter +\S+ +\S+ +[0-9.]+/- +[0-9.]+/[0-9.]+ ", mixed.stdout, re.M)
    # a folder of parsed runs (no logs in it) is its runs
    runs = tmp_path / "parsed"
    runs.mkdir()
    for log in sorted(glob.glob(os.path.join(TWIN, "*.log"))):
        assert qb("parse", log, "-o", runs / os.path.basename(log).replace(".log", ".run")).returncode == 0
    p = qb("compare", QEMU, runs)
    assert "test: the runs as runs (3 and 3 runs)" in p.stdout
    assert "3 runs (twin-1.run, twin-2.run, twin-3.run)" in p.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    e = qb("compare", QEMU, empty)
    assert e.returncode == 2 and "no results.json, no *.log" in e.stderr


def counter_result(variant, ticks):
    xs = sorted(ticks)
    med = float(np.median(xs))
    return {"v": 1, "kind": "result", "workload": "counter", "variant": variant, "threads": 1, "cpus": [0],
            "params": {"iters": 1000, "placement": "compact"}, "unit": "ticks", "n": len(xs), "min": xs[0],
            "median": med, "mean": float(np.mean(xs)), "max": xs[-1], "cv": 0.01,
            "clean": {"reps": len(xs), "flagged": 0, "detectors": ["smi"], "n": len(xs), "min": xs[0],
                      "median": med, "mean": float(np.mean(xs)), "max": xs[-1], "cv": 0.01},
            "samples": list(ticks), "check": "ok"}


def test_five_runs_a_side_add_the_rank_test(tmp_path):
    for side, base in (("a", 1000), ("b", 1100)):
        d = tmp_path / side
        d.mkdir()
        for i in range(5):
            synthetic_log(d, [counter_result("packed", [base + i * 3 + k for k in range(5)])], name="%d.log" % i)
    r = qb("compare", tmp_path / "a", tmp_path / "b")
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("  packed"))
    assert re.search(r"Welch p=\S+ adj=\S+; rank p=0\.0079 adj=0\.0079 \*$", line), line
    assert "test: the runs as runs (5 and 5 runs)" in r.stdout


def test_a_lone_difference_among_seven_pairs_does_not_survive(tmp_path):
    """A quick compare keeps 5 repetitions: 5 against 5 fully apart is p = 2/252 = 0.0079, below 0.05 alone,
    but 0.0079 x 7 = 0.056 after the correction over seven pairs: no pair is marked (docs/results.md)."""
    same = [counter_result("v%d" % i, [1000 + k for k in range(5)]) for i in range(6)]
    a = synthetic_log(tmp_path, same + [counter_result("apart", [1000 + k for k in range(5)])], name="a.log")
    b = synthetic_log(tmp_path, same + [counter_result("apart", [2000 + k for k in range(5)])], name="b.log")
    r = qb("compare", a, b)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("  apart"))
    assert line.endswith("p=0.0079 adj=0.056"), line
    assert "*" not in r.stdout.split("\ncounter: ", 1)[1]
    assert "over the 7 tests of this invocation: 1 with p < 0.05 before it, 0 significant after it" in r.stdout
    assert r.stdout.rstrip().endswith("7 paired: 0 significant, 7 not significant, 0 cannot tell, 0 skipped; "
                                      "0 only in A, 0 only in B")


def test_spread_gives_both_cvs_of_both_sides():
    r = qb("compare", "--spread", QEMU, TWIN)
    assert r.returncode == 0, r.stderr
    a, b = figures(QEMU), figures(TWIN)
    for k in sorted(set(a) & set(b)):
        cells = row(r.stdout, k).split()
        assert cells[-1] == "3/3" and cells[-4] == "%.1f" % cv(a[k]) and cells[-2] == "%.1f" % cv(b[k]), cells
    assert "noise workload, ppm lost (mean of CPUs): no noise workload in these runs" in r.stdout
    assert r.stdout.rstrip().endswith("11 results with a spread; A 3 runs, B 3 runs")
    assert "p=" not in r.stdout  # the spreads alone


def test_every_committed_run_is_real():
    """The runs folders hold what the README says: quick counter runs of one build, a boot and a done each."""
    for folder, platform in ((QEMU, None), (TWIN, "linux")):
        logs = sorted(glob.glob(os.path.join(folder, "*.log")))
        assert len(logs) == 3
        for log in logs:
            recs, problems = qbrecords.parse_file(log)
            assert not problems, (log, problems)
            boot = next(x for x in recs if x["kind"] == "boot")
            assert boot.get("platform") == platform and "workloads=counter" in boot["cmdline"]
            assert "profile=quick" in boot["cmdline"] and recs[-1]["kind"] == "done"
            json.dumps(boot)


def test_report_counts_each_pair_once(tmp_path):
    """qb report of two runs of one machine tests the second against the first in its results table and again in
    its Over-time table: one test, counted once in the correction (11 tested pairs, as qb compare has, not 22),
    also when the first given is the newer one, so that the two tables take their references the other way round."""
    import shutil
    old, new = (str(tmp_path / n) for n in ("twin-1.log", "twin-2.log"))
    shutil.copy(os.path.join(TWIN, "twin-1.log"), old)
    shutil.copy(os.path.join(TWIN, "twin-2.log"), new)
    os.utime(old, (1_700_000_000, 1_700_000_000))
    os.utime(new, (1_700_086_400, 1_700_086_400))
    for order in ((old, new), (new, old)):
        page = tmp_path / "r.html"
        r = qb("report", *order, "--no-plots", "-o", page)
        assert r.returncode == 0, r.stderr
        text = page.read_text()
        assert "Over time" in text and "2 runs</h3>" in text
        assert "over the 11 tests of this invocation" in text, re.search(r"correction: [^.]*", text).group(0)
