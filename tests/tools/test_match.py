"""test_match - which results of two runs measured the same thing (tools/qblib/match.py).

Every real log under tests/tools/data with counter or locality results takes part, so a log dropped in
there (a new-format QEMU run, a twin run, a run of another profile) is tested with no change here: each
pair of logs must pair results only when workload, variant, threads, placement, accumulator, start and
size role (or bytes) agree, must pair every result whose defining fields both have, and never looks at
iteration counts or the profile. A log from before locality's params.start pairs its L2 results with a
newer log's cold ones (qb compare, test_old_l2_pairs_with_new_cold_l2). On two NUMA nodes locality's memory
placement defines a result too: a log from before it and one with it pair only where the array was on the
threads' own node (test_two_nodes_pair_on_memory_placement)."""
import glob
import itertools
import os
import re

import pytest

from qbtest import DATA, qb
from qblib import match  # noqa: E402
from qblib import run as qbrun  # noqa: E402

WORKLOADS = ("counter", "locality")


def discovered():
    out = []
    for p in sorted(glob.glob(os.path.join(DATA, "*.log")) + glob.glob(os.path.join(DATA, "*", "*.log"))):
        try:
            run = qbrun.load(p, warn=False)
        except qbrun.QbError:
            continue
        if any(run.results(w) for w in WORKLOADS):
            out.append(os.path.relpath(p, DATA))
    return out


LOGS = discovered()
PAIRS = list(itertools.combinations(LOGS, 2))


def load(name):
    return qbrun.load(os.path.join(DATA, name), warn=False)


def start(r):
    """A locality result's start as the record gives it; an older one has none: cold, or resident where it
    says flush=none (docs/records.md)."""
    if r.get("workload") != "locality":
        return None
    p = r.get("params") or {}
    return p.get("start") or ("resident" if p.get("flush") == "none" else "cold")


def defining(r, run, placement):
    """What must agree, read straight from the record (the role through the match module's own rule,
    which test_size_roles checks on its own)."""
    p = r.get("params") or {}
    return (r.get("workload"), r.get("variant"), r.get("threads"), placement, p.get("accumulator"), start(r),
            match.size(r, run), match.memory_placement(r, run))


def test_the_real_logs_are_there():
    assert {"counter-smp4.log", "locality-smp4.log", "locality-starts-smp4.log", "twin-quick.log",
            "twin-full-100s.log", "locality-numa2-before.log", "locality-numa2.log"} <= set(LOGS)


def _nodes_of(run, r):
    nodes = {c["index"]: c["node"] for c in run.of_kind("cpu")}
    return {nodes[c] for c in r.get("cpus") or []}


