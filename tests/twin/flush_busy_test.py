#!/usr/bin/env python3
"""flush_busy_test - the twin's flush check never calls a flush that does not empty the cache effective, on a busy
host: with a spinning shell loop and a memory-streaming dd (64 MiB blocks from /dev/zero) pinned to every CPU the
twin uses, it runs the twin's flush check (profile=quick workloads=selftest) several times with flush_noop=on (the
run's eviction read does nothing) and with flush_partial=30 (it CLFLUSHes 30% of the probed set instead). The
neighbours take the twin's threads off their CPUs and stream through the caches between a probe's warming and its
chase: seen (context switches, migrations, gaps), such a round is discarded, and too few clean rounds give "cannot
tell: disturbed"; unseen, they would make the no-op look cold. Checked on the verdict only, never on a time:
- the run's flush (the eviction-read row) is never `effective`: the no-op `ineffective` or `cannot tell: disturbed
  (k of n rounds)`, the 30% flush also `partial`;
- every flushed result's flush_verdict is the state record's, and never `effective` unless the run fell back
  (then it is the fallback's, a different and larger read, judged in its own rounds).
Then once with flush_partial=50 on an idle host: `partial` (or, if the host was busy after all, disturbed). Run by
make hosttest on the twin it just built (about 30 s with the sanitizers)."""
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
import qbrecords  # noqa: E402

TIMEOUT_S = 180
RUNS = (("flush_noop=on", 3), ("flush_partial=30", 2))
NOOP_OK = ("ineffective",)
PARTIAL_OK = ("partial", "ineffective")


def neighbours(cpus):
    """A spinning loop and a streaming dd pinned to each CPU."""
    procs = []
    for c in cpus:
        procs.append(subprocess.Popen(["taskset", "-c", str(c), "sh", "-c", "while :; do :; done"]))
        procs.append(subprocess.Popen(["taskset", "-c", str(c), "sh", "-c",
                                       "while :; do dd if=/dev/zero of=/dev/null bs=64M count=64 2>/dev/null; done"]))
    return procs


def stop(procs):
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


def run_twin(twin, arg):
    p = subprocess.run([twin, "profile=quick", "workloads=selftest", arg], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
    text = p.stdout.decode("latin-1")
    records, problems = qbrecords.parse_text(text)
    return p.returncode, text, records, problems


def judge(arg, ok_verdicts, rc, text, records, problems, errors):
    """The run's flush row's verdict, checked against ok_verdicts (or disturbed); returns it."""
    where = "%s: " % arg
    if rc != 0 or problems:
        errors.append(where + "exit status %d, %d damaged records" % (rc, len(problems)))
    state = [s for s in qbrecords.of_kind(records, "state") if s.get("scope") == "run"]
    fc = state[0].get("flush_check") if state else None
    rows = fc.get("methods") if isinstance(fc, dict) else None
    if not rows:
        errors.append(where + "no flush_check: %r" % (fc,))
        return None
    first = rows[0]
    verdict = str(first.get("verdict"))
    if first.get("method") != "eviction-read" or not (verdict in ok_verdicts or
                                                      verdict.startswith("cannot tell: disturbed")):
        errors.append(where + "the run's flush %s was judged %r (%s%% cold, %s of %s rounds disturbed)"
                      % (first.get("method"), verdict, first.get("cold_pct"), first.get("disturbed"),
                         first.get("rounds")))
    fell_back = any(r.get("used_for") == "the fallback" for r in rows)
    for r in qbrecords.of_kind(records, "result"):
        p = r.get("params") or {}
        if p.get("flush") in (None, "none"):
            continue
        if p.get("flush_verdict") != fc.get("verdict") or (p.get("flush_verdict") == "effective" and not fell_back):
            errors.append(where + "%s/%s: flush_verdict %r, the check's %r, fell back %s"
                          % (r.get("workload"), r.get("variant"), p.get("flush_verdict"), fc.get("verdict"),
                             fell_back))
    print("%s: the run's flush %s (%s%% cold, %s of %s rounds disturbed); run verdict %r"
          % (arg, verdict, first.get("cold_pct"), first.get("disturbed"), first.get("rounds"), fc.get("verdict")))
    return verdict


def main():
    twin = sys.argv[1] if len(sys.argv) > 1 else "build/quietbench-host"
    cpus = sorted(os.sched_getaffinity(0))
    errors, texts = [], []
    busy = neighbours(cpus)
    try:
        for arg, times in RUNS:
            ok = NOOP_OK if arg == "flush_noop=on" else PARTIAL_OK
            for _ in range(times):
                rc, text, records, problems = run_twin(twin, arg)
                texts.append(text)
                judge(arg + " (busy)", ok, rc, text, records, problems, errors)
    finally:
        stop(busy)
    rc, text, records, problems = run_twin(twin, "flush_partial=50")
    texts.append(text)
    judge("flush_partial=50", ("partial",), rc, text, records, problems, errors)
    for e in errors:
        print("FAIL: " + e)
    if errors:
        print(texts[-1][-3000:])
    print("twin flush check, busy and partial: %s" % ("ok" if not errors else "%d problem(s)" % len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
