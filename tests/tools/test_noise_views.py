"""test_noise_views - the noise workload's views on records with the pooled ppm and rtla's thresholds
(docs/records.md, noise fields), on synthetic records made consistent from each CPU's ticks lost and observed:
qb table's line heads with the pooled ppm (every CPU's ticks lost over every CPU's ticks observed, not the mean
of their ratios), its grid's figure is it, rtla's 1 us and 5 us beside it, each CPU's own threshold, the
bookkeeping and what an attributed count means; qb compare sets them side by side, tests the noise pair over
its CPUs with one run a side (labelled CPUs, never reps) and over the runs' pooled ppm with three runs a side,
its --spread gives the pooled ppm; under QEMU's TCG the line says whose noise it is; a record whose TSC rate was
unknown says rtla's figures are; and an older record beside a newer one says what its figure is. Timings are
never checked: every number comes from the records made here."""
import os
import re

import numpy as np

from qbtest import DATA, qb, rec_line, synthetic_log, write
from qblib import signif  # noqa: E402

HZ = 1e9  # synthetic_log's TSC: a tick is a ns
EDGES = [20 * 2 ** i for i in range(23)]
WINDOW = "what moved between the counter read before the gap and the read right after it"


def noise_rec(cpus, over, book, attributed, longest_ns=2100.0, count=17, seconds=1.0):
    """A noise result from each CPU's (ticks lost, ticks observed), as the kernel makes one: samples are the CPUs'
    ticks lost per `seconds` of observed loop, measures.ppm converts them, gaps.ppm pools every CPU's ticks."""
    samples = [int(round(lost * seconds * HZ / obs)) for lost, obs in cpus]
    ppms = [lost / obs * 1e6 for lost, obs in cpus]
    scale = 1e6 / (seconds * HZ)
    q1, med, q3 = (float(x) for x in np.percentile(samples, [25, 50, 75]))
    counts = [0] * len(EDGES)
    counts[3] = count
    return {"v": 1, "kind": "result", "workload": "noise", "variant": "tsc-gaps", "threads": len(cpus),
            "cpus": list(range(len(cpus))), "params": {"seconds": seconds, "attribute_ns": 1000, "flush": "none"},
            "unit": "ticks", "n": len(samples), "min": min(samples), "q1": q1, "median": med, "q3": q3,
            "mean": float(np.mean(samples)), "max": max(samples), "cv": float(np.std(samples) / np.mean(samples)),
            "statistics_of": "each CPU's ticks lost in gaps, per the loop's seconds", "noisy": False,
            "figure": "all", "samples": samples, "check": "ok", "clock_mhz": None, "clock_note": "a spin loop",
            "measures": {"ppm": {"unit": "ppm", "median": med * scale, "q1": q1 * scale, "q3": q3 * scale,
                                 "scale": scale}},
            "gaps": {"seconds": seconds, "observed_cpu_s": sum(o for _, o in cpus) / HZ,
                     "lost_cpu_s": sum(lost for lost, _ in cpus) / HZ,
                     "ppm": sum(lost for lost, _ in cpus) / sum(o for _, o in cpus) * 1e6,
                     "ppm_mean": float(np.mean(ppms)), "ppm_max": max(ppms), "loop_min_ticks": 20,
                     "loop_min_ticks_max": 24, "threshold_ticks": 80, "threshold_ns": 80.0, "threshold_ns_max": 96.0,
                     "attribute_ns": 1000.0, "count": count, "over_1us": over[0], "over_5us": over[1],
                     "bookkeeping": book, "longest_ns": longest_ns, "longest_cpu": 1, "longest_at_s": 0.31,
                     "attribution_window": WINDOW, "attributed": attributed,
                     "hist": {"edges_ns": EDGES, "counts": counts}}}


# Bare metal: CPU 0 lost 300 ticks of 1 s observed (0.3 ppm), CPU 1 260 of 0.5 s (0.52 ppm): pooled 560 / 1.5e9 =
# 0.3733 ppm, below the mean of the ratios, 0.41.
METAL_CPUS = [(300, 1e9), (260, 5e8)]
METAL = noise_rec(METAL_CPUS,
                  ({"threshold_ns": 1000, "count": 3, "ppm": 0.2, "longest_ns": 2100.0},
                   {"threshold_ns": 5000, "count": 0, "ppm": 0.0, "longest_ns": None}),
                  {"cost_ns_min": 60.0, "cost_ns_max": 64.0, "stalls": 1, "stall_lost_s": 2e-7},
                  {"smi": 3, "unexplained": 0})
