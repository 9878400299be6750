"""boot_checks - what each boot test case checks in its records, beyond check_common (run_boot_tests.py): the
figures and their statistics, bad options, faults, each workload's results, the machine state, CPUs left out, the
IOMMU and the samples."""
import re

import qbrecords  # noqa: E402  (run_boot_tests.py puts tools/ on the path first)


def check(cond, msg, errors):
    if not cond:
        errors.append(msg)


STATS = ("min", "q1", "median", "q3", "mean", "max", "stddev", "cv")


def check_figure(r, errors):
    """Clean first, and no statistic of nothing: an empty statistics block is null, never 0; the figure is
    the clean statistics unless noisy; an ok result with repetitions has its measures in its units."""
    what = "%s/%s" % (r.get("workload"), r.get("variant"))
    for block, name in ((r, "result"), (r.get("clean"), "clean")):
        if not isinstance(block, dict) or "n" not in block:
            continue
        if block["n"] == 0:
            bad = [k for k in STATS if block.get(k) is not None]
            check(not bad, "%s: %s statistics of nothing are %s, not null" % (what, name, bad), errors)
        elif block.get("q1") is not None:
            check(block["min"] <= block["q1"] <= block["median"] <= block["q3"] <= block["max"],
                  "%s: %s quartiles out of order: %s" % (what, name, [block.get(k) for k in STATS[:6]]), errors)
    if "figure" not in r or r.get("check") == "skipped":
        return
    noisy, n = r.get("noisy"), r.get("n") or 0
    check(noisy is False or isinstance(noisy, dict), "%s: noisy is %r" % (what, noisy), errors)
    if isinstance(r.get("clean"), dict) and n:
        want_noisy = 2 * r["clean"].get("reps", 0) < n
        check(bool(noisy) == want_noisy, "%s: noisy %r with %s of %s clean" % (what, noisy, r["clean"].get("reps"), n),
              errors)
    check(r["figure"] == (None if not n else "all" if noisy else "clean") or "clean" not in r,
          "%s: figure %r, noisy %r, n %s" % (what, r["figure"], noisy, n), errors)
    if r.get("check") == "ok" and n:
        m = r.get("measures")
        check(isinstance(m, dict) and m, "%s: measures %r (%s)" % (what, m, r.get("measures_note")), errors)
        if isinstance(m, dict) and m:
            first = next(iter(m.values()))
            zero_ok = r.get("variant") == "start-skew" and r.get("threads") == 1  # one thread starts with itself
            check(isinstance(first.get("median"), (int, float)) and (first["median"] > 0 or zero_ok) and first.get("unit"),
                  "%s: its figure %r" % (what, first), errors)


CPU_COUNTS = ("cpus_online", "cpus_parked", "cpus_not_started", "cpus_lost")


def check_bad_options(recs, errors):
    """A typo stops the run before anything is measured, and says what was meant."""
    errs = [r for r in qbrecords.of_kind(recs, "error") if r.get("what") == "bad option"]
    keys = sorted(r.get("key") for r in errs)
    check(keys == ["bogus", "cpus", "profile", "reps", "workloads", "workloads"],
          "bad-option errors for %s, expected bogus, cpus, profile, reps, workloads x2" % keys, errors)
    check(not [r for r in errs if "duplicate" in r.get("detail", "")], "a key given twice is an error", errors)
    hints = {(r.get("key"), r.get("value")): r.get("hint") for r in errs}
    check(hints.get(("workloads", "selftst")) == "workloads=selftest",
          "no 'did you mean workloads=selftest' for selftst: %s" % hints, errors)
    check(hints.get(("profile", "fast")) is None, "a guess for profile=fast: %s" % hints, errors)
    valid = {r.get("key"): r.get("valid") for r in errs}
    check(valid.get("profile") == "quick full", "profile's valid values: %s" % valid.get("profile"), errors)
    check(not qbrecords.of_kind(recs, "result") and not qbrecords.of_kind(recs, "plan"),
          "something was measured or planned despite the bad options", errors)
    d = qbrecords.done(recs) or {}
    check(d.get("reason") == "bad options: nothing was measured", "done reason %s" % d.get("reason"), errors)
    counts = {k: d.get(k, "absent") for k in ("cpus_found",) + CPU_COUNTS}
    check(all(v is None for v in counts.values()),
          "done %s: no CPU was counted, so every count unknown (null), not 0 or left out" % counts, errors)


