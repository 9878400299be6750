"""test_numa_claims - first-touch's NUMA matrix against the firmware's claims (tools/qblib/numa_claims.py) in qb table,
qb report and qb plot, on synthetic records: under TCG the measured latencies mean nothing, so the view logic is
tested on numbers chosen here. A claim 10x off must be called out; one within 2x must not; bandwidth is shown but
never judged; a matrix whose rows come as matrix_row records reads the same as one inline."""
import os

import qbtest
from qblib import numa_claims
from qblib import run as qbrun

NODES = [0, 1, 2]
TARGETS = [{"node": 0, "name": "node 0", "memory": "general"},
           {"node": 1, "name": "node 1", "memory": "general"},
           {"node": 2, "name": "node 2 (no CPUs)", "memory": "general", "hot_pluggable": False,
            "non_volatile": True}]
# Rows: CPU on node 0, on node 1, none on node 2. Node 0 -> node 2 is 10x slower than claimed; node 1 -> node 2
# is 10x faster than claimed; the rest within 2x (1.9x is not called out).
NS = [[90.0, 150.0, 2500.0], [160.0, 171.0, 25.0], [None, None, None]]
CLAIMED = [[90.0, 160.0, 250.0], [160.0, 90.0, 250.0], [None, None, None]]
DIST = [[10, 21, 17], [21, 10, 28], [17, 28, 10]]


def latency_matrix(rows_inline=True, ns=NS, claimed=CLAIMED):
    m = {"v": 1, "kind": "matrix", "workload": "first-touch", "variant": "numa-latency", "unit": "ticks_per_load",
         "nodes": NODES, "row_cpus": [0, 2, None], "targets": TARGETS, "claim": "read-latency",
         "claims_source": "acpi", "check": "ok"}
    grids = {"values": [[None if v is None else v for v in row] for row in ns], "ns": ns, "claimed_ns": claimed,
             "ratio": [[1.0] * 3] * 3,  # deliberately wrong: the view recomputes the ratio
             "distance": DIST}
    if rows_inline:
        return [dict(m, **grids)]
    rows = [{"v": 1, "kind": "matrix_row", "workload": "first-touch", "variant": "numa-latency", "row": i,
             **{k: g[i] for k, g in grids.items()}} for i in range(len(NODES))]
    return [dict(m, rows=len(NODES))] + rows


def bandwidth_matrix():
    return [{"v": 1, "kind": "matrix", "workload": "first-touch", "variant": "numa-bandwidth", "unit": "bytes_per_tick",
             "nodes": NODES, "targets": TARGETS, "claim": "read-bandwidth", "claims_source": "acpi", "check": "ok",
             "values": [[10.0, 5.0, 1.0], [5.0, 10.0, 1.0], [None] * 3],
             "gb_per_s": [[10.0, 5.0, 1.0], [5.0, 10.0, 1.0], [None] * 3],
             "claimed_mb_per_s": [[262100, 122900, 30000], [122900, 262100, 30000], [None] * 3]}]


def load(tmp_path, records, name="claims.log"):
    path = qbtest.synthetic_log(tmp_path, records, name)
    return path, qbrun.load(str(path))


def test_ten_times_off_is_called_out(tmp_path):
    _, run = load(tmp_path, latency_matrix() + bandwidth_matrix())
    lat, _ = numa_claims.matrices(run)
    off = {(p["row"], p["target"]): p["ratio"] for p in numa_claims.findings(lat)}
    assert set(off) == {(0, "node 2 (no CPUs)"), (1, "node 2 (no CPUs)")}
    assert abs(off[(0, "node 2 (no CPUs)")] - 10.0) < 1e-9 and abs(off[(1, "node 2 (no CPUs)")] - 0.1) < 1e-9
    v = numa_claims.verdict(lat, run)
    assert v.startswith("2 of 6 pairs differ from the firmware's latency claim by more than 2x")
    assert "not an error of the run" in v and "hypervisor" not in v


def test_within_two_times_is_not(tmp_path):
    ns = [[90.0, 150.0, 300.0], [160.0, 171.0, 130.0], [None] * 3]  # 171/90 = 1.9x, 130/250 = 0.52x
    _, run = load(tmp_path, latency_matrix(ns=ns))
    lat, _ = numa_claims.matrices(run)
    assert numa_claims.findings(lat) == []
    assert numa_claims.verdict(lat, run) == "all 6 pairs are within 2x of the firmware's latency claims"


def test_rows_as_matrix_row_records_read_the_same(tmp_path):
    _, run = load(tmp_path, latency_matrix(rows_inline=False))
    lat, _ = numa_claims.matrices(run)
    assert lat["values"][0] == NS[0] and lat["claimed_ns"][1] == CLAIMED[1]
    assert len(numa_claims.findings(lat)) == 2


