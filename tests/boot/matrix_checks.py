"""matrix_checks - what the records of every boot-matrix cell must say (check_common, check_cpus), the checks
that particular cells add, and what each CPU model must report (CPU_MODELS). A check appends what it found
wrong to errors; its docstring's first line is its description in docs/matrix.md."""
import os
import re
import sys

from matrix_cell import GiB, MAX_NODES, PT_BUDGET, MiB, SMP_TIMEOUT_MS, TiB, mem_text

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402


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
    # 16 MiB: about 7 MiB of the kernel's own, its page tables within QB_PT_BUDGET (6 MiB) and the loader's above
    # 4 GiB within QB_HANDOFF_PT_BUDGET (2 MiB); with 1 GiB pages the tables of 6 TiB take 120 KiB.
    check(b.get("kernel_bytes", 1 << 40) <= 16 * MiB, "kernel_bytes %s over 16 MiB" % b.get("kernel_bytes"), errors)
    check(b.get("ap_startup_us", 1 << 40) < SMP_TIMEOUT_MS * 1000, "ap_startup_us %s: some CPU was waited for until the timeout"
          % b.get("ap_startup_us"), errors)
    # Usable RAM: what QEMU gave, less the firmware's share, all of it mapped (unless the cell leaves some out).
    m = mem_of(recs)
    total = cell.mem * MiB
    check(0.85 * total <= b.get("memory_bytes", 0) <= total, "memory_bytes %s for -m %s"
          % (b.get("memory_bytes"), mem_text(cell.mem)), errors)
    check(d.get("unmapped_ram_bytes") == m.get("unmapped_ram_bytes"), "done says %s bytes of RAM unmapped, memory %s"
          % (d.get("unmapped_ram_bytes"), m.get("unmapped_ram_bytes")), errors)
    if not cell.left_out:
        check(m.get("unmapped_ram_bytes") == 0, "unmapped_ram_bytes %s" % m.get("unmapped_ram_bytes"), errors)
        check(m.get("free_bytes", 0) >= 0.8 * total, "free_bytes %s for -m %s" % (m.get("free_bytes"), mem_text(cell.mem)), errors)
        check(m.get("mapped_ram_bytes", 0) >= b.get("memory_bytes", 1), "mapped_ram_bytes %s, memory_bytes %s"
              % (m.get("mapped_ram_bytes"), b.get("memory_bytes")), errors)
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


def check_all_mapped(cell, recs, errors):
    """Every byte of RAM mapped, in 1 GiB pages, in under 256 KiB of tables, the times it took > 0 (null without the TSC's frequency); every node's memory free to use."""
    m, b = mem_of(recs), boot_of(recs)
    total = cell.mem * MiB
    check(m.get("page_1g") is True and m.get("identity_pages_1g", 0) >= 0.95 * total / GiB,
          "page_1g %s, identity_pages_1g %s for -m %s" % (m.get("page_1g"), m.get("identity_pages_1g"),
                                                         mem_text(cell.mem)), errors)
    check(m.get("page_table_bytes", 1 << 40) <= 256 << 10, "page_table_bytes %s" % m.get("page_table_bytes"), errors)
    # Times: > 0 when the TSC's frequency is known, null (never 0) when it is not.
    for key in ("paging_setup_us", "handoff_paging_us"):
        v = b.get(key)
        ok = (isinstance(v, int) and not isinstance(v, bool) and v > 0) if b.get("tsc_hz") else v is None
        check(key in b and ok, "%s %s with tsc_hz %s" % (key, v, b.get("tsc_hz")), errors)
    nodes = m.get("nodes", [])
    for n in nodes:
        check(n.get("free_bytes", 0) >= 0.9 * total / len(nodes), "node %s: free_bytes %s of %s"
              % (n.get("node"), n.get("free_bytes"), mem_text(cell.mem // len(nodes))), errors)


def check_left_out_without_1g(cell, recs, errors):
    """Without 1 GiB pages: 2 MiB pages as far as the 6 MiB table budget goes (about 1.5 TiB), the rest not used and
    said in its error record (bytes, from, reason), the memory record and the done record."""
    m, d = mem_of(recs), qbrecords.done(recs) or {}
    un = m.get("unmapped_ram_bytes", 0)
    err = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "paging"]
    check(len(err) == 1, "expected one paging error record, got %d" % len(err), errors)
    e = err[0] if err else {}
    start = int(e.get("from", "0"), 16)
    check(e.get("reason") == "budget" and e.get("bytes") == un and un > 0, "paging error: reason %s, bytes %s; "
          "unmapped_ram_bytes %s" % (e.get("reason"), e.get("bytes"), un), errors)
    check(1.45 * TiB <= start <= 1.5 * TiB, "RAM left out from 0x%x, expected just under 1.5 TiB" % start, errors)
    check(d.get("unmapped_ram_bytes") == un, "done: unmapped_ram_bytes %s" % d.get("unmapped_ram_bytes"), errors)
    check(m.get("page_1g") is False and m.get("identity_pages_1g") == 0, "page_1g %s, identity_pages_1g %s"
          % (m.get("page_1g"), m.get("identity_pages_1g")), errors)
    check(m.get("page_table_bytes", 1 << 40) <= PT_BUDGET + (64 << 10), "page_table_bytes %s over the budget"
          % m.get("page_table_bytes"), errors)
    check(m.get("free_bytes", 1 << 62) <= start, "free_bytes %s: RAM from 0x%x is used" % (m.get("free_bytes"), start), errors)
    check(abs(m.get("mapped_ram_bytes", 0) + un - cell.mem * MiB) <= 8 * GiB, "mapped %s + unmapped %s, -m %s"
          % (m.get("mapped_ram_bytes"), un, mem_text(cell.mem)), errors)


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


def check_numa_targets(cpu_nodes):
    """Every one of the 64 nodes a column of first-touch's NUMA matrix, its rows as matrix_row records, each
    measured from every CPU node and named for having no CPUs where it has none."""
    def check_it(cell, recs, errors):
        mats = {m.get("variant"): m for m in qbrecords.matrices(recs) if m.get("workload") == "first-touch"}
        for v in ("numa-latency", "numa-bandwidth"):
            m = mats.get(v) or {}
            names = [t.get("name") for t in m.get("targets") or []]
            check(m.get("rows") == MAX_NODES and len(names) == MAX_NODES, "%s: %s rows, %d targets"
                  % (v, m.get("rows"), len(names)), errors)
            check(names == ["node %d" % j if j in cpu_nodes else "node %d (no CPUs)" % j for j in range(len(names))],
                  "%s: target names %s" % (v, names[:4]), errors)
            vals = m.get("values") or []
            for i in cpu_nodes:
                row = vals[i] if i < len(vals) and vals[i] else []
                check(len(row) == MAX_NODES and all(x is not None and x > 0 for x in row),
                      "%s: row %d %s" % (v, i, row[:8]), errors)
    return check_it
