"""test_qb_plot - qb plot on the real logs of tests/tools/data and on synthetic records: every PNG written, its size, and the numbers drawn."""
import os
import re

from qbtest import DATA, SQUARE, WIDE, flush_result, png_size, qb, synthetic_log
from qblib import run as qbrun  # noqa: E402


# ---- plot ----------------------------------------------------------------------------------
def first_touch_records():
    out = []
    for i, var in enumerate(["copy-none-warm", "copy-src-warm", "copy-both-warm"]):
        out.append({"v": 1, "kind": "result", "workload": "first-touch", "variant": var, "threads": 1, "cpus": [0],
                    "params": {"bytes": 1 << 20}, "unit": "ticks", "n": 5, "min": 100, "median": 200.0, "max": 90000,
                    "cv": 1.2, "iteration_ticks": [90000 - i * 1000, 200, 150, 120, 100],
                    "iteration_faults": [256, 0, 0, 0, 0], "check": "ok"})
    for k, var in enumerate(["page-fault-entry", "zero-rep-stosb", "zero-nt", "demand-zero-4k", "demand-zero-2m",
                             "tlb-miss", "hot-access"]):
        out.append({"v": 1, "kind": "result", "workload": "first-touch", "variant": var, "threads": 1, "cpus": [0],
                    "params": {}, "unit": "ticks", "n": 5, "min": 10 * (k + 1), "median": 12.0 * (k + 1),
                    "max": 20 * (k + 1), "cv": 0.1, "check": "ok"})
    out.append({"v": 1, "kind": "result", "workload": "first-touch", "variant": "numa-each-cpu-touches", "threads": 2,
                "cpus": [0, 1], "params": {"bytes": 1 << 24}, "unit": "ticks", "n": 3, "min": 9e6, "median": 1e7,
                "max": 1.1e7, "cv": 0.05, "bytes_per_tick": 1.6, "check": "ok"})
    for var in ("numa-latency", "numa-bandwidth"):
        out.append({"v": 1, "kind": "matrix", "workload": "first-touch", "variant": var, "unit": "ns",
                    "nodes": [0, 1], "values": [[80.5, 140.25], [139.0, 81.0]], "check": "ok"})
    return out


def test_plot_counter(tmp_path):
    out = tmp_path / "plots"
    r = qb("plot", os.path.join(DATA, "counter-2sockets-smt.log"), "-o", out)
    assert r.returncode == 0, r.stderr
    sizes = {name: png_size(out / name) for name in os.listdir(out)}
    assert sizes == {"counter-slowdown.png": WIDE, "counter-pairs.png": WIDE, "counter-matrix-packed.png": SQUARE}
    assert all(os.path.getsize(out / n) > 10000 for n in sizes)
    assert "plot: skipped locality: no locality results" in r.stdout
    assert "plot: skipped first-touch iterations" in r.stdout


def test_plot_locality(tmp_path):
    r = qb("plot", os.path.join(DATA, "locality-smp4.log"), "-o", tmp_path)
    assert r.returncode == 0, r.stderr
    assert png_size(tmp_path / "locality.png") == WIDE
    assert "skipped counter slowdown" in r.stdout


def test_plot_first_touch_and_numa(tmp_path):
    log = synthetic_log(tmp_path, first_touch_records())
    assert qb("parse", log).returncode == 0
    out = tmp_path / "plots"
    r = qb("plot", tmp_path / "synthetic.run", "-o", out)
    assert r.returncode == 0, r.stderr
    assert png_size(out / "first-touch-iterations.png") == WIDE
    w, h = png_size(out / "first-touch-pages.png")  # 4 KiB and 2 MiB steps: a panel each, taller
    assert w == WIDE[0] and h >= WIDE[1]
    assert png_size(out / "first-touch-matrix-numa-latency.png") == SQUARE
    assert png_size(out / "first-touch-matrix-numa-bandwidth.png") == SQUARE
    assert png_size(out / "first-touch-other.png") == WIDE
    assert len(os.listdir(out)) == 5
    assert "skipped counter slowdown: no counter results" in r.stdout


