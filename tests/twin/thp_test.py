#!/usr/bin/env python3
"""thp_test - the Linux twin's demand-zero-2m carries no 4 KiB fault's figure under the 2 MiB name.

Runs the twin's first-touch (quick profile) twice, with its debug key:
- thp=off (prctl PR_SET_THP_DISABLE: every fault falls back to 4 KiB): the result must be skipped, its
  reason "the OS gave 4 KiB pages: ..." naming the prctl, with no figure; and the log must say so: no line
  claims transparent huge pages served a 2 MiB region (each region's line says they are disabled), and
  the line after the first writes says 0 of N pages served whole, N fell back to 4 KiB pages;
- thp=every-other (MADV_NOHUGEPAGE on every other 2 MiB piece): at least half the faults fall back; the
  result keeps only the faults mincore showed whole and smaps proved one 2 MiB mapping (n + small_faults
  == faults, params.bytes n x 2 MiB, as many samples as n, params.huge_source "thp", huge_proof naming
  smaps' AnonHugePages, and the log's line saying n pages served whole by transparent huge pages), or,
  where Linux gave fewer than half, is skipped with that reason.
No timing is judged. Run by make hosttest on the twin it just built (a few seconds each). Where this
machine has no transparent huge pages nothing can fall back: it says so and passes.
The last line is "thp: N passed, N failed".
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
import qbrecords  # noqa: E402

THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
PAGE_2M = 2 << 20
FALLBACK = "the OS gave 4 KiB pages"
# tools/twin/demand.c: the line after the first writes into a 2 MiB region, and the one at its creation.
SERVED = re.compile(r"\(linux: (\d+) of (\d+) 2 MiB pages served whole by (transparent huge pages|hugetlbfs) "
                    r"\(smaps (\w+)\)(?:, (\d+) fell back to 4 KiB pages)?")
ASKED = re.compile(r"\(linux: 2 MiB pages (?:asked of|from) .*")


def log_lines(mode, text):
    """What the log says of the 2 MiB pages; (errors, [(served, of, fell)])."""
    errors, served = [], []
    for line in text.splitlines():
        m = SERVED.search(line)
        if m:
            if m.group(3) != "transparent huge pages" or m.group(4) != "AnonHugePages":
                errors.append("thp=%s: pages served by %s (smaps %s), not THP: %s" % (mode, m.group(3), m.group(4), line))
            served.append((int(m.group(1)), int(m.group(2)), int(m.group(5) or 0)))
        elif ASKED.search(line) and mode == "off" and "disabled for this process" not in line:
            errors.append("thp=off, but a 2 MiB region's line does not say THP is disabled: %s" % line.strip())
        if "pages from transparent huge pages" in line:
            errors.append("a line says THP served the pages before any was written: %s" % line.strip())
    if len(served) != 1:
        errors.append("%d lines saying what served the 2 MiB pages (one for the result's region)" % len(served))
    return errors, served


def thp_here():
    try:
        with open(THP_ENABLED) as f:
            return "[never]" not in f.read()
    except OSError:
        return False


def run(twin, mode):
    p = subprocess.run([twin, "profile=quick", "workloads=first-touch", "thp=" + mode], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    text = p.stdout.decode("latin-1")
    records, problems = qbrecords.parse_text(text)
    res = [r for r in qbrecords.of_kind(records, "result") if r.get("variant") == "demand-zero-2m"]
    return text, p.returncode, problems, res


def main():
    twin = sys.argv[1] if len(sys.argv) > 1 else "build/quietbench-host"
    if not thp_here():
        print("thp: not tested here: transparent huge pages are off (%s), no fault can fall back" % THP_ENABLED)
        return 0
    passed = failed = 0
    for mode in ("off", "every-other"):
        text, rc, problems, res = run(twin, mode)
        errors = ["line %d: %s" % (no, why) for no, why, _ in problems]
        if rc != 0:
            errors.append("exit status %d" % rc)
        if len(res) != 1:
            errors.append("%d demand-zero-2m results" % len(res))
        line_errors, served = log_lines(mode, text)
        errors += line_errors
        if mode == "off" and served and (served[0][0] != 0 or served[0][2] != served[0][1]):
            errors.append("thp=off: %d of %d pages served whole, %d fell back: all must fall back" % served[0])
        for r in res:
            reason = str(r.get("reason"))
            if r.get("check") == "skipped":
                if not reason.startswith(FALLBACK):
                    errors.append("skipped, but not for 4 KiB pages: %s" % reason)
                if mode == "off" and "PR_SET_THP_DISABLE" not in reason:
                    errors.append("the reason does not name the prctl: %s" % reason)
                if any(k in r for k in ("median", "measures", "ticks_per_fault")):
                    errors.append("a skipped result with a figure")
                continue
            if mode == "off":
                errors.append("with huge pages forbidden, a figure under the 2 MiB name (check %s)" % r.get("check"))
                continue
            n, faults, small = r.get("n"), r.get("faults"), r.get("small_faults")
            if not (isinstance(faults, int) and isinstance(small, int) and isinstance(n, int)):
                errors.append("n %r, faults %r, small_faults %r: not counts" % (n, faults, small))
                continue
            if small * 2 < faults:
                errors.append("%d of %d faults fell back: thp=every-other did not take" % (small, faults))
            if n != faults - small:
                errors.append("the figure has %d samples, but %d of %d faults mapped 2 MiB" % (n, faults - small, faults))
            if (r.get("params") or {}).get("bytes") != n * PAGE_2M:
                errors.append("params.bytes %r for %d whole pages" % ((r.get("params") or {}).get("bytes"), n))
            if isinstance(r.get("samples"), list) and len(r["samples"]) != n:
                errors.append("%d samples for %d whole pages" % (len(r["samples"]), n))
            if r.get("check") != "ok":
                errors.append("check %s: %s" % (r.get("check"), reason))
            if (r.get("params") or {}).get("huge_source") != "thp":
                errors.append("params.huge_source %r, not thp" % (r.get("params") or {}).get("huge_source"))
            if "smaps: AnonHugePages" not in str(r.get("huge_proof")):
                errors.append("huge_proof does not name smaps' AnonHugePages: %r" % r.get("huge_proof"))
            if served and served[0][0] != n:
                errors.append("the log says %d pages served whole, the figure has %d" % (served[0][0], n))
        if errors:
            failed += 1
            print("FAIL thp=%s:\n  %s" % (mode, "\n  ".join(errors)))
            print(text)
        else:
            passed += 1
            r = res[0]
            print("thp=%s: %s" % (mode, "skipped: " + str(r.get("reason")) if r.get("check") == "skipped" else
                                 "%d of %d faults mapped 2 MiB, the figure of those" % (r["n"], r["faults"])))
    print("thp: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
