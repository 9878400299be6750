#!/usr/bin/env python3
"""noise_load_test - the Linux twin's noise workload counts what a busy neighbour does to it: a shell loop pinned to
one CPU (taskset -c N sh -c 'while :; do :; done'), and the twin's noise workload pinned to the same CPU, must count
context switches among its gaps in that run (`gaps.attributed.context_switches`, the same in its `noise_cpu` record),
or interrupts counted per thread by perf's irq tracepoints (`gaps.attributed.interrupts`, `noise.interrupts`). Two
runnable threads on one CPU: CFS must switch between them within a scheduling period (a few ms), so a second of
spinning beside the loop takes involuntary switches, each a gap of a slice; alone on a quiet CPU it need take none.
The configuration's interrupts from /proc/interrupts do not count: timer ticks alone make them non-zero, loaded or
not. Counts of that one run only, never a time and never a comparison of two runs. Run by make hosttest on the twin
it just built (about 2 s)."""
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
import qbrecords  # noqa: E402

TIMEOUT_S = 120


def main():
    twin = sys.argv[1] if len(sys.argv) > 1 else "build/quietbench-host"
    cpu = max(os.sched_getaffinity(0))  # the last CPU this process may use
    busy = subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"])
    try:
        p = subprocess.run(["taskset", "-c", str(cpu), twin, "profile=quick", "workloads=noise"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
    finally:
        busy.send_signal(signal.SIGTERM)
        busy.wait(timeout=10)
    text = p.stdout.decode("latin-1")
    records, problems = qbrecords.parse_text(text)
    errors = ["line %d: %s" % (no, why) for no, why, _ in problems]
    res = [r for r in qbrecords.of_kind(records, "result") if r.get("workload") == "noise"]
    cpus = qbrecords.of_kind(records, "noise_cpu")
    if len(res) != 1 or res[0].get("check") != "ok":
        errors.append("expected one noise result with check ok, got %s" % [(r.get("check"), r.get("reason")) for r in res])
    elif len(cpus) != 1:
        errors.append("expected one noise_cpu record (the twin ran on CPU %d only), got %d" % (cpu, len(cpus)))
    else:
        g = res[0].get("gaps") or {}
        att = g.get("attributed") or {}
        noise = res[0].get("noise") or {}
        switches = att.get("context_switches") or 0
        irqs = (att.get("interrupts") or 0) + (noise.get("interrupts") or 0)  # tracepoints only: null/absent is 0
        print("twin noise under load on CPU %d: %s gaps, attributed %s, interrupts per thread %s"
              % (cpu, g.get("count"), att, noise.get("interrupts", "not counted")))
        if "context_switches" not in att:
            errors.append("gaps.attributed counts no context switches: %s" % att)
        if not (switches > 0 or irqs > 0):
            errors.append("a busy loop on the same CPU, yet no context switch or interrupt was counted: %s, %s"
                          % (att, noise))
        if (cpus[0].get("attributed") or {}) != att:
            errors.append("the one CPU's noise_cpu attributed %s is not the run's %s" % (cpus[0].get("attributed"), att))
        if (g.get("count") or 0) < 1:
            errors.append("no gap at all beside a busy loop: %s" % g)
    if p.returncode != 0:
        errors.append("the twin's exit status %d" % p.returncode)
    for e in errors:
        print("FAIL: " + e)
    if errors:
        print(text[-3000:])
    print("twin noise under load: %s" % ("ok" if not errors else "%d problem(s)" % len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
