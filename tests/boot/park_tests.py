#!/usr/bin/env python3
"""park_tests - CPUs the run does not use rest in QuietBench's own code, and the console goes where console= says.

  parked-halted   -smp 4 cpus=2: while the selftest runs, QEMU's monitor
                  (info registers -a) shows the two CPUs left out halted
                  (HLT=1), with RIP in the AP trampoline page (QuietBench's
                  park loop, not the firmware's), and the AP that works in
                  the kernel's text.
  console-com2    console=com2 with a second serial port: the records go to
                  COM2, COM1 only says where they went.

A failing case prints its serial log(s). The last line is
"park tests: N passed, N failed".
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

KERNEL_TEXT = 0xffffffff80000000
PAGE = 4096
CPU_REGS = re.compile(r"CPU#(\d+).*?RIP=([0-9a-f]+) .*? HLT=(\d)", re.S)


def monitor_command(path, command, timeout=30):
    """One command to QEMU's human monitor; its output up to the next prompt."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    buf = b""
    while b"(qemu)" not in buf:
        buf += s.recv(4096)
    s.sendall(command.encode() + b"\n")
    out = b""
    try:
        while b"(qemu)" not in out:
            chunk = s.recv(4096)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    s.close()
    return out.decode("latin-1")


def start(efi, smp, args, tmp, qemu_args=(), timeout=300):
    sock = os.path.join(tmp, "monitor.sock")
    cmd = [os.path.join(ROOT, "tools", "qemu-run"), "--efi", efi, "--smp", str(smp), "--timeout", str(timeout),
           "--monitor", sock, "--quiet", "--log", os.path.join(tmp, "com1.log")]
    cmd += ["--qemu-arg=" + q for q in qemu_args] + ["--"] + args.split()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    return proc, sock


def parked_halted(a, tmp, errors):
    # Long enough to look at the CPUs while it runs (a few seconds under TCG).
    args = "profile=quick workloads=selftest cpus=2 selftest_iters=300000000 reps=5"
    proc, sock = start(a.efi, 4, args, tmp)
    samples = []
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not os.path.exists(sock):
            time.sleep(0.2)
        # Sample once the boot record is out (it is written after the excluded CPUs were parked,
        # and says so in cpus_parked) and the selftest is under way.
        log = os.path.join(tmp, "com1.log")
        for _ in range(600):
            time.sleep(0.5)
            if proc.poll() is not None:
                break
            try:
                with open(log, encoding="latin-1") as f:
                    if '"kind":"boot"' not in f.read():
                        continue
            except OSError:
                continue
            try:
                out = monitor_command(sock, "info registers -a")
            except OSError:
                continue
            cpus = {int(m.group(1)): (int(m.group(2), 16), m.group(3) == "1") for m in CPU_REGS.finditer(out)}
            if len(cpus) == 4 and all(pc >= KERNEL_TEXT for pc, _ in (cpus[0], cpus[1])):
                samples.append(cpus)
            if len(samples) >= 3:
                break
        proc.wait(300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
    text = open(os.path.join(tmp, "com1.log"), encoding="latin-1").read()
    recs, problems = qbrecords.parse_text(text)
    d = qbrecords.done(recs)
    boot = qbrecords.of_kind(recs, "boot")
    if not d or d.get("status") != "ok":
        errors.append("done record: %s" % d)
    if not boot:
        errors.append("no boot record")
        return text
    b = boot[0]
    if b.get("cpus_parked") != 2 or b.get("cpus_online") != 2:
        errors.append("boot record: cpus_online %s, cpus_parked %s; expected 2 and 2" % (b.get("cpus_online"),
                                                                                     b.get("cpus_parked")))
    states = {c["index"]: c.get("state") for c in qbrecords.of_kind(recs, "cpu")}
    if states != {0: "online", 1: "online", 2: "parked", 3: "parked"}:
        errors.append("cpu record states %s" % states)
    tramp = int(str(b.get("ap_trampoline", "0")), 16)
    if not samples:
        errors.append("never saw the CPUs while the run was under way")
    for s in samples:
        for cpu in (2, 3):
            pc, halted = s[cpu]
            if not halted or not tramp <= pc < tramp + PAGE:
                errors.append("parked CPU %d: pc 0x%x%s, expected halted in the trampoline page 0x%x"
                              % (cpu, pc, " (halted)" if halted else " (running)", tramp))
        if s[1][0] < KERNEL_TEXT:
            errors.append("working CPU 1 at pc 0x%x, outside the kernel" % s[1][0])
    return text


def console_com2(a, tmp, errors):
    com2 = os.path.join(tmp, "com2.log")
    proc, _ = start(a.efi, 2, "profile=quick workloads=selftest console=com2", tmp,
                    qemu_args=("-serial", "file:" + com2))
    proc.wait(300)
    com1 = open(os.path.join(tmp, "com1.log"), encoding="latin-1").read()
    text2 = open(com2, encoding="latin-1").read() if os.path.exists(com2) else ""
    recs, problems = qbrecords.parse_text(text2)
    d = qbrecords.done(recs)
    if not d or d.get("status") != "ok" or problems:
        errors.append("COM2: done record %s, %d damaged" % (d, len(problems)))
    b = qbrecords.of_kind(recs, "boot")
    if not b or b[0].get("serial_base") != "0x2f8" or b[0].get("console_source") != "console=":
        errors.append("COM2 boot record: %s" % (b[0] if b else None))
    if '"kind":"done"' in com1:
        errors.append("COM1 got the done record too")
    if "console: moving to the I/O UART at 0x2f8" not in com1:
        errors.append("COM1 does not say where the console went")
    return "---- COM1 ----\n" + com1 + "\n---- COM2 ----\n" + text2


CASES = {"parked-halted": parked_halted, "console-com2": console_com2}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    passed = failed = 0
    for name, fn in CASES.items():
        if a.cases and name not in a.cases:
            continue
        errors = []
        t0 = time.time()
        with tempfile.TemporaryDirectory(prefix="qb-park-") as tmp:
            text = fn(a, tmp, errors)
        if errors:
            failed += 1
            print("FAIL %s (%.1f s)" % (name, time.time() - t0))
            for e in errors:
                print("  - " + e)
            print("  ---- serial log ----\n" + text + "\n  ---- end of log ----")
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (name, time.time() - t0))
        sys.stdout.flush()
    print("park tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
