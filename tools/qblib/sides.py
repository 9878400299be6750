"""sides.py - one side of qb compare: one run, or several runs of one machine compared as runs.

A side on the command line is a run (qb parse's folder, its results.json, a log, a LAVA result export),
several joined by commas (a1.log,a2.log,a3.log), or a folder without a results.json: a stick's series folder
(/quietbench/series/ as it sits on the mounted stick: its series' boots that reached their done, series.py), the
logs in it (*.log, in name order), or else the qb parse folders in it. A LAVA export of several jobs is a run per
job.

A measurement of a side (SideFigure) is the figures (figure.py) of its runs' results for that row:
its value is the median of the runs' figures (with one run, that run's figure), its samples every
run's repetitions together (for the test on repetitions, signif.test), and its two spreads, each a
coefficient of variation in percent: within a run (the cv of the repetitions the figure is over; the
median over the side's runs; None for a result whose statistics are not over repetitions, the noise
workload's, over its CPUs) and between runs (the sample standard deviation of the runs' figures
over their mean; None with one run). The noise workload's figure is its pooled ppm (figure.py), so its
runs are tested as runs on one pooled ppm a run, and with fewer runs on its CPUs' own ppm.
"""
import glob
import os
import sys

import numpy as np

from . import figure as qbfigure
from . import run as qbrun
from . import series as qbseries


def _folder_runs(path):
    stick = qbseries.folder(path)
    if stick:
        runs, notes = stick
        for note in notes:
            print("qb: %s: %s" % (path, note), file=sys.stderr)
        return runs
    logs = sorted(glob.glob(os.path.join(path, "*.log")))
    if logs:
        return logs
    parsed = sorted(d for d in glob.glob(os.path.join(path, "*")) if os.path.isfile(os.path.join(d, qbrun.RESULTS)))
    if parsed:
        return parsed
    raise qbrun.QbError("%s has no %s, no *.log and no qb parse folders: not a run, nor a folder of runs"
                        % (path, qbrun.RESULTS))


def paths(arg):
    """The runs a side names: [arg] for one run, its parts joined by commas, or a folder's logs."""
    if "," in arg and not os.path.exists(arg):
        parts = [x for x in arg.split(",") if x]
    else:
        parts = [arg]
    out = []
    for p in parts:
        if os.path.isdir(p) and not os.path.exists(os.path.join(p, qbrun.RESULTS)):
            out += _folder_runs(p)
        else:
            out.append(p)
    return out


class Side:
    """The runs of one side: runs (qbrun.Run), names (what each was called), arg (as given)."""

    def __init__(self, arg, runs, names):
        self.arg, self.runs, self.names = arg, runs, names

    def __len__(self):
        return len(self.runs)

    def label(self):
        """"a.log" for one run; "runs-a/: 3 runs (a1.log, a2.log, a3.log)" for several."""
        if len(self.runs) == 1:
            return self.arg
        short = [os.path.basename(n.rstrip("/")) for n in self.names]
        return "%s: %d runs (%s)" % (self.arg, len(self.runs), ", ".join(short))


def load(arg):
    runs, names = [], []
    for p in paths(arg):
        got = qbrun.load_all(p)
        runs += got
        names += [p if len(got) == 1 else "%s#%s" % (p, r.lava_job["id"]) for r in got]
    return Side(arg, runs, names)


def cv_between(values):
    """The runs' figures' coefficient of variation in percent (sample standard deviation over the mean),
    or None with fewer than two figures or a mean of 0."""
    v = [x for x in values if x is not None]
    if len(v) < 2 or np.mean(v) == 0:
        return None
    return float(100.0 * np.std(v, ddof=1) / abs(np.mean(v)))


class SideFigure:
    """A side's figure for one row: value, unit, mark, samples (samples_note) as figure.Figure has them,
    and values (each run's figure), within_cv and between_cv in percent (None where unknown)."""

    def __init__(self, results, runs, ticks=False):
        self.figs = [qbfigure.of(r, run, ticks=ticks) for r, run in zip(results, runs)
                     if r is not None and r.get("check") != "skipped"]
        figs = [f for f in self.figs if f.value is not None]
        units = list(dict.fromkeys(f.unit for f in figs))
        if len(units) > 1:  # runs of one side in different units (a TSC frequency unknown in one)
            figs = [f for f in figs if f.unit == units[0]]
        self.values = [f.value for f in figs]
        self.measure = figs[0].measure if figs else (self.figs[0].measure if self.figs else None)
        self.value = float(np.median(self.values)) if len(self.values) > 1 else \
            (self.values[0] if self.values else None)
        self.noisy = next((f.noisy for f in figs if f.noisy), None)
        self.noisy_runs = sum(1 for f in figs if f.noisy)
        cvs = [f.cv_pct for f in figs if f.cv_pct is not None and f.over is None]  # noise's: across CPUs
        self.within_cv = float(np.median(cvs)) if cvs else None
        self.between_cv = cv_between(self.values)
        if len(figs) == 1:
            self.samples, self.samples_note = figs[0].samples, figs[0].samples_note
        else:
            kept = [f.samples for f in figs if f.samples]
            self.samples = [x for s in kept for x in s] if len(kept) == len(figs) and kept else None
            self.samples_note = None if self.samples else next(
                (f.samples_note for f in figs if not f.samples), "no figure")

    @property
    def unit(self):
        return self.measure.unit if self.measure else None

    @property
    def mark(self):
        return qbfigure.MARK if self.noisy else ""

    def cv_text(self):
        """"1.2/3.4": within / between runs, "-" for what is unknown."""
        def one(v):
            return "-" if v is None else "%.1f" % v
        if self.within_cv is None and self.between_cv is None:
            return "-"
        return "%s/%s" % (one(self.within_cv), one(self.between_cv))
