"""test_qb_compare - qb compare: a run against a scaled copy of itself, unmatched results listed once at the end,
differing runs, flush pairs, skipped results paired with the measured ones, a QEMU run against a twin run, and
the significance column on samples with known answers."""
import json
import os
import re

from qbtest import DATA, data, flush_result, qb, rec_line, synthetic_log, write
import qbrecords  # noqa: E402

STATS = ("min", "q1", "median", "q3", "mean", "max", "min_ns", "median_ns", "mean_ns", "max_ns",
         "ticks_per_increment")


def scaled_copy(blob, factor=2, drop_variant=None, flush=None):
    """The log with every measured result's ticks scaled: B = factor x A."""
    out = []
    for ln in blob.decode("latin-1").split("\n"):
        if '"kind":"result"' not in ln:
            out.append(ln)
            continue
        rec = json.loads(ln[ln.index("{"): ln.rindex("}") + 1])
        if drop_variant and (rec["variant"], rec["threads"], rec["params"].get("placement")) == drop_variant:
            continue
        for k in STATS:
            if rec.get(k) is not None:
                rec[k] = rec[k] * factor
        if isinstance(rec.get("samples"), list):
            rec["samples"] = [x * factor for x in rec["samples"]]
        if flush and "flush" in rec["params"]:
            rec["params"]["flush"] = flush
        out.append(rec_line(rec) + "\r")
    return "\n".join(out).encode("latin-1")


def rows(text, workload):
    """The table rows of one workload's section."""
    sec = text.split("\n%s: " % workload, 1)[1].split("\n\n", 1)[0]
    return [ln for ln in sec.splitlines()[2:]]


def test_compare_scaled_copy(tmp_path):
    """Every measured result pairs with its double: B/A 2.00; these QEMU records kept no samples, so the
    test cannot tell, and says so on every row."""
    a = os.path.join(DATA, "counter-smp4.log")
    b = write(tmp_path, "b.log", scaled_copy(data("counter-smp4.log"), flush="none"))
    r = qb("compare", a, b)
    assert r.returncode == 0, r.stderr
    recs = [x for x in qbrecords.parse_file(a)[0] if x["kind"] == "result" and x.get("median") is not None]
    measured = [ln for ln in rows(r.stdout, "counter") if re.search(r" 2 +- +cannot tell: no samples in A$", ln)]
    assert len(measured) == len(recs) == 31
    assert "they differ in flush (wbinvd / none)" in r.stdout
    assert r.stdout.rstrip().endswith("35 paired: 0 significant, 0 not significant, 31 cannot tell, 4 skipped; "
                                      "0 only in A, 0 only in B")
    assert "*" not in "\n".join(rows(r.stdout, "counter"))  # nothing is called significant without samples


def test_compare_unmatched_listed_once_at_the_end(tmp_path):
    b = write(tmp_path, "b.log", scaled_copy(data("counter-smp4.log"), drop_variant=("padded", 2, "scatter")))
    r = qb("compare", os.path.join(DATA, "counter-smp4.log"), b)
    assert r.returncode == 0, r.stderr
    rec = next(x for x in qbrecords.parse_file(os.path.join(DATA, "counter-smp4.log"))[0]
               if x["kind"] == "result" and x["variant"] == "padded" and x["threads"] == 2
               and x["params"]["placement"] == "scatter")
    tail = r.stdout.split("\nonly in A (1):\n", 1)[1]
    assert tail.startswith("  counter padded, 2 threads, scatter: %.4g ns/increment\n"
                           % (rec["median_ns"] / rec["params"]["iters"]))
    assert r.stdout.count("counter padded, 2 threads, scatter") == 1
    assert "34 paired" in r.stdout and "1 only in A, 0 only in B" in r.stdout
    r = qb("compare", os.path.join(DATA, "smp4.log"), os.path.join(DATA, "counter-smp4.log"))
    assert "only in A (2):" in r.stdout and "only in B (35):" in r.stdout
    assert r.stdout.rstrip().endswith("0 paired: 0 significant, 0 not significant, 0 cannot tell, 0 skipped; "
                                      "2 only in A, 35 only in B")
    assert r.returncode == 1 and "nothing in" in r.stderr  # nothing paired is an error, not a comparison


