"""test_qb - pytest tests of tools/qb (parse, table, run) and tools/qbrecords.py against real serial logs (tests/tools/data).

The logs come from the QEMU boot tests (build/boottest/*.log) and a
`make run ARGS=workloads=locality`. Damaged copies are made here, each with
the line number a person would find with grep -n. Run from the repository
root: python3 -m pytest -q tests/tools

Plots are tested in test_qb_plot.py, qb compare in test_qb_compare.py; the
shared helpers are in qbtest.py.
"""
import csv
import importlib.machinery
import importlib.util
import os
import re
import sys

import pytest

from qbtest import DATA, LAYOUTS, LOGS, QB, ROOT, TOOLS, data, load_results, qb, rec_line, record_lines, synthetic_log, write
import qbrecords  # noqa: E402
from qblib import run as qbrun  # noqa: E402


# ---- parse: real logs ----------------------------------------------------------------
@pytest.mark.parametrize("name", LOGS)
def test_parse_real_log_clean(tmp_path, name):
    out = tmp_path / "out"
    r = qb("parse", os.path.join(DATA, name), "-o", out)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    doc = load_results(out)
    assert doc["problems"] == []
    n = len(record_lines(data(name)))
    assert len(doc["records"]) == n
    assert doc["context"]["done"]["records"] == n
    assert doc["context"]["boot"]["kind"] == "boot"
    assert len(doc["context"]["cpus"]) == doc["context"]["boot"]["cpus_found"]
    assert doc["context"]["caches"] and doc["context"]["memory"]["kind"] == "memory"


def results_file(log, used=None, tail=b""):
    """A /quietbench/results.log as the kernel leaves it on the stick (kernel/lib/resfile.h):
    the 512-byte header, the log, then newlines (or what an older run left)."""
    used = len(log) if used is None else used
    hdr = ("QuietBench results file v1\nid=0123456789abcdef\nfile=results.log\noffset=%020d\n"
           "length=%020d\nused=%020d\n# comment\n" % (1150976, 1 << 20, used)).encode()
    body = log + tail
    return hdr + b"\n" * (512 - len(hdr)) + body + b"\n" * ((1 << 20) - 512 - len(body))


def test_parse_results_file_off_the_stick(tmp_path):
    """qb parse reads a results file straight off the stick: the header is text it passes
    over, and what lies past `used` (an older, longer run's end) is not read."""
    log = data("smp4.log")
    stale = rec_line({"v": 1, "kind": "boot", "build": "an older run"}).encode() + b"\r\n"
    f = tmp_path / "results.log"
    f.write_bytes(results_file(log, tail=stale))
    out = tmp_path / "out"
    r = qb("parse", f, "-o", out)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = load_results(out)
    assert doc["problems"] == []
    assert len(doc["records"]) == len(record_lines(log))
    # Without the header's bound the stale record would be read as a second run.
    g = tmp_path / "results2.log"
    g.write_bytes(results_file(log, used=len(log) + len(stale), tail=stale))
    assert qb("parse", g, "-o", tmp_path / "out2").returncode == 1


def test_parse_lava_job_log(tmp_path):
    """A LAVA job log (lava-run's, captured by make lava-check from Debian's lava-dispatcher 2023.01):
    qb reads the serial output LAVA captured in it, every record's CRC good; the same log with one
    record's quotes left escaped, or a digit changed, is refused."""
    src = os.path.join(DATA, "lava-run-qemu.log")
    out = tmp_path / "out"
    r = qb("parse", src, "-o", out)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = load_results(out)
    assert doc["problems"] == []
    assert doc["context"]["done"]["status"] == "ok"
    assert doc["context"]["boot"]["cmdline"].endswith(" lava")
    results = [x for x in doc["records"] if x["record"].get("kind") == "result"]
    lava = [ln for ln in qbrecords.lava_log_text(data("lava-run-qemu.log").decode()).splitlines()
            if ln.startswith("qb-lava: ") and not ln.startswith("qb-lava: machine.")]
    assert len(results) == len(lava) == 8
    bad = tmp_path / "bad.log"
    bad.write_bytes(data("lava-run-qemu.log").replace(b'selftest\\\\\\"', b'selftesT\\\\\\"', 1))
    assert qb("parse", bad, "-o", tmp_path / "out2").returncode == 1


