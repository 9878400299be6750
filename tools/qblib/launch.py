"""launch.py - qb run: boot the image in QEMU through tools/qemu-run (the runner make run uses), keep the log and parse it.

qemu-run is started from the repository root, so its default image
build/quietbench.efi is the one make builds; the log goes to
build/qb-run-<timestamp>.log unless --log names another file, written line
by line as the run goes (a Ctrl-C keeps what came). The log is then parsed
into the .run folder beside it, and build/qb-run-latest.log and
build/qb-run-latest.run are pointed at the newest run, so the next command
need not name it. The exit status is qemu-run's.
"""
import datetime
import os
import subprocess
import sys

from . import run as qbrun
from .run import QbError

LATEST = "qb-run-latest"


def default_log(root, now=None):
    now = now or datetime.datetime.now()
    return os.path.join(root, "build", "qb-run-%s.log" % now.strftime("%Y%m%d-%H%M%S"))


def command(a, tools, log):
    """The qemu-run command line for the parsed `qb run` arguments."""
    cmd = [sys.executable, os.path.join(tools, "qemu-run"), "--default-profile", "quick",
           "--smp", str(a.smp), "--mem", str(a.mem), "--numa", str(a.numa), "--log", log]
    if a.efi:
        cmd += ["--efi", os.path.abspath(a.efi)]
    if a.timeout:
        cmd += ["--timeout", str(a.timeout)]
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