def check_cpu_counts(recs, errors):
    """The boot and done records count every CPU found once: online, parked, not started (checked in late, or
    never), lost; cpus_found is their sum (null all together when nothing was counted)."""
    for kind, r in (("boot", next(iter(qbrecords.of_kind(recs, "boot")), None)), ("done", qbrecords.done(recs))):
        if r is None:
            continue
        parts = [r.get(k) for k in CPU_COUNTS]
        if r.get("cpus_found") is None:
            check(parts == [None] * len(parts), "%s: cpus_found null but the counts %s" % (kind, parts), errors)
            continue
        check(all(isinstance(p, int) for p in parts) and sum(parts) == r.get("cpus_found"),
              "%s: cpus_found %s is not online + parked + not started + lost %s" % (kind, r.get("cpus_found"), parts),
              errors)


def check_fault(cpu_of_case):
    def check_it(recs, errors):
        ex = [r for r in qbrecords.of_kind(recs, "error") if r.get("what") == "exception"]
        check(len(ex) == 1, "expected one exception record, got %d" % len(ex), errors)
        if ex:
            e = ex[0]
            check(e.get("vector") == 14 and e.get("name") == "page fault", "exception %s/%s, expected page fault 14"
                  % (e.get("vector"), e.get("name")), errors)
            check(e.get("cpu") == cpu_of_case, "fault reported on cpu %s, expected %d" % (e.get("cpu"), cpu_of_case), errors)
            check(e.get("cr2") == "0x7f0000000000", "cr2 %s" % e.get("cr2"), errors)
            check(str(e.get("rip", "")).startswith("0xffffffff8"), "rip %s not in the kernel" % e.get("rip"), errors)
        d = qbrecords.done(recs)
        check(d is not None and recs[-1] is d, "done is not the last record", errors)
    return check_it


COUNTER_LAYOUTS = ["packed", "padded", "array-packed", "array-header", "array-header-padded", "shared-atomic"]


def check_counter(pairs_ok, pairs_skipped):
    """Every layout x thread count x placement ok, the pair classes as the topology allows, the matrix n x n."""
    def check_it(recs, errors):
        res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "counter"]
        ncpu = len(qbrecords.of_kind(recs, "cpu"))
        counts = [c for c in (1, 2, 4, 8, 16) if c <= ncpu] + ([ncpu] if ncpu & (ncpu - 1) else [])
        for layout in COUNTER_LAYOUTS:
            for n in counts:
                for place in ("compact", "scatter"):
                    got = [r for r in res if r["variant"] == layout and r["threads"] == n
                           and (r.get("params", {}).get("placement") == place or place in r.get("same_placements", ()))]
                    check(len(got) == 1, "counter %s %d threads %s: %d results" % (layout, n, place, len(got)), errors)
                    for r in got:
                        check(r["check"] == "ok", "counter %s %d %s check %s (%s)" % (layout, n, place, r["check"], r.get("reason")), errors)
                        check(len(r.get("thread_ticks_per_increment", [])) == n, "counter %s %d: per-thread list" % (layout, n), errors)
                        check(len(set(r["cpus"])) == n, "counter %s %d: cpus %s" % (layout, n, r["cpus"]), errors)
                        check(r.get("ticks_per_increment", 0) > 0, "counter %s %d: ticks_per_increment" % (layout, n), errors)
                        ns = (r.get("measures") or {}).get("ns_per_increment") or {}
                        check((ns.get("median") or 0) > 0 and ns.get("unit") == "ns/increment",
                              "counter %s %d: ns_per_increment %s" % (layout, n, ns), errors)
                        check(r.get("slowdown_pct") is not None, "counter %s %d: no slowdown" % (layout, n), errors)
        # Where the counters live: one node, the same in every result, a node of the machine.
        nodes = (qbrecords.of_kind(recs, "boot") or [{}])[0].get("numa_nodes") or 1
        where = {r.get("counters_node") for r in res if r.get("check") != "skipped"}
        check(len(where) == 1 and all(isinstance(n, int) and 0 <= n < nodes for n in where),
              "counter results' counters_node %s (%d nodes)" % (sorted(where, key=str), nodes), errors)
        for rel in pairs_ok:
            got = [r for r in res if r.get("params", {}).get("placement") == "pair-" + rel]
            check(len(got) == 1 and got[0]["check"] == "ok" and got[0]["threads"] == 2,
                  "pair-%s: %s" % (rel, [(r["check"], r.get("reason")) for r in got]), errors)
        for rel in pairs_skipped:
            got = [r for r in res if r.get("params", {}).get("placement") == "pair-" + rel]
            check(len(got) == 1 and got[0]["check"] == "skipped" and got[0].get("reason"),
                  "pair-%s should be skipped with a reason: %s" % (rel, got), errors)
        m = qbrecords.of_kind(recs, "matrix")
        check(len(m) == 1, "expected one matrix record, got %d" % len(m), errors)
        if m:
            m = m[0]
            n = len(m.get("cpus", []))
            check(n == ncpu, "matrix over %d CPUs, expected %d" % (n, ncpu), errors)
            vals = m.get("values", [])
            check(len(vals) == n and all(len(row) == n for row in vals), "matrix is not %d x %d" % (n, n), errors)
            check(all(vals[i][i] is None for i in range(min(n, len(vals)))), "matrix diagonal not null", errors)
            check(all(vals[i][j] is not None and vals[i][j] > 0 and vals[i][j] == vals[j][i]
                      for i in range(len(vals)) for j in range(len(vals)) if i != j and j < len(vals[i])),
                  "matrix off-diagonal values missing or not symmetric", errors)
            check(m.get("check") == "ok", "matrix check %s" % m.get("check"), errors)
    return check_it


