#!/usr/bin/env python3
"""matrix - boot QuietBench across a matrix of QEMU machines and check each run's records (issue 9).

Cells vary one thing at a time: CPU count (with absent MADT entries), NUMA
layout (with a node without memory and a node without CPUs), memory size
(with the full profile shrunk to 128 MiB), CPU model, HPET or PM timer, and
the limits QEMU 7.2 under TCG can reach (65+ NUMA domains, RAM above 1 TiB).
Each cell runs tools/qemu-run with a timeout and checks: every record's CRC,
done ok, no unexpected error records, cpus_online == cpus_found, one cpu
record per MADT processor with the configured state, node and topology, the
caches covering every online CPU, the reference timer, and the cell's own
checks. A failing cell prints its serial log (kept in build/matrix/).

A cell may be marked as a known failure, with the file that causes it and
the exact failure expected: it then shows as "xfail" and does not fail the
matrix, any other failure does, and a pass says to remove the mark.

A cell the host cannot run (QEMU cannot get the memory) is skipped. Slow
cells run only with --slow or by name. The last line is "matrix: N passed,
N failed"; known failures and skipped cells are counted on the line before.
--doc writes the table of configurations and timings as Markdown (make
matrix-doc: docs/matrix.md).
"""
import argparse
import concurrent.futures
import datetime
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

MiB = 1 << 20
GiB = 1 << 30
QUICK = "profile=quick workloads=selftest"
SMP_TIMEOUT_MS = 1000          # the kernel's default smp_timeout_ms
MAX_NODES = 64                 # kernel/lib/qb_limits.h QB_MAX_NODES
MAX_PHYS = 1 << 40             # kernel/mm/paging.h QB_MAX_PHYS


# ---- Cells --------------------------------------------------------------------
class Cell:
    """One QEMU configuration and what its records must say.

    cpus: CPUs in the MADT (-smp maxcpus), online: those started (-smp N);
    nodes: {apic_id: node} when NUMA is configured (else every CPU is node 0),
    mem_nodes: nodes that must have free memory, empty_nodes: nodes that must
    have none; errors: regexes, each matching one expected error record.
    """

    def __init__(self, name, group, smp, mem=1024, cpu="max", machine=None, qemu=(), args=QUICK,
                 online=None, nodes=None, numa_nodes=1, mem_nodes=(), empty_nodes=(), errors=(),
                 checks=(), timeout=120, known_failure=None, note="", slow=False, host_skip=None):
        self.name, self.group, self.smp, self.mem, self.cpu = name, group, smp, mem, cpu
        self.machine, self.qemu, self.args, self.timeout = machine, list(qemu), args, timeout
        self.cpus = int(dict(kv.split("=") for kv in smp.split(",")[1:]).get("maxcpus", smp.split(",")[0]))
        self.online = online if online is not None else int(smp.split(",")[0])
        self.nodes, self.numa_nodes = nodes, numa_nodes
        self.mem_nodes, self.empty_nodes, self.errors = mem_nodes, empty_nodes, errors
        self.checks, self.known_failure, self.note, self.slow = checks, known_failure, note, slow
        self.host_skip = host_skip  # regex on QEMU's output: the host cannot run this cell

    def qemu_text(self):
        """The configuration as a reader would type it."""
        parts = ["-smp " + self.smp, "-m " + mem_text(self.mem)]
        if self.cpu != "max":
            parts.append("-cpu " + self.cpu)
        if self.machine:
            parts.append("-machine q35," + self.machine)
        return " ".join(parts)

    def config_text(self):
        """The configuration for the table: QEMU's flags, then the NUMA layout or other notes."""
        return "`%s`%s" % (self.qemu_text(), ", " + self.note if self.note else "")


