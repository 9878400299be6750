#!/usr/bin/env python3
"""run_boot_tests - boot QuietBench in QEMU in several configurations and check the records.

Each case runs tools/qemu-run with a timeout, then checks: every record's CRC,
done ok, cpus_online == cpus_found == the configured count, one cpu record
per CPU with the expected package/core/thread/node, cache records that cover
every CPU with sharing that matches the configuration, and selftest results
with check ok, the flush check's "cannot tell" on every cache domain (TCG
has no caches: "no visible caches", or on a loaded host disturbed rounds,
never a finding) in the state record and every flushed result, every result's
clock_mhz (or the reason it has none), and where every workload runs the
noise result. A failing case prints its serial log. The last line is the
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
from boot_checks import *  # noqa: E402,F401,F403  (the per-case checks CASES names)
from numa_checks import HMAT_QEMU, check_numa_claims  # noqa: E402
from smbios_checks import QEMU_ARGS as SMBIOS_QEMU, check_smbios  # noqa: E402


class Case:
    def __init__(self, name, smp, sockets=1, cores=None, threads=1, numa=1, args="", mem=1024,
                 extra_check=None, expect_done="ok", cpu="max", down=0, refused=False, qemu_args=(), mem_nodes=0,
                 machine_opts=""):
        self.cpu = cpu
        self.mem_nodes = mem_nodes  # of the numa nodes, the last mem_nodes have memory and no CPUs
        self.machine_opts = machine_opts  # -machine q35,<these>
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
    per_node = case.smp // (case.numa - case.mem_nodes)
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
    check_clock(recs, errors)
    check_cpu_counts(recs, errors)
    if "workloads=" not in case.args and case.expect_done == "ok":
        check_noise_result(recs, errors, case.smp - case.down)
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
    check_flush_cannot_tell(recs, errors)
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


CASES = [
    Case("smp1", 1, args="samples=off", extra_check=check_no_samples),
    Case("smp2", 2, extra_check=check_samples),
    Case("smp4", 4),
    Case("smp8-2sockets-smt-numa2", 8, sockets=2, cores=2, threads=2, numa=2, extra_check=check_locality),
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
    Case("numa-hmat-memory-only", 4, sockets=2, numa=4, mem_nodes=2, mem=2048, machine_opts="hmat=on",
         args="workloads=first-touch sp_memory=on", qemu_args=HMAT_QEMU, extra_check=check_numa_claims),
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
    # The last AP reaches its mailbox only after the BSP posted the first job (the
    # TSC offset ping-pong): it must run it, not wait for the next one and be lost.
    Case("ap-dawdle", 2, args="workloads=selftest selftest=ap-dawdle"),
    Case("hang-ap", 4, args="workloads=selftest selftest=hang-ap", down=1, expect_done="fail",
         extra_check=check_cpu_left_out("cpu lost", "lost", 1)),
    Case("iommu-intel", 2, args="workloads=selftest", qemu_args=("-device", "intel-iommu"),
         extra_check=check_iommu("VT-d", "0xfed90000", "DMAR")),
    Case("iommu-amd", 2, args="workloads=selftest", qemu_args=("-device", "amd-iommu"),
         extra_check=check_iommu("AMD-Vi", "0xfed80000", "IVRS")),
    Case("fault-bsp", 2, args="reps=1 selftest=fault-bsp", extra_check=check_fault(0), expect_done="fail"),
    Case("fault-ap", 4, args="reps=1 selftest=fault-ap", extra_check=check_fault(3), expect_done="fail"),
    # SMBIOS (issue 37): the product and the DIMM QEMU is told of, from OVMF's 2.x entry point and its 3.0 one.
    Case("smbios-ovmf", 2, args="workloads=selftest", qemu_args=SMBIOS_QEMU,
         extra_check=check_smbios("uefi-smbios", "2.8")),
    Case("smbios3-ovmf", 2, args="workloads=selftest", qemu_args=SMBIOS_QEMU, machine_opts="smbios-entry-point-type=64",
         extra_check=check_smbios("uefi-smbios3", "3.0.0")),
]


def run_case(case, efi, logdir, timeout):
    log = os.path.join(logdir, case.name + ".log")
    cmd = [os.path.join(ROOT, "tools", "qemu-run"), "--efi", efi, "--smp", case.smp_spec(), "--mem", str(case.mem),
           "--numa", "%d+%d" % (case.numa - case.mem_nodes, case.mem_nodes), "--cpu", case.cpu, "--timeout",
           str(timeout), "--log", log, "--quiet"] + \
        (["--machine-opts", case.machine_opts] if case.machine_opts else []) + \
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
