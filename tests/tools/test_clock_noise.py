"""test_clock_noise - the views of issue 31's new fields, on synthetic records that follow the contract of
docs/records.md: each result's clock_mhz (or null and clock_note), the twin's boost, the noise workload's gaps
object. qb compare marks every pair whose clocks differ by more than 5% (to 0.1%) and none that do not; qb table and
report show each run's clock; the noise line in qb table, both platforms' noise side by side in qb compare,
the histograms drawn by qb plot, qb compare -o and qb report; and every one of these views on old logs,
which have none of the fields. The noise records here are of issue 31's shape, before the pooled ppm and rtla's
thresholds: their views say those are not recorded (test_noise_views.py has the newer records)."""
import json
import os
import re

import pytest

from qbtest import DATA, WIDE, png_size, qb, rec_line, synthetic_log, write

EDGES = [32 * 2 ** i for i in range(22)] + [100_000_000]  # 32 ns .. 67 ms, then the open bin: 100 ms and beyond


def counter(variant, threads, median_ticks, clock_mhz, note=None):
    xs = [median_ticks - 2, median_ticks - 1, median_ticks, median_ticks + 1, median_ticks + 2]
    r = {"v": 1, "kind": "result", "workload": "counter", "variant": variant, "threads": threads,
         "cpus": list(range(threads)), "params": {"iters": 1000, "placement": "compact"}, "unit": "ticks", "n": 5,
         "min": xs[0], "median": float(median_ticks), "mean": float(median_ticks), "max": xs[-1], "cv": 0.001,
         "clean": {"reps": 5, "flagged": 0, "detectors": ["smi"], "n": 5, "min": xs[0], "median": float(median_ticks),
                   "mean": float(median_ticks), "max": xs[-1], "cv": 0.001},
         "noisy": False, "figure": "clean", "samples": xs, "samples_flagged": [],
         "measures": {"ns_per_increment": {"unit": "ns/increment", "median": median_ticks / 1000, "q1": None,
                                           "q3": None, "scale": 0.001}},
         "clock_mhz": clock_mhz, "check": "ok"}
    if clock_mhz is not None:  # the cycles beside ns, after them: the primary measure stays first
        r["measures"]["cycles_per_increment"] = {"unit": "cycles/increment", "scale": clock_mhz / 1e6,
                                                 "median": median_ticks * clock_mhz / 1e9}
    else:
        r["clock_note"] = note
    return r


def counters(clock_mhz, factor=1.0, note=None):
    return [counter(v, t, int(1000 * factor) + 100 * i, clock_mhz, note)
            for i, (v, t) in enumerate([("packed", 1), ("packed", 2), ("padded", 1), ("padded", 2)])]


def noise(ppm_mean, ppm_max, longest_ns, attributed, counts, check="ok"):
    return {"v": 1, "kind": "result", "workload": "noise", "variant": "tsc-gaps", "threads": 2, "cpus": [0, 1],
            "params": {"seconds": 1}, "unit": "ticks", "n": 2, "min": 20, "median": 30.0, "mean": 30.0, "max": 40,
            "cv": 0.4714, "statistics_of": "each CPU's ticks lost in gaps, per the loop's seconds",
            "check": check, "clock_mhz": None, "clock_note": "a spin loop: no repetitions to clock",
            "gaps": {"seconds": 1.0, "loop_min_ticks": 30, "threshold_ticks": 300, "threshold_ns": 120,
                     "attribute_ns": 1000, "count": int(sum(counts)), "ppm_mean": ppm_mean, "ppm_max": ppm_max,
                     "longest_ns": longest_ns, "longest_cpu": 1, "longest_at_s": 0.31, "attributed": attributed,
                     "hist": {"edges_ns": EDGES, "counts": counts}}}


def hist_counts(peak, n):
    c = [0] * len(EDGES)
    c[peak], c[peak + 1], c[peak + 3] = n, n // 3, 1
    return c


METAL_NOISE = noise(0.41, 0.9, 2100, {"smi": 3, "unexplained": 9}, hist_counts(2, 12))
TWIN_NOISE = noise(1800, 2300, 180000, {"interrupts": 2412, "context_switches": 31, "migrations": 0, "faults": 5,
                                        "unexplained": 1}, hist_counts(5, 3000))