def test_plot_spread_boundaries_and_zeros():
    """Error bars come from the samples' quartiles (robust to one preempted
    repetition) or 1 sd; heat maps draw package/L3/core lines from the records;
    a zero on a log axis is marked, not dropped."""
    from qblib import plot
    r = {"median": 100.0, "stddev": 5000.0, "samples": [90, 95, 100, 105, 110, 100000]}
    lo, hi = plot.interval(r)
    assert 90 < lo < 100 < hi < 200          # the outlier does not blow the bar up
    assert plot.interval({"median": 100.0, "stddev": 30.0}) == (70.0, 130.0)
    assert plot.interval({"median": 10.0, "stddev": 30.0})[0] == 0.0   # never below 0
    down, up = plot.errs({"median": 100.0, "stddev": 50.0}, 2.0, inverse=True)  # a rate: 1/ticks
    assert abs(down - 2.0 / 3) < 1e-9 and abs(up - 2.0) < 1e-9

    class FakeRun:
        def of_kind(self, kind):
            if kind == "cpu":
                return [{"index": i, "package": i // 4, "die": 0, "core": (i % 4) // 2} for i in range(8)]
            return [{"level": 3, "type": "unified", "shared_by": [0, 1, 2, 3]},
                    {"level": 3, "type": "unified", "shared_by": [4, 5, 6, 7]},
                    {"level": 2, "type": "unified", "shared_by": [0, 1]}]
    topo = plot.topology(FakeRun())
    fig, ax = plot.plt.subplots()
    note = plot.draw_boundaries(ax, list(range(8)), topo)
    assert note.startswith("lines between package, core")
    xs = sorted(round(l.get_xdata()[0], 1) for l in ax.lines if l.get_xdata()[0] == l.get_xdata()[1])  # vertical
    assert xs == [1.5, 3.5, 5.5]                 # cores at 1|2 and 5|6, packages at 3|4
    assert [l.get_linewidth() for l in ax.lines if l.get_xdata()[0] == 3.5][0] > 2
    fig2, ax2 = plot.plt.subplots()
    ax2.set_xscale("log")
    ax2.barh([0, 1], [0, 1000])
    ax2.set_xlim(10, 2000)
    plot.show_zeros_on_log(ax2, [0, 1], [0, 1000], horizontal=True)
    assert any(t.get_text().strip() == "0" for t in ax2.texts)
    plot.plt.close("all")


def test_plot_flush_cost_and_cold(tmp_path):
    res = []
    for v, ticks, pct in (("none", 100, None), ("wbinvd-all", 10 ** 6, 100.0), ("clflush", 5000, 80.0)):
        r = flush_result(v, "wbinvd-all", 1 << 20, 1000)
        r.update(flush_ticks=ticks, cold_pct=pct)
        if pct is None:
            r["cold_pct_note"] = "cold and warm references within 5%"
        res.append(r)
    log = synthetic_log(tmp_path, res)
    assert qb("parse", log).returncode == 0
    out = tmp_path / "plots"
    r = qb("plot", tmp_path / "synthetic.run", "-o", out)
    assert r.returncode == 0, r.stderr
    assert png_size(out / "flush.png") == WIDE
    assert not (out / "flush-other.png").exists()


def test_plot_selftest_only_and_nothing(tmp_path):
    r = qb("plot", os.path.join(DATA, "smp4.log"), "-o", tmp_path / "a")
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp_path / "a") == ["selftest.png"] and png_size(tmp_path / "a" / "selftest.png") == WIDE
    r = qb("plot", synthetic_log(tmp_path, []), "-o", tmp_path / "b")
    assert r.returncode == 1 and "nothing to plot" in r.stdout


def test_plot_footer_has_machine_and_date(tmp_path):
    run = qbrun.load(os.path.join(DATA, "counter-smp4.log"))
    assert re.fullmatch(r"QEMU TCG CPU version 2\.5\+, 4 CPUs, \d{4}-\d\d-\d\d \d\d:\d\d", run.footer())


