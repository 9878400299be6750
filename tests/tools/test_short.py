"""test_short - results the budget cut short (check `short`: fewer repetitions than a statistic needs) are shown
as such in every view, on a real run: the Linux twin with budget=25s and slow=4 (every repetition made four
times slower after calibration), tests/tools/data/twin-budget25s-slow4.log."""
import os

from qbtest import DATA, V23, qb
from qblib import run as qbrun  # noqa: E402

LOG = os.path.join(DATA, "twin-budget25s-slow4.log")


def shorts():
    return [r for r in qbrun.load(LOG, warn=False).results() if r.get("check") == "short"]


def test_the_log_has_short_results_with_their_reason():
    got = shorts()
    assert got, "no short result in the log"
    for r in got:
        assert r.get("reason") and r.get("reps_kept") is not None and r.get("reps_planned"), r


def test_table_and_compare_mark_them():
    table = qb("table", LOG)
    assert table.returncode == 0, table.stderr
    assert table.stdout.count("SHORT") >= len([r for r in shorts() if r["workload"] == "counter"])
    cmp = qb("compare", os.path.join(DATA, V23["twin"]), LOG)
    assert cmp.returncode == 0, cmp.stderr
    assert "short in B" in cmp.stdout


def test_report_marks_them(tmp_path):
    out = tmp_path / "r.html"
    r = qb("report", LOG, "-o", out, "--no-plots")
    assert r.returncode == 0, r.stderr
    assert "(short)" in out.read_text()