def test_compare_says_when_runs_differ_and_pairs_flush(tmp_path):
    """A QEMU run against a Linux twin run on a real EPYC: the first line says the machines, platforms
    and TSC sources differ; flush rows pair up although their cold_reference (and LLC-sized sets) differ,
    and compare ns per access, not the passes' totals."""
    a = synthetic_log(tmp_path, [flush_result("clflush", "wbinvd-all", 1 << 20, 100)], name="metal.log")
    b_text = open(synthetic_log(tmp_path, [flush_result("clflush", "none: no WBINVD", 32 << 20, 300)],
                                name="twin0.log"), encoding="latin-1").read()
    b_text = b_text.replace('"cpu_model":"Test CPU"', '"cpu_model":"AMD EPYC 7742 64-Core Processor"')
    recs = []
    for line in b_text.splitlines():
        if line.startswith("@qb ") and '"kind":"boot"' in line:
            obj = json.loads(line.split(" ", 1)[1].rsplit(" ", 1)[0])
            obj.update(platform="linux", loader="linux", tsc_source="linux", hypervisor=True, hypervisor_name="KVM")
            line = rec_line(obj)
        recs.append(line)
    b = write(tmp_path, "twin.log", ("\n".join(recs) + "\n").encode())
    r = qb("compare", a, b)
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("warning: the runs differ in machine (Test CPU, 1 CPUs / AMD EPYC 7742"), first
    assert "platform (bare metal / linux twin)" in first and "TSC source (cpuid-15h / linux)" in first
    assert "hypervisor (none / KVM)" in first
    assert "warning: B ran on a virtual machine (KVM): caches, SMT siblings and timers are virtual" in r.stdout
    assert "warning: A ran" not in r.stdout
    per_a, per_b = 100 / ((1 << 20) / 64), 300 / ((32 << 20) / 64)  # ticks at 1 GHz per line chased
    assert re.search(r"^  clflush +1 +%.4g +%.4g +- +- +%.3g +- +cannot tell: no samples in A$"
                     % (per_a, per_b, per_b / per_a), r.stdout, re.M), r.stdout
    assert "1 paired" in r.stdout
    same = qb("compare", a, a)
    assert not same.stdout.startswith("warning"), same.stdout.splitlines()[0]


def test_compare_skipped_pairs_match_measured():
    r = qb("compare", os.path.join(DATA, "counter-smp4.log"), os.path.join(DATA, "counter-2sockets-smt.log"))
    assert r.returncode == 0, r.stderr
    smt = next(x for x in qbrecords.parse_file(os.path.join(DATA, "counter-2sockets-smt.log"))[0]
               if x["kind"] == "result" and x["params"].get("placement") == "pair-smt")
    assert re.search(r"^  packed +2 +pair-smt +skipped +%.4g +- +[0-9.]+/- +- +- +skipped in A$"
                     % (smt["median_ns"] / smt["params"]["iters"]), r.stdout, re.M), r.stdout
    assert re.search(r"^  packed +- +pair-l2 +skipped +skipped +- +- +- +- +skipped in A\+B$", r.stdout, re.M)
    assert "10 only in B" in r.stdout  # its 8 threads, which the 4-CPU run has not


