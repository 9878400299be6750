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


def capture(monkeypatch, module):
    """Keep every figure a plotter of `module` finishes, laid out and saved as it would be."""
    from qblib import plot
    kept = []

    def keep(fig, run, path, top=1.0, notes=(plot.SPREAD_NOTE,)):
        out = plot.finish(fig, run, path, top, notes)
        kept.append(fig)
        return out
    monkeypatch.setattr(module, "finish", keep)
    return kept


def test_plot_error_bars_are_quartiles():
    """Error bars are the figure's quartiles (robust to one preempted repetition), never a standard
    deviation, never below zero; a figure without quartiles gets no bar rather than a bar of nothing."""
    import statistics
    from qblib import figure, plot
    run = qbrun.load(os.path.join(DATA, "smp4.log"))
    xs = [90, 95, 100, 105, 110, 100000]
    rec = {"workload": "selftest", "variant": "x", "n": 6, "median": 102.5, "mean": 16750.0, "stddev": 40800.0,
           "cv": 2.4, "samples": xs}
    f = figure.of(rec, run)
    q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")  # the same type 7 quartiles, another way
    k = 1e9 / run.boot["tsc_hz"]
    down, up = plot.errs(f)
    assert abs(down - (102.5 - q1) * k) < 1e-9 and abs(up - (q3 - 102.5) * k) < 1e-9
    assert up < 100 * k                       # the outlier does not blow the bar up
    assert plot.errbar(figure.of(dict(rec, samples=None), run)) is None
    low = figure.of({"workload": "selftest", "n": 3, "median": 1.0, "q1": 0.0, "q3": 2.0}, run)
    assert plot.errs(low)[0] <= low.value     # a bar ends at zero at the lowest


def test_plot_scale_log_clip_or_linear():
    from qblib import plot
    assert plot.choose_scale([10, 12, 11, 13]) == ("linear", None)
    kind, limit = plot.choose_scale([10, 12, 11, 13, 9, 5000])   # one result would flatten the rest: clipped
    assert kind == "clip" and 13 < limit < 5000
    assert plot.choose_scale([1, 10, 100, 1000, 10000])[0] == "log"
    fig, ax = plot.plt.subplots()
    ax.bar([0, 1, 2, 3, 4, 5], [10, 12, 11, 13, 9, 5000])
    assert plot.apply_scale(ax, [10, 12, 11, 13, 9, 5000], [0, 1, 2, 3, 4, 5]) == "clip"
    assert ax.get_ylim()[0] == 0 and ax.get_ylim()[1] < 5000           # never below zero
    assert any("5000" in t.get_text() and "clipped" in t.get_text() for t in ax.texts)
    fig2, ax2 = plot.plt.subplots()
    ax2.barh([0, 1], [0, 1000])
    ax2.set_xscale("log")
    ax2.set_xlim(10, 2000)
    plot.show_zeros_on_log(ax2, [0, 1], [0, 1000], horizontal=True)
    assert any(t.get_text().strip() == "0" for t in ax2.texts)
    plot.plt.close("all")


def test_plot_matrix_boundaries():
    """Heat maps draw package/L3/core lines from the records."""
    from qblib import plot_matrix

    class FakeRun:
        def of_kind(self, kind):
            if kind == "cpu":
                return [{"index": i, "package": i // 4, "die": 0, "core": (i % 4) // 2} for i in range(8)]
            return [{"level": 3, "type": "unified", "shared_by": [0, 1, 2, 3]},
                    {"level": 3, "type": "unified", "shared_by": [4, 5, 6, 7]},
                    {"level": 2, "type": "unified", "shared_by": [0, 1]}]
    topo = plot_matrix.topology(FakeRun())
    fig, ax = plot_matrix.plt.subplots()
    note = plot_matrix.draw_boundaries(ax, list(range(8)), topo)
    assert note.startswith("lines between package, core")
    xs = sorted(round(l.get_xdata()[0], 1) for l in ax.lines if l.get_xdata()[0] == l.get_xdata()[1])  # vertical
    assert xs == [1.5, 3.5, 5.5]                 # cores at 1|2 and 5|6, packages at 3|4
    assert [l.get_linewidth() for l in ax.lines if l.get_xdata()[0] == 3.5][0] > 2
    plot_matrix.plt.close("all")


def test_counter_pairs_caption_and_baseline_visible(tmp_path, monkeypatch):
    """counter-pairs.png: the x caption lies inside the image, and the packed 1-thread line is named in
    the legend, not in a label a bar can hide; the value axis starts at zero."""
    from qblib import plot_counter
    kept = capture(monkeypatch, plot_counter)
    run = qbrun.load(os.path.join(DATA, "counter-2sockets-smt.log"))
    plot_counter.counter_pairs(run, str(tmp_path))
    (fig,) = kept
    ax = fig.axes[0]
    r = fig.canvas.get_renderer()
    box, page = ax.xaxis.label.get_window_extent(r), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0, (box, page)
    one = next(x for x in run.results("counter") if x["variant"] == "packed" and x["threads"] == 1
               and x["params"]["placement"] == "compact")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "packed, 1 thread: %.3g ns/increment" % (one["median_ns"] / one["params"]["iters"]) in legend
    assert not any("packed, 1 thread" in t.get_text() for t in ax.texts)
    assert ax.get_ylim()[0] == 0
    assert any(t.get_text().startswith("virtual machine (a hypervisor") for t in fig.texts)  # said on every plot


def test_noisy_results_drawn_hatched_with_a_legend(tmp_path, monkeypatch):
    """The twin's quick locality: every noisy result at 2 threads, compact, is a hollow hatched bar, the
    others solid, and the legend says what hatched means."""
    from qblib import plot, plot_workloads, figure
    kept = capture(monkeypatch, plot_workloads)
    run = qbrun.load(os.path.join(DATA, "twin-quick.log"))
    plot_workloads.locality(run, str(tmp_path))
    (fig,) = kept
    drawn = [x for x in run.results("locality") if x["threads"] == 2 and x["params"]["placement"] == "compact"]
    noisy = [x for x in drawn if 2 * x["clean"]["reps"] < x["n"]]
    assert noisy and len(noisy) < len(drawn)  # real data with both kinds: the test can tell them apart
    bars = [p for a in fig.axes for p in a.patches if p.get_height() > 0]
    assert len(bars) == len(drawn)
    assert sum(1 for p in bars if p.get_hatch()) == len(noisy)
    assert all(not p.get_fill() or p.get_facecolor()[:3] == (1.0, 1.0, 1.0) for p in bars if p.get_hatch())
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert plot.NOISY_LABEL in legend
    gbs = sorted(round(figure.of(x, run, "gb_per_s").value, 6) for x in drawn)
    assert sorted(round(p.get_height(), 6) for p in bars) == gbs   # GB/s, the rate people read


def test_plot_output_that_cannot_be_written(tmp_path):
    r = qb("plot", os.path.join(DATA, "counter-smp4.log"), "-o", "/proc/nope")
    assert r.returncode == 2 and "cannot write the plots to /proc/nope" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


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


