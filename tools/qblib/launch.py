"""launch.py - qb run: boot the image in QEMU through tools/qemu-run (the runner make run uses), keep the log and parse it.

qemu-run is started from the repository root, so its default image
build/quietbench.efi is the one make builds; the log goes to
build/qb-run-<timestamp>.log unless --log names another file, written line
by line as the run goes (a Ctrl-C keeps what came). The log is then parsed
into the .run folder beside it, and build/qb-run-latest.log and
build/qb-run-latest.run are pointed at the newest run, so the next command
need not name it. The exit status is qemu-run's. The profile is the
kernel's default (full, with its 30-minute budget) unless --quick asks for
the quick one or the arguments name one.
"""
import datetime
import os
import re
import subprocess
import sys

from . import run as qbrun
from .run import QbError

LATEST = "qb-run-latest"
FULL_BUDGET_S = 1800      # the kernel's budget for profile=full without budget= (kernel/run/options.h)
TIMEOUT_MARGIN_S = 600    # QEMU's own start and the kernel's boot and calibration, past the budget
DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")


def budget_s(words):
    """The run's budget in seconds from its kernel words: budget=, else the full
    profile's 30 minutes; None for the quick profile without one (no budget)."""
    for w in words:
        if w.startswith("budget="):
            m = DURATION.match(w[len("budget="):])
            if m and any(m.groups()):
                h, mi, s = (int(g or 0) for g in m.groups())
                return h * 3600 + mi * 60 + s
    return None if "profile=quick" in words else FULL_BUDGET_S


def default_log(root, now=None):
    now = now or datetime.datetime.now()
    return os.path.join(root, "build", "qb-run-%s.log" % now.strftime("%Y%m%d-%H%M%S"))


def command(a, tools, log):
    """The qemu-run command line for the parsed `qb run` arguments."""
    cmd = [sys.executable, os.path.join(tools, "qemu-run")]
    if getattr(a, "quick", False):  # without it the kernel's own default: profile=full, budget=30m
        cmd += ["--default-profile", "quick"]
    cmd += ["--smp", str(a.smp), "--mem", str(a.mem), "--numa", str(a.numa), "--log", log]
    if a.efi:
        cmd += ["--efi", os.path.abspath(a.efi)]
    words = list(a.args) + (["profile=quick"] if getattr(a, "quick", False) and
                            not any(w.startswith("profile=") for w in a.args) else [])
    budget = budget_s(words)
    if a.timeout:
        cmd += ["--timeout", str(a.timeout)]
    elif budget:  # QEMU must outlast the run's budget
        cmd += ["--timeout", str(budget + TIMEOUT_MARGIN_S)]
    return cmd + ["--"] + list(a.args)


def run(a, tools):
    if a.numa < 1 or a.mem < 1:
        raise QbError("--numa and --mem must be positive")
    root = os.path.dirname(tools)
    log = os.path.abspath(a.log) if a.log else default_log(root)
    os.makedirs(os.path.dirname(log), exist_ok=True)
    cmd = command(a, tools, log)
    print("qb: %s" % " ".join(cmd), file=sys.stderr)
    try:
        rc = subprocess.call(cmd, cwd=root)
    except OSError as e:
        raise QbError("cannot start qemu-run: %s" % e)
    except KeyboardInterrupt:
        rc = 130  # qemu-run stopped QEMU and kept the log itself
    if not os.path.exists(log):
        print("qb: qemu-run exited with %d and wrote no log" % rc, file=sys.stderr)
        return rc
    run_dir = qbrun.default_dir(log)
    parsed = qbrun.from_log(log)
    qbrun.write(parsed, run_dir)
    latest = point_latest(root, log, run_dir)
    print("qb: qemu-run exited with %d; log %s, parsed into %s (%d records, %d problem(s))%s"
          % (rc, log, run_dir, len(parsed.records), len(parsed.problems),
             "; next: tools/qb table %s" % latest if latest else ""), file=sys.stderr)
    return rc


def point_latest(root, log, run_dir):
    """build/qb-run-latest.log and .run: symbolic links to this run's files (relative,
    so the folder can move). Only for runs kept under build/; returns the .run link."""
    build = os.path.join(root, "build")
    if os.path.dirname(os.path.abspath(log)) != os.path.abspath(build):
        return None
    for target, name in ((log, LATEST + ".log"), (run_dir, LATEST + ".run")):
        link = os.path.join(build, name)
        tmp = link + ".new"
        if os.path.lexists(tmp):
            os.remove(tmp)
        os.symlink(os.path.basename(target), tmp)
        os.replace(tmp, link)  # atomic: never a moment without a latest
    return os.path.relpath(os.path.join(build, LATEST + ".run"), root)
