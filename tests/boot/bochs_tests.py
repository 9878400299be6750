#!/usr/bin/env python3
"""bochs_tests - QuietBench under Bochs 2.7, which raises #GP on every MSR it does not model.

QEMU reads a missing MSR as 0; Bochs, like real CPUs and hypervisors, raises
#GP (ignore_bad_msrs=0). Each case boots a private copy of build/quietbench.img
through SeaBIOS (Bochs's own BIOS crashes GRUB 2.06) and the image's GRUB,
on the multiboot2 path, with the menu entry and options set in the copy's
/quietbench.cfg with mtools, and reads the serial port's file until the done
record comes; then Bochs is stopped (there is no isa-debug-exit).

  intel        corei7_skylake_x, 1 CPU, quick selftest, flush and noise: done
               ok; the MSRs Bochs lacks are in the state record's msr_gp and
               reported "unavailable: #GP on MSR 0x..." where their values
               would be (every result's clock_note: IA32_MPERF's #GP); the
               noise loop ends ok with nothing attributed to SMIs
               (MSR_SMI_COUNT faults).
  amd          ryzen, 1 CPU, the same.
  fault-2cpus  corei7_skylake_x with 2 CPUs, of which SeaBIOS's MADT lists one,
               and selftest=fault-bsp: the fault's error record and a failed
               done record both appear (no NMI reaches the CPU QuietBench never
               learnt of, still waiting for a SIPI in firmware).

The only error record a clean case may carry is "tsc disagreement": Bochs's
TSC runs at its instruction rate (4 MHz), not at CPUID's 3.5 GHz, and saying
so is right. Each case prints "ok NAME (T s)" or "FAIL NAME" with its errors,
the serial log and Bochs's log; the last line is "bochs tests: N passed, N failed".
"""
import argparse
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

FAT_OFFSET = "@@1M"          # tools/mkimage: the FAT partition starts at 1 MiB
SEABIOS = "/usr/share/seabios/bios.bin"
VGABIOS = "/usr/share/vgabios/vgabios.bin"

BOCHSRC = """megs: 512
romimage: file={seabios}
vgaromimage: file={vgabios}
cpu: model={model}, count={count}, ignore_bad_msrs=0
ata0-master: type=disk, path={disk}, mode=flat
boot: disk
com1: enabled=1, mode=file, dev={serial}
display_library: rfb, options="timeout=0"
clock: sync=none
log: {log}
"""

QB_CFG = """# written by tests/boot/bochs_tests.py
set qb_options="{options}"
set timeout=0
set default={entry}
"""


def prepare(tmp, image, model, count, entry, options):
    disk = os.path.join(tmp, "disk.img")
    shutil.copyfile(image, disk)
    cfg = os.path.join(tmp, "quietbench.cfg")
    with open(cfg, "w") as f:
        f.write(QB_CFG.format(options=options, entry=entry))
    subprocess.run(["mcopy", "-o", "-i", disk + FAT_OFFSET, cfg, "::/quietbench.cfg"], check=True)
    rc = os.path.join(tmp, "bochsrc")
    with open(rc, "w") as f:
        f.write(BOCHSRC.format(seabios=SEABIOS, vgabios=VGABIOS, model=model, count=count, disk=disk,
                               serial=os.path.join(tmp, "serial.log"), log=os.path.join(tmp, "bochs.log")))
    cont = os.path.join(tmp, "continue")
    with open(cont, "w") as f:
        f.write("c\n")  # the debugger-enabled build stops at its prompt first
    return disk, rc, cont


