#!/usr/bin/env python3
"""plan_tests - the plan, the budget and the bounds, booted in QEMU.

  plan-only        profile=full budget=10m plan: the plan record and every
                   configuration listed, no result, done ok, at once.
  full-150s        profile=full budget=150s at 4 CPUs: the run ends within its
                   budget (the done record's elapsed_ms), every result ok or
                   skipped with its reason (budget, or hardware it lacks),
                   each with planned_s and measured_s.
  overrun          run_timeout_ms=1: every configuration passes its bound; each
                   is stopped and reported as `overrun` with what it reached,
                   and no CPU is lost.

A failing case prints its serial log. The last line is
"plan tests: N passed, N failed".
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


def boot(efi, args, logdir, name, timeout, smp=4):
    log = os.path.join(logdir, name + ".log")
    cmd = [os.path.join(ROOT, "tools", "qemu-run"), "--efi", efi, "--smp", str(smp), "--timeout", str(timeout),
           "--log", log, "--quiet", "--"] + args.split()
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    recs, problems = qbrecords.parse_file(log) if os.path.exists(log) else ([], [])
    return p.returncode, recs, problems, log, time.time() - t0


def plan_only(recs, errors, wall):
    plans = qbrecords.of_kind(recs, "plan")
    if len(plans) != 1:
        errors.append("expected one plan record, got %d" % len(plans))
        return
    p = plans[0]
    if p.get("plan_only") is not True or p.get("budget_s") != 600:
        errors.append("plan record: plan_only %s, budget_s %s" % (p.get("plan_only"), p.get("budget_s")))
    if not p.get("estimated_s") or p["estimated_s"] > 600:
        errors.append("estimated_s %s is not within the 600 s budget" % p.get("estimated_s"))
    listed = sum(len(r.get("configs", [])) for r in qbrecords.of_kind(recs, "plan_configs"))
    if listed != p.get("configs") or listed < 60:  # 4 CPUs: compact and scatter are one at 1 and 4 threads
        errors.append("plan_configs list %d configurations, the plan says %s" % (listed, p.get("configs")))
    names = [w.get("name") for w in p.get("workloads", [])]
    if names != ["selftest", "counter", "locality", "first-touch", "flush"]:
        errors.append("plan workloads %s" % names)
    if qbrecords.of_kind(recs, "result"):
        errors.append("a plan-only run measured something")
    d = qbrecords.done(recs)
    if d and d.get("elapsed_ms", 1e9) > 60000:
        errors.append("plan took %s ms: it should return at once" % d.get("elapsed_ms"))


def full_150s(recs, errors, wall):
    d = qbrecords.done(recs)
    if d and d.get("elapsed_ms", 1e9) > 150000:
        errors.append("the run took %s ms, over its 150 s budget" % d.get("elapsed_ms"))
    p = qbrecords.of_kind(recs, "plan")
    if not p or p[0].get("budget_s") != 150 or p[0].get("estimated_s", 1e9) > 150:
        errors.append("plan record: %s" % (p[0] if p else None))
    results = qbrecords.of_kind(recs, "result")
    if len(results) < 80:  # every workload, compact = scatter run once where they pick the same CPUs
        errors.append("only %d results" % len(results))
    for r in results:
        c = r.get("check")
        if c == "skipped":
            # Skipped for the budget, or because the machine lacks what the
            # configuration needs (SMT, shared L2, CLZERO, NUMA): both say why.
            # A skip must never hide a failure.
            why = r.get("reason", "")
            if not why or any(w in why for w in ("overrun", "lost", "bound", "fault")):
                errors.append("%s/%s skipped: %s" % (r.get("workload"), r.get("variant"), why or "no reason"))
        elif c != "ok":
            errors.append("%s/%s check %s: %s" % (r.get("workload"), r.get("variant"), c, r.get("reason")))
        elif r.get("workload") != "first-touch" and "planned_s" not in r and r.get("variant") != "start-skew":
            errors.append("%s/%s has no planned_s" % (r.get("workload"), r.get("variant")))
    for w in qbrecords.of_kind(recs, "workload"):
        if "planned_s" not in w:
            errors.append("workload record without planned_s: %s" % w)


def overrun(recs, errors, wall):
    d = qbrecords.done(recs)
    if d and d.get("cpus_lost") != 0:
        errors.append("cpus_lost %s: an overrun must not lose a CPU" % d.get("cpus_lost"))
    over = [r for r in qbrecords.of_kind(recs, "result") if r.get("check") == "overrun"]
    if len(over) < 5:
        errors.append("only %d overrun results" % len(over))
    for r in over:
        if "stopped at the bound" not in r.get("reason", "") and "passed the bound" not in r.get("reason", ""):
            errors.append("overrun without what it reached: %s" % r.get("reason"))
    if [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "cpu lost"]:
        errors.append("a cpu lost record")


CASES = [
    ("plan-only", "profile=full budget=10m plan finish=qemu", plan_only, "ok", 120),
    ("full-150s", "profile=full budget=150s finish=qemu", full_150s, "ok", 400),
    ("overrun", "profile=quick workloads=selftest,counter,locality run_timeout_ms=1 finish=qemu", overrun, "ok", 300),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "plantest"))
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    for name, args, check, want, timeout in CASES:
        if a.cases and name not in a.cases:
            continue
        status, recs, problems, log, wall = boot(os.path.abspath(a.efi), args, a.logdir, name, timeout)
        errors = ["line %d: damaged record (%s)" % (no, why) for no, why, _ in problems]
        d = qbrecords.done(recs)
        if d is None:
            errors.append("no done record (qemu-run exit status %d)" % status)
        elif d.get("status") != want:
            errors.append("done status %s (%s), expected %s" % (d.get("status"), d.get("reason"), want))
        else:
            check(recs, errors, wall)
        if errors:
            failed += 1
            print("FAIL %s (%.1f s)" % (name, wall))
            for e in errors:
                print("  - " + e)
            print("  ---- serial log %s ----" % log)
            with open(log, encoding="latin-1") as f:
                sys.stdout.write(f.read())
            print("  ---- end of log ----")
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (name, wall))
        sys.stdout.flush()
    print("plan tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