def test_two_nodes_pair_on_memory_placement():
    """Two QEMU runs on two sockets and two nodes, one from before memory placement (its array one block on
    node 0, only a console line saying so) and one with it. The new run's records all name their placement;
    an old result pairs with a new one exactly where its threads are on node 0 (then both arrays were on
    the threads' node, and the new one says `node 0`); the old all-CPU and scatter results (the array on
    node 0, the threads on both) pair with no interleaved one, and thread-local ones are only in the new
    run. qb compare shows the placement of what is unpaired."""
    old, new = "locality-numa2-before.log", "locality-numa2.log"
    ra, rb = load(old), load(new)
    measured_b = [r for r in rb.results("locality") if r.get("check") != "skipped"]
    assert not any("memory_placement" in (r.get("params") or {}) for r in ra.results("locality"))
    assert {r["params"]["memory_placement"] for r in measured_b} == {"node 0", "interleaved", "thread-local"}
    # An old record of a run of two nodes counts as node 0 (its first CPU's); where its threads are there,
    # that is the one-node case and it pairs like one.
    for r in ra.results("locality"):
        if r.get("check") != "skipped":
            want = None if _nodes_of(ra, r) == {0} else "node 0"
            assert match.memory_placement(r, ra) == want, (r.get("threads"), r.get("cpus"))
    rows = [row for row in match.align([ra, rb], "locality") if row.key[4] in ("L2", "512 KiB")]
    paired = [row for row in rows if len(row.present) == 2]
    single = [r for r in ra.results("locality") if r.get("check") != "skipped" and _nodes_of(ra, r) == {0}
              and match.size(r, ra) in ("L2", "512 KiB")]
    assert len(paired) == len(single) == 48  # 1 thread from both starts, 2 and 4 compact, x 6 x 2 sizes
    for row in paired:
        a, b = row.cells
        assert _nodes_of(ra, a) == {0} and b["params"]["memory_placement"] == "node 0"
        assert b["memory_nodes"] == [0] and b["pages_by_node"][1] == 0
    for row in rows:
        if row.present == [1]:
            assert row.cells[1]["params"]["memory_placement"] in ("interleaved", "thread-local")
        elif row.present == [0]:
            assert len(_nodes_of(ra, row.cells[0])) == 2
    # The interleaved arrays of two pages (the quick profile's 4 MiB) have a page on each node.
    four = [r for r in measured_b if r["params"]["memory_placement"] != "node 0" and r["params"]["bytes"] == 4 << 20]
    assert len(four) == 20 and all(r["pages_by_node"] == [1, 1] for r in four)

    r = qb("compare", os.path.join(DATA, old), os.path.join(DATA, new))
    assert r.returncode == 0, r.stderr
    only_b = r.stdout.split("only in B", 1)[1]
    assert "memory_placement=interleaved" in only_b and "memory_placement=thread-local" in only_b


def test_one_node_pairs_with_two_nodes_node_local():
    """A run of one node (no placement in its records) and one of two: the two-node run's results whose
    array is on their threads' node pair with the one-node run's, its interleaved ones with none."""
    ra, rb = load("locality-starts-smp4.log"), load("locality-numa2.log")
    rows = [row for row in match.align([ra, rb], "locality") if row.key[4] in ("L2", "512 KiB")]
    for row in rows:
        if len(row.present) == 2:
            b = row.cells[1]
            assert b["params"]["memory_placement"] == "node 0" and match.memory_placement(b, rb) is None
        elif row.present == [1]:
            assert row.cells[1]["params"]["memory_placement"] in ("interleaved", "thread-local")
    assert sum(len(row.present) == 2 for row in rows) == 48


