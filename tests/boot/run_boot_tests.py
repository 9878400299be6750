#!/usr/bin/env python3
"""run_boot_tests - boot QuietBench in QEMU in several configurations and check the records.

Each case runs tools/qemu-run with a timeout, then checks: every record's CRC,
done ok, cpus_online == cpus_found == the configured count, one cpu record
per CPU with the expected package/core/thread/node, cache records that cover
every CPU with sharing that matches the configuration, and selftest results
with check ok. A failing case prints its serial log. The last line is the
"N passed, N failed" summary.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402


class Case:
    def __init__(self, name, smp, sockets=1, cores=None, threads=1, numa=1, args="", mem=1024,
                 extra_check=None, expect_done="ok", cpu="max", down=0, refused=False, qemu_args=()):
        self.cpu = cpu
        self.qemu_args = qemu_args  # more QEMU arguments (devices)
        self.refused = refused  # the kernel refuses to measure (bad options): no machine records
        self.down = down  # CPUs expected to end up not online (debug modes)
        self.name, self.smp, self.numa, self.args, self.mem = name, smp, numa, args, mem
        self.sockets, self.threads = sockets, threads
        self.cores = cores if cores is not None else smp // (sockets * threads)
        self.extra_check, self.expect_done = extra_check, expect_done

    def smp_spec(self):
        if self.sockets == 1 and self.threads == 1:
            return str(self.smp)
        return "%d,sockets=%d,cores=%d,threads=%d" % (self.smp, self.sockets, self.cores, self.threads)

    def expected_cpu(self, apic):
        """QEMU packs APIC IDs as package | core | thread bit fields (widths rounded up to powers of 2)."""
        tbits = (self.threads - 1).bit_length()
        cbits = (self.cores - 1).bit_length()
        thread = apic & ((1 << tbits) - 1)
        core = (apic >> tbits) & ((1 << cbits) - 1)
        package = apic >> (tbits + cbits)
        return package, core, thread


def check(cond, msg, errors):
    if not cond:
        errors.append(msg)


def check_topology(case, recs, errors):
    cpus = qbrecords.of_kind(recs, "cpu")
    check(len(cpus) == case.smp, "expected %d cpu records, got %d" % (case.smp, len(cpus)), errors)
    per_node = case.smp // case.numa
    for c in cpus:
        if case.down and c.get("online") is not True:
            continue  # the debug mode's CPU: its own check looks at it
        check(c.get("online") is True, "cpu %s not online" % c.get("index"), errors)
        want = case.expected_cpu(c["apic_id"])
        got = (c.get("package"), c.get("core"), c.get("thread"))
        check(got == want, "cpu %s (apic %s): package/core/thread %s, expected %s"
              % (c["index"], c["apic_id"], got, want), errors)
        want_node = c["apic_id"] // per_node if case.numa > 1 else 0
        check(c.get("node") == want_node, "cpu %s: node %s, expected %s" % (c["index"], c.get("node"), want_node), errors)
    by_index = {c["index"]: c for c in cpus}
    caches = qbrecords.of_kind(recs, "cache")
    for level, typ in ((1, "data"), (2, "unified"), (3, "unified")):
        inst = [k for k in caches if k["level"] == level and k["type"] == typ]
        covered = sorted(i for k in inst for i in k["shared_by"])
        online = sorted(i for i, c in by_index.items() if c.get("online") is True)
        check(covered == online, "L%d %s caches cover CPUs %s, expected each of %s once"
              % (level, typ, covered, online), errors)
        for k in inst:
            check(k["size"] > 0 and k["line"] > 0 and k["ways"] > 0, "L%d cache with empty geometry: %s" % (level, k), errors)
            members = [by_index[i] for i in k["shared_by"] if i in by_index]
            if case.down:
                continue  # sharing across a missing CPU is checked by the other cases
            if level <= 2:  # per core: exactly the SMT siblings
                keys = {(m["package"], m["core"]) for m in members}
                check(len(keys) == 1 and len(members) == case.threads,
                      "L%d instance shared by %s, expected the %d threads of one core" % (level, k["shared_by"], case.threads), errors)
            else:  # per package
                keys = {m["package"] for m in members}
                check(len(keys) == 1 and len(members) == case.cores * case.threads,
                      "L3 instance shared by %s, expected one whole package" % k["shared_by"], errors)


def check_common(case, recs, problems, errors):
    for no, why, raw in problems:
        errors.append("line %d: damaged record (%s): %s" % (no, why, raw[:120]))
    d = qbrecords.done(recs)
    check(d is not None, "no done record", errors)
    if d is None:
        return
    check(d.get("status") == case.expect_done, "done status %s, expected %s" % (d.get("status"), case.expect_done), errors)
    if case.refused:
        return
    boot = qbrecords.of_kind(recs, "boot")
    check(len(boot) == 1, "expected one boot record, got %d" % len(boot), errors)
    check(d.get("cpus_found") == case.smp and d.get("cpus_online") == case.smp - case.down,
          "cpus_found %s / cpus_online %s, expected %d / %d" % (d.get("cpus_found"), d.get("cpus_online"), case.smp,
                                                                 case.smp - case.down), errors)
    if boot:
        b = boot[0]
        for key in ("firmware_vendor", "firmware_revision", "cmdline", "tsc_hz", "tsc_source", "tsc_invariant",
                    "timer_overhead_ticks", "memory_bytes", "build", "ap_startup_us", "kernel_bytes"):
            check(key in b, "boot record lacks %s" % key, errors)
        check(b.get("tsc_hz", 0) > 0, "tsc_hz is %s" % b.get("tsc_hz"), errors)
        check(b.get("kernel_bytes", 1 << 30) <= 16 << 20, "kernel_bytes %s over 16 MiB" % b.get("kernel_bytes"), errors)
        check(b.get("numa_nodes") == case.numa, "numa_nodes %s, expected %d" % (b.get("numa_nodes"), case.numa), errors)
        for key in ("tsc_measured_hz", "tsc_cpuid_hz", "tsc_cpuid_leaf", "tsc_disagree_ppm", "tsc_calibration_ms",
                    "tsc_calibration_retries", "rdtsc_fence"):
            check(key in b, "boot record lacks %s" % key, errors)
        check(b.get("rdtsc_fence") in ("lfence (architectural)", "lfence (DE_CFG set)", "mfence+lfence"),
              "rdtsc_fence %r" % b.get("rdtsc_fence"), errors)
        # TCG signs leaf 0x40000000 whenever the CPU model keeps CPUID.1:ECX[31] (-hypervisor drops both).
        hv = (b.get("hypervisor"), b.get("hypervisor_vendor"), b.get("hypervisor_name"), "virtual_note" in b)
        want_hv = (True, "TCGTCGTCGTCG", "QEMU TCG", True) if "-hypervisor" not in case.cpu else (False, None, None, False)
        check(hv == want_hv, "boot: hypervisor, vendor, name, note %s, expected %s" % (hv, want_hv), errors)
        if b.get("tsc_source") in ("hpet", "pm-timer"):
            check((b.get("tsc_calibration_ms") or 0) >= 200, "calibrated over %s ms" % b.get("tsc_calibration_ms"), errors)
        ppm = b.get("tsc_disagree_ppm")
        tsc_err = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "tsc disagreement"]
        check((ppm is not None and ppm > 1000) == bool(tsc_err),
              "tsc_disagree_ppm %s but %d disagreement record(s)" % (ppm, len(tsc_err)), errors)
    for r in qbrecords.of_kind(recs, "result"):
        check(r.get("check") != "ok" or "reason" not in r,
              "%s/%s is ok but carries the reason %r" % (r.get("workload"), r.get("variant"), r.get("reason")), errors)
        check_figure(r, errors)
    for r in qbrecords.of_kind(recs, "error"):
        check(r.get("what") != "report", "report bug: %s" % r.get("detail"), errors)
    # Memory types: the buffers are write-back, every result says so, and the
    # memory record shows the MTRRs (the APs that QEMU's INIT reset are given
    # the BSP's, not reported as errors).
    if "safe" not in case.args.split():
        bad = [(r.get("workload"), r.get("variant"), r.get("mem_type")) for r in qbrecords.of_kind(recs, "result")
               if r.get("mem_type") != "WB"]
        check(not bad, "results whose mem_type is not WB: %s" % bad[:3], errors)
    mem = (qbrecords.of_kind(recs, "memory") or [{}])[0]
    check(isinstance(mem.get("mtrr"), dict) and mem.get("not_wb_bytes") == 0 and mem.get("pat0") == "WB",
          "memory record: mtrr %s, not_wb_bytes %s, pat0 %s" % (mem.get("mtrr"), mem.get("not_wb_bytes"),
                                                               mem.get("pat0")), errors)
    check(not [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "mtrr mismatch"],
          "mtrr mismatch records", errors)
    results = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "selftest"]
    check(len(results) >= 1 or "workloads=" in case.args, "no selftest results", errors)
    for r in results:
        if "hang-ap" in case.args:
            continue  # that case expects the failure; its own check looks
        check(r.get("check") == "ok", "selftest %s check %s (%s)" % (r.get("variant"), r.get("check"), r.get("reason")), errors)
        check(r.get("threads") == case.smp - (case.down if "ap-" in case.args else 0),
              "selftest %s ran on %s threads" % (r.get("variant"), r.get("threads")), errors)
        for key in ("n", "min", "q1", "median", "q3", "mean", "max", "stddev", "unit", "cpus", "noisy", "figure", "measures",
                    "params" if r.get("variant") == "padded-increment" else "n"):
            check(key in r, "result %s lacks %s" % (r.get("variant"), key), errors)
        # "clean" names the detectors that ran: the TSC check always, a source
        # the noise block calls unavailable never.
        clean, noise = r.get("clean") or {}, r.get("noise") or {}
        det = clean.get("detectors")
        if isinstance(clean, dict) and "reps" in clean:
            check(isinstance(det, list) and "tsc_backwards" in det,
                  "result %s: clean.detectors %s" % (r.get("variant"), det), errors)
            for name, field in (("aperf_mperf", "freq_mhz_min"), ("smi", "smis"), ("thermal", "throttled_reps")):
                check(not (det and name in det and isinstance(noise.get(field), str)),
                      "result %s: detector %s listed but %s is %s" % (r.get("variant"), name, field, noise.get(field)),
                      errors)


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
    check("cpus_found" in d and d.get("cpus_found") is None and d.get("cpus_online") is None,
          "done cpus_found %r / cpus_online %r: no CPU was counted, so unknown (null), not 0"
          % (d.get("cpus_found"), d.get("cpus_online")), errors)


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


COUNTER_LAYOUTS = ["packed", "padded", "array-header", "array-header-padded", "shared-atomic"]


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
    """Every variant x accumulator x size x thread count x placement, check ok, sizes recorded and named by
    what they are on the machine (a role only where it holds, else the bytes)."""
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "locality"]
    ncpu = len(qbrecords.of_kind(recs, "cpu"))
    counts = [c for c in (1, 2, 4, 8, 16) if c <= ncpu] + ([ncpu] if ncpu & (ncpu - 1) else [])
    measured = [r for r in res if r.get("check") != "skipped"]
    sizes = sorted({r["params"]["size"] for r in measured}, key=lambda s: min(
        r["params"]["bytes"] for r in measured if r["params"]["size"] == s))
    check(len(sizes) == 3, "locality sizes %s, expected three (l2, llc, dram or their bytes)" % sizes, errors)
    for size in sizes:
        for variant in ("interleaved", "blocked-strided", "blocked"):
            for acc in ("shared-slot", "private"):
                for n in counts:
                    for place in ("compact", "scatter"):
                        got = [r for r in res if r["variant"] == variant and r["threads"] == n
                               and r.get("params", {}).get("size") == size
                               and r["params"].get("accumulator") == acc
                               and (r["params"].get("placement") == place or place in r.get("same_placements", ()))]
                        what = "locality %s %s %s %d %s" % (size, variant, acc, n, place)
                        check(len(got) == 1, "%s: %d results" % (what, len(got)), errors)
                        for r in got:
                            check(r["check"] == "ok", "%s: check %s (%s)" % (what, r["check"], r.get("reason")), errors)
                            check(len(r.get("thread_ticks", [])) == n, "%s: thread_ticks" % what, errors)
                            check(r.get("bytes_per_tick", 0) > 0, "%s: bytes_per_tick" % what, errors)
                            check(r["params"].get("bytes", 0) == 4 * r["params"].get("ints", -1), "%s: bytes" % what, errors)
                            role = r["params"].get("size_role")
                            check(size == role.lower() if role else size not in ("l1", "l2", "llc", "dram"),
                                  "%s: size %s with role %s" % (what, size, role), errors)
                            gb = (r.get("measures") or {}).get("gb_per_s") or {}
                            check((gb.get("median") or 0) > 0 and gb.get("inverse") is True, "%s: gb_per_s %s" % (what, gb),
                                  errors)
    if sizes:
        small = [r for r in measured if r["params"]["size"] == sizes[0]]
        check(all(r["params"]["ints"] == 65536 for r in small), "the smallest size is not the seed's 64 Ki ints", errors)


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


CASES = [
    Case("smp1", 1, args="samples=off", extra_check=check_no_samples),
    Case("smp2", 2, extra_check=check_samples),
    Case("smp4", 4),
    Case("smp8-2sockets-smt-numa2", 8, sockets=2, cores=2, threads=2, numa=2),
    Case("bad-options", 2, args="reps=abc bogus=1 cpus=0 workloads=selftest,nosuch workloads=selftst profile=fast",
         extra_check=check_bad_options, expect_done="fail", refused=True),
    Case("finish-poweroff", 2, args="reps=1 finish=poweroff"),
    Case("counter-smp4", 4, args="workloads=counter",
         extra_check=check_counter(["l3"], ["smt", "l2", "package", "remote"])),
    Case("counter-2sockets-smt", 8, sockets=2, cores=2, threads=2, numa=2, args="workloads=counter",
         extra_check=check_counter(["smt", "l3", "remote"], ["l2", "package"])),
    Case("locality-smp4", 4, args="workloads=locality", extra_check=check_locality),
    Case("locality-smp3", 3, args="workloads=locality", extra_check=check_locality),
    Case("first-touch-smp4", 4, args="workloads=first-touch", extra_check=check_first_touch(1)),
    Case("first-touch-numa2", 4, sockets=2, numa=2, args="workloads=first-touch", extra_check=check_first_touch(2)),
    Case("flush-smp4", 4, args="workloads=flush", extra_check=check_flush),
    Case("state-turbo-off", 2, args="workloads=selftest,counter turbo=off prefetch=off iters=2000",
         extra_check=check_state(False, lambda w: w == 0)),
    Case("state-qemu64", 2, args="workloads=selftest turbo=off", cpu="qemu64", extra_check=check_qemu64),
    Case("topo-opteron-g3", 4, sockets=2, args="workloads=selftest", cpu="Opteron_G3", extra_check=check_fam10h_node),
    Case("state-intel-unsafe", 2, args="workloads=selftest turbo=off", cpu="max,vendor=GenuineIntel,-hypervisor",
         extra_check=check_state(False, lambda w: w is not None and w > 0, "already off")),
    Case("state-intel-safe", 2, args="workloads=selftest turbo=off safe", cpu="max,vendor=GenuineIntel,-hypervisor",
         extra_check=check_state(True, lambda w: w == 0, "safe mode")),
    Case("ap-silent", 4, args="workloads=selftest selftest=ap-silent", down=1,
         extra_check=check_cpu_left_out("cpu did not start", "failed", 0)),
    Case("ap-late", 4, args="workloads=selftest selftest=ap-late", down=1,
         extra_check=check_cpu_left_out("cpu did not start", "failed", 0)),
    Case("hang-ap", 4, args="workloads=selftest selftest=hang-ap", down=1, expect_done="fail",
         extra_check=check_cpu_left_out("cpu lost", "lost", 1)),
    Case("iommu-intel", 2, args="workloads=selftest", qemu_args=("-device", "intel-iommu"),
         extra_check=check_iommu("VT-d", "0xfed90000", "DMAR")),
    Case("iommu-amd", 2, args="workloads=selftest", qemu_args=("-device", "amd-iommu"),
         extra_check=check_iommu("AMD-Vi", "0xfed80000", "IVRS")),
    Case("fault-bsp", 2, args="reps=1 selftest=fault-bsp", extra_check=check_fault(0), expect_done="fail"),
    Case("fault-ap", 4, args="reps=1 selftest=fault-ap", extra_check=check_fault(3), expect_done="fail"),
]


def run_case(case, efi, logdir, timeout):
    log = os.path.join(logdir, case.name + ".log")
    cmd = [os.path.join(ROOT, "tools", "qemu-run"), "--efi", efi, "--smp", case.smp_spec(), "--mem", str(case.mem),
           "--numa", str(case.numa), "--cpu", case.cpu, "--timeout", str(timeout), "--log", log, "--quiet"] + \
        ["--qemu-arg=" + q for q in case.qemu_args] + ["--", "profile=quick " + case.args]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.time() - t0
    errors = []
    if p.returncode == 124:
        errors.append("timed out after %d s" % timeout)
    elif (p.returncode == 0) != (case.expect_done == "ok"):
        errors.append("qemu-run exit status %d, but the run should have %s"
                      % (p.returncode, "passed" if case.expect_done == "ok" else "failed"))
    recs, problems = qbrecords.parse_file(log) if os.path.exists(log) else ([], [])
    check_common(case, recs, problems, errors)
    if (not errors or recs) and not case.refused:
        check_topology(case, recs, errors)
    if case.extra_check:
        case.extra_check(recs, errors)
    return errors, elapsed, p.stdout, log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "boottest"))
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("cases", nargs="*", help="run only these cases")
    a = ap.parse_args()
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    for case in CASES:
        if a.cases and case.name not in a.cases:
            continue
        errors, elapsed, out, log = run_case(case, os.path.abspath(a.efi), a.logdir, a.timeout)
        if errors:
            failed += 1
            print("FAIL %s (%.1f s)" % (case.name, elapsed))
            for e in errors:
                print("  - " + e)
            print("  runner: " + out.strip().replace("\n", "\n  runner: "))
            print("  ---- serial log %s ----" % log)
            if os.path.exists(log):
                with open(log, encoding="latin-1") as f:
                    sys.stdout.write(f.read())
            print("  ---- end of log ----")
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (case.name, elapsed))
        sys.stdout.flush()
    print("boot tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
