#!/usr/bin/env python3
"""interrupt_test - the Linux twin stopped with Ctrl-C (SIGINT), or by SIGHUP (its terminal went away), ends as
a run that was stopped: its last record is a `done` with status fail whose reason says it was interrupted and
names the signal, every record before it intact (CRC), and the exit status is that of a failed run. A twin whose
output is closed (SIGPIPE: `| head`) ends the same way, with exit status 1 rather than killed by the signal,
so that boost and NUMA balancing are put back on every one of these paths. Run by make hosttest on the twin it
just built (about 4 s a signal)."""
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
import qbrecords  # noqa: E402

NAMES = {signal.SIGINT: "SIGINT", signal.SIGHUP: "SIGHUP"}


def until_result(p):
    """The twin's output until its first result record (measuring: stop it there)."""
    out = b""
    deadline = time.time() + 120
    while time.time() < deadline and b'"kind":"result"' not in out:
        chunk = p.stdout.read1(4096)
        if not chunk:
            break
        out += chunk
    return out


def stopped(twin, sig):
    """Problems of a run stopped by sig while it measures."""
    p = subprocess.Popen([twin, "profile=quick"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = until_result(p)
    p.send_signal(sig)
    rest, _ = p.communicate(timeout=60)
    text = (out + rest).decode("latin-1")
    records, problems = qbrecords.parse_text(text)
    errors = ["line %d: %s" % (no, why) for no, why, _ in problems]
    d = qbrecords.done(records)
    if d is None or records[-1] is not d:
        errors.append("no done record at the end")
    elif d.get("status") != "fail" or "interrupted: %s" % NAMES[sig] not in str(d.get("reason")):
        errors.append("done %s: expected status fail and a reason saying %s interrupted it" % (dict(d), NAMES[sig]))
    if p.returncode != 1:
        errors.append("exit status %d, expected 1 (a failed run)" % p.returncode)
    if errors:
        print(text[-2000:])
    return ["%s: %s" % (NAMES[sig], e) for e in errors]


def output_closed(twin):
    """Problems of a run whose stdout is closed while it measures: it must end as a failed run (exit status 1),
    not be killed by SIGPIPE."""
    p = subprocess.Popen([twin, "profile=quick"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    until_result(p)
    p.stdout.close()
    try:
        p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return ["SIGPIPE: still running 120 s after its output was closed"]
    if p.returncode != 1:
        return ["SIGPIPE: exit status %d after its output was closed, expected 1 (a failed run; -%d: killed by "
                "SIGPIPE, boost and NUMA balancing left as the run set them)" % (p.returncode, signal.SIGPIPE)]
    return []


def main():
    twin = sys.argv[1] if len(sys.argv) > 1 else "build/quietbench-host"
    errors = stopped(twin, signal.SIGINT) + stopped(twin, signal.SIGHUP) + output_closed(twin)
    for e in errors:
        print("FAIL: " + e)
    print("twin interrupt: %s" % ("ok" if not errors else "%d problem(s)" % len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
