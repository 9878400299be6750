"""series.py - a stick's series folder (/quietbench/series/, issue 37), read as it sits on the mounted stick.

tools/mkimage preallocates 01.log .. 20.log there; boot k of a series of N writes k.log, a results file
(kernel/lib/resfile.h) whose header's series line names the series, k, N and whether the boot reached its done
(kernel/lib/resseries.h). The series on the stick is the one 01.log names. Its runs are the logs of its boots that
say done, in boot order; a boot not yet run, or cut before its done (a power cut, a reset, a hang), is left out
and said, and so are the logs of an older series and the empty ones.
"""
import os
import re

from . import run as qbrun  # first: it puts tools/ on the path for qbrecords

import qbrecords  # noqa: E402

LOG_NAME = re.compile(r"^\d\d\.log$")
SERIES_LINE = re.compile(r"^series=([0-9a-f]{16}) boot (\d+) of (\d+) (running|done) try (\d+)$", re.M)


def _head(path):
    with open(path, "rb") as f:
        return f.read(qbrecords.RESULTS_FILE_HDR).decode("latin-1")


def folder(path):
    """(runs, notes) for a stick's series folder: the logs of its series' boots that reached their done, in boot
    order, and a line for each boot left out. None when path is not a series folder (no NN.log there that is a
    results file). A series folder without a series in it is a QbError."""
    names = sorted(n for n in os.listdir(path) if LOG_NAME.match(n))
    heads = {n: _head(os.path.join(path, n)) for n in names}
    if not names or not all(h.startswith(qbrecords.RESULTS_FILE_MAGIC) for h in heads.values()):
        return None
    first = SERIES_LINE.search(heads.get("01.log", ""))
    if not first or int(first.group(2)) != 1:
        raise qbrun.QbError("%s is a stick's series folder, but its 01.log holds no series: no boot of a series "
                            "was written there (series=N starts one)" % path)
    sid, of = first.group(1), int(first.group(3))
    runs, notes = [], []
    for k in range(1, of + 1):
        name = "%02d.log" % k
        m = SERIES_LINE.search(heads.get(name, ""))
        if not m or m.group(1) != sid or int(m.group(2)) != k or int(m.group(3)) != of:
            notes.append("boot %d of %d has not run yet (%s): the series is not whole" % (k, of, name))
        elif m.group(4) != "done":
            notes.append("boot %d of %d did not reach its done (%s, start %s: a power cut, a reset or a hang); "
                         "left out" % (k, of, name, m.group(5)))
        else:
            runs.append(os.path.join(path, name))
    if not runs:
        raise qbrun.QbError("%s: the series %s (%d boots) has no boot that reached its done" % (path, sid, of))
    return runs, notes