# The twin: 1.7e6 of 1 s (1700 ppm), 0.95e6 of 0.5 s (1900 ppm): pooled 2.65e6 / 1.5e9 = 1766.7 ppm, mean 1800.
TWIN_CPUS = [(1700000, 1e9), (950000, 5e8)]
TWIN = noise_rec(TWIN_CPUS,
                 ({"threshold_ns": 1000, "count": 2500, "ppm": 1650.0, "longest_ns": 180000.0},
                  {"threshold_ns": 5000, "count": 900, "ppm": 1500.0, "longest_ns": 180000.0}),
                 {"cost_ns_min": 1200.0, "cost_ns_max": 1400.0, "stalls": 40, "stall_lost_s": 0.0004},
                 {"interrupts": 2412, "context_switches": 31, "migrations": 0, "faults": 5, "unexplained": 1},
                 longest_ns=180000.0, count=4001)


def log_with_boot(tmp_path, records, name, **boot):
    """A synthetic log whose boot record has the given fields (a platform, a hypervisor)."""
    import json
    log = synthetic_log(tmp_path, records, name=name)
    lines = []
    for ln in open(log, encoding="latin-1", newline="").read().split("\r\n"):
        if '"kind":"boot"' in ln:
            obj = json.loads(ln.split(" ", 1)[1].rsplit(" ", 1)[0])
            obj.update(boot)
            ln = rec_line(obj)
        lines.append(ln)
    return write(tmp_path, name, "\r\n".join(lines).encode())


def twin(tmp_path, records, name):
    return log_with_boot(tmp_path, records, name, platform="linux", loader="linux", tsc_source="clock_monotonic_raw")


def side_cells(text):
    sec = text.split("\nnoise: gaps in a loop reading the TSC", 1)[1].split("\n\n", 1)[0].splitlines()
    rows = [ln for ln in sec if ln.startswith("  ")][1:]
    return {re.split(r"\s{2,}", ln.strip())[0]: re.split(r"\s{2,}", ln.strip())[1:] for ln in rows}


def pair_row(text):
    (row,) = [ln for ln in text.splitlines() if ln.startswith("  tsc-gaps ")]
    return row


# ---- qb table ----------------------------------------------------------------------------------------------------
def test_table_heads_with_the_pooled_ppm(tmp_path):
    t = qb("table", synthetic_log(tmp_path, [METAL]))
    assert t.returncode == 0, t.stderr
    assert ("\n  noise: 0.37 ppm pooled (mean of CPUs 0.41, worst CPU 0.52), longest gap 2.1 us (CPU 1 at 0.31 s); "
            "17 gaps in 1 s on 2 CPUs: 3 SMIs, 0 unexplained\n"
            "    rtla's thresholds, whole gaps pooled: >= 1 us: 3 gaps, 0.2 ppm, longest 2.1 us; >= 5 us: 0 gaps, "
            "0 ppm, longest none\n"
            "    gaps over 80 ns to 96 ns counted (4 x each CPU's own loop minimum, 20 to 24 ticks), over 1 us "
            "attributed\n"
            "    bookkeeping after each gap 60 ns to 64 ns a CPU (its calibrated cost, left out of the time observed); "
            "1 stall in it counted as gaps, 200 ns lost\n"
            "    attributed: " + WINDOW + "\n") in t.stdout, t.stdout
    # The grid's figure is the pooled ppm (560 / 1.5e9 x 10^6), its quartiles the CPUs' own (0.3 and 0.52 ppm)
    (row,) = [ln for ln in t.stdout.splitlines() if ln.startswith("  tsc-gaps ")]
    assert re.search(r" 0\.3733 +0\.355-0\.465 ", row), row
    assert "unstable" not in row                              # a cv over CPUs is no unstable repetition
    tw = qb("table", twin(tmp_path, [TWIN], "t.log"))
    assert ("noise: 1,767 ppm pooled (mean of CPUs 1,800, worst CPU 1,900), longest gap 180 us (CPU 1 at 0.31 s); "
            "4,001 gaps in 1 s on 2 CPUs: 2,412 interrupts, 31 context switches, 0 migrations, 5 faults, "
            "1 unexplained") in tw.stdout, tw.stdout
    assert ">= 1 us: 2,500 gaps, 1,650 ppm, longest 180 us; >= 5 us: 900 gaps, 1,500 ppm, longest 180 us" in tw.stdout