def test_memory_placement_without_the_param():
    """The rule for records without params.memory_placement: none on one node, old or new; the first CPU's
    node on several (an older record); a skipped one says nothing; other workloads never have one."""
    loc = {"kind": "result", "workload": "locality", "variant": "blocked", "threads": 2, "cpus": [0, 4],
           "params": {"accumulator": "private", "size": "l2", "bytes": 262144}, "check": "ok"}
    cpus = [{"kind": "cpu", "index": i, "node": i // 4} for i in range(8)]

    class Run(FakeRun):
        def __init__(self, results, nodes):
            super().__init__(results)
            self.boot = {"numa_nodes": nodes}

        def of_kind(self, kind):
            return cpus if kind == "cpu" else []

    one, two = Run([loc], 1), Run([loc], 2)
    assert match.memory_placement(loc, one) is None
    assert match.memory_placement(loc, two) == "node 0"
    assert match.memory_placement(dict(loc, cpus=[0, 1]), two) is None
    assert match.memory_placement(dict(loc, check="skipped"), two) is None
    new = dict(loc, params=dict(loc["params"], memory_placement="interleaved"))
    assert match.memory_placement(new, two) == "interleaved"
    assert match.defining(new, two)[-1] == "memory_placement=interleaved"
    assert match.memory_placement(dict(new, cpus=[4, 5], params=dict(loc["params"], memory_placement="node 1")),
                                  two) is None
    assert match.memory_placement(dict(new, cpus=[0, 1], params=dict(loc["params"], memory_placement="node 1")),
                                  two) == "node 1"
    assert match.memory_placement(dict(loc, workload="counter"), two) is None
    rows = match.align([one, Run([new], 2)], "locality")
    assert [r.present for r in rows] == [[0], [1]]  # interleaved pairs with no one-node result


def test_old_l2_pairs_with_new_cold_l2():
    """qb compare of a log from before params.start (locality-smp4.log: flush=wbinvd, every pass cold) and one
    with it (locality-starts-smp4.log: the cache sizes from both starts): each old L2 result pairs with the new
    cold result of its configuration, never with a resident one, and the resident ones are only in B."""
    old, new = "locality-smp4.log", "locality-starts-smp4.log"
    ra, rb = load(old), load(new)
    assert not any("start" in (r.get("params") or {}) for r in ra.results("locality"))
    assert {r["params"]["start"] for r in rb.results("locality")} == {"cold", "resident"}
    old_l2 = [r for r in ra.results("locality") if match.size(r, ra) == "L2" and r.get("check") != "skipped"]
    rows = [row for row in match.align([ra, rb], "locality") if row.key[4] == "L2" and len(row.present) == 2]
    assert len(rows) == len(old_l2) == 36  # 1, 2, 4 threads x compact, scatter x 3 orders x 2 accumulators
    assert {id(row.cells[0]) for row in rows} == {id(r) for r in old_l2}
    assert all(row.cells[1]["params"]["start"] == "cold" and row.key[5][-1] == "start=cold" for row in rows)

    r = qb("compare", os.path.join(DATA, old), os.path.join(DATA, new))
    assert r.returncode == 0, r.stderr
    section = r.stdout.split("\nlocality: ", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    l2 = [ln for ln in section if re.search(r"\sL2\s", ln)]
    assert len(l2) == 36 and all("start=cold" in ln for ln in l2), "\n".join(l2)
    assert not any("start=resident" in ln for ln in section)
    only_b = r.stdout.split("only in B", 1)[1].splitlines()
    resident = [ln for ln in only_b if "start=resident" in ln]
    assert len(resident) == 12 and all(", L2, " in ln or ", 512 KiB, " in ln for ln in resident)
    assert "; 0 only in A, 12 only in B" in r.stdout


@pytest.mark.parametrize("a,b", PAIRS, ids=["%s+%s" % p for p in PAIRS])
def test_pairs_agree_and_nothing_shared_is_left_out(a, b):
    ra, rb = load(a), load(b)
    for wl in WORKLOADS:
        rows = match.align([ra, rb], wl)
        seen = set()
        for row in rows:
            x, y = row.cells
            if x is None or y is None or "skipped" in (x.get("check"), y.get("check")):
                continue
            common = set(match.placements(x)) & set(match.placements(y))
            assert common, (x, y)
            pl = sorted(common)[0]
            assert defining(x, ra, pl) == defining(y, rb, pl), (a, b, x.get("params"), y.get("params"))
            seen.add(id(x))
        # every measured result of A whose defining fields B has too, measured, is paired
        have_b = {defining(y, rb, pl) for y in rb.results(wl) if y.get("check") != "skipped"
                  for pl in match.placements(y)}
        for x in ra.results(wl):
            if x.get("check") != "skipped" and any(defining(x, ra, pl) in have_b for pl in match.placements(x)):
                assert id(x) in seen, (a, b, x.get("variant"), x.get("threads"), x.get("params"))


def test_two_profiles_pair_across_iteration_counts():
    """A quick and a full twin run pair their counter results although every iteration count differs,
    and their L2-sized locality results although their repetitions differ."""
    quick, full = load("twin-quick.log"), load("twin-full-100s.log")
    rows = [r for r in match.align([quick, full], "counter") if len(r.present) == 2
            and all(c.get("check") != "skipped" for c in r.cells)]
    assert len(rows) >= 20
    assert all(r.cells[0]["params"]["iters"] != r.cells[1]["params"]["iters"] for r in rows)
    loc = [r for r in match.align([quick, full], "locality") if len(r.present) == 2
           and all(c.get("check") != "skipped" for c in r.cells)]
    assert loc and all(r.key[4] == "L2" for r in loc)


def test_size_roles():
    """Roles hold only where the bytes are that on the machine: the twin's quick profile names 512 KiB
    "llc" and 2 MiB "dram", both inside this VM's 1 MiB L2 (its last level): no role, they pair on bytes,
    never with a full run's LLC- or DRAM-sized arrays. 256 KiB is L2 on QEMU (512 KiB L2) and on the VM."""
    def roles(name):
        run = load(name)
        return {(r["params"]["size"], r["params"].get("bytes")): match.size(r, run) for r in run.results("locality")
                if r.get("check") != "skipped"}
    assert roles("twin-quick.log") == {("small", 262144): "L2", ("llc", 524288): "512 KiB",
                                       ("dram", 2097152): "2 MiB"}
    assert roles("locality-smp4.log") == {("small", 262144): "L2", ("llc", 524288): "512 KiB",
                                          ("dram", 2097152): "2 MiB"}
    full = roles("twin-full-100s.log")
    assert full[("dram", 2147483648)] == "DRAM" and full[("llc", 4194304)] == "4 MiB"


class FakeRun:
    def __init__(self, results, caches=()):
        self._r, self._c = results, list(caches)
        self.boot = {"tsc_hz": 1e9}

    def results(self, workload=None):
        return [r for r in self._r if workload is None or r["workload"] == workload]

    def of_kind(self, kind):
        return self._c if kind == "cache" else []


def res(variant, threads, placement, **kw):
    r = {"kind": "result", "workload": "counter", "variant": variant, "threads": threads,
         "params": {"iters": 1000, "placement": placement}, "n": 3, "median": 10.0, "check": "ok"}
    r.update(kw)
    return r


def test_same_placements_pair_with_either():
    """One run for compact and scatter (they pick the same CPUs there) pairs with both of another run's;
    where the other has only one of them, the merged result is not also listed as unpaired."""
    merged = res("packed", 1, "compact", same_placements=["compact", "scatter"], figure="clean")
    a = FakeRun([merged])
    b = FakeRun([res("packed", 1, "compact"), res("packed", 1, "scatter")])
    rows = match.align([a, b], "counter")
    assert [(r.key[3], r.cells[0] is merged, r.cells[1]["params"]["placement"]) for r in rows] == \
        [("compact", True, "compact"), ("scatter", True, "scatter")]
    assert rows[0].merged() == {0: "compact = scatter"}
    rows = match.align([a, FakeRun([res("packed", 1, "scatter")])], "counter")
    assert len(rows) == 1 and rows[0].present == [0, 1]
    both = match.align([a, FakeRun([dict(merged)])], "counter")
    assert len(both) == 1  # the same pair once, not once per placement


def test_new_records_size_role_and_never_iters():
    caches = [{"level": 1, "type": "data", "size": 32768}, {"level": 2, "type": "unified", "size": 1 << 20},
              {"level": 3, "type": "unified", "size": 32 << 20}]
    loc = {"kind": "result", "workload": "locality", "variant": "blocked", "threads": 1, "n": 3, "median": 1.0,
           "check": "ok", "figure": "clean"}
    a = FakeRun([dict(loc, params={"accumulator": "private", "size": "llc", "size_role": "LLC", "bytes": 16 << 20,
                                   "ints": 4 << 20, "placement": "compact"})], caches)
    b = FakeRun([dict(loc, params={"accumulator": "private", "size": "llc", "size_role": "LLC", "bytes": 8 << 20,
                                   "ints": 2 << 20, "placement": "compact"}),
                 dict(loc, params={"accumulator": "shared-slot", "size": "llc", "size_role": "LLC",
                                   "bytes": 8 << 20, "ints": 2 << 20, "placement": "compact"})], caches)
    rows = match.align([a, b], "locality")
    assert [(r.key[4], r.present) for r in rows] == [("LLC", [0, 1]), ("LLC", [1])]
    named = FakeRun([dict(loc, params={"accumulator": "private", "size": "2mib", "bytes": 2 << 20,
                                       "placement": "compact"})], caches)
    assert match.size(named.results()[0], named) == "2 MiB"  # a new record's size without a role: its bytes