def check_locality(recs, errors):
    """Every variant x accumulator x size x start x thread count x placement, check ok, sizes recorded and named
    by what they are on the machine (a role only where it holds, else the bytes); the two cache sizes from a
    cold start and (the quick profile: at one thread) a resident one, the largest from a cold one only; each
    result names its start and the flush it got."""
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "locality"]
    ncpu = len(qbrecords.of_kind(recs, "cpu"))
    counts = [c for c in (1, 2, 4, 8, 16) if c <= ncpu] + ([ncpu] if ncpu & (ncpu - 1) else [])
    measured = [r for r in res if r.get("check") != "skipped"]
    sizes = sorted({r["params"]["size"] for r in measured}, key=lambda s: min(
        r["params"]["bytes"] for r in measured if r["params"]["size"] == s))
    check(len(sizes) == 3, "locality sizes %s, expected three (l2, llc, dram or their bytes)" % sizes, errors)
    check(all(r.get("params", {}).get("start") in ("cold", "resident") for r in res),
          "a locality result without a start", errors)
    for i, size in enumerate(sizes):
        for start in ("cold", "resident"):
            for variant in ("interleaved", "blocked-strided", "blocked"):
                for acc in ("shared-slot", "private"):
                    for n in counts:
                        for place in ("compact", "scatter"):
                            got = [r for r in res if r["variant"] == variant
                                   and r.get("params", {}).get("memory_placement") != "thread-local"
                                   and (r["threads"] or r.get("params", {}).get("threads")) == n
                                   and r.get("params", {}).get("size") == size
                                   and r["params"].get("start") == start
                                   and r["params"].get("accumulator") == acc
                                   and (r["params"].get("placement") == place or place in r.get("same_placements", ()))]
                            what = "locality %s %s %s %s %d %s" % (size, start, variant, acc, n, place)
                            want = start == "cold" or (i < 2 and n == 1)
                            check(len(got) == (1 if want else 0), "%s: %d results" % (what, len(got)), errors)
                            for r in got:
                                check(r["check"] == "ok", "%s: check %s (%s)" % (what, r["check"], r.get("reason")), errors)
                                check(r["params"].get("flush") == ("wbinvd" if start == "cold" else "none"),
                                      "%s: flush %s" % (what, r["params"].get("flush")), errors)
                                check(len(r.get("thread_ticks", [])) == n, "%s: thread_ticks" % what, errors)
                                check(r.get("bytes_per_tick", 0) > 0, "%s: bytes_per_tick" % what, errors)
                                check(r["params"].get("bytes", 0) == 4 * r["params"].get("ints", -1), "%s: bytes" % what, errors)
                                role = r["params"].get("size_role")
                                check(size == role.lower() if role else size not in ("l1", "l2", "llc", "dram"),
                                      "%s: size %s with role %s" % (what, size, role), errors)
                                gb = (r.get("measures") or {}).get("gb_per_s") or {}
                                check((gb.get("median") or 0) > 0 and gb.get("inverse") is True,
                                      "%s: gb_per_s %s" % (what, gb), errors)
    if sizes:
        small = [r for r in measured if r["params"]["size"] == sizes[0]]
        check(all(r["params"]["ints"] == 65536 for r in small), "the smallest size is not the seed's 64 Ki ints", errors)
    check_locality_memory(recs, errors)