def test_emulator_and_hypervisor_say_whose_noise(tmp_path):
    tcg = qb("table", log_with_boot(tmp_path, [METAL], "tcg.log", hypervisor=True, hypervisor_name="QEMU TCG"))
    assert "\n  noise (the host's and the emulator's, not a machine's): 0.37 ppm pooled " in tcg.stdout, tcg.stdout
    kvm = qb("table", log_with_boot(tmp_path, [METAL], "kvm.log", hypervisor=True, hypervisor_name="KVM"))
    assert "\n  noise (under KVM, the host's too): 0.37 ppm pooled " in kvm.stdout, kvm.stdout
    metal = qb("table", synthetic_log(tmp_path, [METAL], name="metal.log"))
    assert "\n  noise: 0.37 ppm pooled " in metal.stdout
    c = qb("compare", log_with_boot(tmp_path, [METAL], "tcg.log", hypervisor=True, hypervisor_name="QEMU TCG"),
           synthetic_log(tmp_path, [METAL], name="metal.log"))
    assert "\nA's noise is the host's and the emulator's, not a machine's\n" in c.stdout
    assert "B's noise is" not in c.stdout


def test_rtla_figures_unknown_without_a_tsc_rate(tmp_path):
    g = dict(METAL["gaps"], over_1us=None, over_5us=None,
             over_note="null: the TSC's frequency is unknown, so 1 us and 5 us have no length in ticks")
    t = qb("table", synthetic_log(tmp_path, [dict(METAL, gaps=g)]))
    assert ("    rtla's thresholds (1 us, 5 us): unknown: null: the TSC's frequency is unknown, so 1 us and 5 us have "
            "no length in ticks\n") in t.stdout, t.stdout
    c = qb("compare", synthetic_log(tmp_path, [dict(METAL, gaps=g)], name="a.log"), twin(tmp_path, [TWIN], "b.log"))
    assert side_cells(c.stdout)["gaps >= 1 us (rtla)"] == ["-", "2,500"]


# ---- qb compare --------------------------------------------------------------------------------------------------
def test_compare_sets_pooled_and_rtla_side_by_side(tmp_path):
    a = synthetic_log(tmp_path, [METAL], name="metal.log")
    b = twin(tmp_path, [TWIN], "twin.log")
    r = qb("compare", a, b)
    assert r.returncode == 0, r.stderr
    cells = side_cells(r.stdout)
    assert cells["ppm lost, all CPUs pooled"] == ["0.37", "1,767"]
    assert cells["ppm lost, mean of CPUs"] == ["0.41", "1,800"]
    assert cells["ppm lost, worst CPU"] == ["0.52", "1,900"]
    assert cells["gaps >= 1 us (rtla)"] == ["3", "2,500"]
    assert cells["gaps >= 5 us (rtla)"] == ["0", "900"]
    assert cells["ppm of gaps >= 1 us, whole"] == ["0.2", "1,650"]
    assert cells["ppm of gaps >= 5 us, whole"] == ["0", "1,500"]
    assert cells["bookkeeping stalls"] == ["1", "40"]
    assert cells["gaps counted over"][0] == "80 ns (each CPU 4 x its own loop minimum, 20 to 24 ticks)"
    # The pair: its figures the pooled ppm, B/A their ratio (1766.7 / 0.37333 = 4732), tested over the CPUs
    row = pair_row(r.stdout)
    assert re.search(r" 0\.3733 +1767 ", row) and " 4732 " in row, row
    assert "CPUs: cannot tell: too few samples (2 and 2" in row and "reps" not in row, row
    s = qb("compare", "--spread", a, b)
    assert "noise workload, ppm lost (all CPUs pooled; the median over the side's runs): A 0.37, B 1,767" in s.stdout


def test_the_noise_pair_is_tested_over_cpus(tmp_path):
    """Eight CPUs a side, every B CPU's ppm above every A CPU's: Mann-Whitney U over the CPUs, exact p = 2 / C(16, 8),
    labelled CPUs. A's CPU 0 and B's CPU 7 observed 20 s: the pooled ratio (0.60596 / 0.30104 = 2.01) is not the
    ratio of the CPUs' medians (0.6035 / 0.3035 = 1.99)."""
    a_cpus = [(300 * 20, 20e9)] + [(300 + i, 1e9) for i in range(1, 8)]
    b_cpus = [(600 + i, 1e9) for i in range(7)] + [(607 * 20, 20e9)]
    over = ({"threshold_ns": 1000, "count": 0, "ppm": 0.0, "longest_ns": None}, None)
    book = {"cost_ns_min": 60.0, "cost_ns_max": 64.0, "stalls": 0, "stall_lost_s": 0.0}
    a = synthetic_log(tmp_path, [noise_rec(a_cpus, over, book, {"smi": 0, "unexplained": 0})], name="a.log")
    b = synthetic_log(tmp_path, [noise_rec(b_cpus, over, book, {"smi": 0, "unexplained": 0})], name="b.log")
    r = qb("compare", a, b)
    row = pair_row(r.stdout)
    assert " 2.01 " in row, row
    p = 2 / 12870
    assert re.search(r"CPUs p=%s adj=%s \*" % (re.escape(signif.pvalue(p)), re.escape(signif.pvalue(p))), row), row
    assert "tested over each side's CPUs' own ppm (CPUs p=) with fewer than 3 runs a side" in r.stdout