def mem_text(mib):
    return "%dG" % (mib // 1024) if mib % 1024 == 0 else "%dM" % mib


def numa_qemu(layout):
    """-object/-numa arguments for [(cpus "a-b" or None, MiB or 0), ...], one entry per node id."""
    out = []
    for node, (cpus, mib) in enumerate(layout):
        spec = "node,nodeid=%d" % node
        if cpus is not None:
            spec += ",cpus=" + cpus
        if mib:
            out += ["-object", "memory-backend-ram,id=mx%d,size=%dM" % (node, mib)]
            spec += ",memdev=mx%d" % node
        out += ["-numa", spec]
    return out


def node_map(layout):
    """{apic_id: node} for a numa_qemu layout (QEMU's cpu index is the APIC ID on one socket)."""
    m = {}
    for node, (cpus, _) in enumerate(layout):
        if cpus is None:
            continue
        lo, _, hi = cpus.partition("-")
        for c in range(int(lo), int(hi or lo) + 1):
            m[c] = node
    return m


# A node with memory only (3), one with CPUs only (2), two with both.
NUMA4 = [("0", 256), ("1", 256), ("2-3", 0), (None, 512)]
NUMA2 = [("0-1", 512), ("2-3", 512)]
NUMA1 = [("0-1", 1024)]
# Two domains past QB_MAX_NODES: 66 nodes of 16 MiB, CPUs on the first two.
NUMA66 = [("0", 16), ("1", 16)] + [(None, 16)] * 64


# ---- Checks -------------------------------------------------------------------
def check(cond, msg, errors):
    if not cond:
        errors.append(msg)


def boot_of(recs):
    b = qbrecords.of_kind(recs, "boot")
    return b[0] if len(b) == 1 else {}


def mem_of(recs):
    m = qbrecords.of_kind(recs, "memory")
    return m[0] if len(m) == 1 else {}


def check_cpus(cell, recs, errors):
    """One cpu record per MADT processor: online ones first, the rest not present; nodes and topology."""
    cpus = sorted(qbrecords.of_kind(recs, "cpu"), key=lambda c: c.get("index", -1))
    check(len(cpus) == cell.cpus, "expected %d cpu records, got %d" % (cell.cpus, len(cpus)), errors)
    check([c.get("index") for c in cpus] == list(range(len(cpus))), "cpu indices not dense: %s"
          % [c.get("index") for c in cpus], errors)
    for c in cpus:
        i, apic = c.get("index"), c.get("apic_id")
        on = i < cell.online
        state = "online" if on else "not-present"
        check(c.get("online") is on and c.get("state") == state, "cpu %s (apic %s): online %s state %s, expected %s %s"
              % (i, apic, c.get("online"), c.get("state"), on, state), errors)
        want_node = cell.nodes.get(apic, 0) if cell.nodes else 0
        check(c.get("node") == want_node, "cpu %s (apic %s): node %s, expected %s" % (i, apic, c.get("node"), want_node), errors)
        # One socket, no SMT: QEMU's APIC ID is the core number.
        want = (0, 0, apic, 0) if on else (None, None, None, None)
        got = (c.get("package"), c.get("die"), c.get("core"), c.get("thread"))
        check(got == want, "cpu %s (apic %s): package/die/core/thread %s, expected %s" % (i, apic, got, want), errors)
    check(sorted(c.get("apic_id") for c in cpus) == list(range(cell.cpus)), "APIC IDs %s, expected 0..%d"
          % (sorted(c.get("apic_id") for c in cpus), cell.cpus - 1), errors)
    # Caches: each online CPU in exactly one instance per level; L1/L2 per core, L3 per package.
    online = list(range(cell.online))
    caches = qbrecords.of_kind(recs, "cache")
    for level, typ in ((1, "data"), (2, "unified"), (3, "unified")):
        inst = [k for k in caches if k.get("level") == level and k.get("type") == typ]
        covered = sorted(i for k in inst for i in k.get("shared_by", []))
        check(covered == online, "L%d %s caches cover CPUs %s, expected each of %s once" % (level, typ, covered, online), errors)
        for k in inst:
            want = 1 if level <= 2 else cell.online
            check(len(k.get("shared_by", [])) == want, "L%d instance shared by %s, expected %d CPU(s)"
                  % (level, k.get("shared_by"), want), errors)
            check(k.get("size", 0) > 0 and k.get("line", 0) > 0, "L%d cache with empty geometry: %s" % (level, k), errors)
            check(bool(k.get("source")) and k.get("sharing_assumed") == ("assumed" in k.get("source", "")),
                  "L%d cache: source %r but sharing_assumed %s" % (level, k.get("source"), k.get("sharing_assumed")), errors)


def check_common(cell, recs, problems, errors):
    for no, why, raw in problems:
        errors.append("line %d: damaged record (%s): %s" % (no, why, raw[:120]))
    d = qbrecords.done(recs)
    check(d is not None, "no done record", errors)
    if d is None:
        return
    check(recs[-1] is d, "done is not the last record", errors)
    check(d.get("status") == "ok", "done status %s (%s)" % (d.get("status"), d.get("reason")), errors)
    check(d.get("cpus_found") == cell.online and d.get("cpus_online") == cell.online,
          "cpus_found %s / cpus_online %s, expected %d" % (d.get("cpus_found"), d.get("cpus_online"), cell.online), errors)
    b = boot_of(recs)
    check(bool(b), "expected exactly one boot record", errors)
    check(b.get("cpus_found") == b.get("cpus_online") == cell.online, "boot: cpus_found %s, cpus_online %s, expected %d"
          % (b.get("cpus_found"), b.get("cpus_online"), cell.online), errors)
    check(b.get("numa_nodes") == cell.numa_nodes, "numa_nodes %s, expected %d" % (b.get("numa_nodes"), cell.numa_nodes), errors)
    check(b.get("tsc_hz", 0) > 0 and b.get("tsc_measured_hz", 0) > 0, "tsc_hz %s, tsc_measured_hz %s"
          % (b.get("tsc_hz"), b.get("tsc_measured_hz")), errors)
    timer = "pm-timer" if cell.machine and "hpet=off" in cell.machine else "hpet"
    check(b.get("reference_timer") == timer, "reference_timer %s, expected %s" % (b.get("reference_timer"), timer), errors)
    check(b.get("tsc_source") in (timer, "cpuid-15h", "cpuid-16h"), "tsc_source %s, expected %s (or CPUID)"
          % (b.get("tsc_source"), timer), errors)
    check(b.get("kernel_bytes", 1 << 40) <= 16 * MiB, "kernel_bytes %s over 16 MiB" % b.get("kernel_bytes"), errors)
    check(b.get("ap_startup_us", 1 << 40) < SMP_TIMEOUT_MS * 1000, "ap_startup_us %s: some CPU was waited for until the timeout"
          % b.get("ap_startup_us"), errors)
    # Usable RAM: what QEMU gave, less the firmware's share, and none unmapped below the 1 TiB limit.
    m = mem_of(recs)
    total = cell.mem * MiB
    if total <= MAX_PHYS // 2:
        check(0.85 * total <= b.get("memory_bytes", 0) <= total, "memory_bytes %s for -m %s"
              % (b.get("memory_bytes"), mem_text(cell.mem)), errors)
        check(m.get("unmapped_ram_bytes") == 0, "unmapped_ram_bytes %s" % m.get("unmapped_ram_bytes"), errors)
        check(m.get("free_bytes", 0) >= 0.8 * total, "free_bytes %s for -m %s" % (m.get("free_bytes"), mem_text(cell.mem)), errors)
    free = {n.get("node"): n.get("free_bytes", 0) for n in m.get("nodes", [])}
    for n in cell.mem_nodes:
        check(free.get(n, 0) > 0, "memory node %d: free_bytes %s" % (n, free.get(n)), errors)
    for n in cell.empty_nodes:
        check(free.get(n, -1) == 0, "node %d has no memory, but free_bytes %s" % (n, free.get(n)), errors)
    # Error records: exactly the expected ones.
    errs = qbrecords.of_kind(recs, "error")
    texts = [" ".join(str(e[k]) for k in ("what", "table", "name", "detail") if e.get(k)) for e in errs]
    for pat in cell.errors:
        hit = [t for t in texts if re.search(pat, t)]
        check(len(hit) == 1, "expected one error record matching %r, got %s" % (pat, hit or texts), errors)
    unexpected = [t for t in texts if not any(re.search(p, t) for p in cell.errors)]
    check(not unexpected, "unexpected error records: %s" % unexpected, errors)
    check(d.get("errors") == len(errs), "done counts %s errors, %d printed" % (d.get("errors"), len(errs)), errors)
    # The selftest, when it ran: on every online CPU, check ok.
    sel = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "selftest"]
    check(sel or "selftest" not in cell.args, "no selftest results", errors)
    for r in sel:
        check(r.get("check") == "ok", "selftest %s check %s (%s)" % (r.get("variant"), r.get("check"), r.get("reason")), errors)
        check(r.get("threads") == cell.online, "selftest %s on %s threads, expected %d"
              % (r.get("variant"), r.get("threads"), cell.online), errors)


