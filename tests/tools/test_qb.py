"""test_qb - pytest tests of tools/qb and tools/qbrecords.py against real serial logs (tests/tools/data).

The logs come from the QEMU boot tests (build/boottest/*.log) and a
`make run ARGS=workloads=locality`. Damaged copies are made here, each with
the line number a person would find with grep -n. Run from the repository
root: python3 -m pytest -q tests/tools
"""
import csv
import importlib.machinery
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools")
QB = os.path.join(TOOLS, "qb")
DATA = os.path.join(HERE, "data")
sys.path.insert(0, TOOLS)
import qbrecords  # noqa: E402
from qblib import compare as qbcompare  # noqa: E402
from qblib import run as qbrun  # noqa: E402

LOGS = ["smp4.log", "smp8-2sockets-smt-numa2.log", "counter-smp4.log", "counter-2sockets-smt.log",
        "bad-options.log", "fault-ap.log", "locality-smp4.log"]
LAYOUTS = ["packed", "padded", "array-header", "array-header-padded", "shared-atomic"]
WIDE, SQUARE = (900, 550), (800, 700)  # qblib/plot.py: WIDE and SQUARE at 100 dpi


# ---- helpers ---------------------------------------------------------------------
def qb(*args):
    return subprocess.run([sys.executable, QB] + [str(a) for a in args], capture_output=True, text=True, cwd=ROOT)


