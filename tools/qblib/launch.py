"""launch.py - qb run: boot the image in QEMU through tools/qemu-run (the runner make run uses) and keep the log.

qemu-run is started from the repository root, so its default image
build/quietbench.efi is the one make builds; the log goes to
build/qb-run-<timestamp>.log unless --log names another file. The exit
status is qemu-run's.
"""
import datetime
import os
import subprocess
import sys

from .run import QbError


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
    print("qb: qemu-run exited with %d; log %s (next: tools/qb parse %s)" % (rc, log, log), file=sys.stderr)
    return rc