def test_no_claims_says_why(tmp_path):
    claimed = [[None] * 3] * 3
    recs = latency_matrix(claimed=claimed)
    recs[0]["claims_note"] = "the firmware gives no HMAT"
    _, run = load(tmp_path, recs)
    lat, _ = numa_claims.matrices(run)
    assert numa_claims.verdict(lat, run) == "firmware's latency claims: none to compare (the firmware gives no HMAT)"
    assert not numa_claims.has_claims(lat)


def test_qb_table_shows_both_and_says_it_plainly(tmp_path):
    path, _ = load(tmp_path, latency_matrix() + bandwidth_matrix())
    r = qbtest.qb("table", path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    lines = [ln for ln in out.splitlines() if "node 2 (no CPUs)" in ln and "MORE THAN 2x OFF" in ln]
    assert len(lines) == 2, out
    assert any("2500" in ln and "250" in ln and "10.00x" in ln for ln in lines), lines
    ok_line = [ln for ln in out.splitlines() if ln.strip().startswith("node 1  node 1")]
    assert ok_line and "OFF" not in ok_line[0] and "1.90x" in ok_line[0], out
    assert "a finding about this machine or its firmware, not an error of the run" in out
    assert "262.1" in out and "not judged" in out
    assert "columns: 0 = node 0; 1 = node 1; 2 = node 2 (no CPUs)" in out


def test_qb_report_marks_the_pairs(tmp_path):
    path, _ = load(tmp_path, latency_matrix() + bandwidth_matrix())
    out = tmp_path / "r.html"
    r = qbtest.qb("report", path, "-o", out, "--no-plots")
    assert r.returncode == 0, r.stderr
    page = out.read_text()
    assert 'id="numa-claims"' in page
    assert page.count('class="num off"') == 2
    assert "2 of 6 pairs differ from the firmware&#x27;s latency claim by more than 2x" in page


def test_qb_plot_draws_measured_against_claimed(tmp_path):
    path, _ = load(tmp_path, latency_matrix() + bandwidth_matrix())
    r = qbtest.qb("plot", path, "-o", tmp_path / "plots")
    assert r.returncode == 0, r.stderr
    png = tmp_path / "plots" / "first-touch-numa-claims.png"
    assert png.exists(), r.stdout
    assert qbtest.png_size(png) == qbtest.SQUARE
    # the matrix heat maps take the targets as columns
    assert (tmp_path / "plots" / "first-touch-matrix-numa-latency.png").exists()


def test_no_claims_no_claims_plot(tmp_path):
    recs = latency_matrix(claimed=[[None] * 3] * 3)
    path, _ = load(tmp_path, recs)
    r = qbtest.qb("plot", path, "-o", tmp_path / "plots")
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "plots" / "first-touch-numa-claims.png").exists()
    assert "no NUMA matrix with the firmware's latency claims" in r.stdout


def test_real_qemu_log_every_pair_with_its_claim(tmp_path):
    """The boot case's log (tests/tools/data/README.md): QEMU's claims as configured, beside every measured pair,
    the CPU-less nodes' columns included; the views read it."""
    path = os.path.join(qbtest.DATA, "numa-hmat-memory-only.log")
    run = qbrun.load(path)
    lat, bw = numa_claims.matrices(run)
    pairs = numa_claims.latency_pairs(lat)
    assert [p["target"] for p in pairs[:4]] == ["node 0", "node 1", "node 2 (no CPUs)", "node 3 (no CPUs)"]
    claimed = {(p["row"], p["target"][:6]): p["claimed_ns"] for p in pairs}
    assert claimed == {(0, "node 0"): 90, (0, "node 1"): 160, (0, "node 2"): 250, (0, "node 3"): 400,
                       (1, "node 0"): 160, (1, "node 1"): 90, (1, "node 2"): 400, (1, "node 3"): 250}
    assert all(p["measured_ns"] and p["ratio"] for p in pairs)
    assert len(numa_claims.findings(lat)) == lat["claims_off"]
    assert "under a hypervisor" in numa_claims.verdict(lat, run) or not numa_claims.findings(lat)
    assert all(p["claimed_gb_per_s"] for p in numa_claims.bandwidth_pairs(bw))
    r = qbtest.qb("table", path)
    assert r.returncode == 0 and "firmware's claims beside the measurements (acpi, HMAT read-latency" in r.stdout
    r = qbtest.qb("plot", path, "-o", tmp_path / "plots")
    assert r.returncode == 0 and (tmp_path / "plots" / "first-touch-numa-claims.png").exists()