def data(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()


def rec_line(obj):
    """A record line as the kernel prints it: @qb {json} crc."""
    js = json.dumps(obj, separators=(",", ":"))
    return "@qb %s %08x" % (js, zlib.crc32(js.encode()) & 0xFFFFFFFF)


def record_lines(blob):
    """(0-based line index, line) of every record line, splitting at LF like grep -n."""
    return [(i, ln) for i, ln in enumerate(blob.split(b"\n")) if b"@qb " in ln]


def write(tmp_path, name, blob):
    p = tmp_path / name
    p.write_bytes(blob)
    return p


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    sig, _, chunk, w, h = struct.unpack(">8sI4sII", head)
    assert sig == b"\x89PNG\r\n\x1a\n" and chunk == b"IHDR", "%s is not a PNG" % path
    return w, h


def load_results(outdir):
    with open(os.path.join(outdir, "results.json")) as f:
        return json.load(f)


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
def test_table_counter(tmp_path):
    path = os.path.join(DATA, "counter-smp4.log")
    assert qb("parse", path, "-o", tmp_path / "out").returncode == 0
    r = qb("table", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert text.startswith("machine: QEMU TCG CPU version 2.5+ (AuthenticAMD), 4 CPUs")
    assert "TSC 2500390676 Hz" in text.splitlines()[0]
    for lay in LAYOUTS:
        assert re.search(r"^  %s +1 = " % re.escape(lay), text, re.M), lay
    # packed, 2 threads: compact 41.261 (507%), scatter 41.446 (509%), as in the log's own text
    assert re.search(r"^ +2 = +41\.261 +\(507%\) +41\.446 +\(509%\)$", text, re.M)
    assert re.search(r"^  pair-l3 +2 = +12\.963 +\(104%\)  -- same L3, CPUs 0,1$", text, re.M)
    assert re.search(r"^  pair-smt +skipped: no SMT siblings$", text, re.M)
    assert re.search(r"^  0 +- +506\.6 +215\.8 +14\.5$", text, re.M)  # matrix row of CPU 0
    assert "done: ok, 57 records, 0 errors" in text
    assert qb("table", path).stdout == text  # a raw log gives the same tables


def test_table_two_sockets_pairs():
    r = qb("table", os.path.join(DATA, "counter-2sockets-smt.log"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  pair-smt +2 = +8\.642 +\(41%\)  -- SMT siblings, CPUs 0,1$", r.stdout, re.M)
    assert re.search(r"^  pair-remote +2 = +8\.237 +\(39%\)  -- different packages, CPUs 0,4$", r.stdout, re.M)
    assert re.search(r"^ +8 = +10\.250 +\(126%\) +43\.458 +\(535%\)$", r.stdout, re.M)


def test_table_selftest_errors_and_fail():
    r = qb("table", os.path.join(DATA, "bad-options.log"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  padded-increment +2 +iters=1000000 flush=wbinvd +22421174 +22351262 +22544690 +0\.0044 +- "
                     r"+22\.421 +ok$", r.stdout, re.M), r.stdout
    assert "error (line 5): bad option: key=reps, value=abc, detail=not a number" in r.stdout
    r = qb("table", os.path.join(DATA, "fault-ap.log"))
    assert "error (line 38): exception: name=page fault" in r.stdout
    assert "done: fail" in r.stdout


def test_table_generic_workload(tmp_path):
    log = synthetic_log(tmp_path, [
        {"v": 1, "kind": "result", "workload": "flush", "variant": "evict-buffer", "threads": 2, "cpus": [0, 1],
         "params": {"bytes": 4096}, "unit": "ticks", "n": 3, "min": 10, "median": 12.0, "max": 15, "cv": 0.1,
         "check": "ok"}])
    r = qb("table", log)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  variant +threads +params +median ticks +min +max +cv +clean +check$", r.stdout, re.M)
    assert re.search(r"^  evict-buffer +2 +bytes=4096 +12 +10 +15 +0\.1000 unstable +- +ok$", r.stdout, re.M), r.stdout


def test_table_flush_columns(tmp_path):
    """flush results show the flush's own cost and cold %, and say why a cold % is missing."""
    base = {"v": 1, "kind": "result", "workload": "flush", "threads": 1, "cpus": [0], "params": {"set_bytes": 524288},
            "unit": "ticks", "n": 3, "min": 10, "median": 12.0, "max": 15, "cv": 0.01, "check": "ok"}
    log = synthetic_log(tmp_path, [
        dict(base, variant="clflush", flush_ticks=40404.0, cold_pct=100.0),
        dict(base, variant="evict-8mib", flush_ticks=366080.0, cold_pct=10.4),
        dict(base, variant="none", flush_ticks=78.0, cold_pct=None,
             cold_pct_note="the cold reference pass (clflush, 9 ticks) was faster than the warm one (12 ticks): no scale")])
    r = qb("table", log)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  variant +threads +params +median ticks +min +max +cv +clean +flush ticks +cold % +check$",
                     r.stdout, re.M), r.stdout
    assert re.search(r"^  clflush +1 +- +12 +10 +15 +0\.0100 +- +40404 +100 +ok$", r.stdout, re.M), r.stdout
    assert re.search(r"^  evict-8mib .* 366080 +10\.4 +ok$", r.stdout, re.M), r.stdout
    assert re.search(r"^  none .* 78 +- +ok$", r.stdout, re.M), r.stdout
    assert "cold % of none: the cold reference pass (clflush, 9 ticks) was faster than the warm one" in r.stdout


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


# ---- plot ----------------------------------------------------------------------------------
def synthetic_log(tmp_path, records, name="synthetic.log"):
    """A log around the given records: boot, one cpu, the records, done with the right count."""
    boot = {"v": 1, "kind": "boot", "build": "test", "cpu_model": "Test CPU", "cpu_vendor": "Test",
            "tsc_hz": 1000000000, "tsc_source": "cpuid-15h", "cpus_found": 1, "cpus_online": 1, "numa_nodes": 2}
    cpu = {"v": 1, "kind": "cpu", "index": 0, "online": True}
    done = {"v": 1, "kind": "done", "status": "ok", "records": len(records) + 3, "errors": 0}
    lines = ["text before"] + [rec_line(r) for r in [boot, cpu] + records + [done]]
    return write(tmp_path, name, ("\r\n".join(lines) + "\r\n").encode())


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


# ---- compare -------------------------------------------------------------------------------
def scaled_copy(blob, factor=2, drop_variant=None, flush=None):
    """The log with every measured result's statistics scaled: B = factor x A."""
    out = []
    for ln in blob.decode("latin-1").split("\n"):
        if '"kind":"result"' not in ln:
            out.append(ln)
            continue
        rec = json.loads(ln[ln.index("{"): ln.rindex("}") + 1])
        if drop_variant and (rec["variant"], rec["threads"], rec["params"].get("placement")) == drop_variant:
            continue
        for k in ("min", "median", "mean", "max", "ticks_per_increment"):
            if rec.get(k) is not None:
                rec[k] = rec[k] * factor
        if flush and "flush" in rec["params"]:
            rec["params"]["flush"] = flush
        out.append(rec_line(rec) + "\r")
    return "\n".join(out).encode("latin-1")


def test_compare_scaled_copy(tmp_path):
    a = os.path.join(DATA, "counter-smp4.log")
    b = write(tmp_path, "b.log", scaled_copy(data("counter-smp4.log"), flush="none"))
    r = qb("compare", a, b)
    assert r.returncode == 0, r.stderr
    recs = [x for x in qbrecords.parse_file(a)[0] if x["kind"] == "result" and x.get("median") is not None]
    rows = [ln for ln in r.stdout.splitlines() if re.match(r"  counter ", ln)]
    measured = [ln for ln in rows if re.search(r" 2\.00( |$)", ln)]
    assert len(measured) == len(recs) == 31
    for rec, ln in zip(recs, measured):
        m, lo, hi, cv = rec["median"], rec["min"], rec["max"], rec["cv"]
        expect = (2 * m > hi and m < 2 * lo) or cv < 0.5
        assert ln.endswith("2.00  *") == expect, (ln, rec)
    assert any(not ln.endswith("*") for ln in measured)  # the noisy rows stay unmarked
    assert "they differ: flush (wbinvd / none)" in r.stdout
    marked = sum(1 for ln in measured if ln.endswith("*"))
    assert "35 matched, %d beyond the spread, 0 only in A, 0 only in B" % marked in r.stdout


def test_compare_unmatched(tmp_path):
    b = write(tmp_path, "b.log", scaled_copy(data("counter-smp4.log"), drop_variant=("padded", 2, "scatter")))
    r = qb("compare", os.path.join(DATA, "counter-smp4.log"), b)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  counter +padded +2 +iters=20000 placement=scatter +162708 +- +- +only in A$",
                     r.stdout, re.M), r.stdout
    r = qb("compare", os.path.join(DATA, "smp4.log"), os.path.join(DATA, "counter-smp4.log"))
    assert len(re.findall(r"  only in A$", r.stdout, re.M)) == 2
    assert len(re.findall(r"  only in B$", r.stdout, re.M)) == 35
    assert "0 matched, 0 beyond the spread, 2 only in A, 35 only in B" in r.stdout
    assert r.returncode == 1 and "nothing in" in r.stderr  # nothing matched is an error, not a comparison


def flush_result(variant, cold_reference, set_bytes, median):
    return {"v": 1, "kind": "result", "workload": "flush", "variant": variant, "threads": 1, "cpus": [0],
            "params": {"set_bytes": set_bytes, "cold_reference": cold_reference}, "unit": "ticks", "n": 3,
            "min": median - 1, "median": float(median), "max": median + 1, "cv": 0.01, "check": "ok"}


def test_compare_says_when_runs_differ_and_pairs_flush(tmp_path):
    """A QEMU run against a Linux twin run on a real EPYC: the first line says the
    machines, platforms and TSC sources differ; flush rows pair up although
    their cold_reference (and LLC-sized sets) differ."""
    a = synthetic_log(tmp_path, [flush_result("clflush", "wbinvd-all", 1 << 20, 100)], name="metal.log")
    b_text = open(synthetic_log(tmp_path, [flush_result("clflush", "none: no WBINVD", 32 << 20, 300)],
                                name="twin0.log"), encoding="latin-1").read()
    b_text = b_text.replace('"cpu_model":"Test CPU"', '"cpu_model":"AMD EPYC 7742 64-Core Processor"')
    recs = []
    for line in b_text.splitlines():
        if line.startswith("@qb ") and '"kind":"boot"' in line:
            obj = json.loads(line.split(" ", 1)[1].rsplit(" ", 1)[0])
            obj.update(platform="linux", loader="linux", tsc_source="linux")
            line = rec_line(obj)
        recs.append(line)
    b = write(tmp_path, "twin.log", ("\n".join(recs) + "\n").encode())
    r = qb("compare", a, b)
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("warning: the runs differ in machine (Test CPU, 1 CPUs / AMD EPYC 7742"), first
    assert "platform (bare metal / linux twin)" in first and "TSC source (cpuid-15h / linux)" in first
    assert re.search(r"^  flush +clflush +1 +- +100 +300 +3\.00", r.stdout, re.M), r.stdout
    assert "1 matched" in r.stdout
    same = qb("compare", a, a)
    assert not same.stdout.startswith("warning"), same.stdout.splitlines()[0]


def test_compare_skipped_pairs_match_measured():
    r = qb("compare", os.path.join(DATA, "counter-smp4.log"), os.path.join(DATA, "counter-2sockets-smt.log"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  counter +packed +2 +iters=20000 placement=pair-smt +skipped +172848 +- +skipped in A$",
                     r.stdout, re.M), r.stdout
    assert re.search(r"^  counter +packed +0 +placement=pair-l2 +skipped +skipped +-$", r.stdout, re.M)


def test_beyond_spread_rule():
    assert qbcompare.beyond_spread((100, 90, 110, 0.05), (200, 190, 210, 0.05))      # ranges apart
    assert not qbcompare.beyond_spread((100, 90, 110, 0.05), (105, 95, 115, 0.05))   # inside, < 2 CV
    assert qbcompare.beyond_spread((100, 50, 400, 0.05), (120, 110, 130, 0.05))      # 20% > 2 x 5%
    assert not qbcompare.beyond_spread((100, 50, 400, 0.5), (200, 60, 900, 0.5))     # wide spread hides 2x
    assert not qbcompare.beyond_spread((100, 100, 100, 0.0), (100, 100, 100, 0.0))


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
    rc = qbmain.main(["run", "--smp", "8,sockets=2,cores=2,threads=2", "--numa", "2", "--mem", "2048",
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
    """Results carry clean/flagged repetition counts; the table sums them per workload."""
    from qblib import table  # noqa: E402
    res = [{"kind": "result", "workload": "selftest", "variant": "a", "n": 5,
            "clean": {"reps": 4, "flagged": 1}, "noise": {"flags": ["smi"], "smis": 2, "freq_mhz_min": "unavailable"}},
           {"kind": "result", "workload": "selftest", "variant": "b", "n": 3,
            "clean": {"reps": 3, "flagged": 0}, "noise": {"flags": []}, "counters": "unavailable"}]
    assert table.clean_cell(res[0]) == "4/5"
    assert table.clean_cell({"n": 3}) == "-"
    line = table.noise_line(res)
    assert line == ["  repetitions: 7 clean, 1 flagged (smi); unavailable: counters, freq_mhz_min"]


def test_table_says_unchecked_and_unstable():
    """Under QEMU only the TSC check runs: the table says "unchecked", not "clean";
    a cv above 5% is marked unstable."""
    from qblib import table  # noqa: E402
    qemu = {"kind": "result", "workload": "counter", "variant": "a", "n": 3, "cv": 0.2,
            "clean": {"reps": 3, "flagged": 0, "detectors": ["tsc_backwards"]}, "noise": {"flags": []}}
    metal = {"kind": "result", "workload": "counter", "variant": "b", "n": 3, "cv": 0.01,
             "clean": {"reps": 2, "flagged": 1, "detectors": ["aperf_mperf", "smi", "thermal", "tsc_backwards"]},
             "noise": {"flags": ["smi"]}}
    assert table.clean_cell(qemu) == "unchecked 3/3"
    assert table.clean_cell(metal) == "2/3"
    assert table.cv_cell(qemu) == "0.2000 unstable" and table.cv_cell(metal) == "0.0100"
    assert table.noise_line([qemu, metal]) == [
        "  repetitions: 2 clean, 1 flagged (smi), 3 unchecked (no noise detector ran); 1 result(s) unstable (cv > 0.05)"]


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
