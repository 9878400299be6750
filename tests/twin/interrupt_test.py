#!/usr/bin/env python3
"""interrupt_test - the Linux twin stopped with Ctrl-C ends as a run that was stopped: its last record is a
`done` with status fail whose reason says it was interrupted, every record before it intact (CRC), and the
exit status is that of a failed run. Run by make hosttest on the twin it just built."""
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
import qbrecords  # noqa: E402


def main():
    twin = sys.argv[1] if len(sys.argv) > 1 else "build/quietbench-host"
    p = subprocess.Popen([twin, "profile=quick"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = b""
    deadline = time.time() + 120
    while time.time() < deadline and b'"kind":"result"' not in out:  # measuring: interrupt it there
        chunk = p.stdout.read1(4096)
        if not chunk:
            break
        out += chunk
    p.send_signal(signal.SIGINT)
    rest, _ = p.communicate(timeout=60)
    text = (out + rest).decode("latin-1")
    records, problems = qbrecords.parse_text(text)
    errors = ["line %d: %s" % (no, why) for no, why, _ in problems]
    d = qbrecords.done(records)
    if d is None or records[-1] is not d:
        errors.append("no done record at the end")
    elif d.get("status") != "fail" or "interrupted" not in str(d.get("reason")):
        errors.append("done %s: expected status fail and a reason saying it was interrupted" % dict(d))
    if p.returncode != 1:
        errors.append("exit status %d, expected 1 (a failed run)" % p.returncode)
    for e in errors:
        print("FAIL: " + e)
    if errors:
        print(text[-2000:])
    print("twin interrupt: %s" % ("ok" if not errors else "%d problem(s)" % len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