def pooled(cpus):
    return sum(lost for lost, _ in cpus) / sum(o for _, o in cpus) * 1e6


def test_runs_are_tested_on_their_pooled_ppm(tmp_path):
    """Three runs a side (folders of logs): the pair is tested as runs, Welch's t on each run's pooled ppm, one value
    a run, as signif.test_runs gives it; the CPUs' median per run would give another p."""
    runs = {"a": [[(300 + 10 * k, 1e9), (260 + 40 * k, 5e8)] for k in range(3)],
            "b": [[(600 + 20 * k, 1e9), (520 + 10 * k, 5e8)] for k in range(3)]}
    over = ({"threshold_ns": 1000, "count": 1, "ppm": 0.1, "longest_ns": 1500.0},
            {"threshold_ns": 5000, "count": 0, "ppm": 0.0, "longest_ns": None})
    book = {"cost_ns_min": 60.0, "cost_ns_max": 64.0, "stalls": 0, "stall_lost_s": 0.0}
    for side, cpus_of_runs in runs.items():
        os.makedirs(tmp_path / side)
        for k, cpus in enumerate(cpus_of_runs):
            synthetic_log(tmp_path / side, [noise_rec(cpus, over, book, {"smi": 0, "unexplained": 0})],
                          name="run-%d.log" % k)
    r = qb("compare", tmp_path / "a", tmp_path / "b")
    assert r.returncode == 0, r.stderr
    row = pair_row(r.stdout)
    want = signif.test_runs([pooled(c) for c in runs["a"]], [pooled(c) for c in runs["b"]])
    medians = signif.test_runs([np.median([x / o * 1e6 for x, o in c]) for c in runs["a"]],
                               [np.median([x / o * 1e6 for x, o in c]) for c in runs["b"]])
    assert signif.pvalue(want.p) != signif.pvalue(medians.p)  # the test tells the two apart
    assert "Welch p=%s" % signif.pvalue(want.p) in row and "CPUs" not in row, row
    assert re.search(r" %s +%s " % (re.escape("%.4g" % np.median([pooled(c) for c in runs["a"]])),
                                    re.escape("%.4g" % np.median([pooled(c) for c in runs["b"]]))), row), row
    s = qb("compare", "--spread", tmp_path / "a", tmp_path / "b")
    # A's runs pooled: 560, 610 and 660 ticks of 1.5e9: 0.373, 0.407 and 0.44 ppm
    assert "A 0.41 (0.37-0.44 over 3 runs)" in s.stdout, s.stdout


# ---- old records beside new ones -------------------------------------------------------------------------------
def test_an_older_record_says_what_its_figure_is(tmp_path):
    old = os.path.join(DATA, "twin-noise-quick.log")  # issue 31's twin: no pooled ppm, no rtla thresholds
    r = qb("compare", old, twin(tmp_path, [TWIN], "new.log"))
    assert r.returncode == 0, r.stderr
    row = pair_row(r.stdout)
    assert "A: the median of its CPUs' ppm, a record before the pooled ppm" in row, row
    cells = side_cells(r.stdout)
    assert cells["ppm lost, all CPUs pooled"] == ["not recorded", "1,767"]
    assert cells["gaps >= 1 us (rtla)"] == ["not recorded", "2,500"]
    rep = qb("report", old, twin(tmp_path, [TWIN], "new.log"), "-o", tmp_path / "r.html", "--no-plots")
    assert rep.returncode == 0, rep.stderr
    page = (tmp_path / "r.html").read_text()
    row = re.search(r"<tr><th>noise workload</th>(.*?)</tr>", page).group(1)
    assert "- ppm pooled (not recorded; mean of CPUs 17,200, worst CPU 18,940)" in row, row
    assert "1,767 ppm pooled (mean of CPUs 1,800, worst CPU 1,900)" in row, row
