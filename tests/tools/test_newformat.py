"""test_newformat - the views on records of issue 23's format (docs/records.md once the kernel writes them): the
boot record's hypervisor_name and virtual_note, each result's noisy, figure, quartiles, measures, samples_flagged,
same_placements and size_role are read as the record states them, not derived again. The records here are made
up from the design (spec issue 23); real logs of this format go into data/ and test_match.py takes them."""
import html
import json
import os
import re

from qbtest import qb, rec_line, write

NOTE = "virtual machine (KVM): caches, SMT siblings and timers are virtual; these numbers are not bare metal's"


def block(xs):
    import numpy as np
    a = np.asarray(xs, dtype=float)
    q1, q3 = np.percentile(a, [25, 75])
    return {"n": len(xs), "min": min(xs), "q1": q1, "median": float(np.median(a)), "q3": q3, "mean": float(a.mean()),
            "max": max(xs), "stddev": float(a.std(ddof=1)), "cv": float(a.std(ddof=1) / a.mean())}


def counter(threads, placement, samples, flagged, scale, **kw):
    clean = [x for i, x in enumerate(samples) if i not in flagged]
    noisy = 2 * len(clean) < len(samples)
    fig = block(samples if noisy else clean)
    r = {"v": 1, "kind": "result", "workload": "counter", "variant": "packed", "threads": threads,
         "cpus": list(range(threads)), "params": {"iters": 1000, "placement": placement}, "unit": "ticks",
         "clean": dict(block(clean), reps=len(clean), flagged=len(flagged), detectors=["smi"]),
         "noisy": {"clean": len(clean), "reps": len(samples), "flags": ["smi"]} if noisy else False,
         "figure": "all" if noisy else "clean",
         "measures": {"ns_per_increment": {"unit": "ns/increment", "median": fig["median"] * scale,
                                           "q1": fig["q1"] * scale, "q3": fig["q3"] * scale, "scale": scale}},
         "samples": samples, "samples_flagged": sorted(flagged), "check": "ok"}
    r.update(block(samples))
    r.update(kw)
    return r


def log(tmp_path, name, results, iters_scale=1.0):
    boot = {"v": 1, "kind": "boot", "build": "new", "cpu_model": "New CPU", "cpu_vendor": "Test", "tsc_hz": 2000000000,
            "tsc_source": "cpuid-15h", "cpus_found": 2, "cpus_online": 2, "numa_nodes": 1, "hypervisor": True,
            "hypervisor_vendor": "KVMKVMKVM", "hypervisor_name": "KVM", "virtual_note": NOTE}
    cpus = [{"v": 1, "kind": "cpu", "index": i, "online": True} for i in range(2)]
    done = {"v": 1, "kind": "done", "status": "ok", "records": len(results) + 4, "errors": 0}
    return write(tmp_path, name, ("\n".join(rec_line(r) for r in [boot] + cpus + results + [done]) + "\n").encode())


def results(k=1.0):
    scale = 0.5e-3  # ns per tick (2 GHz) per increment (1000)
    return [
        counter(1, "compact", [int(k * x) for x in range(1000, 1010)], set(), scale,
                same_placements=["compact", "scatter"]),
        counter(2, "compact", [int(k * x) for x in range(3000, 3010)], {0, 1, 2, 3, 4, 5}, scale),
    ]


def test_views_read_what_new_records_state(tmp_path):
    a = log(tmp_path, "a.log", results())
    b = log(tmp_path, "b.log", results(2.0))
    t = qb("table", a)
    assert t.returncode == 0, t.stderr
    assert t.stdout.splitlines()[1] == NOTE
    one, two = results()
    m1, m2 = one["measures"]["ns_per_increment"], two["measures"]["ns_per_increment"]
    assert re.search(r"^  packed +1 +%.4g +\(100%%\) +%.4g +\(100%%\)$" % (m1["median"], m1["median"]),
                     t.stdout, re.M), t.stdout   # compact = scatter: one result in both columns
    assert re.search(r"^ +2 +%.4g~ " % m2["median"], t.stdout, re.M), t.stdout  # noisy: over all, marked
    c = qb("compare", a, b)
    assert c.returncode == 0, c.stderr
    assert "warning: A ran on a " + NOTE in c.stdout
    rows = [ln for ln in c.stdout.splitlines() if ln.startswith("  packed")]
    assert len(rows) == 2, c.stdout  # the merged result once, not once per placement
    assert re.match(r"  packed +1 +compact = scatter +", rows[0]), rows[0]
    half = qb("compare", a, log(tmp_path, "c.log", [dict(results(2.0)[0], same_placements=None)]))
    assert re.search(r"^  packed +1 +compact \(A: compact = scatter\) ", half.stdout, re.M), half.stdout
    assert rows[0].endswith(" *") and re.search(r" 2 +CI [0-9.]+-[0-9.]+ +p=1\.1e-05 adj=1\.1e-05 \*$", rows[0]), rows[0]
    assert "~" in rows[1]  # the noisy figure keeps its mark in compare too
    p = qb("plot", a, "-o", tmp_path / "plots")
    assert p.returncode == 0 and (tmp_path / "plots" / "counter-slowdown.png").exists(), p.stdout + p.stderr
    r = qb("report", a, b, "-o", tmp_path / "r.html", "--no-plots")
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "r.html").read_text()
    assert html.escape(NOTE) in page and 'class="num noisy' in page and "&#9650;" in page
    doc = json.loads(json.dumps(one))  # the records are plain JSON: nothing here depends on Python objects
    assert doc["figure"] == "clean"
    assert os.path.getsize(a) > 0