def check_model(vendor=None, rdtscp=None, tsc_invariant=None, cache_source=None, sharing_assumed=None):
    """What the boot and cache records must say about a CPU model's features."""
    def check_it(cell, recs, errors):
        b = boot_of(recs)
        for key, want in (("cpu_vendor", vendor), ("rdtscp", rdtscp), ("tsc_invariant", tsc_invariant)):
            if want is not None:
                check(b.get(key) == want, "%s %s, expected %s on -cpu %s" % (key, b.get(key), want, cell.cpu), errors)
        check(b.get("topology_source") not in (None, "", "none"), "topology_source %s" % b.get("topology_source"), errors)
        for k in qbrecords.of_kind(recs, "cache"):
            if cache_source is not None:
                check(k.get("source") == cache_source, "L%s cache source %s, expected %s"
                      % (k.get("level"), k.get("source"), cache_source), errors)
            if sharing_assumed is not None:
                check(k.get("sharing_assumed") is sharing_assumed, "L%s cache sharing_assumed %s, expected %s"
                      % (k.get("level"), k.get("sharing_assumed"), sharing_assumed), errors)
    wants = [("cpu_vendor", vendor), ("rdtscp", rdtscp), ("tsc_invariant", tsc_invariant),
             ("cache source", cache_source), ("cache sharing_assumed", sharing_assumed)]
    check_it.__doc__ = ", ".join("%s %s" % (k, str(v).lower() if isinstance(v, bool) else v)
                                 for k, v in wants if v is not None) + ", a topology_source"
    return check_it


