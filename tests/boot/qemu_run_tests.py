#!/usr/bin/env python3
"""qemu_run_tests - tools/qemu-run as a user meets it: it ends when the run ends, says why when it cannot.

  smp-banana       --smp banana: a usage error, exit 2, at once, no QEMU.
  numa-odd         --smp 3 --numa 2: a usage error, exit 2; so are --numa 2+x
                   and --numa 2+1 with memory not divisible by the 3 nodes.
  finish-halt      finish=halt: qemu-run exits as soon as it has read the done
                   record (not after its timeout), with status 0 from done;
                   under single-threaded TCG (--tcg single, as the slow
                   tier's 768 CPUs run).
  done-fail        a run whose done says fail (selftest=fault-bsp) exits 1.
  firmware-death   --mem 32: OVMF faults before QuietBench starts; qemu-run
                   says the firmware died, exits 1, within seconds.
  interrupted      SIGINT during a run: QEMU stopped, exit 130, the log kept
                   with what came so far (written line by line) and a last
                   line saying it was stopped, which qb parse reports as an
                   interrupted run (not a hang); no /tmp/qb-qemu-* folder
                   left behind.
  image-usb        --image: a copy of the USB image boots as a stick on an
                   xHCI with the words after -- in its quietbench.cfg; its
                   results.log, read back, holds serial's records; exit 0.
  image-sata       --image --sata: the same copy from a SATA disk, results on
                   serial only (the results_file record says not-usb).
  image-refused    --image of a stick whose results.log was replaced by a
                   copy of results.prev (the loader refuses to write it): the
                   stick's results.log does not hold the run, and qemu-run
                   says so and exits 1.
  image-usage      --sata without --image, --sata with --ide, --firmware
                   seabios with a USB stick (the multiboot2 path writes no
                   results file to check), and series=N without --image (a
                   series' logs are on the stick): exit 2.
  sb-usage         --secure-boot without --image, --cert without mok or db, and
                   --secure-boot mok on a stick without a certificate: exit 2.
  quiet-explains   --quiet and a typo: the run fails, and the lines that say
                   why (error:, did you mean ...) are still shown; the done
                   line says no CPU was started, not "0 of 0 CPUs online".
  log-dir          --log-dir (make run): the run's log is DIR/run-<time>.log,
                   DIR/run.log points at it, and only the newest 20 runs are
                   kept, so two bad runs in a row do not lose a good one.

Each case prints "ok NAME (T s)" or "FAIL NAME" with its errors and output;
the last line is "qemu-run tests: N passed, N failed".
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
QEMU_RUN = os.path.join(ROOT, "tools", "qemu-run")


def run(efi, args, timeout=120):
    t0 = time.time()
    p = subprocess.run([QEMU_RUN, "--efi", efi, "--quiet"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return p.returncode, p.stdout, time.time() - t0


IMAGE = os.path.join(ROOT, "build", "quietbench.img")
QUICK = ["profile=quick", "workloads=selftest"]


def case_image_usb(efi, tmp):
    log = os.path.join(tmp, "image-usb.log")
    rc, out, wall = run(efi, ["--image", IMAGE, "--smp", "2", "--log", log, "--"] + QUICK, timeout=300)
    errs = [] if rc == 0 else ["exit %d, expected 0" % rc]
    if "the stick's results.log holds the" not in out:
        errs.append("no word that the stick's results.log was checked against serial")
    text = open(log, "rb").read().decode("latin-1") if os.path.exists(log) else ""
    if '"cmdline":"profile=quick workloads=selftest finish=qemu"' not in text:
        errs.append("the words after -- did not reach the kernel through quietbench.cfg")
    if '"kind":"results_file","status":"found"' not in text:
        errs.append("the results_file record does not say found")
    return errs, out


def case_image_sata(efi, tmp):
    log = os.path.join(tmp, "image-sata.log")
    rc, out, wall = run(efi, ["--image", IMAGE, "--sata", "--smp", "2", "--log", log, "--"] + QUICK, timeout=300)
    errs = [] if rc == 0 else ["exit %d, expected 0" % rc]
    text = open(log, "rb").read().decode("latin-1") if os.path.exists(log) else ""
    if '"kind":"results_file","status":"not-usb"' not in text:
        errs.append("the results_file record does not say not-usb")
    if "results.log holds" in out:
        errs.append("a SATA boot claims results on the stick")
    return errs, out


def case_image_refused(efi, tmp):
    bad = os.path.join(tmp, "copied.img")
    subprocess.run(["cp", IMAGE, bad], check=True)
    part = bad + "@@1M"
    a = os.path.join(tmp, "results.prev")
    for cmd in (["mcopy", "-o", "-i", part, "::/quietbench/results.prev", a],  # a user keeping the older log
                ["mcopy", "-o", "-i", part, a, "::/quietbench/results.log"]):
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    rc, out, wall = run(efi, ["--image", bad, "--smp", "2", "--"] + QUICK, timeout=300)
    errs = [] if rc == 1 else ["exit %d, expected 1: the stick does not hold the run" % rc]
    if "the stick's results.log has" not in out:
        errs.append("no word on what the stick's results.log lacks")
    return errs, out


def case_image_usage(efi, tmp):
    errs, outs = [], ""
    for args in (["--sata", "--"], ["--image", IMAGE, "--sata", "--ide", "--"],
                 ["--image", IMAGE, "--firmware", "seabios", "--"], ["--", "series=3"]):
        rc, out, wall = run(efi, args + QUICK)
        outs += out
        if rc != 2:
            errs.append("%s: exit %d, expected 2" % (" ".join(args), rc))
    return errs, outs


def case_sb_usage(efi, tmp):
    """Secure Boot's usage errors, at once and without QEMU: --secure-boot without --image (network boot under
    Secure Boot is out of scope), --cert without mok or db, and a stick with no certificate to enroll."""
    bare = os.path.join(tmp, "nocert.img")
    subprocess.run(["cp", IMAGE, bare], check=True)
    subprocess.run(["mdel", "-i", bare + "@@1M", "::/ENROLL_THIS_KEY_IN_MOKMANAGER.cer"], check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    errs, outs = [], ""
    for args, why in ((["--secure-boot", "mok", "--"], "goes with --image"),
                      (["--image", IMAGE, "--cert", "x.crt", "--"], "--cert goes with"),
                      (["--image", bare, "--secure-boot", "mok", "--"], "has no ENROLL_THIS_KEY_IN_MOKMANAGER.cer")):
        rc, out, wall = run(efi, args + QUICK)
        outs += out
        if rc != 2 or why not in out:
            errs.append("%s: exit %d, expected 2 with %r" % (" ".join(args), rc, why))
    return errs, outs


def case_smp_banana(efi, tmp):
    rc, out, wall = run(efi, ["--smp", "banana", "--", "profile=quick"])
    errs = [] if rc == 2 else ["exit %d, expected 2" % rc]
    if "not a CPU count" not in out:
        errs.append("no word on what --smp takes")
    if wall > 10:
        errs.append("took %.1f s: a usage error must not start QEMU" % wall)
    return errs, out


def case_numa_odd(efi, tmp):
    rc, out, wall = run(efi, ["--smp", "3", "--numa", "2", "--", "profile=quick"])
    errs = [] if rc == 2 else ["exit %d, expected 2" % rc]
    if "divisible" not in out:
        errs.append("no word on why")
    for bad, word in ((["--numa", "2+x"], "memory-only nodes after +"), (["--mem", "1000", "--numa", "2+1"], "by 3")):
        rc, more, wall = run(efi, ["--smp", "4"] + bad + ["--", "profile=quick"])
        out += more
        if rc != 2 or word not in more:
            errs.append("%s: exit %d, expected 2 with %r" % (" ".join(bad), rc, word))
    return errs, out


def case_finish_halt(efi, tmp):
    log = os.path.join(tmp, "halt.log")
    rc, out, wall = run(efi, ["--smp", "2", "--tcg", "single", "--timeout", "200", "--log", log, "--",
                              "profile=quick", "workloads=selftest", "finish=halt"])
    errs = [] if rc == 0 else ["exit %d, expected 0" % rc]
    if "-accel tcg,thread=single " not in out:
        errs.append("--tcg single did not reach QEMU's -accel")
    if wall > 100:
        errs.append("took %.1f s: qemu-run waited for its timeout after the done record" % wall)
    if "done status ok" not in out:
        errs.append("no done status line")
    return errs, out


def case_done_fail(efi, tmp):
    rc, out, wall = run(efi, ["--smp", "2", "--", "profile=quick", "reps=1", "selftest=fault-bsp"])
    return ([] if rc == 1 else ["exit %d, expected 1" % rc]), out


def case_firmware_death(efi, tmp):
    rc, out, wall = run(efi, ["--mem", "32", "--start-timeout", "60", "--", "profile=quick"])
    errs = [] if rc == 1 else ["exit %d, expected 1" % rc]
    if "firmware died before QuietBench started" not in out:
        errs.append("no word that the firmware died")
    if wall > 40:
        errs.append("took %.1f s" % wall)
    return errs, out


def case_interrupted(efi, tmp):
    log = os.path.join(tmp, "int.log")
    p = subprocess.Popen([QEMU_RUN, "--efi", efi, "--quiet", "--log", log, "--", "profile=quick"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    errs = []
    deadline = time.time() + 60
    while time.time() < deadline and not (os.path.exists(log) and b"@qb " in open(log, "rb").read()):
        time.sleep(0.2)
    grown = os.path.exists(log) and os.path.getsize(log) > 0
    if not grown:
        errs.append("the log stayed empty while the run went on: not written line by line")
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    if p.returncode != 130:
        errs.append("exit %d, expected 130" % p.returncode)
    if "interrupted" not in out or log not in out:
        errs.append("no word on the interruption and where the log is")
    if not os.path.exists(log) or b"QuietBench" not in open(log, "rb").read():
        errs.append("the partial log is gone")
    else:  # qb parse says the run was stopped, not that it hung
        parse = subprocess.run([os.path.join(ROOT, "tools", "qb"), "parse", log, "-o",
                                os.path.join(tmp, "int.run")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        if "the run was stopped before it ended" not in parse.stdout or "triple fault" in parse.stdout:
            errs.append("qb parse of the interrupted log: %s" % parse.stdout[-300:])
    # Its own folder, named in the QEMU command line it prints (other runs may
    # be going on at the same time).
    mine = [w.rsplit("/", 1)[0] for w in out.replace(",", " ").replace("=", " ").split() if w.endswith("/vars.fd")]
    if not mine:
        errs.append("cannot see qemu-run's temporary folder in its output")
    elif os.path.exists(mine[0]):
        errs.append("temporary folder left: %s" % mine[0])
    return errs, out


def case_quiet_explains(efi, tmp):
    rc, out, wall = run(efi, ["--smp", "1", "--", "workloads=selftst"])
    errs = [] if rc == 1 else ["exit %d, expected 1" % rc]
    if "did you mean workloads=selftest?" not in out:
        errs.append("--quiet hid the line that says what was meant")
    if "no CPU started" not in out or "0 of 0" in out:
        errs.append("the done line does not say that no CPU was started")
    return errs, out


def case_log_dir(efi, tmp):
    folder = os.path.join(tmp, "runs")
    os.makedirs(folder)
    for i in range(25):  # older runs, oldest first
        path = os.path.join(folder, "run-20260101-0000%02d.log" % i)
        with open(path, "w") as f:
            f.write("old run %d\n" % i)
        os.utime(path, (1000000 + i, 1000000 + i))
    rc, out, wall = run(efi, ["--smp", "1", "--log-dir", folder, "--keep", "20", "--", "bogus=1"])
    errs = [] if rc == 1 else ["exit %d, expected 1 (a bad option)" % rc]
    logs = sorted(f for f in os.listdir(folder) if f.startswith("run-"))
    if len(logs) != 20:
        errs.append("%d runs kept, expected 20: %s" % (len(logs), logs))
    if "run-20260101-000005.log" in logs or "run-20260101-000006.log" not in logs:
        errs.append("not the oldest were dropped: %s" % logs[:3])
    link = os.path.join(folder, "run.log")
    target = os.readlink(link) if os.path.islink(link) else None
    if not target or target not in logs or target.startswith("run-20260101") or \
            b"bad option" not in open(link, "rb").read():
        errs.append("run.log points at %r, not this run's log" % target)
    return errs, out


CASES = [
    ("smp-banana", case_smp_banana),
    ("numa-odd", case_numa_odd),
    ("finish-halt", case_finish_halt),
    ("done-fail", case_done_fail),
    ("firmware-death", case_firmware_death),
    ("interrupted", case_interrupted),
    ("image-usb", case_image_usb),
    ("image-sata", case_image_sata),
    ("image-refused", case_image_refused),
    ("image-usage", case_image_usage),
    ("sb-usage", case_sb_usage),
    ("quiet-explains", case_quiet_explains),
    ("log-dir", case_log_dir),
]


def main():
    global IMAGE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--image", default=IMAGE, help="the image the --image cases boot (make: build/test/quietbench.img)")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    IMAGE = os.path.abspath(a.image)
    efi = os.path.abspath(a.efi)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="qemu-run-tests-") as tmp:
        for name, fn in CASES:
            if a.cases and name not in a.cases:
                continue
            t0 = time.time()
            try:
                errs, out = fn(efi, tmp)
            except subprocess.TimeoutExpired as e:
                errs, out = ["qemu-run did not end: %s" % e], ""
            if errs:
                failed += 1
                print("FAIL %s (%.1f s)" % (name, time.time() - t0))
                for e in errs:
                    print("  - " + e)
                print("  ---- qemu-run output ----\n" + out + "  ---- end ----")
            else:
                passed += 1
                print("ok   %s (%.1f s)" % (name, time.time() - t0))
            sys.stdout.flush()
    print("qemu-run tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