def test_parse_default_dir_and_several_logs(tmp_path):
    a = write(tmp_path, "a.log", data("smp4.log"))
    b = write(tmp_path, "b.log", data("counter-smp4.log"))
    r = qb("parse", a)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.run" / "results.json").exists()
    assert (tmp_path / "a.run" / "selftest.csv").exists()
    r = qb("parse", a, b, "-o", tmp_path / "many")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "many" / "a.run" / "selftest.csv").exists()
    assert (tmp_path / "many" / "b.run" / "counter.csv").exists()


def test_parse_fault_run_reports_done_fail_without_failing(tmp_path):
    r = qb("parse", os.path.join(DATA, "fault-ap.log"), "-o", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "done fail" in r.stdout


def test_parse_missing_log_is_a_usage_error(tmp_path):
    r = qb("parse", tmp_path / "nosuch.log")
    assert r.returncode == 2
    assert "cannot read" in r.stderr


# ---- parse: damaged logs ----------------------------------------------------------------
def flip_byte(blob):
    lines = blob.split(b"\n")
    i = record_lines(blob)[5][0]
    ln = bytearray(lines[i])
    ln[30] ^= 0x04
    lines[i] = bytes(ln)
    return b"\n".join(lines), [(i + 1, "CRC mismatch")]


def cut_line(blob):
    lines = blob.split(b"\n")
    i = record_lines(blob)[8][0]
    lines[i] = lines[i][:90]
    return b"\n".join(lines), [(i + 1, "no CRC at the end")]


def missing_done(blob):
    lines = [ln for ln in blob.split(b"\n") if b'"kind":"done"' not in ln]
    return b"\n".join(lines), [(len(lines) - 1, "no done record")]  # the last line (the file ends with LF)


def garbage_bytes(blob):
    lines = blob.split(b"\n")
    recs = record_lines(blob)
    i, j = recs[4][0], recs[9][0]
    lines[i] = lines[i].replace(b'"kind"', b'"ki\xff\x00nd"', 1)           # inside a record: damaged
    lines.insert(j, b"\x00\xfe\x1b[0m\x07 line noise")                      # a line of its own: just text
    return b"\n".join(lines), [(i + 1, "CRC mismatch")]


def crlf(blob):
    lf = blob.replace(b"\r\n", b"\n")
    lines = lf.split(b"\n")
    i = record_lines(lf)[6][0]
    lines[i] = lines[i].replace(b'"v":1', b'"v":2', 1)
    return b"\r\n".join(lines), [(i + 1, "CRC mismatch")]


def stray_after_crc(blob):
    lines = blob.split(b"\n")
    i = record_lines(blob)[7][0]
    lines[i] = lines[i].rstrip(b"\r") + b"\x00\x1b[0m\r"
    return b"\n".join(lines), [(i + 1, "stray bytes after the CRC (record kept)")]


def ansi_in_record(blob):
    lines = blob.split(b"\n")
    recs = record_lines(blob)
    i, j = recs[3][0], recs[10][0]
    lines[i] = b"\x1b[2J\x1b[01;01H" + lines[i]                              # before the marker: harmless
    lines[j] = lines[j].replace(b",", b"\x1b[0m,", 1)                        # inside: damaged
    return b"\n".join(lines), [(j + 1, "CRC mismatch")]


def damaged_marker(blob):
    lines = blob.split(b"\n")
    i = record_lines(blob)[2][0]
    lines[i] = lines[i].replace(b"@qb ", b"@qc ")
    return b"\n".join(lines), [(i + 1, "no '@qb ' marker")]


def joined_records(blob):
    lines = blob.split(b"\n")
    recs = record_lines(blob)
    i, j = recs[11][0], recs[12][0]
    assert j == i + 1
    lines[i] = lines[i][:100] + lines[j]
    del lines[j]
    return b"\n".join(lines), [(i + 1, "record 1 of 2 on the line: no CRC")]


def lost_line(blob):
    lines = blob.split(b"\n")
    del lines[record_lines(blob)[15][0]]
    done = next(k for k, ln in enumerate(lines) if b'"kind":"done"' in ln)
    return b"\n".join(lines), [(done + 1, "1 missing")]


def control_bytes_in_text(blob):
    """Form feed, NEL and file separator in a text line must not shift the line numbers."""
    lines = blob.split(b"\n")
    i = record_lines(blob)[9][0]
    lines.insert(i - 1, b"text \x0c with \x85 odd \x1c bytes\r")
    lines[i + 1] = lines[i + 1].replace(b'"kind"', b'"kinD"', 1)
    return b"\n".join(lines), [(i + 2, "CRC mismatch")]


DAMAGE = [flip_byte, cut_line, missing_done, garbage_bytes, crlf, stray_after_crc, ansi_in_record,
          damaged_marker, joined_records, lost_line, control_bytes_in_text]


@pytest.mark.parametrize("damage", DAMAGE, ids=[d.__name__ for d in DAMAGE])
def test_damage_reported_with_line(tmp_path, damage):
    blob, expect = damage(data("counter-smp4.log"))
    log = write(tmp_path, "bad.log", blob)
    r = qb("parse", log, "-o", tmp_path / "out")
    assert r.returncode == 1, r.stdout + r.stderr
    for line, reason in expect:
        assert re.search(r"bad\.log:%d: [^\n]*%s" % (line, re.escape(reason)), r.stderr), r.stderr
    doc = load_results(tmp_path / "out")
    assert [(p["line"], reason) for p in doc["problems"] if reason in p["reason"]] == expect
    assert len(doc["problems"]) == len(expect), doc["problems"]

    r2 = qb("parse", log, "-o", tmp_path / "out2", "--allow-damaged")
    assert r2.returncode == 0, r2.stderr
    assert r2.stderr.count("bad.log:") == len(expect)


def test_damage_keeps_intact_records(tmp_path):
    blob, _ = joined_records(data("counter-smp4.log"))
    recs, problems = qbrecords.parse_text(blob.decode("latin-1"))
    assert len(problems) == 1
    orig, _ = qbrecords.parse_text(data("counter-smp4.log").decode("latin-1"))
    assert len(recs) == len(orig) - 1            # the cut one is lost, the one after it kept
    blob, _ = stray_after_crc(data("counter-smp4.log"))
    recs, problems = qbrecords.parse_text(blob.decode("latin-1"))
    assert len(recs) == len(orig) and len(problems) == 1


def test_qbrecords_unchanged_on_good_logs():
    """The extended reader gives the boot tests and qemu-run the same records and lines as before."""
    for name in LOGS:
        text = data(name).decode("latin-1")
        recs, problems = qbrecords.parse_text(text)
        assert problems == []
        old = [ln for ln in text.splitlines() if "@qb " in ln]
        assert len(recs) == len(old)
        assert [r.line for r in recs] == [i + 1 for i, ln in enumerate(text.splitlines()) if "@qb " in ln]


# ---- results.json and CSV ------------------------------------------------------------------
@pytest.mark.parametrize("name", LOGS)
def test_round_trip(tmp_path, name):
    path = os.path.join(DATA, name)
    out = tmp_path / "out"
    assert qb("parse", path, "-o", out).returncode == 0
    recs, _ = qbrecords.parse_file(path)
    doc = load_results(out)
    assert [e["record"] for e in doc["records"]] == [dict(r) for r in recs]
    assert [e["line"] for e in doc["records"]] == [r.line for r in recs]
    assert {e["file"] for e in doc["records"]} == {path}
    back = qbrun.load(str(out))
    assert [(r.line, dict(r)) for r in back.records] == [(r.line, dict(r)) for r in recs]
    assert back.source == path and back.mtime is not None
    assert qbrun.load(str(out / "results.json")).records == back.records


def test_csv_one_row_per_result(tmp_path):
    path = os.path.join(DATA, "counter-smp4.log")
    out = tmp_path / "out"
    assert qb("parse", path, "-o", out).returncode == 0
    recs, _ = qbrecords.parse_file(path)
    results = [r for r in recs if r["kind"] == "result"]
    with open(out / "counter.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(results) == 35
    assert [int(r["line"]) for r in rows] == [r.line for r in results]
    assert "params.placement" in rows[0] and "params.iters" in rows[0] and "reason" in rows[0]
    assert rows[4]["thread_ticks_per_increment"] == ";".join(str(x) for x in results[4]["thread_ticks_per_increment"])
    assert rows[4]["cpus"] == "0;1;2;3"
    skipped = [r for r in rows if r["check"] == "skipped"]
    assert [r["params.placement"] for r in skipped] == ["pair-smt", "pair-l2", "pair-package", "pair-remote"]
    assert all(r["median"] == "" for r in skipped)
    assert sorted(os.listdir(out)) == ["counter.csv", "results.json"]


def test_csv_stale_files_removed(tmp_path):
    out = tmp_path / "out"
    assert qb("parse", os.path.join(DATA, "counter-smp4.log"), "-o", out).returncode == 0
    assert qb("parse", os.path.join(DATA, "smp4.log"), "-o", out).returncode == 0
    assert sorted(os.listdir(out)) == ["results.json", "selftest.csv"]


# ---- table ---------------------------------------------------------------------------------
def results_of(name, workload=None):
    recs, _ = qbrecords.parse_file(os.path.join(DATA, name))
    return [r for r in recs if r["kind"] == "result" and (workload is None or r.get("workload") == workload)]


def test_table_counter(tmp_path):
    """counter's lists speak ns per increment: each cell is the record's median_ns (the kernel's own ns)
    over its increments per thread, and its slowdown the kernel's own (these records have no clean
    block: the figure is over all repetitions, as the kernel's ticks_per_increment)."""
    path = os.path.join(DATA, "counter-smp4.log")
    assert qb("parse", path, "-o", tmp_path / "out").returncode == 0
    r = qb("table", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert text.startswith("machine: QEMU TCG CPU version 2.5+ (AuthenticAMD), 4 CPUs")
    assert "TSC 2500390676 Hz" in text.splitlines()[0]
    assert "ns per increment (slowest thread); in brackets the slowdown against 1 thread" in text
    assert " = " not in text.split("counter:")[1].split("pairs")[0]  # no unexplained "=" in the rows
    for lay in LAYOUTS:
        assert re.search(r"^  %s +1 +\d" % re.escape(lay), text, re.M), lay
    res = results_of("counter-smp4.log")
    two = {x["params"]["placement"]: x for x in res if x["variant"] == "packed" and x["threads"] == 2}
    cells = ["%.4g +\\(%.0f%%\\)" % (two[p]["median_ns"] / two[p]["params"]["iters"], two[p]["slowdown_pct"])
             for p in ("compact", "scatter")]
    assert cells[0].endswith("(507%\\)") and cells[1].endswith("(509%\\)")  # the log's own text says so
    assert re.search(r"^ +2 +%s +%s$" % tuple(cells), text, re.M), text
    l3 = next(x for x in res if x["params"].get("placement") == "pair-l3")
    one = next(x for x in res if x["variant"] == "packed" and x["threads"] == 1 and x["params"]["placement"] == "compact")
    assert re.search(r"^  pair-l3 +%.4g +\(%.0f%%\)  -- same L3, CPUs 0,1$" % (
        l3["median_ns"] / l3["params"]["iters"], 100 * l3["ticks_per_increment"] / one["ticks_per_increment"]),
        text, re.M), text
    assert re.search(r"^  pair-smt +skipped: no SMT siblings$", text, re.M)
    assert "core-to-core matrix (packed, ns/increment, 4 x 4" in text
    assert re.search(r"^  0 +- +203 +86\.3 +5\.8$", text, re.M)  # matrix row of CPU 0: 506.6 ticks at 2.5 GHz ...
    assert "done: ok, 57 records, 0 errors" in text
    assert qb("table", path).stdout == text  # a raw log gives the same tables
    ticks = qb("table", path, "--ticks").stdout
    assert re.search(r"^ +2 +41\.26 +\(507%\) +41\.45 +\(509%\)$", ticks, re.M), ticks  # the kernel's ticks
    assert re.search(r"^  0 +- +203 +86\.3", ticks, re.M)


def test_table_two_sockets_pairs():
    r = qb("table", os.path.join(DATA, "counter-2sockets-smt.log"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  pair-smt +3\.456 +\(106%\)  -- SMT siblings, CPUs 0,1$", r.stdout, re.M), r.stdout
    assert re.search(r"^  pair-remote +3\.294 +\(101%\)  -- different packages, CPUs 0,4$", r.stdout, re.M)
    assert re.search(r"^ +8 +4\.099 +\(126%\) +17\.38 +\(535%\)$", r.stdout, re.M)  # the kernel's 126% and 535%


def test_table_selftest_errors_and_fail():
    r = qb("table", os.path.join(DATA, "bad-options.log"))
    assert r.returncode == 0, r.stderr
    (pi,) = [x for x in results_of("bad-options.log") if x["variant"] == "padded-increment"]
    assert re.search(r"^  padded-increment +2 +iters=1000000 flush=wbinvd +%.0f +- +%.1f +- +ok$"
                     % (pi["median_ns"], 100 * pi["cv"]), r.stdout, re.M), r.stdout
    assert re.search(r"^  variant +threads +params +ns +q1-q3 +cv % +clean +check$", r.stdout, re.M)
    assert "error (line 5): bad option: key=reps, value=abc, detail=not a number" in r.stdout
    r = qb("table", os.path.join(DATA, "fault-ap.log"))
    assert "error (line 38): exception: name=page fault" in r.stdout
    assert "done: fail" in r.stdout


def test_table_generic_workload(tmp_path):
    log = synthetic_log(tmp_path, [
        {"v": 1, "kind": "result", "workload": "other", "variant": "evict-buffer", "threads": 2, "cpus": [0, 1],
         "params": {"bytes": 4096}, "unit": "ticks", "n": 3, "min": 10, "median": 12.0, "mean": 12.3, "max": 15,
         "cv": 0.1, "check": "ok"}])
    r = qb("table", log)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  variant +threads +params +ns +q1-q3 +cv % +clean +check$", r.stdout, re.M), r.stdout
    # 12 ticks at the synthetic boot record's 1 GHz are 12 ns; cv 0.1 is 10% and unstable
    assert re.search(r"^  evict-buffer +2 +bytes=4096 +12 +- +10\.0 unstable +- +ok$", r.stdout, re.M), r.stdout


def test_table_flush_columns(tmp_path):
    """flush results show ns per access of the pass after the flush, the flush's own cost in us and cold %,
    and say why a cold % is missing."""
    base = {"v": 1, "kind": "result", "workload": "flush", "threads": 1, "cpus": [0], "params": {"set_bytes": 524288},
            "unit": "ticks", "n": 3, "min": 10, "median": 8192.0, "mean": 8200.0, "max": 15, "cv": 0.01,
            "check": "ok"}
    log = synthetic_log(tmp_path, [
        dict(base, variant="clflush", flush_ticks=40404.0, cold_pct=100.0),
        dict(base, variant="evict-8mib", flush_ticks=366080.0, cold_pct=10.4),
        dict(base, variant="none", flush_ticks=78.0, cold_pct=None,
             cold_pct_note="the cold reference pass (clflush, 9 ticks) was faster than the warm one (12 ticks): no scale")])
    r = qb("table", log)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  variant +threads +params +ns/access +q1-q3 +cv % +clean +flush us +cold % +check$",
                     r.stdout, re.M), r.stdout
    # 8192 ticks at 1 GHz over 524288 / 64 lines: 1 ns per access; 40404 ticks of flushing: 40.4 us
    assert re.search(r"^  clflush +1 +- +1 +- +1\.0 +- +40\.4 +100 +ok$", r.stdout, re.M), r.stdout
    assert re.search(r"^  evict-8mib .* 366 +10\.4 +ok$", r.stdout, re.M), r.stdout
    assert re.search(r"^  none .* 0\.078 +- +ok$", r.stdout, re.M), r.stdout
    assert "cold % of none: the cold reference pass (clflush, 9 ticks) was faster than the warm one" in r.stdout
    ticks = qb("table", log, "--ticks").stdout
    assert re.search(r"^  variant +threads +params +ticks/access +q1-q3 .* flush ticks +cold % +median ticks", ticks, re.M)
    assert re.search(r"^  clflush +1 +- +1 +- +1\.0 +- +40404 +100 +8192 +ok$", ticks, re.M), ticks


def test_table_refuses_what_is_not_a_run(tmp_path):
    """An empty file, or any file without a record, is an input error (exit 2), not an empty table."""
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    for f in (empty, "/etc/passwd"):
        r = qb("table", f)
        assert r.returncode == 2 and "holds no QuietBench records" in r.stderr, (f, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr


def test_a_typo_in_a_commands_options_shows_that_commands_usage():
    """qb run --smpp 2: the usage of qb run (its --smp), not qb's list of commands."""
    r = qb("run", "--smpp", "2")
    assert r.returncode == 2, r.stderr
    assert "qb run: error: unrecognized arguments: --smpp" in r.stderr and "--smp SMP" in r.stderr, r.stderr
    r = qb("table", "--tickz", "x.log")
    assert r.returncode == 2 and "qb table: error" in r.stderr and "--ticks" in r.stderr, r.stderr


def test_table_bad_run_is_usage_error(tmp_path):
    r = qb("table", tmp_path / "nothing")
    assert r.returncode == 2 and "no such run" in r.stderr
    (tmp_path / "empty").mkdir()
    r = qb("table", tmp_path / "empty")
    assert r.returncode == 2 and "qb parse first" in r.stderr


def test_table_warns_about_damage(tmp_path):
    blob, _ = flip_byte(data("counter-smp4.log"))
    r = qb("table", write(tmp_path, "bad.log", blob))
    assert r.returncode == 0
    assert "warning" in r.stderr and "CRC mismatch" in r.stderr
    assert "damaged: 1 problem(s)" in r.stdout


# ---- run -------------------------------------------------------------------------------------
def load_qb_module():
    loader = importlib.machinery.SourceFileLoader("qb_main", QB)
    spec = importlib.util.spec_from_loader("qb_main", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_run_passes_arguments_to_qemu_run(tmp_path, monkeypatch):
    qbmain = load_qb_module()
    from qblib import launch
    calls = []

    def fake_call(cmd, cwd=None):
        calls.append((cmd, cwd))
        return 3

    monkeypatch.setattr(launch.subprocess, "call", fake_call)
    log = tmp_path / "logs" / "x.log"
    rc = qbmain.main(["run", "--quick", "--smp", "8,sockets=2,cores=2,threads=2", "--numa", "2", "--mem", "2048",
                      "--log", str(log), "--", "workloads=counter", "reps=5"])
    assert rc == 3
    cmd, cwd = calls[0]
    assert cwd == ROOT
    assert cmd[:2] == [sys.executable, os.path.join(TOOLS, "qemu-run")]
    args = cmd[2:]
    for opt, val in (("--default-profile", "quick"), ("--smp", "8,sockets=2,cores=2,threads=2"),
                     ("--numa", "2"), ("--mem", "2048"), ("--log", str(log))):
        assert args[args.index(opt) + 1] == val
    assert args[args.index("--"):] == ["--", "workloads=counter", "reps=5"]
    assert log.parent.is_dir()


def test_run_defaults(monkeypatch):
    qbmain = load_qb_module()
    from qblib import launch
    calls = []
    monkeypatch.setattr(launch.subprocess, "call", lambda cmd, cwd=None: calls.append(cmd) or 0)
    assert qbmain.main(["run"]) == 0
    args = calls[0][2:]
    assert args[args.index("--smp") + 1] == "4" and args[args.index("--mem") + 1] == "1024"
    assert re.fullmatch(re.escape(os.path.join(ROOT, "build", "qb-run-")) + r"\d{8}-\d{6}\.log",
                        args[args.index("--log") + 1])
    assert args[-1] == "--" and "--efi" not in args
    assert "--default-profile" not in args  # the kernel's own default profile (full), as on a real machine
    assert args[args.index("--timeout") + 1] == str(launch.FULL_BUDGET_S + launch.TIMEOUT_MARGIN_S)
    assert launch.budget_s(["budget=1h30m"]) == 5400 and launch.budget_s(["profile=quick"]) is None


def test_run_parses_the_log_and_points_latest_at_it(tmp_path, monkeypatch):
    """qb run leaves the parsed .run beside the log, and qb-run-latest.{log,run}
    follow the newest run under build/, so the README's next commands need no name."""
    qbmain = load_qb_module()
    from qblib import launch
    src = os.path.join(DATA, "smp4.log")

    def fake_call(cmd, cwd=None):
        log = cmd[cmd.index("--log") + 1]
        with open(src, "rb") as f, open(log, "wb") as g:
            g.write(f.read())
        return 0

    monkeypatch.setattr(launch.subprocess, "call", fake_call)
    log = tmp_path / "x.log"
    assert qbmain.main(["run", "--log", str(log)]) == 0
    assert (tmp_path / "x.run" / "results.json").is_file()
    # latest links, twice: the second run takes them over
    build = tmp_path / "build"
    build.mkdir()
    for name in ("qb-run-1.log", "qb-run-2.log"):
        (build / name).write_bytes(open(src, "rb").read())
        (build / name.replace(".log", ".run")).mkdir()
        launch.point_latest(str(tmp_path), str(build / name), str(build / name.replace(".log", ".run")))
    assert os.readlink(build / "qb-run-latest.log") == "qb-run-2.log"
    assert os.readlink(build / "qb-run-latest.run") == "qb-run-2.run"
    assert launch.point_latest(str(tmp_path), str(tmp_path / "elsewhere.log"), str(tmp_path / "e.run")) is None


def test_run_bad_arguments(capsys):
    qbmain = load_qb_module()
    with pytest.raises(SystemExit) as e:
        qbmain.main(["run", "--numa", "two"])
    assert e.value.code == 2
    assert qbmain.main(["run", "--numa", "0"]) == 2
    assert "--numa and --mem must be positive" in capsys.readouterr().err


def test_table_shows_clean_and_flagged_counts(tmp_path):
    """Results carry clean/flagged repetition counts; the table sums them per workload and counts the
    noisy results."""
    from qblib import table  # noqa: E402
    res = [{"kind": "result", "workload": "selftest", "variant": "a", "n": 5,
            "clean": {"reps": 4, "flagged": 1}, "noise": {"flags": ["smi"], "smis": 2, "freq_mhz_min": "unavailable"}},
           {"kind": "result", "workload": "selftest", "variant": "b", "n": 3,
            "clean": {"reps": 3, "flagged": 0}, "noise": {"flags": []}, "counters": "unavailable"},
           {"kind": "result", "workload": "selftest", "variant": "c", "n": 5,
            "clean": {"reps": 2, "flagged": 3}, "noise": {"flags": ["smi"]}}]
    assert table.clean_cell(res[0]) == "4/5"
    assert table.clean_cell(res[2]) == "2/5 noisy"
    assert table.clean_cell({"n": 3}) == "-"
    line = table.noise_line(res)
    assert line == ["  repetitions: 9 clean, 4 flagged (smi); 1 result(s) noisy (~); unavailable: counters, freq_mhz_min"]


def test_table_says_unchecked_and_unstable():
    """Under QEMU only the TSC check runs: the table says "unchecked", not "clean";
    a cv above 5% is marked unstable, in percent, the cv of the repetitions the figure is over."""
    from qblib import table  # noqa: E402
    qemu = {"kind": "result", "workload": "counter", "variant": "a", "n": 3, "median": 1.0, "mean": 1.0, "cv": 0.2,
            "clean": {"reps": 3, "flagged": 0, "detectors": ["tsc_backwards"], "n": 3, "median": 1.0, "mean": 1.0,
                      "cv": 0.2}, "noise": {"flags": []}}
    metal = {"kind": "result", "workload": "counter", "variant": "b", "n": 3, "median": 1.0, "mean": 1.0, "cv": 0.3,
             "clean": {"reps": 2, "flagged": 1, "detectors": ["aperf_mperf", "smi", "thermal", "tsc_backwards"],
                       "n": 2, "median": 1.0, "mean": 1.0, "cv": 0.01},
             "noise": {"flags": ["smi"]}}
    assert table.clean_cell(qemu) == "unchecked 3/3"
    assert table.clean_cell(metal) == "2/3"
    assert table.cv_cell(qemu) == "20.0 unstable" and table.cv_cell(metal) == "1.0"  # the clean 1%, not all's 30%
    assert table.noise_line([qemu, metal]) == [
        "  repetitions: 2 clean, 1 flagged (smi), 3 unchecked (no noise detector ran); 1 result(s) unstable (cv > 5%)"]


def test_table_twin_noisy_marked_and_sizes_named_truly():
    """A real twin run: every noisy result's figure carries ~ and its clean cell says noisy; the
    quick profile's 512 KiB "llc" and 2 MiB "dram" are said not to be the LLC and DRAM here."""
    text = qb("table", os.path.join(DATA, "twin-quick.log")).stdout
    noisy = [x for x in results_of("twin-quick.log") if isinstance(x.get("clean"), dict)
             and 2 * x["clean"]["reps"] < x["n"]]
    assert noisy  # the run has some: the test means something
    rows = [ln for ln in text.splitlines() if re.search(r" \d+/\d+ noisy ", ln)]
    assert len(rows) == len(noisy)
    assert all("~" in ln for ln in rows)
    assert "; %d result(s) noisy (~)" % len(noisy) in text
    assert "size llc (512 KiB) is not the LLC on this machine: it pairs on its bytes" in text
    assert "size dram (2 MiB) is not the DRAM (4 x the LLC) on this machine" in text
    assert re.search(r"^  interleaved +1 +L2, 256 KiB +cold +accumulator=", text, re.M)  # no start: cold
    assert text.splitlines()[1].startswith("virtual machine (a hypervisor")


# ---- matrices sent a row per record ---------------------------------------------------
def test_matrix_rows_are_put_back_together():
    n = 70  # above the kernel's 64 CPUs inline
    head = {"v": 1, "kind": "matrix", "workload": "counter", "variant": "packed", "unit": "ticks_per_increment",
            "cpus": list(range(n)), "rows": n, "check": "ok"}
    rows = [{"v": 1, "kind": "matrix_row", "workload": "counter", "variant": "packed", "row": i,
             "values": [None if i == j else float(i + j) for j in range(n)]} for i in range(n)]
    text = "\n".join(rec_line(r) for r in [head] + rows) + "\n"
    recs, problems = qbrecords.parse_text(text)
    assert not problems
    (m,) = qbrecords.matrices(recs)
    assert len(m["values"]) == n and m["values"][3][5] == 8.0 and m["values"][4][4] is None
    # a row lost on the wire leaves no half matrix behind
    recs, _ = qbrecords.parse_text("\n".join(rec_line(r) for r in [head] + rows[:-1]) + "\n")
    assert qbrecords.matrices(recs)[0]["values"] is None
    # a small matrix still carries its values inline, untouched
    small = dict(head, values=[[None, 1.0], [1.0, None]], cpus=[0, 1])
    del small["rows"]
    recs, _ = qbrecords.parse_text(rec_line(small) + "\n")
    assert qbrecords.matrices(recs)[0]["values"] == [[None, 1.0], [1.0, None]]
