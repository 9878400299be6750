"""test_lava_export - qb table and qb report on a LAVA server's result exports (tools/qblib/lavaexport.py).

The data in data/lava-server/ came from a real LAVA server (Debian's lava-server 2023.01 with
lava-dispatcher as its worker) running tools/lava/qemu-job.yaml on two QEMU devices: jobs 3 and 5 on
one with 2 CPUs and 1 GiB, jobs 4 and 6 on one with 4 CPUs and 2 GiB. results-N.yaml is the server's
/results/N/yaml, results-4.csv its /results/4/csv, job-4.log `lavacli jobs logs --raw 4`.
Job 4's log holds the serial output the server captured: every result test case is checked against
the result record it came from.
"""
import os

import pytest

from qbtest import DATA, qb
import qbrecords  # noqa: E402
from qblib import lavaexport  # noqa: E402
from qblib import run as qbrun  # noqa: E402

LAVA = os.path.join(DATA, "lava-server")
CHECK = {"ok": "ok", "fail": "fail", "overrun": "fail", "skipped": "skipped"}


def path(name):
    return os.path.join(LAVA, name)


def read(name):
    with open(path(name), encoding="utf-8") as f:
        return f.read()


def test_export_results_are_the_serial_records():
    """Each result of job 4's export is the result record the same job printed: same order, workload,
    variant, threads, check, and its median_ns (or, without one, its repetitions); the machine cases are
    the boot record's."""
    (run,) = lavaexport.runs(path("results-4.yaml"), read("results-4.yaml"))
    assert run.problems == []
    assert run.lava_job == {"id": "4", "result": "pass", "cases": 29}
    records, problems = qbrecords.parse_text(qbrecords.lava_log_text(read("job-4.log")))
    assert problems == []
    want = qbrecords.of_kind(records, "result")
    got = run.results()
    assert len(got) == len(want) == 24
    for n, (g, w) in enumerate(zip(got, want), 1):
        assert (g["workload"], g["variant"], g["threads"], g["params"]) == \
            (w["workload"], w["variant"], w["threads"], {"case": n})
        assert g["check"] == CHECK[w["check"]]
        if w.get("median_ns") is not None:
            assert g["median"] == pytest.approx(w["median_ns"], abs=0.051)
            assert g["unit"] == "ns"
        else:
            assert g["median"] is None and g["n"] == (w.get("n") or 0)
    assert sum(1 for g in got if g["check"] == "skipped") == 5
    boot = qbrecords.of_kind(records, "boot")[0]
    b = run.boot
    assert (b["cpu_vendor"], b["cpu_model"]) == (boot["cpu_vendor"], boot["cpu_model"].strip())
    assert (b["cpus_found"], b["cpus_online"], b["numa_nodes"]) == (4, 4, boot["numa_nodes"])
    assert b["memory_bytes"] == boot["memory_bytes"] >> 20 << 20
    assert abs(b["tsc_hz"] - boot["tsc_hz"]) <= 500
    assert run.mtime is not None and run.mtime.year == 2026


def test_csv_export_reads_as_the_yaml_one():
    y = qb("table", path("results-4.yaml"))
    c = qb("table", path("results-4.csv"))
    assert y.returncode == 0 and c.returncode == 0, y.stderr + c.stderr
    assert "LAVA job 4" in y.stdout and "4 CPUs (4 found)" in y.stdout
    assert y.stdout.rstrip().endswith("done: no done record in a LAVA result export; LAVA's job test case: pass")
    assert y.stdout.replace("results-4.yaml", "X") == c.stdout.replace("results-4.csv", "X")


def test_report_of_four_exports_has_two_machines(tmp_path):
    page = tmp_path / "lava.html"
    r = qb("report", *[path("results-%d.yaml" % j) for j in (3, 4, 5, 6)], "-o", page)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith(": 4 runs on 2 machines")
    text = page.read_text()
    assert "M1: QEMU TCG CPU version 2.5+, 2 CPUs, 2 runs" in text
    assert "M2: QEMU TCG CPU version 2.5+, 4 CPUs, 2 runs" in text
    # virtual machine, caches, product, BIOS, memory modules, firmware, profile, noise, core clock, noise workload,
    # build; and the products table's one group (product, BIOS, memory modules)
    assert text.count("- (not in a LAVA result export)") == 4 * 11 + 3
    assert "LAVA job 6 (result export: 29 QuietBench test cases)" in text
    assert "No plots: a LAVA result export holds medians only" in text
    assert "case=11" in text and "skipped" in text


def test_an_export_of_several_jobs(tmp_path):
    both = tmp_path / "jobs-3-5.yaml"
    both.write_text(read("results-3.yaml") + read("results-5.yaml"))
    r = qb("report", both, "-o", tmp_path / "r.html")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith(": 2 runs on 1 machine")
    assert "jobs-3-5.yaml#3" in (tmp_path / "r.html").read_text()
    r = qb("table", both)
    assert r.returncode == 2 and "LAVA result export of 2 jobs" in r.stderr


def test_parse_and_plot_refuse_an_export(tmp_path):
    r = qb("parse", path("results-3.yaml"), "-o", tmp_path / "out")
    assert r.returncode == 2 and "is a LAVA result export, not a log" in r.stderr
    assert not (tmp_path / "out").exists()
    r = qb("plot", path("results-3.yaml"), "-o", tmp_path / "plots")
    assert r.returncode == 2 and "medians only" in r.stderr
    assert not (tmp_path / "plots").exists()


def test_foreign_and_missing_cases_are_problems(tmp_path):
    text = read("results-3.yaml").replace("test_case_id: flush-24-clflush-1t", "test_case_id: clflush-speed", 1)
    assert text != read("results-3.yaml")
    (run,) = lavaexport.runs("x.yaml", text)
    assert [p["reason"] for p in run.problems] == \
        ["LAVA test case 'clflush-speed' (pass) is not a QuietBench result"]
    assert len(run.results()) == 23
    foreign = tmp_path / "foreign.yaml"
    foreign.write_text(text)
    r = qb("table", foreign)
    import yaml
    entry = 1 + [c["metadata"].get("extra") for c in yaml.safe_load(text)].index([{"test_case_id": "clflush-speed"}])
    assert r.returncode == 0 and "problem: %s:%d: LAVA test case 'clflush-speed'" % (foreign, entry) in r.stdout
    assert "qb table lists them" in r.stderr
    only_lava = yaml.safe_dump([c for c in yaml.safe_load(read("results-3.yaml")) if c["suite"] == "lava"])
    (run,) = lavaexport.runs("y.yaml", only_lava)
    assert len(run.problems) == 2 and "no machine.* test cases" in run.problems[0]["reason"]
    with pytest.raises(qbrun.QbError, match="a list of test cases"):
        lavaexport.runs("z.yaml", "- job: '1'\n  suite: x\n  result: pass\n- [1, 2]\n")
    with pytest.raises(qbrun.QbError, match="entry 2 is not a LAVA test case"):
        lavaexport.runs("z.yaml", "- job: '1'\n  suite: x\n  result: pass\n- job: '1'\n  name: y\n")


def test_looks_like_only_exports():
    assert lavaexport.looks_like(read("results-3.yaml"))
    assert lavaexport.looks_like(read("results-4.csv"))
    assert not lavaexport.looks_like(read("job-4.log"))
    with open(os.path.join(DATA, "smp4.log"), encoding="latin-1") as f:
        assert not lavaexport.looks_like(f.read())