def twin(tmp_path, records, name, boost="on"):
    """A synthetic log of the Linux twin: its boot record says so, and its state record has boost."""
    log = synthetic_log(tmp_path, [{"v": 1, "kind": "state", "scope": "run", "boost": boost}] + records, name=name)
    lines = []
    for ln in open(log, encoding="latin-1", newline="").read().split("\r\n"):
        if '"kind":"boot"' in ln:
            obj = json.loads(ln.split(" ", 1)[1].rsplit(" ", 1)[0])
            obj.update(platform="linux", loader="linux", tsc_source="clock_monotonic_raw")
            ln = rec_line(obj)
        lines.append(ln)
    return write(tmp_path, name, "\r\n".join(lines).encode())


def pair_rows(text):
    return [ln for ln in text.splitlines() if re.match(r"  (packed|padded) +\d ", ln)]


# ---- the clock -----------------------------------------------------------------------------------------------
def test_compare_marks_every_pair_whose_clocks_differ(tmp_path):
    a = synthetic_log(tmp_path, counters(3000.0), name="a.log")
    b = twin(tmp_path, counters(3400.0), "b.log")
    r = qb("compare", a, b)
    assert r.returncode == 0, r.stderr
    rows = pair_rows(r.stdout)
    assert len(rows) == 4
    for ln in rows:
        assert ln.endswith("; ratio includes a 13% clock difference (B's higher)"), ln
    assert "clock: A 3000 MHz, B 3400 MHz; they differ by 13.3%: every ratio includes it" in r.stdout
    assert "boost A not recorded, B on" in r.stdout
    assert "counter: ns per increment" in r.stdout  # the cycles measure came after: ns stays the primary
    # A lower clock on B is a difference too; 3% is not marked; a clock unknown on one side is not marked
    low = qb("compare", a, twin(tmp_path, counters(2700.0), "low.log"))
    assert all(ln.endswith("ratio includes a 11% clock difference (A's higher)") for ln in pair_rows(low.stdout))
    near = qb("compare", a, twin(tmp_path, counters(3100.0), "near.log"))
    assert not any("clock difference" in ln for ln in pair_rows(near.stdout))
    assert "they differ by 3.3%" in near.stdout and "every ratio" not in near.stdout
    unknown = qb("compare", a, twin(tmp_path, counters(None, note="perf: no cycles event"), "unknown.log"))
    assert "clock: A 3000 MHz, B unknown: perf: no cycles event" in unknown.stdout
    assert not any("clock difference" in ln for ln in pair_rows(unknown.stdout))
    # one pair alike among three that differ: only the three are marked
    mixed = counters(3400.0)
    mixed[2]["clock_mhz"] = 3000.0
    m = qb("compare", a, twin(tmp_path, mixed, "mixed.log"))
    assert [("clock difference" in ln) for ln in pair_rows(m.stdout)] == [True, True, False, True]


def test_the_clock_mark_starts_past_five_percent_as_printed(tmp_path):
    """2100 against 2000 MHz is 5.0%, which floats make 5.000000000000004: not marked, as the header's 5.0% says;
    2102 is 5.1%: marked, and the note gives 5.1%, not a rounded 5%."""
    from qblib import clock
    assert clock.difference_pct(2000.0, 2100.0) > 5.0                       # the float that fired the mark
    assert clock.pair_note(2000.0, 2100.0) is None and clock.pair_note(2100.0, 2000.0) is None
    assert clock.pair_note(2000.0, 2102.0) == "ratio includes a 5.1% clock difference (B's higher)"
    a = synthetic_log(tmp_path, counters(2000.0), name="a.log")
    five = qb("compare", a, twin(tmp_path, counters(2100.0), "five.log"))
    assert "they differ by 5.0%" in five.stdout and "every ratio" not in five.stdout
    assert not any("clock difference" in ln for ln in pair_rows(five.stdout))
    more = qb("compare", a, twin(tmp_path, counters(2102.0), "more.log"))
    assert "they differ by 5.1%: every ratio includes it (pairs over 5% say so)" in more.stdout
    assert all(ln.endswith("; ratio includes a 5.1% clock difference (B's higher)") for ln in pair_rows(more.stdout))