def check_locality_memory(recs, errors):
    """Where each locality array lives (issue 32). One node: as before, no memory placement in any record.
    Several: every result names its placement (node N where its threads are on node N, else interleaved
    over their nodes, or thread-local for the blocked variant at every CPU, the quick profile's), and its
    pages_by_node, read back from the page tables, hold every 2 MiB page of the array on the nodes it
    names, none misplaced; an array of at least two pages has pages on every one of its nodes."""
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "locality"]
    measured = [r for r in res if r.get("check") != "skipped"]
    nodes = (qbrecords.of_kind(recs, "boot") or [{}])[0].get("numa_nodes") or 1
    node_of = {c["index"]: c.get("node") for c in qbrecords.of_kind(recs, "cpu")}
    if nodes == 1:
        bad = [r["variant"] for r in res if "memory_placement" in r.get("params", {}) or "pages_by_node" in r]
        check(not bad, "one node, but %d locality results name a memory placement" % len(bad), errors)
        return
    spread = {"interleaved": 0, "thread-local": 0}
    ncpu = len(node_of)
    for r in measured:
        p = r.get("params", {})
        what = "locality %s %s %s P=%s %s" % (p.get("size"), p.get("start"), r["variant"], r["threads"], p.get("placement"))
        threads_nodes = sorted({node_of.get(c) for c in r.get("cpus", [])})
        mp = p.get("memory_placement")
        if len(threads_nodes) == 1:
            check(mp == "node %s" % threads_nodes[0], "%s: threads on node %s, memory_placement %r"
                  % (what, threads_nodes[0], mp), errors)
        else:
            check(mp in ("interleaved", "thread-local"), "%s: threads on nodes %s, memory_placement %r"
                  % (what, threads_nodes, mp), errors)
        if mp == "thread-local":
            check(r["variant"] == "blocked" and r["threads"] == ncpu, "%s: a thread-local result the quick profile"
                  " does not plan" % what, errors)
        check(r.get("memory_nodes") == threads_nodes, "%s: memory_nodes %s, threads on %s"
              % (what, r.get("memory_nodes"), threads_nodes), errors)
        page = r.get("page_bytes")
        by_node = r.get("pages_by_node") or []
        check(page == 2 << 20, "%s: page_bytes %s" % (what, page), errors)
        if not page or len(by_node) != nodes:
            errors.append("%s: pages_by_node %s for %d nodes" % (what, by_node, nodes))
            continue
        pages = -(-p.get("bytes", 0) // page)
        check(sum(by_node) == pages and r.get("misplaced_pages") == 0 and "memory_note" not in r,
              "%s: pages_by_node %s for %d pages, misplaced %s (%s)" % (what, by_node, pages, r.get("misplaced_pages"),
                                                                      r.get("memory_note")), errors)
        check(all(by_node[n] == 0 for n in range(nodes) if n not in threads_nodes),
              "%s: pages off the threads' nodes: %s" % (what, by_node), errors)
        if pages >= len(threads_nodes) and len(threads_nodes) > 1:
            on_all = all(by_node[n] > 0 for n in threads_nodes)
            check(on_all, "%s: %d pages, not on every node of %s: %s" % (what, pages, threads_nodes, by_node), errors)
            spread[mp] = spread.get(mp, 0) + on_all
    for mp, n in spread.items():
        check(n > 0, "no %s locality array with pages on every node of its threads" % mp, errors)


def check_first_touch(nodes):
    """The seed's three cases with exact fault counts, the per-page breakdown, and NUMA ok or skipped."""
    def check_it(recs, errors):
        res = {r["variant"]: r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "first-touch"}
        copy = res.get("copy-none-warm", {})
        pages = copy.get("params", {}).get("bytes", 0) // 4096
        check(pages > 0, "copy-none-warm missing or without bytes", errors)
        want = {"copy-none-warm": [2 * pages, 0, 0, 0, 0], "copy-src-warm": [pages, 0, 0, 0, 0],
                "copy-both-warm": [0, 0, 0, 0, 0]}
        for v, faults in want.items():
            r = res.get(v)
            check(r is not None and r["check"] == "ok", "%s: %s" % (v, r and (r["check"], r.get("reason"))), errors)
            if r:
                check(r.get("iteration_faults") == faults, "%s faults %s, expected %s" % (v, r.get("iteration_faults"), faults), errors)
                check(len(r.get("iteration_ticks", [])) == 5, "%s: iteration_ticks" % v, errors)
        for v in ("page-fault-entry", "demand-zero-4k", "demand-zero-2m", "zero-rep-stosb", "zero-nt",
                  "tlb-miss", "tlb-miss-cached", "hot-access"):
            r = res.get(v)
            check(r is not None and r["check"] == "ok", "%s: %s" % (v, r and (r["check"], r.get("reason"))), errors)
        for v in ("page-fault-entry", "demand-zero-4k", "demand-zero-2m"):
            r = res.get(v)
            if r:
                check(r.get("faults") == r.get("n"), "%s: %s faults for %s pages" % (v, r.get("faults"), r.get("n")), errors)
        clz = res.get("zero-clzero")
        check(clz is not None and clz["check"] in ("ok", "skipped"), "zero-clzero: %s" % clz, errors)
        numa = ("numa-one-cpu-warms", "numa-each-cpu-touches")
        mats = {m["variant"]: m for m in qbrecords.of_kind(recs, "matrix") if m.get("workload") == "first-touch"}
        if nodes < 2:
            for v in numa + ("numa-latency", "numa-bandwidth"):
                r = res.get(v)
                check(r is not None and r["check"] == "skipped" and r.get("reason"), "%s should be skipped: %s" % (v, r), errors)
            check(not mats, "NUMA matrices on one node", errors)
        else:
            for v in numa:
                r = res.get(v)
                check(r is not None and r["check"] == "ok" and r.get("misplaced_pages") == 0,
                      "%s: %s" % (v, r and (r["check"], r.get("reason"), r.get("misplaced_pages"))), errors)
            a, b = res.get(numa[0], {}), res.get(numa[1], {})
            check(len([x for x in a.get("pages_by_node", []) if x]) == 1, "one CPU warming spread pages: %s" % a.get("pages_by_node"), errors)
            check(len([x for x in b.get("pages_by_node", []) if x]) == nodes, "per-CPU touch used %s" % b.get("pages_by_node"), errors)
            for v in ("numa-latency", "numa-bandwidth"):
                m = mats.get(v)
                check(m is not None and len(m.get("values", [])) == nodes and all(len(row) == nodes for row in m["values"])
                      and all(x is not None and x > 0 for row in m["values"] for x in row), "%s matrix: %s" % (v, m), errors)
    return check_it


def evict_name(r, llc):
    """What an eviction read must be called: evict-llc when it reads the whole LLC, else its size."""
    b = (r.get("params") or {}).get("evict_bytes", 0)
    if r["variant"] == "evict-llc":
        return "evict-llc"
    return "evict-%dmib" % (b >> 20) if b % (1 << 20) == 0 else "evict-%dkib" % (b >> 10)


def check_flush(recs, errors):
    """Every flush method measured with check ok, eviction reads named for what they read, and a coldness
    figure or a note that says what happened."""
    res = {r["variant"]: r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "flush"}
    evicts = [v for v in res if v.startswith("evict-")]
    check(len(evicts) == 2, "flush: eviction reads %s" % evicts, errors)
    for v in evicts:
        check(evict_name(res[v], None) == v, "flush %s reads %s bytes" % (v, res[v].get("params", {}).get("evict_bytes")), errors)
    check("evict-8mib" in res, "quick profile: the seeds' eviction read is not named evict-8mib: %s" % evicts, errors)
    for m in ("wbinvd-all", "wbinvd-per-domain", "clflush", "none") + tuple(evicts):
        r = res.get(m)
        check(r is not None and r["check"] == "ok", "flush %s: %s" % (m, r and (r["check"], r.get("reason"))), errors)
        if r:
            check("flush_ticks" in r and r.get("n", 0) > 0, "flush %s lacks its numbers" % m, errors)
            check(r.get("cold_pct") is not None or r.get("cold_pct_note"), "flush %s: no coldness and no note" % m, errors)
            note = r.get("cold_pct_note") or ""
            check("within 5%" not in note, "flush %s: the old note %r" % (m, note), errors)
            # TCG: no caches, so each method's verdict is a "cannot tell", never a finding; the references have none.
            want = None if m in ("clflush", "none") else CANNOT_TELL
            check(r.get("verdict") == want if want is None else tcg_cannot_tell(r.get("verdict")),
                  "flush %s: verdict %r, expected %r" % (m, r.get("verdict"), want or "none"), errors)
            check(r.get("flush_ticks") is not None, "flush %s: flush_ticks null" % m, errors)


CANNOT_TELL = "cannot tell: no visible caches"
# QEMU's TCG models no cache: quiet, CLFLUSH of the set makes no difference (CANNOT_TELL). On a loaded host its
# timings are the host's, and a flush check may also find every round disturbed, or a CLFLUSH chase a few times
# slower than a warm one that no real cache would leave so slow (the warm set "not warm"): still "cannot tell".
# Never a finding (effective, partial, ineffective), which would change the run.
TCG_CANNOT_TELL = re.compile(r"^cannot tell: (no visible caches|disturbed \(\d+ of \d+ rounds\)|the warm set was not warm)$")


def tcg_cannot_tell(verdict):
    return isinstance(verdict, str) and bool(TCG_CANNOT_TELL.match(verdict))


def check_flush_cannot_tell(recs, errors):
    """The run's flush check under QEMU TCG, which models no caches: every flush is "cannot tell" (quiet, "no
    visible caches"; TCG_CANNOT_TELL) with no cold_pct, on every LLC domain (one per socket's L3, each its own
    verdict), nothing is replaced, and every result that flushed names WBINVD with the check's verdict
    (kernel/run/flushcheck.c; the verdict is never asserted from a time)."""
    runs = [s for s in qbrecords.of_kind(recs, "state") if s.get("scope") == "run"]
    fc = runs[0].get("flush_check") if runs else None
    rows = fc.get("methods") if isinstance(fc, dict) else None
    check(isinstance(rows, list) and [r.get("method") for r in rows] == ["wbinvd-all", "wbinvd-per-domain"],
          "state flush_check: %r" % (fc,), errors)
    for r in rows or []:
        check(tcg_cannot_tell(r.get("verdict")) and r.get("cold_pct") is None,
              "flush_check %s: verdict %r, cold_pct %r" % (r.get("method"), r.get("verdict"), r.get("cold_pct")), errors)
    # Every LLC domain its own verdict: one probe per top-level cache instance that CPUs of two cores share
    # (QEMU: one L3 per socket), each domain's CPU one of its sharers; the BSP alone where none is shared.
    caches = qbrecords.of_kind(recs, "cache")
    top = max((c.get("level", 0) for c in caches if c.get("type") != "instruction"), default=0)
    shared = {tuple(c["shared_by"]) for c in caches if c.get("level") == top and c.get("type") != "instruction"
              and len(c.get("shared_by") or []) > 1}
    want = len(shared) or 1
    if isinstance(fc, dict):
        check(fc.get("domains") == want and fc.get("domains_total") == want,
              "flush_check: %r domains of %r, expected %d (shared top-level caches %s)"
              % (fc.get("domains"), fc.get("domains_total"), want, sorted(shared)), errors)
    for r in rows or []:
        doms = r.get("domains")
        check(isinstance(doms, list) and len(doms) == want and all(tcg_cannot_tell(d.get("verdict")) for d in doms),
              "flush_check %s: domains %r, expected %d each %r" % (r.get("method"), doms, want, CANNOT_TELL), errors)
        cpus = [d.get("cpu") for d in doms or []]
        check(len(set(cpus)) == len(cpus) and (not shared or all(any(c in s for s in shared) for c in cpus)),
              "flush_check %s: domain CPUs %s, shared caches %s" % (r.get("method"), cpus, sorted(shared)), errors)
    if isinstance(fc, dict):
        check(fc.get("run_flush") == "wbinvd" and tcg_cannot_tell(fc.get("verdict")) and fc.get("fallback") is None,
              "flush_check: run_flush %r, verdict %r, fallback %r" % (fc.get("run_flush"), fc.get("verdict"),
                                                                     fc.get("fallback")), errors)
    for r in qbrecords.of_kind(recs, "result"):
        p = r.get("params") or {}
        if p.get("flush") in (None, "none"):
            continue
        check(p["flush"] in ("wbinvd", "wbinvd-each-iteration") and tcg_cannot_tell(p.get("flush_verdict"))
              and p.get("flush_verdict") == (fc or {}).get("verdict")
              and "flush_fallback" not in p,
              "%s/%s: params flush %r, flush_verdict %r" % (r.get("workload"), r.get("variant"), p.get("flush"),
                                                          p.get("flush_verdict")), errors)


def check_state(safe, writes, turbo_word="unavailable"):
    """The run's state set and restored, one state per CPU, the MSR-write counter, and noise and counters
    marked unavailable (never zero) in every result."""
    def check_it(recs, errors):
        st = qbrecords.of_kind(recs, "state")
        runs = [s for s in st if s.get("scope") == "run"]
        cpus = [s for s in st if s.get("scope") == "cpu"]
        check([r.get("phase") for r in runs] == ["set", "restored"], "state run records %s" % [r.get("phase") for r in runs], errors)
        check(len(cpus) == len(qbrecords.of_kind(recs, "cpu")), "%d cpu state records" % len(cpus), errors)
        for r in runs:
            check(r.get("safe") is safe, "state safe=%s" % r.get("safe"), errors)
            check(turbo_word in str(r.get("turbo")), "turbo status %r lacks %r" % (r.get("turbo"), turbo_word), errors)
            check(writes(r.get("msr_writes")), "msr_writes %s" % r.get("msr_writes"), errors)
        for c in cpus:
            check(writes(c.get("msr_writes")), "cpu %s msr_writes %s" % (c.get("cpu"), c.get("msr_writes")), errors)
        for r in qbrecords.of_kind(recs, "result"):
            if r.get("check") == "skipped":
                continue
            n = r.get("noise", {})
            check(n.get("smis") == "unavailable" and n.get("freq_mhz_min") == "unavailable",
                  "%s/%s noise not marked unavailable: %s" % (r["workload"], r["variant"], n), errors)
            if r.get("variant") != "start-skew":
                c = r.get("clean", {})
                check(c.get("reps", -1) + c.get("flagged", -1) == r["n"], "clean + flagged != n in %s: %s" % (r["variant"], c), errors)
            check(r.get("counters") == "unavailable" and r.get("counters_note"), "counters: %s" % r.get("counters"), errors)
    return check_it


def check_qemu64(recs, errors):
    b = qbrecords.of_kind(recs, "boot")
    check(b and b[0].get("tsc_invariant") is False, "qemu64: tsc_invariant %s" % (b and b[0].get("tsc_invariant")), errors)
    check_state(False, lambda w: w == 0)(recs, errors)


def check_cpu_left_out(what, state, lost):
    """One CPU left out with an error record naming it, the others ran, and the run completed."""
    def check_it(recs, errors):
        errs = [r for r in qbrecords.of_kind(recs, "error") if r.get("what") == what]
        check(len(errs) == 1, "expected one %r error record, got %s" % (what, errs), errors)
        cpus = qbrecords.of_kind(recs, "cpu")
        gone = [c for c in cpus if c.get("state") == state]
        if state == "lost":
            gone = [e.get("cpu") for e in errs]
        else:
            check(len(gone) == 1 and gone[0].get("online") is False, "cpu records: %s" % [(c["index"], c["state"]) for c in cpus], errors)
        d = qbrecords.done(recs)
        check(d is not None and d.get("cpus_lost") == lost, "cpus_lost %s, expected %d" % (d and d.get("cpus_lost"), lost), errors)
        # The CPU left out is in its own count (issue 36): one that never checked in, or checked in after the
        # start bound, is not started at boot and at the end; one lost in a run was online at boot.
        b = next(iter(qbrecords.of_kind(recs, "boot")), {})
        late = 0 if state == "lost" else 1
        for kind, r, want in (("boot", b, (late, 0)), ("done", d or {}, (late, lost))):
            got = (r.get("cpus_not_started"), r.get("cpus_lost"))
            check(got == want, "%s: cpus_not_started, cpus_lost %s, expected %s" % (kind, got, want), errors)
        if what == "cpu lost":
            sel = [r for r in qbrecords.of_kind(recs, "result") if r.get("variant") == "padded-increment"]
            check(sel and sel[0].get("check") == "fail" and "did not finish" in sel[0].get("reason", ""),
                  "the hung run's result: %r" % ((sel and (sel[0].get("check"), sel[0].get("reason"))),), errors)
    return check_it


def check_fam10h_node(recs, errors):
    """A family 10h CPU (Opteron_G3): the kernel reads MSR C001_100C on each CPU for the L3's node; TCG answers
    0 (one node per package: the L3 stays the package's), so no topology_note and every L3 says where it came from."""
    l3 = [k for k in qbrecords.of_kind(recs, "cache") if k.get("level") == 3]
    check(l3 and all(k.get("source") == "0x80000006, per node (MSR C001_100C)" and k.get("sharing_assumed") is False
                     for k in l3), "L3 records: %s" % [(k.get("source"), k.get("sharing_assumed")) for k in l3], errors)
    boot = (qbrecords.of_kind(recs, "boot") or [{}])[0]
    check("topology_note" not in boot, "topology_note %r" % boot.get("topology_note"), errors)


def check_iommu(kind, base, tables):
    """The firmware's remapping unit in the state record, with what was done to it (QEMU's is left off)."""
    def check_it(recs, errors):
        runs = [s for s in qbrecords.of_kind(recs, "state") if s.get("scope") == "run"]
        io = runs[0].get("iommu") if runs else None
        units = io.get("units") if isinstance(io, dict) else None
        check(isinstance(io, dict) and io.get("tables") == tables and isinstance(units, list) and len(units) == 1,
              "state iommu %r, expected one unit from the %s" % (io, tables), errors)
        if units:
            u = units[0]
            check(u.get("kind") == kind and u.get("base") == base and u.get("translation") == "off",
                  "iommu unit %r, expected %s at %s, translation off" % (u, kind, base), errors)
    return check_it


def check_samples(recs, errors):
    """samples (on by default): each result with repetitions lists every one, in ticks, and which were flagged."""
    with_reps = [r for r in qbrecords.of_kind(recs, "result") if isinstance(r.get("clean"), dict)]
    check(with_reps, "no result with repetitions", errors)
    for r in with_reps:
        s = r.get("samples")
        if not isinstance(s, list) or len(s) != r.get("n"):
            errors.append("result %s/%s: samples %s for n=%s" % (r.get("workload"), r.get("variant"), s, r.get("n")))
        elif not isinstance(r.get("samples_flagged"), list) or \
                len(r["samples_flagged"]) != r["n"] - r["clean"]["reps"]:
            errors.append("result %s/%s: samples_flagged %s with %s of %s clean"
                          % (r.get("workload"), r.get("variant"), r.get("samples_flagged"), r["clean"]["reps"], r["n"]))
        elif sorted(s)[0] != r.get("min") or sorted(s)[-1] != r.get("max"):
            errors.append("result %s/%s: samples %s do not span min %s .. max %s"
                          % (r.get("workload"), r.get("variant"), s, r.get("min"), r.get("max")))


def check_no_samples(recs, errors):
    """samples=off: no result lists its repetitions."""
    some = [r for r in qbrecords.of_kind(recs, "result") if "samples" in r or "samples_flagged" in r]
    check(not some, "samples=off, yet %d result(s) list samples" % len(some), errors)


def check_clock(recs, errors):
    """Every result says its clock: clock_mhz a number, or null with clock_note; cycles measures only beside a clock.
    QEMU's TCG lists no APERF/MPERF in CPUID (-cpu max): null, and the note says so."""
    for r in qbrecords.of_kind(recs, "result"):
        what = "%s/%s" % (r.get("workload"), r.get("variant"))
        mhz = r.get("clock_mhz", "absent")
        check(mhz is None or (isinstance(mhz, (int, float)) and mhz > 0), "%s: clock_mhz %r" % (what, mhz), errors)
        if mhz is None:
            check(isinstance(r.get("clock_note"), str) and r["clock_note"], "%s: clock_mhz null without a note" % what,
                  errors)
            m = r.get("measures") if isinstance(r.get("measures"), dict) else {}
            check(not [k for k in m if k.startswith("cycles")], "%s: cycles measures without a clock" % what, errors)


def check_noise_result(recs, errors, smp):
    """The noise workload: one ok result on every CPU, its gaps object adding up, one noise_cpu record per CPU."""
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "noise"]
    check(len(res) == 1, "expected one noise result, got %d" % len(res), errors)
    if not res:
        return
    r = res[0]
    check(r.get("check") == "ok" and r.get("variant") == "tsc-gaps" and r.get("threads") == smp,
          "noise: check %s (%s), variant %s, %s threads" % (r.get("check"), r.get("reason"), r.get("variant"),
                                                            r.get("threads")), errors)
    g = r.get("gaps") or {}
    for key in ("seconds", "observed_cpu_s", "lost_cpu_s", "ppm", "ppm_mean", "ppm_max", "loop_min_ticks",
                "loop_min_ticks_max", "threshold_ticks", "threshold_ns", "attribute_ns", "count", "over_1us",
                "over_5us", "bookkeeping", "longest_ns", "longest_cpu", "longest_at_s", "attribution_window",
                "attributed", "hist"):
        check(key in g, "noise: gaps lacks %s" % key, errors)
    obs, lost, ppm = g.get("observed_cpu_s"), g.get("lost_cpu_s"), g.get("ppm")
    check(bool(obs) and isinstance(ppm, (int, float)) and abs(ppm - lost / obs * 1e6) <= max(1e-3 * ppm, 1e-3),
          "noise: pooled ppm %s is not lost_cpu_s %s over observed_cpu_s %s" % (ppm, lost, obs), errors)
    for key in ("over_1us", "over_5us"):  # QEMU's TSC rate is known: rtla's thresholds are numbers
        o = g.get(key)
        check(isinstance(o, dict) and isinstance(o.get("count"), int) and isinstance(o.get("ppm"), (int, float)),
              "noise: %s %r" % (key, o), errors)
    h = g.get("hist") or {}
    check(sum(h.get("counts") or []) == g.get("count"), "noise: histogram counts do not add up to count", errors)
    check((h.get("edges_ns") or [0])[-1] >= 1e8, "noise: the histogram stops short of 100 ms", errors)
    check("unexplained" in (g.get("attributed") or {}), "noise: attributed %s" % g.get("attributed"), errors)
    cpus = qbrecords.of_kind(recs, "noise_cpu")
    check(sorted(c.get("cpu") for c in cpus) == sorted(r.get("cpus") or []),
          "noise: noise_cpu records for %s, ran on %s" % ([c.get("cpu") for c in cpus], r.get("cpus")), errors)
    check(sum(c.get("count", 0) for c in cpus) == g.get("count"), "noise: the CPUs' counts do not add up", errors)
    mins = [c.get("loop_min_ticks") for c in cpus]
    check(all(isinstance(m, int) and c.get("threshold_ticks") == 4 * m for m, c in zip(mins, cpus)) and
          (g.get("loop_min_ticks"), g.get("loop_min_ticks_max")) == (min(mins or [0]), max(mins or [0])),
          "noise: each CPU's threshold is 4 x its own loop minimum, the run's their least and greatest: %s, run %s..%s"
          % ([(c.get("loop_min_ticks"), c.get("threshold_ticks")) for c in cpus], g.get("loop_min_ticks"),
             g.get("loop_min_ticks_max")), errors)
