"""test_qb_compare - qb compare: a run against a scaled copy of itself, unmatched results, differing runs and flush pairs, and the beyond-the-spread rule."""
import json
import os
import re

from qbtest import DATA, data, flush_result, qb, rec_line, synthetic_log, write
import qbrecords  # noqa: E402
from qblib import compare as qbcompare  # noqa: E402


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