def test_compare_qemu_against_twin_pairs_what_both_measured():
    """Done when: a QEMU quick run against a twin quick run pairs every result both have, in the same
    units, with a significance column, and lists the rest once."""
    qemu, twin = os.path.join(DATA, "counter-smp4.log"), os.path.join(DATA, "twin-quick.log")
    r = qb("compare", qemu, twin)
    assert r.returncode == 0, r.stderr

    def counter(name, skipped=False):
        return {(x["variant"], x["threads"], x["params"].get("placement")): x
                for x in qbrecords.parse_file(os.path.join(DATA, name))[0]
                if x["kind"] == "result" and x.get("workload") == "counter" and (x.get("check") == "skipped") == skipped}
    a, b = counter("counter-smp4.log"), counter("twin-quick.log")
    b_skipped = {(v, p) for v, _, p in counter("twin-quick.log", skipped=True)}  # a skipped result says no threads
    both = set(a) & set(b)
    assert len(both) >= 20
    body = rows(r.stdout, "counter")
    for var, thr, place in both:
        row = [ln for ln in body if re.match(r"  %s +%d +%s " % (re.escape(var), thr, re.escape(place)), ln)]
        assert len(row) == 1, (var, thr, place, row)
        assert re.search(r"(cannot tell: .+|p=[0-9.e-]+ adj=[0-9.e-]+( \*)?)$", row[0]), row[0]
    assert r.stdout.split("\ncounter: ", 1)[1].startswith("ns per increment")  # one unit for both sides
    for key in set(a) - set(b):
        if (key[0], key[2]) in b_skipped:
            continue  # paired with the twin's skipped one: "skipped in B"
        what = "counter %s, %d threads, %s:" % key
        assert r.stdout.count(what) == 1, what  # listed once, at the end
        assert r.stdout.index(what) > r.stdout.index("only in A (")


def significance_log(tmp_path, name, samples, iters=1000, extra=None):
    """A run with one counter result whose repetitions are the given ticks (clean, none flagged)."""
    xs = sorted(samples)
    med = float(xs[len(xs) // 2]) if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2.0
    rec = {"v": 1, "kind": "result", "workload": "counter", "variant": "packed", "threads": 2, "cpus": [0, 1],
           "params": {"iters": iters, "placement": "compact"}, "unit": "ticks", "n": len(xs), "min": xs[0],
           "median": med, "mean": sum(xs) / len(xs), "max": xs[-1], "cv": 0.01,
           "clean": {"reps": len(xs), "flagged": 0, "detectors": ["smi"], "n": len(xs), "min": xs[0], "median": med,
                     "mean": sum(xs) / len(xs), "max": xs[-1], "cv": 0.01},
           "samples": list(samples), "check": "ok"}
    rec.update(extra or {})
    return synthetic_log(tmp_path, [rec], name=name)


def test_compare_marks_only_the_significant(tmp_path):
    base = significance_log(tmp_path, "a.log", range(1000, 1010))
    apart = significance_log(tmp_path, "b.log", range(2000, 2010))
    same = significance_log(tmp_path, "c.log", range(1000, 1010))
    doubled = significance_log(tmp_path, "d.log", range(2000, 2020, 2), iters=2000)  # twice the work, same rate
    r = qb("compare", base, apart)
    (row,) = rows(r.stdout, "counter")
    assert row.endswith(" *") and "p=1.1e-05 adj=1.1e-05" in row, row  # two samples of 10 apart: 2 / C(20, 10)
    assert "1 paired: 1 significant" in r.stdout
    r = qb("compare", base, same)
    (row,) = rows(r.stdout, "counter")
    assert row.endswith("p=1 adj=1") and "*" not in row, row
    r = qb("compare", base, doubled)
    (row,) = rows(r.stdout, "counter")
    assert "*" not in row and " 1 " in row, row  # compared per increment, not in total ticks


def test_compare_shows_the_flush_each_run_got(tmp_path):
    """A run whose WBINVD was found ineffective (it fell back to eviction reads) against one whose flush was not
    judged (an old log): still paired result by result, and the header says how the flushes differ."""
    out = []
    for ln in data("counter-smp4.log").decode("latin-1").split("\n"):
        if '"kind":"result"' in ln:
            rec = json.loads(ln[ln.index("{"): ln.rindex("}") + 1])
            if "flush" in rec.get("params", {}):
                rec["params"].update(flush="clflush+eviction-read", flush_verdict="effective",
                                     flush_fallback="wbinvd-all was ineffective")
            ln = rec_line(rec) + "\r"
        out.append(ln)
    b = write(tmp_path, "b.log", "\n".join(out).encode("latin-1"))
    r = qb("compare", os.path.join(DATA, "counter-smp4.log"), b)
    assert r.returncode == 0, r.stderr
    assert ("they differ in flush (wbinvd / clflush+eviction-read); flush_fallback (- / wbinvd-all was ineffective); "
            "flush_verdict (- / effective)") in r.stdout
    assert "35 paired" in r.stdout

