#!/usr/bin/env python3
"""big_smp_tests - 768 threads kept working: QEMU 10 as a 2-socket Turin Dense machine (2 sockets x 192 cores x 2
threads, two NUMA nodes of 4 GiB, x2APIC with an IOMMU's interrupt remapping), the slow tier (make test-slow).

  smp768          profile=quick workloads=selftest on every CPU, through OVMF
                  and the UEFI loader: the selftest result covers every CPU
                  online, and is ok.
  smp768-quick16  profile=quick cpus=16, through SeaBIOS and the image's GRUB
                  (multiboot2): the whole quick profile on the first 16 CPUs
                  (8 cores, both threads of each), the other 752 parked;
                  every workload has its workload record, no result fails,
                  counter's matrix and noise's noise_cpu records are whole.
  smp768-plan     profile=full plan on every CPU, through SeaBIOS and GRUB:
                  the plan for the full profile on this machine (its default
                  30-minute budget) within the budget, every configuration
                  listed in plan_configs records, nothing measured; the
                  test's line gives each workload's estimated_s.

Both boot paths start all 768 CPUs; SeaBIOS lets go in about a minute,
OVMF (which starts every AP itself first) in 2-4.

Every case checks, at 768 CPUs: the boot record (x2APIC, 768 found, two
nodes, a TSC frequency); a cpu record for every CPU with its state, and the
set of APIC IDs QEMU packs for this topology (socket << 9 | core << 1 |
thread: APIC ID 255 and the jump to socket 1 at 512 included); each online
CPU's package, core, thread and node as that packing and the -numa split
say; each cache's sharers within one core (L1, L2) or one package (L3); no
record too long or damaged; and a done record. A vCPU that TCG starves
past a bound is allowed but must be said: each CPU that did not start has
its error record and the state `failed`, a CPU lost in a run its `cpu lost`
record, parked CPUs that did not check in the `cpus did not park` record;
the line counts them. Any other error record fails the case, and so does
fewer than 3/4 of the CPUs online.

smp768 and smp768-plan run QEMU's single-threaded TCG (qemu-run --tcg
single). With a host thread per vCPU, 768 vCPUs on a 2-core host spin
against each other: an all-CPU run took 10-30 s, past the selftest's
calibration and run bounds (they missed their barriers, done failed); under
OVMF the BSP, starved before it starts the APs, could not time the TSC
against the HPET (tsc_hz 0, nothing in ns: OVMF's APs seem to keep the host
busy, for through SeaBIOS, whose APs halt, it takes the usual 200 ms); and
1-3 APs missed the 1 s start bound. Round-robin TCG runs the next vCPU as soon
as one waits (PAUSE, HLT): all 768 check in within 0.2 s, and an all-CPU run
takes about a tenth of a second. smp768-quick16 runs multi-threaded TCG, as
the 288-CPU cases it replaces did: its 16 CPUs run at once on the host's
cores and the 752 others park at once, which one thread for all would never
do; SeaBIOS leaves its APs halted, so the BSP is not starved.

Timings are printed, never judged. Each case prints "ok NAME (...)" with
its wall time split into firmware and kernel, or "FAIL NAME" with its errors
and the last of the serial log (cpu, cache and state records left out); the
last line is "big smp tests: N passed, N failed".
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

SOCKETS, CORES, THREADS = 2, 192, 2
NCPU = SOCKETS * CORES * THREADS
NODES = 2                      # qemu-run --numa 2: CPUs 0-383 (socket 0) node 0, 384-767 node 1
MEM_MB = 8192                  # per-CPU stacks and tables, and the quick profile's buffers on 16 CPUs
MACHINE = ["--smp", "%d,sockets=%d,cores=%d,threads=%d" % (NCPU, SOCKETS, CORES, THREADS),
           "--numa", str(NODES), "--mem", str(MEM_MB),
           "--machine-opts", "kernel-irqchip=split", "--cpu", "max,+x2apic",
           "--qemu-arg=-device", "--qemu-arg=intel-iommu,intremap=on,eim=on"]
START_TIMEOUT_S = 480          # OVMF starts the 768 APs itself first: 2-4 minutes under TCG, SeaBIOS about 1
STARVED = ("cpu did not start", "cpu lost", "cpus did not park")  # TCG starved a vCPU past a bound: said, allowed
STATES = ("online", "failed", "lost", "parked", "halted")  # every CPU QEMU made is present and enabled
LEFT_OUT = ('"kind":"cpu"', '"kind":"cache"', '"kind":"state"')  # 768 of each: not printed on failure
WORKLOADS = ("selftest", "counter", "locality", "first-touch", "flush", "noise")
FIRMWARE_END = ("quietbench: ", "leaving")  # both loaders' last line before the kernel
FIRMWARE = {"ovmf": "OVMF", "seabios": "SeaBIOS and GRUB"}


def bits(n):
    """Bits of an APIC ID field that holds n values (QEMU's apicid_bitwidth_for_count)."""
    return (n - 1).bit_length()


def qemu_cpus():
    """QEMU's CPUs in its own order, each {apic_id: (package, core, thread, node)}: x86 packs thread, core and
    socket fields of the APIC ID (hw/i386/topology.h, no dies or modules), and qemu-run --numa splits the CPU
    indexes evenly over the nodes."""
    out = {}
    for i in range(NCPU):
        s, c, t = i // (CORES * THREADS), i // THREADS % CORES, i % THREADS
        apic = s << (bits(CORES) + bits(THREADS)) | c << bits(THREADS) | t
        out[apic] = (s, c, t, i // (NCPU // NODES))
    return out


def boot(a, name, firmware, tcg, words, timeout):
    """Boot the machine through OVMF and the UEFI loader, or SeaBIOS and the image's GRUB (multiboot2); returns
    (exit status, qemu-run's output, records, damaged, log, wall s, firmware s)."""
    log = os.path.join(a.logdir, name + ".log")
    how = ["--efi", os.path.abspath(a.efi)] if firmware == "ovmf" else \
        ["--image", os.path.abspath(a.image), "--firmware", "seabios", "--sata"]
    cmd = [os.path.join(ROOT, "tools", "qemu-run"), "--qemu", a.qemu, "--timeout", str(timeout), "--start-timeout",
           str(START_TIMEOUT_S), "--log", log, "--tcg", tcg] + how + MACHINE + ["--"] + words
    t0 = time.time()
    let_go = None
    out = []
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    for line in p.stdout:  # the serial log as it comes: when the firmware let go
        if let_go is None and all(k in line for k in FIRMWARE_END):
            let_go = time.time() - t0
        if not any(k in line for k in LEFT_OUT):
            out.append(line)
    rc = p.wait()
    recs, problems = qbrecords.parse_file(log) if os.path.exists(log) else ([], [])
    return rc, "".join(out[-400:]), recs, problems, log, time.time() - t0, let_go


def check_machine(recs, errors, use):
    """What every case must show of the machine; returns the starvation counts for the line."""
    b = (qbrecords.of_kind(recs, "boot") or [{}])[0]
    if b.get("apic_mode") != "x2apic":
        errors.append("boot apic_mode %s, expected x2apic" % b.get("apic_mode"))
    if not b.get("tsc_hz"):  # the BSP starved while it timed the TSC against the HPET: nothing would be in ns
        errors.append("boot: tsc_hz %s (%s): the TSC frequency is unknown" % (b.get("tsc_hz"), b.get("tsc_source")))
    if (b.get("cpus_found"), b.get("numa_nodes")) != (NCPU, NODES):
        errors.append("boot: cpus_found %s, numa_nodes %s, expected %d and %d"
                      % (b.get("cpus_found"), b.get("numa_nodes"), NCPU, NODES))
    want = qemu_cpus()
    cpus = qbrecords.of_kind(recs, "cpu")
    if sorted(c.get("index") for c in cpus) != list(range(NCPU)):
        errors.append("%d cpu records, expected one for each of %d CPUs" % (len(cpus), NCPU))
    if sorted(c.get("apic_id") for c in cpus) != sorted(want):
        errors.append("cpu records' APIC IDs are not the %d QEMU packs for %d x %d x %d (missing %s)"
                      % (NCPU, SOCKETS, CORES, THREADS, sorted(set(want) - {c.get("apic_id") for c in cpus})[:8]))
    bad = [c for c in cpus if c.get("state") not in STATES]
    if bad:
        errors.append("%d cpu records without a known state, e.g. %s" % (len(bad), bad[0]))
    topo = {}
    wrong = []
    for c in cpus:
        w = want.get(c.get("apic_id"))
        if w is None:
            continue
        if c.get("node") != w[3]:
            wrong.append("cpu %s (APIC ID %s): node %s, expected %d" % (c.get("index"), c.get("apic_id"),
                                                                         c.get("node"), w[3]))
        if c.get("state") != "online":
            continue
        got = (c.get("package"), c.get("core"), c.get("thread"))
        topo[c.get("index")] = got
        if got != w[:3]:
            wrong.append("cpu %s (APIC ID %s): package/core/thread %s, expected %s"
                         % (c.get("index"), c.get("apic_id"), got, w[:3]))
    if wrong:
        errors.append("%d CPUs placed wrongly: %s" % (len(wrong), "; ".join(wrong[:4])))
    check_caches(recs, errors, topo)

    st = {}
    for c in cpus:
        st.setdefault(c.get("state"), []).append(c.get("index"))
    online, failed, lost = (len(st.get(s, [])) for s in ("online", "failed", "lost"))
    err = qbrecords.of_kind(recs, "error")
    told = {w: [e for e in err if e.get("what") == w] for w in STARVED}
    if sorted(e.get("cpu") for e in told["cpu did not start"]) != sorted(st.get("failed", [])):
        errors.append("CPUs failed %s, but 'cpu did not start' records for %s"
                      % (st.get("failed", [])[:8], [e.get("cpu") for e in told["cpu did not start"]][:8]))
    if sorted(e.get("cpu") for e in told["cpu lost"]) != sorted(st.get("lost", [])):
        errors.append("CPUs lost %s, but 'cpu lost' records for %s"
                      % (st.get("lost", [])[:8], [e.get("cpu") for e in told["cpu lost"]][:8]))
    if online + failed + lost != use:
        errors.append("%d online, %d failed, %d lost: expected %d CPUs used" % (online, failed, lost, use))
    if online < use * 3 // 4:
        errors.append("only %d of %d CPUs online" % (online, use))
    parked = len(st.get("parked", []))
    if parked != NCPU - use:
        errors.append("%d parked, expected %d" % (parked, NCPU - use))
    unpark = sum(e.get("started", 0) - e.get("parked", 0) for e in told["cpus did not park"])
    others = [e for e in err if e.get("what") not in STARVED]
    if others:
        errors.append("%d other error records: %s" % (len(others), others[:3]))
    d = qbrecords.done(recs) or {}
    if (d.get("cpus_found"), d.get("cpus_online"), d.get("cpus_lost")) != (NCPU, online, lost):
        errors.append("done: cpus_found %s, cpus_online %s, cpus_lost %s; the cpu records say %d, %d, %d"
                      % (d.get("cpus_found"), d.get("cpus_online"), d.get("cpus_lost"), NCPU, online, lost))
    return failed, lost, unpark


def check_caches(recs, errors, topo):
    """Each cache's sharers are online CPUs of one core (L1, L2) or one package (L3)."""
    bad = []
    for k in qbrecords.of_kind(recs, "cache"):
        who = k.get("shared_by") or []
        if any(c not in topo for c in who):
            bad.append("L%s shared by CPUs not online: %s" % (k.get("level"), who[:8]))
            continue
        key = (lambda c: topo[c][:2]) if k.get("level") in (1, 2) else (lambda c: topo[c][0])
        if len({key(c) for c in who}) > 1:
            bad.append("L%s shared across %s: %s" % (k.get("level"), "cores" if k.get("level") in (1, 2)
                                                     else "packages", who[:8]))
    if bad:
        errors.append("%d cache records wrong: %s" % (len(bad), "; ".join(bad[:3])))
    if not any(k.get("level") == 3 for k in qbrecords.of_kind(recs, "cache")):
        errors.append("no L3 cache record")


def check_selftest(recs, errors):
    """Every online CPU in the selftest's result, which is ok."""
    online = sorted(c.get("index") for c in qbrecords.of_kind(recs, "cpu") if c.get("state") == "online")
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "selftest"
           and r.get("variant") == "padded-increment"]
    if len(res) != 1:
        errors.append("%d selftest padded-increment results, expected 1" % len(res))
        return ""
    r = res[0]
    if sorted(r.get("cpus") or []) != online or r.get("threads") != len(online):
        errors.append("selftest ran on %s CPUs, not on the %d online" % (r.get("threads"), len(online)))
    if r.get("check") != "ok":
        errors.append("selftest check %s (%s)" % (r.get("check"), r.get("reason")))
    return "selftest on %s CPUs" % r.get("threads")


def check_quick(recs, errors):
    """The quick profile on the first 16 CPUs: every workload's record, no result failed, none on a parked CPU."""
    online = {c.get("index") for c in qbrecords.of_kind(recs, "cpu") if c.get("state") == "online"}
    names = [w.get("name") for w in qbrecords.of_kind(recs, "workload")]
    if sorted(names) != sorted(WORKLOADS):
        errors.append("workload records %s, expected %s" % (names, list(WORKLOADS)))
    res = qbrecords.of_kind(recs, "result")
    bad = [r for r in res if r.get("check") not in ("ok", "short", "skipped")]
    if bad:
        errors.append("%d results failed, e.g. %s %s: %s" % (len(bad), bad[0].get("workload"), bad[0].get("variant"),
                                                             bad[0].get("reason")))
    away = [r for r in res if not set(r.get("cpus") or []) <= online]
    if away:
        errors.append("%d results on CPUs not online, e.g. %s %s" % (len(away), away[0].get("workload"),
                                                                     away[0].get("cpus")))
    mats = qbrecords.matrices(recs)
    if not any(m.get("workload") == "counter" for m in mats) or any(m.get("values") is None for m in mats):
        errors.append("counter's core-to-core matrix missing, or a matrix with a row missing")
    noise = sorted(n.get("cpu") for n in qbrecords.of_kind(recs, "noise_cpu"))
    spun = [r.get("cpus") for r in res if r.get("workload") == "noise"]
    if not noise or [sorted(c or []) for c in spun] != [noise] or not set(noise) <= online:
        errors.append("noise_cpu records for CPUs %s, its result's %s, online %s" % (noise, spun, sorted(online)))
    return "%d results, %d workloads" % (len(res), len(names))


def check_plan(recs, errors):
    """The full profile's plan at 768 CPUs: every workload estimated, every configuration listed, nothing run."""
    plans = qbrecords.of_kind(recs, "plan")
    if len(plans) != 1:
        errors.append("%d plan records, expected 1" % len(plans))
        return ""
    p = plans[0]
    if not p.get("plan_only") or qbrecords.of_kind(recs, "result"):
        errors.append("plan_only %s with %d results: plan= must stop before measuring"
                      % (p.get("plan_only"), len(qbrecords.of_kind(recs, "result"))))
    ws = {w.get("name"): w for w in p.get("workloads") or []}
    if sorted(ws) != sorted(WORKLOADS):
        errors.append("plan's workloads %s, expected %s" % (sorted(ws), sorted(WORKLOADS)))
    est = p.get("estimated_s")
    if not isinstance(est, (int, float)) or est <= 0 or (p.get("budget_s") and est > p["budget_s"]):
        errors.append("plan estimated_s %s against a budget of %s" % (est, p.get("budget_s")))
    if p.get("not_planned"):
        errors.append("%s configurations not planned (the plan's table is full)" % p["not_planned"])
    listed = {}
    for pc in qbrecords.of_kind(recs, "plan_configs"):  # a workload's records follow on: first is what came before
        w = pc.get("workload")
        if pc.get("first") != listed.get(w, 0):
            errors.append("%s: a plan_configs record starts at %s after %d listed" % (w, pc.get("first"),
                                                                                    listed.get(w, 0)))
        listed[w] = listed.get(w, 0) + len(pc.get("configs") or [])
    for name, w in sorted(ws.items()):
        if not isinstance(w.get("estimated_s"), (int, float)):
            errors.append("%s: estimated_s %s" % (name, w.get("estimated_s")))
        if listed.get(name, 0) != w.get("configs"):
            errors.append("%s: %s configurations planned, %d listed in plan_configs records"
                          % (name, w.get("configs"), listed.get(name, 0)))
    return "full profile planned at %s s of a %s s budget (%s)" % (
        est, p.get("budget_s"), ", ".join("%s %s s" % (n, ws[n].get("estimated_s")) for n in WORKLOADS
                                          if n in ws))


# name, firmware, TCG threads, kernel words, CPUs used, check, done status required, qemu-run timeout (s: about
# twice what a 2-core host takes, so that a hang cannot hold the slow tier for long)
CASES = [
    ("smp768", "ovmf", "single", ["profile=quick", "workloads=selftest"], NCPU, check_selftest, "ok", 900),
    ("smp768-quick16", "seabios", "multi", ["profile=quick", "cpus=16"], 16, check_quick, "ok", 420),
    ("smp768-plan", "seabios", "single", ["profile=full", "plan"], NCPU, check_plan, "ok", 1200),
]


def judge(recs, problems, rc, use, check, want):
    """(errors, text for the line)."""
    errors = ["line %d: damaged record (%s)" % (no, why) for no, why, _ in problems]
    d = qbrecords.done(recs)
    if d is None:
        return errors + ["no done record: the run ended in silence (qemu-run exit %d)" % rc], ""
    failed, lost, unpark = check_machine(recs, errors, use)
    what = check(recs, errors)
    # A CPU lost in a run fails it, and is said: that is the kernel keeping its promise.
    if d.get("status") != want and not (lost and d.get("cpus_lost") == lost):
        errors.append("done status %s (%s), expected %s" % (d.get("status"), d.get("reason"), want))
    starved = "TCG starved %d CPU(s) past the start bound, %d lost in a run, %d did not park" % (failed, lost, unpark)
    return errors, "done %s, %s of %s CPUs online; %s; %s" % (d.get("status"), d.get("cpus_online"),
                                                              d.get("cpus_found"), starved, what)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "quietbench.img"))
    ap.add_argument("--qemu", default=os.path.join(ROOT, "build", "qemu10", "usr", "bin", "qemu-system-x86_64"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "bigsmp"))
    ap.add_argument("--check-log", metavar="LOG", help="judge a saved serial log as CASE's (no boot)")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    cases = [c for c in CASES if not a.cases or c[0] in a.cases]
    if a.check_log:
        if len(cases) != 1:
            print("big smp tests: --check-log takes one case name")
            return 2
        name, _, _, _, use, check, want, _ = cases[0]
        recs, problems = qbrecords.parse_file(a.check_log)
        errors, line = judge(recs, problems, 0, use, check, want)
        print(("FAIL %s: " % name + "; ".join(errors)) if errors else "ok   %s: %s" % (name, line))
        return 1 if errors else 0
    if not os.path.exists(a.qemu):
        print("big smp tests: no QEMU 10 at %s (run tools/qemu10)" % a.qemu)
        return 2
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    t_all = time.time()
    for name, firmware, tcg, words, use, check, want, timeout in cases:
        rc, out, recs, problems, log, wall, fw = boot(a, name, firmware, tcg, words, timeout)
        errors, line = judge(recs, problems, rc, use, check, want)
        split = "%s %.0f s, then %.0f s" % (FIRMWARE[firmware], fw, wall - fw) if fw is not None else \
            "the firmware never let go"
        if errors:
            failed += 1
            print("FAIL %s (%.0f s wall: %s)" % (name, wall, split))
            for e in errors:
                print("  - " + e)
            print("  ---- qemu-run and the serial log, the last 400 lines (cpu, cache and state records left out; "
                  "all in %s) ----\n%s  ---- end ----" % (log, out))
        else:
            passed += 1
            print("ok   %s (%.0f s wall, %s-threaded TCG: %s; %s)" % (name, wall, tcg, split, line))
        sys.stdout.flush()
    print("big smp tests: %d passed, %d failed (%.0f s)" % (passed, failed, time.time() - t_all))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