def check_ap_startup(limit_us):
    """Absent MADT entries are not waited for: start-up stays far below the AP timeout."""
    def check_it(cell, recs, errors):
        us = boot_of(recs).get("ap_startup_us", 1 << 40)
        check(us < limit_us, "ap_startup_us %s, expected under %d (absent CPUs waited for?)" % (us, limit_us), errors)
    check_it.__doc__ = "absent CPUs not waited for: ap_startup_us under %d ms" % (limit_us // 1000)
    return check_it


def check_mem_above_4g(cell, recs, errors):
    """RAM above 4 GiB mapped and free: nearly all of -m usable, none unmapped."""
    b, m = boot_of(recs), mem_of(recs)
    total = cell.mem * MiB
    check(b.get("memory_bytes", 0) >= 0.98 * total, "memory_bytes %s of %d" % (b.get("memory_bytes"), total), errors)
    check(m.get("free_bytes", 0) >= 0.97 * total, "free_bytes %s of %d" % (m.get("free_bytes"), total), errors)


def check_locality_sizes(cell, recs, errors):
    """Sizes shrunk to fit, recorded in params.bytes (the L2 size 256 KiB, the LLC size at most half the L3, dram run or
    skipped with a reason)."""
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "locality"]
    free = mem_of(recs).get("free_bytes", 0)
    l3 = min([k["size"] for k in qbrecords.of_kind(recs, "cache") if k.get("level") == 3] or [0])
    check(res, "no locality results", errors)
    sizes = {}
    for r in res:
        p = r.get("params", {})
        what = "locality %s %s %s %s" % (p.get("size"), r.get("variant"), p.get("accumulator"), r.get("threads"))
        check(r.get("check") in ("ok", "skipped"), "%s: check %s (%s)" % (what, r.get("check"), r.get("reason")), errors)
        if r.get("check") == "skipped":
            check(bool(r.get("reason")), "%s skipped without a reason" % what, errors)
            sizes.setdefault(p.get("size"), "skipped")
            continue
        check(p.get("bytes", 0) > 0 and p.get("bytes") == 4 * p.get("ints", -1), "%s: bytes %s" % (what, p.get("bytes")), errors)
        check(p.get("bytes", 1 << 62) <= free // 2, "%s: %s bytes do not fit half of %d free" % (what, p.get("bytes"), free), errors)
        sizes[p.get("size")] = p.get("bytes")
    # Three sizes, chosen for the L2, the LLC and DRAM: each named by its role where it holds, else by its bytes.
    run = sorted((b, n) for n, b in sizes.items() if b != "skipped")
    check(run and run[0][0] == 4 * 65536, "the smallest size used %s bytes, expected the seed's 64 Ki ints" % run[:1], errors)
    check(len(run) >= 2 and run[1][0] <= l3 // 2, "the LLC size used %s, expected at most half the L3 (%d)"
          % (run[1:2], l3), errors)
    check(len(sizes) == 3, "sizes %s: expected three, dram run or skipped" % sorted(sizes), errors)


def check_first_touch_sizes(cell, recs, errors):
    """Copies sized (params.bytes) so that src and dst fit in free memory, every result ok or skipped with a reason."""
    res = {r.get("variant"): r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "first-touch"}
    free = mem_of(recs).get("free_bytes", 0)
    for v in ("copy-none-warm", "copy-src-warm", "copy-both-warm"):
        r = res.get(v, {})
        b = r.get("params", {}).get("bytes", 0)
        check(r.get("check") == "ok", "%s: %s" % (v, r and (r.get("check"), r.get("reason"))), errors)
        check(0 < 2 * b <= free, "%s: params.bytes %s (x2 for src and dst) vs %d free" % (v, b, free), errors)
    for v, r in res.items():
        check(r.get("check") in ("ok", "skipped") and (r.get("check") == "ok" or r.get("reason")),
              "first-touch %s: check %s (%s)" % (v, r.get("check"), r.get("reason")), errors)


def check_first_touch_numa(nodes_with_cpus, nodes_with_mem):
    """Per-node placement on an uneven machine; the matrices null exactly where a node lacks CPUs or memory."""
    def check_it(cell, recs, errors):
        res = {r.get("variant"): r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "first-touch"}
        for v in ("numa-one-cpu-warms", "numa-each-cpu-touches"):
            r = res.get(v, {})
            check(r.get("check") == "ok" and r.get("misplaced_pages") == 0, "%s: check %s (%s), misplaced %s, pages_by_node %s"
                  % (v, r.get("check"), r.get("reason"), r.get("misplaced_pages"), r.get("pages_by_node")), errors)
            pbn = r.get("pages_by_node", [])
            check(all(pbn[n] == 0 for n in range(len(pbn)) if n not in nodes_with_mem),
                  "%s: pages on a node without memory: %s" % (v, pbn), errors)
        for m in qbrecords.of_kind(recs, "matrix"):
            if m.get("workload") != "first-touch":
                continue
            vals = m.get("values", [])
            for i, row in enumerate(vals):
                for j, x in enumerate(row):
                    want = i in nodes_with_cpus and j in nodes_with_mem
                    check((x is not None and x > 0) == want, "%s[%d][%d] = %s, expected %s" % (m.get("variant"), i, j, x,
                          "a value" if want else "null"), errors)
    check_it.__doc__ = ("every page on its intended node, none on a node without memory; the node matrices "
                        "null exactly where a node has no CPUs or no memory")
    return check_it


def check_limit_mem(cell, recs, errors):
    """RAM above the 1 TiB mapping limit: reported, not used, and everything below it is."""
    m, b = mem_of(recs), boot_of(recs)
    total = cell.mem * MiB
    un = m.get("unmapped_ram_bytes", 0)
    check(un > 0 and un <= total - MAX_PHYS + 8 * GiB, "unmapped_ram_bytes %s for -m %s" % (un, mem_text(cell.mem)), errors)
    check(b.get("memory_bytes", 0) > MAX_PHYS, "memory_bytes %s: all RAM is counted as usable" % b.get("memory_bytes"), errors)
    free = m.get("free_bytes", 0)
    check(MAX_PHYS - 8 * GiB <= free <= MAX_PHYS, "free_bytes %s, expected just under 1 TiB (what is mapped)" % free, errors)


def check_limit_nodes(cell, recs, errors):
    """The 64 lowest domains kept as nodes, the memory of the others still free."""
    m = mem_of(recs)
    check(len(m.get("nodes", [])) == MAX_NODES, "memory record lists %d nodes, expected %d" % (len(m.get("nodes", [])), MAX_NODES), errors)
    check(m.get("free_bytes", 0) >= 0.9 * cell.mem * MiB, "free_bytes %s: memory of dropped domains lost?" % m.get("free_bytes"), errors)


CPU_MODELS = {
    # Under TCG, -cpu max is an AMD-like "QEMU TCG CPU" without TOPOEXT; EPYC loses TOPOEXT too.
    "max": check_model(rdtscp=True),
    "Skylake-Server": check_model(vendor="GenuineIntel", rdtscp=True, cache_source="leaf 4", sharing_assumed=False),
    "EPYC": check_model(vendor="AuthenticAMD", rdtscp=True),
    "qemu64": check_model(vendor="AuthenticAMD", rdtscp=False, tsc_invariant=False, sharing_assumed=True),
}

CELLS = [
    # CPUs (1 GiB, -cpu max, HPET).
    Cell("smp1", "cpus", "1"),
    Cell("smp2", "cpus", "2"),
    Cell("smp3", "cpus", "3"),
    Cell("smp5", "cpus", "5"),
    Cell("smp8", "cpus", "8"),
    Cell("smp16", "cpus", "16"),
    Cell("smp4-maxcpus8", "cpus", "4,maxcpus=8", checks=[check_ap_startup(SMP_TIMEOUT_MS * 1000 // 4)]),
    # NUMA: SRAT with 1, 2 and 4 nodes.
    Cell("numa1", "numa", "2", qemu=numa_qemu(NUMA1), nodes=node_map(NUMA1), mem_nodes=[0],
         note="NUMA: 1 node with both CPUs and all memory"),
    Cell("numa2", "numa", "4", qemu=numa_qemu(NUMA2), nodes=node_map(NUMA2), numa_nodes=2, mem_nodes=[0, 1],
         note="NUMA: 2 nodes of 2 CPUs and 512M"),
    Cell("numa4-uneven", "numa", "4", qemu=numa_qemu(NUMA4), nodes=node_map(NUMA4), numa_nodes=4,
         mem_nodes=[0, 1, 3], empty_nodes=[2],
         note="NUMA: node 0 CPU 0 and 256M, node 1 CPU 1 and 256M, node 2 CPUs 2-3 and no memory, node 3 512M and no CPUs"),
    Cell("numa4-uneven-first-touch", "numa", "4", qemu=numa_qemu(NUMA4), nodes=node_map(NUMA4), numa_nodes=4,
         mem_nodes=[0, 1, 3], empty_nodes=[2], args="profile=quick workloads=first-touch",
         checks=[check_first_touch_numa({0, 1, 2}, {0, 1, 3})],
         note="NUMA as numa4-uneven"),
    # Memory: 128 MiB and 6 GiB (1 GiB is every other cell); the full profile shrunk to 128 MiB.
    Cell("mem128m", "memory", "2", mem=128),
    Cell("mem6g", "memory", "2", mem=6144, checks=[check_mem_above_4g]),
    Cell("mem128m-full-locality", "memory", "2", mem=128, args="profile=full workloads=locality reps=1",
         checks=[check_locality_sizes]),
    Cell("mem128m-full-first-touch", "memory", "2", mem=128, args="profile=full workloads=first-touch reps=1",
         checks=[check_first_touch_sizes]),
    # Slow (not in make test-matrix): the full first-touch where it fits; the demand-zero fix of issue 9.
    Cell("mem1g-full-first-touch", "memory", "2", args="profile=full workloads=first-touch reps=1",
         checks=[check_first_touch_sizes], timeout=400, slow=True),
    # CPU models (-cpu max is every other cell).
    Cell("cpu-skylake-server", "cpu model", "2", cpu="Skylake-Server"),
    Cell("cpu-epyc", "cpu model", "2", cpu="EPYC"),
    Cell("cpu-qemu64", "cpu model", "2", cpu="qemu64"),
    # Timers: the HPET is every other cell.
    Cell("no-hpet", "timer", "2", machine="hpet=off"),
    # Limits QEMU can reach: more NUMA domains than QB_MAX_NODES, RAM above the 1 TiB mapping.
    Cell("limit-66-nodes", "limits", "2", mem=66 * 16, qemu=numa_qemu(NUMA66), nodes=node_map(NUMA66),
         numa_nodes=MAX_NODES, mem_nodes=[0, 1], errors=[r"^acpi SRAT domain limit, 2 entries dropped"],
         checks=[check_limit_nodes], note="NUMA: 66 nodes of 16M, CPUs on nodes 0 and 1"),
    Cell("limit-1100g", "limits", "2", mem=1100 * 1024, cpu="Skylake-Server,phys-bits=42",
         machine="memory-backend=mx", qemu=["-object", "memory-backend-ram,id=mx,size=1100G,reserve=off"],
         errors=[r"^paging .* above the 1024 GiB mapping limit are not used"], checks=[check_limit_mem],
         timeout=180, note="RAM not reserved on the host",
         host_skip=r"cannot set up guest memory|Cannot allocate memory"),
]
for _c in CELLS:
    _c.checks = list(_c.checks) + [CPU_MODELS[_c.cpu.split(",")[0]]]


# ---- Running --------------------------------------------------------------------
def run_cell(cell, efi, logdir):
    log = os.path.join(logdir, cell.name + ".log")
    if os.path.exists(log):
        os.remove(log)
    cmd = [os.path.join(ROOT, "tools", "qemu-run"), "--efi", efi, "--smp", cell.smp, "--mem", str(cell.mem),
           "--cpu", cell.cpu, "--timeout", str(cell.timeout), "--log", log, "--quiet"]
    if cell.machine:
        cmd += ["--machine-opts", cell.machine]
    cmd += ["--qemu-arg=" + a for a in cell.qemu] + ["--", cell.args]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.time() - t0
    errors = []
    if cell.host_skip and p.returncode != 0:
        # QEMU's own messages land in the serial log (qemu-run merges its stderr).
        with open(log, encoding="latin-1") if os.path.exists(log) else open(os.devnull) as f:
            said = f.read(4096)
        if re.search(cell.host_skip, p.stdout + said):
            return None, elapsed, said.strip() or p.stdout, log
    if p.returncode == 124:
        errors.append("timed out after %d s" % cell.timeout)
    elif p.returncode not in (0, 1):
        errors.append("qemu-run exit status %d" % p.returncode)
    recs, problems = qbrecords.parse_file(log) if os.path.exists(log) else ([], [])
    check_common(cell, recs, problems, errors)
    if recs:
        check_cpus(cell, recs, errors)
        for c in cell.checks:
            c(cell, recs, errors)
    check(p.returncode == 0 or errors, "qemu-run exit status %d, but every check passed" % p.returncode, errors)
    return errors, elapsed, p.stdout, log


def verdict(cell, errors):
    """(result, counts as a failure) for the table."""
    if errors is None:
        return "skipped: the host cannot give QEMU this machine", False
    if not errors:
        return ("XPASS: remove the known-failure mark", False) if cell.known_failure else ("ok", False)
    # The known failure, in a run that still ended cleanly (a done record, intact records, no timeout).
    clean = not any(re.search(r"^(no done record|timed out|line \d+: damaged|done is not the last)", e) for e in errors)
    if cell.known_failure and clean and any(re.search(cell.known_failure[0], e) for e in errors):
        return "xfail", False
    return "FAIL", True


def describe(check_fn):
    """A check's one-line description: the first line of its docstring."""
    return (check_fn.__doc__ or check_fn.__name__).strip().split("\n")[0].rstrip(".")


def write_doc(path, rows, total, jobs, load):
    """The table of configurations and timings, as Markdown."""
    lines = [
        "# The boot matrix",
        "",
        "`make test-matrix` (tests/boot/matrix.py) boots QuietBench in QEMU 7.2 under TCG with",
        "OVMF in each configuration below, with `%s` unless the cell says otherwise." % QUICK,
        "Every cell checks every record's CRC, `done` ok (and last), that no unexpected",
        "`error` record was printed, `cpus_online == cpus_found`, one `cpu` record per",
        "MADT processor (state, online, node, package/die/core/thread), caches covering",
        "every online CPU, the reference timer, usable and free memory, and the selftest",
        "on every CPU. Unless the configuration says otherwise a cell has 1 GiB,",
        "`-cpu max` and an HPET. A failing cell prints its serial log (kept in",
        "`build/matrix/`).",
        "",
        "Seconds are the wall time of one boot on the project's 2-core machine, %s at a time," % jobs,
        "with a host load average of %.1f when the run started (other jobs share the" % load,
        "machine; an idle one is faster). `make matrix-doc` reruns every cell, slow ones",
        "included, and rewrites this file (generated %s)." % datetime.date.today().isoformat(),
        "",
        "| cell | what | configuration | command line | checks beyond the common ones | seconds | result |",
        "|---|---|---|---|---|---|---|",
    ]
    for cell, secs, result in rows:
        extra = "; ".join(describe(f) for f in cell.checks
                          if cell.cpu != "max" or f is not CPU_MODELS["max"])
        name = "`%s`%s" % (cell.name, " (slow)" if cell.slow else "")
        lines.append("| %s | %s | %s | `%s` | %s | %.1f | %s |" % (name, cell.group, cell.config_text(), cell.args,
                                                                extra or "-", secs, result))
    quick = sum(secs for c, secs, _ in rows if not c.slow)
    lines += ["", "Total: %.0f s for %d cells; `make test-matrix` leaves out the slow ones: %.0f s."
              % (total, len(rows), quick if jobs == 1 else total), ""]
    xf = [(c, r) for c, _, r in rows if c.known_failure]
    if xf:
        lines += ["## Known failures", "",
                  "These cells are marked with the exact failure expected: it shows as `xfail`",
                  "and does not fail the matrix, but only if the run still ended cleanly (a",
                  "`done` record, every CRC intact, no timeout); any other failure does.", ""]
        lines += ["- `%s` (%s): %s." % (c.name, r, c.known_failure[1]) for c, r in xf]
        lines.append("")
    lines += DOC_TAIL
    with open(path, "w") as f:
        f.write("\n".join(lines))


DOC_TAIL = [
    "## What the cells show",
    "",
    "- `smp4-maxcpus8`: QEMU lists 8 processors in the MADT and enables 4. The other 4 are",
    "  `cpu` records with state `not-present` and `online` false, `cpus_found` is 4, and",
    "  `ap_startup_us` stays far below the 1 s AP timeout: absent CPUs are not waited for.",
    "- `numa4-uneven`: node 2 has CPUs and no memory (its `free_bytes` is 0), node 3 has",
    "  memory and no CPUs; every CPU carries its SRAT node. QEMU 7.2 takes a node without",
    "  `memdev` as memory-less and a node without `cpus` as CPU-less.",
    "- `mem128m-full-locality`: the full profile at 128 MiB. Each result records the bytes it",
    "  used (`params.bytes`): `l2` is the seed's 64 Ki ints, `llc` half the L3, and `dram`",
    "  is skipped with the reason when 4x the L3 does not fit in half the free memory.",
    "- `mem1g-full-first-touch` (slow, about 90 s): the full first-touch profile where it fits.",
    "  Before the fix it ended in a page fault: the seed's copy faults `src` and `dst` in",
    "  alternately, so freeing one left a hole per 4 KiB page, pmm's range table (1024",
    "  entries) overflowed and the rest was lost (about 250 MiB per copy case), until no",
    "  2 MiB page was left for `demand-zero-2m`. Freed demand-zero pages now wait in",
    "  kernel/mm/demand.c and go back sorted, so they merge.",
    "- CPU models: `qemu64` reports `rdtscp` false, `tsc_invariant` false and caches from",
    "  0x80000005/6 with `sharing_assumed`; `Skylake-Server` caches come from leaf 4. Under TCG",
    "  no model has an invariant TSC or TOPOEXT (QEMU drops both), so `EPYC` and `max` also",
    "  assume cache sharing, and `-cpu max` is an AMD-like \"QEMU TCG CPU\".",
    "- `no-hpet`: `-machine q35,hpet=off`; the TSC is calibrated against the ACPI PM timer",
    "  (`reference_timer` and `tsc_source` `pm-timer`); every other cell uses the HPET.",
    "",
    "## Limits",
    "",
    "| limit | value | shown in QEMU | past it |",
    "|---|---|---|---|",
    "| NUMA nodes | 64 (`QB_MAX_NODES`) | `limit-66-nodes` | an `acpi` `error` record for the SRAT (\"domain limit, N entries dropped\"); the 64 lowest domains are kept, and the memory of the others stays usable |",
    "| physical memory mapped | 1 TiB (`QB_MAX_PHYS`) | `limit-1100g`: 1100 GiB, of which 78 GiB above 1 TiB (the host reserves none of it) | a `paging` `error` record with the bytes left out, `memory.unmapped_ram_bytes`; the run uses the RAM below 1 TiB |",
    "| CPUs | 1024 (`QB_MAX_CPUS`); x2APIC for APIC IDs above 254 | no: QEMU 7.2's TCG has no x2APIC (\"TCG doesn't support requested feature: x2apic\"), so at most 255 xAPIC CPUs | MADT entries past the limit are dropped with an `error` record (host unit tests) |",
    "",
    "With an AMD CPU model (`-cpu max` under TCG), QEMU 7.2 moves all RAM above 4 GiB to",
    "start at 1 TiB once it would reach the HyperTransport hole below 1 TiB, so a 1100 GiB",
    "guest then has only its 2 GiB below 4 GiB mapped; `limit-1100g` uses `Skylake-Server`",
    "to keep RAM on both sides of the limit. Before the fix either layout ended in a triple",
    "fault: the allocator handed out RAM above 1 TiB (an AP's stack), which is not mapped.",
    "",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "matrix"))
    ap.add_argument("--jobs", type=int, default=1, help="cells run at the same time")
    ap.add_argument("--doc", help="write the table of configurations and timings here (Markdown)")
    ap.add_argument("--slow", action="store_true", help="also run the slow cells (named cells always run)")
    ap.add_argument("--list", action="store_true", help="list the cells and exit")
    ap.add_argument("cells", nargs="*", help="run only these cells")
    a = ap.parse_args()
    cells = [c for c in CELLS if c.name in a.cells or (not a.cells and (a.slow or not c.slow))]
    if a.list or not cells:
        for c in CELLS:
            print("%-26s %-10s %s  [%s]%s" % (c.name, c.group, c.config_text().replace("`", ""), c.args,
                                                " (slow)" if c.slow else ""))
        return 0 if a.list else 2
    os.makedirs(a.logdir, exist_ok=True)
    efi = os.path.abspath(a.efi)
    load = os.getloadavg()[0]
    t0 = time.time()
    rows, failed = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = [(c, pool.submit(run_cell, c, efi, a.logdir)) for c in cells]
        for cell, fut in futs:
            errors, elapsed, out, log = fut.result()
            result, bad = verdict(cell, errors)
            failed += bad
            rows.append((cell, elapsed, result))
            print("%-5s %s (%.1f s)" % (result.split(":")[0], cell.name, elapsed))
            if errors is None:
                print("  " + out.strip().replace("\n", "\n  "))
            if result == "xfail":
                print("  known failure: " + cell.known_failure[1])
            if errors and (bad or os.environ.get("MATRIX_VERBOSE")):
                for e in errors:
                    print("  - " + e)
                print("  runner: " + out.strip().replace("\n", "\n  runner: "))
                print("  ---- serial log %s ----" % log)
                if os.path.exists(log):
                    with open(log, encoding="latin-1") as f:
                        sys.stdout.write(f.read())
                print("\n  ---- end of log ----")
            sys.stdout.flush()
    total = time.time() - t0
    print("\n%-26s %8s  %s" % ("cell", "seconds", "result"))
    for cell, secs, result in rows:
        print("%-26s %8.1f  %s" % (cell.name, secs, result))
    print("%-26s %8.1f" % ("total", total))
    if a.doc:
        write_doc(a.doc, rows, total, max(1, a.jobs), load)
        print("matrix: table written to %s" % a.doc)
    xfail = sum(r == "xfail" for _, _, r in rows)
    skipped = sum(r.startswith("skipped") for _, _, r in rows)
    if xfail or skipped:
        print("matrix: %d known failures (xfail), %d skipped" % (xfail, skipped))
    print("matrix: %d passed, %d failed" % (len(rows) - failed - xfail - skipped, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