def test_table_and_report_show_each_runs_clock(tmp_path):
    a = synthetic_log(tmp_path, counters(3000.0), name="a.log")
    b = twin(tmp_path, counters(None, note="no APERF/MPERF under this hypervisor"), "b.log",
             boost="off (turned off for the run)")
    ta, tb = qb("table", a), qb("table", b)
    assert ta.returncode == tb.returncode == 0, ta.stderr + tb.stderr
    assert "\nclock: 3000 MHz (median of 4 results' clocks)\n" in ta.stdout
    assert "\nclock: unknown: no APERF/MPERF under this hypervisor; boost off (turned off for the run)\n" in tb.stdout
    old = qb("table", os.path.join(DATA, "twin-quick-v23.log"))
    assert "\nclock: not recorded (records before clock_mhz)\n" in old.stdout
    r = qb("report", a, b, "-o", tmp_path / "r.html", "--no-plots")
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "r.html").read_text()
    row = re.search(r"<tr><th>core clock</th>(.*?)</tr>", page).group(1)
    assert re.findall(r"<td>(.*?)</td>", row) == ["3000 MHz (median of 4 results&#x27; clocks)",
                                                  "unknown: no APERF/MPERF under this hypervisor; boost off "
                                                  "(turned off for the run)"]


# ---- the noise workload ----------------------------------------------------------------------------------------
def test_table_shows_the_noise_line(tmp_path):
    t = qb("table", synthetic_log(tmp_path, counters(3000.0) + [METAL_NOISE]))
    assert t.returncode == 0, t.stderr
    assert ("\n  noise: - ppm pooled (not recorded; mean of CPUs 0.41, worst CPU 0.9), longest gap 2.1 us (CPU 1 at "
            "0.31 s); 17 gaps in 1 s on 2 CPUs: 3 SMIs, 9 unexplained\n"
            "    rtla's thresholds (1 us, 5 us): not recorded (a record before them)\n"
            "    gaps over 120 ns counted (loop minimum 30 ticks), over 1 us attributed\n"
            "    attributed: whatever counter moved since its last read (a record before attribution_window)\n"
            in t.stdout), t.stdout
    tw = qb("table", twin(tmp_path, [TWIN_NOISE], "t.log"))
    assert ("noise: - ppm pooled (not recorded; mean of CPUs 1,800, worst CPU 2,300), longest gap 180 us (CPU 1 at "
            "0.31 s); 4,001 gaps in 1 s on 2 CPUs: 2,412 interrupts, 31 context switches, 0 migrations, 5 faults, "
            "1 unexplained") in tw.stdout


def test_compare_sets_both_platforms_noise_side_by_side(tmp_path):
    a = synthetic_log(tmp_path, counters(3000.0) + [METAL_NOISE], name="metal.log")
    b = twin(tmp_path, counters(3000.0) + [TWIN_NOISE], "twin.log")
    r = qb("compare", a, b, "-o", tmp_path / "plots")
    assert r.returncode == 0, r.stderr
    sec = r.stdout.split("\nnoise: gaps in a loop reading the TSC", 1)[1].split("\n\n", 1)[0].splitlines()
    cells = {re.split(r"\s{2,}", ln.strip())[0]: re.split(r"\s{2,}", ln.strip())[1:] for ln in sec[2:]}
    assert cells["ppm lost, all CPUs pooled"] == ["not recorded", "not recorded"]
    assert cells["gaps >= 1 us (rtla)"] == ["not recorded", "not recorded"]
    assert cells["ppm lost, mean of CPUs"] == ["0.41", "1,800"]
    assert cells["ppm lost, worst CPU"] == ["0.9", "2,300"]
    assert cells["longest gap"] == ["2.1 us (CPU 1 at 0.31 s)", "180 us (CPU 1 at 0.31 s)"]
    assert cells["attributed: SMIs"] == ["3", "not counted here"]
    assert cells["attributed: interrupts"] == ["not counted here", "2,412"]
    assert cells["attributed: unexplained"] == ["9", "1"]
    assert "wrote %s" % (tmp_path / "plots" / "noise-histograms.png") in r.stdout
    assert png_size(tmp_path / "plots" / "noise-histograms.png") == WIDE
    # The noise result pairs as a result too; its cv is across its CPUs, not of repetitions: no cv within
    (row,) = [ln for ln in r.stdout.splitlines() if ln.startswith("  tsc-gaps ")]
    assert re.search(r" - +- ", row) and "47.1" not in row, row
    # and the spread view gives each side's ppm, and no cv within for noise
    s = qb("compare", "--spread", a, b)
    assert ("noise workload, ppm lost (all CPUs pooled; the median over the side's runs): A not recorded (mean of CPUs "
            "0.41), B not recorded (mean of CPUs 1,800)") in s.stdout
    (row,) = [ln for ln in s.stdout.splitlines() if ln.startswith("  tsc-gaps ")]
    assert row.split()[-5:] == ["-", "-", "-", "-", "1/1"], row
    # a side that did not run it says so
    only = qb("compare", a, synthetic_log(tmp_path, counters(3000.0), name="plain.log"))
    assert re.search(r"^  ppm lost, mean of CPUs +0\.41 +not run$", only.stdout, re.M), only.stdout
    assert re.search(r"^  ppm lost, all CPUs pooled +not recorded +not run$", only.stdout, re.M), only.stdout


