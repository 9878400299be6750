#!/usr/bin/env python3
"""run_tests - make test's runner: the test targets, everything they need built already, run N at a time.

This project's machine has 2 cores, and a QEMU boot under TCG keeps only about one of them busy for most
of its time (the firmware, a one-CPU phase of the run, a wait for the serial port), so two test targets
side by side take little longer than one. The targets are started longest first (the order given), each
as `make TARGET` with its output kept whole in build/test-logs/TARGET.log and printed in one piece when it
ends, then "ok TARGET (T s)" or "FAIL TARGET (T s, exit N)". The last lines list every target's time, the
wall time of the whole and "make test: N passed, N failed"; the exit status is 1 if any target failed.

Nothing here is timed against a limit: the times are printed for people (README, docs/measured.md).
"""
import argparse
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_target(target, logdir, make):
    """Run one target to its end; return (exit status, seconds, its output)."""
    log = os.path.join(logdir, target + ".log")
    t0 = time.time()
    with open(log, "w", encoding="utf-8", errors="replace") as f:
        p = subprocess.run([make, "--no-print-directory", "-C", ROOT, target], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    took = time.time() - t0
    with open(log, encoding="utf-8", errors="replace") as f:
        return p.returncode, took, f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2, help="targets run at the same time (default 2)")
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "test-logs"))
    ap.add_argument("--make", default=os.environ.get("MAKE", "make"))
    ap.add_argument("targets", nargs="+", help="make targets, longest first")
    a = ap.parse_args()
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    os.makedirs(a.logdir, exist_ok=True)
    queue = list(a.targets)
    results = {}
    lock = threading.Lock()
    start = time.time()

    def lane():
        while True:
            with lock:
                if not queue:
                    return
                target = queue.pop(0)
            rc, took, out = run_target(target, a.logdir, a.make)
            with lock:
                results[target] = (rc, took)
                print("==== %s (%.0f s) ====" % (target, took))
                sys.stdout.write(out if out.endswith("\n") or not out else out + "\n")
                print("ok   %s (%.0f s)" % (target, took) if rc == 0 else
                      "FAIL %s (%.0f s, exit %d; log: %s)" % (target, took, rc,
                                                               os.path.join(a.logdir, target + ".log")))
                sys.stdout.flush()

    lanes = [threading.Thread(target=lane) for _ in range(min(a.jobs, len(queue)))]
    for t in lanes:
        t.start()
    for t in lanes:
        t.join()
    wall = time.time() - start
    failed = [t for t in a.targets if results[t][0] != 0]
    print("\nmake test, %d at a time:" % a.jobs)
    for t in a.targets:
        rc, took = results[t]
        print("  %-14s %6.0f s  %s" % (t, took, "ok" if rc == 0 else "FAIL (exit %d)" % rc))
    print("  %-14s %6.0f s of wall time, %.0f s of targets" % ("all", wall, sum(r[1] for r in results.values())))
    if failed:
        print("failed: " + " ".join(failed))
    print("make test: %d passed, %d failed" % (len(a.targets) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