def boot(image, model, count, entry, options, timeout):
    """Run Bochs until the done record (or the timeout); returns (records, problems, serial, bochs log, wall)."""
    tmp = tempfile.mkdtemp(prefix="qb-bochs-")
    disk, rc, cont = prepare(tmp, image, model, count, entry, options)
    serial = os.path.join(tmp, "serial.log")
    t0 = time.time()
    p = subprocess.Popen(["bochs", "-q", "-f", rc, "-rc", cont], cwd=tmp, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    text = ""
    try:
        while time.time() - t0 < timeout and p.poll() is None:
            time.sleep(0.5)
            if os.path.exists(serial):
                with open(serial, encoding="latin-1") as f:
                    text = f.read()
                if any(ln.startswith("@qb ") and '"kind":"done"' in ln and ln.rstrip().count(" ") >= 2
                       for ln in text.splitlines()[:-1] + ([text.splitlines()[-1]] if text.endswith("\n") else [])):
                    time.sleep(1)  # the lines after done
                    break
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        for lock in (disk + ".lock",):
            if os.path.exists(lock):
                os.remove(lock)
    wall = time.time() - t0
    if os.path.exists(serial):
        with open(serial, encoding="latin-1") as f:
            text = f.read()
    blog = ""
    if os.path.exists(os.path.join(tmp, "bochs.log")):
        with open(os.path.join(tmp, "bochs.log"), encoding="latin-1") as f:
            blog = f.read()
    shutil.rmtree(tmp, ignore_errors=True)
    recs, problems = qbrecords.parse_text(text)
    return recs, problems, text, blog, wall


def check_msrs_unavailable(recs, errors, blog, noise=False):
    state = [s for s in qbrecords.of_kind(recs, "state") if s.get("scope") == "run"]
    if not state:
        errors.append("no run state record")
        return
    gp = state[-1].get("msr_gp")
    if not isinstance(gp, list) or not gp:
        errors.append("msr_gp %s: Bochs lacks MSRs that CPUID lists, and they must show" % gp)
        return
    blob = json.dumps([r for r in recs if r.get("kind") in ("state", "result")])
    reported = {m for m in gp if "unavailable: #GP on MSR %s" % m in blob}
    if not reported:
        errors.append("none of the faulting MSRs %s is reported as 'unavailable: #GP on MSR ...'" % gp)
    for m in ("0xe7",):  # IA32_MPERF: CPUID.06H:ECX[0] says it exists, Bochs does not model it
        if state[-1].get("noise_sources", {}).get("aperf_mperf") not in (False, "unavailable: #GP on MSR %s" % m):
            errors.append("aperf_mperf %s" % state[-1].get("noise_sources", {}).get("aperf_mperf"))
    bad = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") != "tsc disagreement"]
    if bad:
        errors.append("error records: %s" % bad[:3])
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") in ("selftest", "flush")]
    if not [r for r in res if r.get("workload") == "flush"] or not [r for r in res if r.get("workload") == "selftest"]:
        errors.append("selftest and flush did not both report")
    # Every result's clock is null, with IA32_MPERF's #GP as its reason.
    for r in res:
        if r.get("check") != "skipped" and (r.get("clock_mhz") is not None or
                                             r.get("clock_note") != "unavailable: #GP on MSR 0xe7"):
            errors.append("%s/%s: clock_mhz %s, clock_note %r" % (r.get("workload"), r.get("variant"), r.get("clock_mhz"),
                                                                 r.get("clock_note")))
    # The noise loop where it was asked: ok, and with MSR_SMI_COUNT's #GP (Intel) nothing is attributed to SMIs.
    got = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "noise"]
    if noise:
        g = got[0].get("gaps") if got else None
        if not got or got[0].get("check") != "ok" or not isinstance(g, dict):
            errors.append("noise: %s" % [(r.get("check"), r.get("reason")) for r in got])
        elif "smi" in (g.get("attributed") or {}):
            errors.append("noise: SMIs attributed although MSR_SMI_COUNT faults: %s" % g.get("attributed"))


def check_fault(recs, errors, blog):
    """SeaBIOS's MADT lists one CPU although Bochs has two: the second is a CPU
    QuietBench never learns of, left in the firmware's wait-for-SIPI. The fault
    must still print its error record, then done; before, the NMI broadcast to
    "all excluding self" went to that CPU too, and the machine triple-faulted
    before anything was printed."""
    if "processors: 2" not in blog:
        errors.append("Bochs did not have 2 CPUs (its log lacks 'processors: 2')")
    d = qbrecords.done(recs) or {}
    if d.get("cpus_found") != 1:
        errors.append("cpus_found %s: expected the firmware's MADT to list only one of the two" % d.get("cpus_found"))
    ex = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "exception"]
    if not ex or ex[0].get("vector") != 14 or ex[0].get("cpu") != 0:
        errors.append("no page-fault error record on cpu 0: %s" % ex[:1])


# name, cpu model, CPUs, menu entry, options, check, done status
CASES = [
    ("intel", "corei7_skylake_x", 1, "quick", "workloads=selftest,flush,noise",
     functools.partial(check_msrs_unavailable, noise=True), "ok"),
    ("amd", "ryzen", 1, "quick", "workloads=selftest,flush", check_msrs_unavailable, "ok"),
    ("fault-2cpus", "corei7_skylake_x", 2, "quick", "workloads=selftest reps=1 selftest=fault-bsp",
     check_fault, "fail"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "quietbench.img"))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    for need in ("bochs", "mcopy"):
        if not shutil.which(need):
            print("bochs tests: %s is missing (tools/deps installs it)" % need)
            return 2
    passed = failed = 0
    for name, model, count, entry, options, check, want in CASES:
        if a.cases and name not in a.cases:
            continue
        recs, problems, text, blog, wall = boot(os.path.abspath(a.image), model, count, entry, options, a.timeout)
        errors = ["line %d: damaged record (%s)" % (no, why) for no, why, _ in problems]
        d = qbrecords.done(recs)
        if d is None:
            errors.append("no done record within %.0f s" % a.timeout)
        elif d.get("status") != want:
            errors.append("done status %s (%s), expected %s" % (d.get("status"), d.get("reason"), want))
        else:
            check(recs, errors, blog)
        if errors:
            failed += 1
            print("FAIL %s (%.1f s)" % (name, wall))
            for e in errors:
                print("  - " + e)
            print("  ---- serial log ----\n" + text + "\n  ---- Bochs log (last 40 lines) ----")
            print("\n".join(blog.splitlines()[-40:]))
            print("  ---- end ----")
        else:
            passed += 1
            gp = [s.get("msr_gp") for s in qbrecords.of_kind(recs, "state") if s.get("scope") == "run"]
            print("ok   %s (%.1f s, %s)" % (name, wall, "#GP on " + ", ".join(gp[-1]) if gp and gp[-1] else "done"))
        sys.stdout.flush()
    print("bochs tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