def test_histograms_are_drawn_per_cpu_second(tmp_path):
    """plot_noise draws each bin's count over the run's CPU-seconds (gaps.observed_cpu_s; an older record's 2 CPUs
    x 1 s planned), empty bins on the axis' floor, the open bin drawn as wide as a power of two; qb plot writes one
    run's, qb report every run's on one axis."""
    import matplotlib
    matplotlib.use("Agg")
    from qblib import plot_noise
    from qblib.plot import plt
    ends, dens, counts, per_second = plot_noise.hist(TWIN_NOISE)
    assert per_second and list(ends[:-1]) == EDGES and ends[-1] == 2e8
    assert list(dens) == pytest.approx([c / 2.0 for c in TWIN_NOISE["gaps"]["hist"]["counts"]])
    fig, ax = plt.subplots()
    assert plot_noise.draw(ax, TWIN_NOISE, "twin", "C0")
    (steps,) = ax.patches
    vals = steps.get_data().values
    floor = 0.5 / 3  # a third of the smallest bin drawn: the empty bins lie on it, every bin rises from it
    assert plot_noise.floor([TWIN_NOISE, METAL_NOISE]) == pytest.approx(floor)
    assert list(vals[4:9]) == pytest.approx([floor, 1500.0, 500.0, floor, 0.5]) and steps.get_data().baseline == floor
    plt.close(fig)
    bad = dict(TWIN_NOISE, gaps=dict(TWIN_NOISE["gaps"], hist={"edges_ns": [0, 64], "counts": [1, 2]}))
    assert plot_noise.hist(bad) is None
    # a deadline cut the loops to 0.4 CPU-seconds of their planned 2: the density is over what they observed
    cut = dict(TWIN_NOISE, gaps=dict(TWIN_NOISE["gaps"], observed_cpu_s=0.4))
    assert list(plot_noise.hist(cut)[1]) == pytest.approx([c / 0.4 for c in TWIN_NOISE["gaps"]["hist"]["counts"]])
    log = synthetic_log(tmp_path, counters(3000.0) + [METAL_NOISE])
    p = qb("plot", log, "-o", tmp_path / "one")
    assert p.returncode == 0, p.stderr
    assert png_size(tmp_path / "one" / "noise-histogram.png") == WIDE
    r = qb("report", log, twin(tmp_path, [TWIN_NOISE], "t.log"), "-o", tmp_path / "r.html")
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "r.html").read_text()
    assert '<h3 id="plots-noise">Noise: every run</h3>' in page and 'alt="noise histograms"' in page
    row = re.search(r"<tr><th>noise workload</th>(.*?)</tr>", page).group(1)
    assert "- ppm pooled (not recorded; mean of CPUs 0.41, worst CPU 0.9)" in row and "2,412 interrupts" in row


def test_old_logs_have_none_of_it(tmp_path):
    old = os.path.join(DATA, "twin-quick.log")
    r = qb("compare", os.path.join(DATA, "counter-smp4.log"), old, "-o", tmp_path / "p")
    assert r.returncode == 0, r.stderr
    assert "\nnoise:" not in r.stdout and "clock difference" not in r.stdout
    assert "clock: A not recorded (records before clock_mhz), B not recorded (records before clock_mhz)" in r.stdout
    assert "compare: no histogram: neither side ran the noise workload" in r.stderr
    assert not os.path.exists(tmp_path / "p" / "noise-histograms.png")
    t = qb("table", old)
    assert t.returncode == 0 and "  noise: " not in t.stdout
    p = qb("plot", old, "-o", tmp_path / "plots")
    assert "plot: skipped noise histogram: no noise workload with a histogram" in p.stdout
    rep = qb("report", old, "-o", tmp_path / "r.html", "--no-plots")
    assert rep.returncode == 0, rep.stderr
    assert "<th>noise workload</th><td>no noise workload in this run</td>" in (tmp_path / "r.html").read_text()
