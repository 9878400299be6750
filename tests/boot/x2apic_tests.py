#!/usr/bin/env python3
"""x2apic_tests - CPUs past the xAPIC's reach, under QEMU 10 (tools/qemu10), whose TCG has x2APIC.

Fast tier (make x2apictest, part of make test):
  x2apic-256     -smp 3,maxcpus=512,sockets=2,cores=256 plus a CPU at socket 1
                 (APIC ID 256), an IOMMU with interrupt remapping (eim=on) and
                 kernel-irqchip=split: the boot record says x2apic, every
                 present CPU comes online (the one at APIC ID 256 too), the
                 hot-pluggable MADT entries are listed as not present, done ok.
  fault-cpus1    2 CPUs, cpus=1 selftest=fault-bsp: the CPU left out is parked,
                 the fault's error record and a failed done record both appear
                 (no NMI reaches a CPU QuietBench did not start).

The slow tier's big machine (768 CPUs, 2 sockets x 192 cores x 2 threads)
is tests/boot/big_smp_tests.py's; it replaced the 288-CPU cases that were
here.

Each case prints "ok NAME (T s)" with its wall and kernel time, or "FAIL NAME"
with its errors and the serial log; the last line is "x2apic tests: N passed,
N failed".
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

X2APIC_MACHINE = ["--machine-opts", "kernel-irqchip=split", "--cpu", "max,+x2apic",
                  "--qemu-arg=-device", "--qemu-arg=intel-iommu,intremap=on,eim=on"]


def boot(qemu, efi, logdir, name, smp, extra, words, timeout, mem=1024):
    log = os.path.join(logdir, name + ".log")
    cmd = [os.path.join(ROOT, "tools", "qemu-run"), "--qemu", qemu, "--efi", efi, "--smp", smp,
           "--mem", str(mem), "--timeout", str(timeout), "--log", log, "--quiet"] + extra + ["--"] + words
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    recs, problems = qbrecords.parse_file(log) if os.path.exists(log) else ([], [])
    return p.returncode, p.stdout, recs, problems, log, time.time() - t0


def cpu_states(recs):
    out = {}
    for c in qbrecords.of_kind(recs, "cpu"):
        out.setdefault(c.get("state"), []).append(c)
    return out


def check_x2apic_256(recs, errors):
    b = (qbrecords.of_kind(recs, "boot") or [{}])[0]
    if b.get("apic_mode") != "x2apic":
        errors.append("boot apic_mode %s, expected x2apic" % b.get("apic_mode"))
    st = cpu_states(recs)
    online = st.get("online", [])
    ids = sorted(c.get("apic_id") for c in online)
    if ids != [0, 1, 2, 256]:
        errors.append("online APIC IDs %s, expected [0, 1, 2, 256]" % ids)
    c256 = [c for c in online if c.get("apic_id") == 256]
    if c256 and c256[0].get("package") != 1:
        errors.append("the CPU at APIC ID 256 is in package %s, expected 1" % c256[0].get("package"))
    if len(st.get("not-present", [])) != 508:
        errors.append("%d not-present CPUs, expected 508 hot-pluggable MADT entries"
                      % len(st.get("not-present", [])))
    d = qbrecords.done(recs) or {}
    if (d.get("cpus_found"), d.get("cpus_online")) != (4, 4):
        errors.append("done: cpus_found %s, cpus_online %s, expected 4 and 4" % (d.get("cpus_found"), d.get("cpus_online")))
    if qbrecords.of_kind(recs, "error"):
        errors.append("error records: %s" % qbrecords.of_kind(recs, "error")[:3])


def check_fault_cpus1(recs, errors):
    ex = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "exception"]
    if not ex or ex[0].get("vector") != 14 or ex[0].get("cpu") != 0:
        errors.append("no page-fault error record on cpu 0: %s" % ex[:1])
    st = cpu_states(recs)
    if len(st.get("parked", [])) != 1:
        errors.append("%d parked CPUs, expected 1" % len(st.get("parked", [])))


# name, smp, extra qemu-run arguments, kernel words, check, done status, timeout, mem
CASES = [
    ("x2apic-256", "3,maxcpus=512,sockets=2,cores=256,threads=1",
     X2APIC_MACHINE + ["--qemu-arg=-device", "--qemu-arg=max-x86_64-cpu,socket-id=1,core-id=0,thread-id=0"],
     ["profile=quick", "workloads=selftest"], check_x2apic_256, "ok", 300, 1024),
    ("fault-cpus1", "2", [], ["profile=quick", "reps=1", "cpus=1", "selftest=fault-bsp"], check_fault_cpus1,
     "fail", 300, 1024),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--qemu", default=os.path.join(ROOT, "build", "qemu10", "usr", "bin", "qemu-system-x86_64"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "x2apictest"))
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if not os.path.exists(a.qemu):
        print("x2apic tests: no QEMU 10 at %s (run tools/qemu10)" % a.qemu)
        return 2
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    for name, smp, extra, words, check, want, timeout, mem in CASES:
        if a.cases and name not in a.cases:
            continue
        rc, out, recs, problems, log, wall = boot(a.qemu, os.path.abspath(a.efi), a.logdir, name, smp, extra, words,
                                                  timeout, mem)
        errors = ["line %d: damaged record (%s)" % (no, why) for no, why, _ in problems]
        d = qbrecords.done(recs)
        if d is None:
            errors.append("no done record: the run ended in silence (qemu-run exit %d)" % rc)
        elif want and d.get("status") != want:
            errors.append("done status %s (%s), expected %s" % (d.get("status"), d.get("reason"), want))
        else:
            check(recs, errors)
        kernel = "%.1f s in the kernel" % (d["elapsed_ms"] / 1000.0) if d and d.get("elapsed_ms") else "no kernel time"
        if errors:
            failed += 1
            print("FAIL %s (%.1f s wall, %s)" % (name, wall, kernel))
            for e in errors:
                print("  - " + e)
            print("  ---- qemu-run ----\n" + out)
            print("  ---- serial log %s (cpu records left out) ----" % log)
            with open(log, encoding="latin-1") as f:
                sys.stdout.write("".join(ln for ln in f if '"kind":"cpu"' not in ln))
            print("  ---- end of log ----")
        else:
            passed += 1
            lost = d.get("cpus_lost") if d else None
            print("ok   %s (%.1f s wall, %s, done %s, %s of %s CPUs online, %s lost)"
                  % (name, wall, kernel, d.get("status"), d.get("cpus_online"), d.get("cpus_found"), lost))
        sys.stdout.flush()
    print("x2apic tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
