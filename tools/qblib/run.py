"""run.py - one QuietBench run: its records, context and damage, from a serial log or a results.json.

A RUN on the command line is a directory written by `qb parse`, the
results.json inside one, or a raw serial log parsed on the fly. results.json
holds every record with its source file and line, the run's context (boot,
memory, cpu, cache, error, workload and done records) and the problems found.
The record schema is docs/records.md.
"""
import csv
import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import qbrecords  # noqa: E402

RESULTS = "results.json"
FORMAT = "quietbench-results"
FORMAT_VERSION = 1
KEPT = "(record kept)"  # qbrecords marks damage that left the record intact with this


class QbError(Exception):
    """A usage or input error: qb prints it and exits with status 2."""


class Run:
    """The records of one run, each a qbrecords.Record with .line (and .file), plus its problems."""

    def __init__(self, source, mtime, records, problems):
        self.source = source      # the serial log, as named when it was parsed
        self.mtime = mtime        # the log's modification time (datetime) or None
        self.records = records
        self.problems = problems  # dicts: file, line, reason, text
        self.lava_job = None      # a run out of a LAVA result export: its job (lavaexport.py)

    def of_kind(self, kind):
        return qbrecords.of_kind(self.records, kind)

    def first(self, kind):
        r = self.of_kind(kind)
        return r[0] if r else None

    @property
    def boot(self):
        return self.first("boot") or {}

    @property
    def done(self):
        return qbrecords.done(self.records)

    def results(self, workload=None):
        return [r for r in self.of_kind("result") if workload is None or r.get("workload") == workload]

    def matrices(self, workload=None):
        return [r for r in qbrecords.matrices(self.records) if workload is None or r.get("workload") == workload]

    def workloads(self):
        """Workload names in the order their first result or matrix appears."""
        names = []
        for r in self.records:
            if r.get("kind") in ("result", "matrix") and r.get("workload") not in names:
                names.append(r.get("workload"))
        return names

    def cpus_online(self):
        b = self.boot
        if b.get("cpus_online") is not None:
            return b["cpus_online"]
        return sum(1 for c in self.of_kind("cpu") if c.get("online")) or None

    def machine_line(self):
        b = self.boot
        hz = b.get("tsc_hz")
        return "machine: %s%s, %s CPUs (%s found), %s NUMA node(s), TSC %s" % (
            b.get("cpu_model", "unknown CPU"),
            " (%s)" % b["cpu_vendor"] if b.get("cpu_vendor") else "",
            fmt_none(self.cpus_online()), fmt_none(b.get("cpus_found")), fmt_none(b.get("numa_nodes")),
            "%s Hz (%s)" % (hz, b.get("tsc_source", "?")) if hz else "frequency unknown")

    def footer(self):
        """Machine and date for a plot's footer: the log's mtime, else now."""
        when = self.mtime or datetime.datetime.now().astimezone()
        return "%s, %s CPUs, %s" % (self.boot.get("cpu_model", "unknown CPU"), fmt_none(self.cpus_online()),
                                    when.strftime("%Y-%m-%d %H:%M"))

    def context(self):
        return {
            "boot": self.first("boot"),
            "memory": self.first("memory"),
            "cpus": self.of_kind("cpu"),
            "caches": self.of_kind("cache"),
            "errors": self.of_kind("error"),
            "workloads": self.of_kind("workload"),
            "done": self.done,
        }


def fmt_none(v):
    return "?" if v is None else str(v)


def printable(text, limit=120):
    """A damaged line for a message: control and non-ASCII bytes as \\xNN, cut at `limit`."""
    s = "".join(c if " " <= c <= "~" else "\\x%02x" % ord(c) for c in text)
    return s if len(s) <= limit else s[:limit] + "..."


def describe(p):
    """file:line: reason, then the damaged text (if any) on an indented line."""
    head = "%s:%d: %s" % (p["file"], p["line"], p["reason"])
    return head + ("\n    " + printable(p["text"]) if p.get("text") else "")


# ---- reading a log -----------------------------------------------------------
INTERRUPTED = "qemu-run: interrupted"   # the line tools/qemu-run ends a log with when it was stopped


def run_problems(records, problems, nlines, text=""):
    """Whole-run checks on top of the per-line ones: done present, record count, one boot."""
    out = []
    d = qbrecords.done(records)
    if d is None and INTERRUPTED in text:
        why = text[text.rindex(INTERRUPTED):].splitlines()[0].strip()
        out.append((nlines, "no done record: the run was stopped before it ended (%s)" % why, ""))
    elif d is None:
        out.append((nlines, "no done record: the run is incomplete (a hang or a triple fault?)", ""))
    elif isinstance(d.get("records"), int):
        got = sum(1 for r in records if r.line <= d.line)
        lost = sum(1 for no, why, _ in problems if no <= d.line and KEPT not in why)
        missing = d["records"] - got - lost
        if missing > 0 or (missing < 0 and not lost):
            out.append((d.line, "done counts %d records but the log holds %d intact and %d damaged: %d %s"
                        % (d["records"], got, lost, abs(missing),
                           "missing (lost lines?)" if missing > 0 else "too many"), ""))
    boots = qbrecords.of_kind(records, "boot")
    for b in boots[1:]:
        out.append((b.line, "another boot record: the log holds more than one run (split it)", ""))
    return out


def _read_text(path):
    try:
        with open(path, "r", encoding="latin-1", newline="") as f:
            return f.read()
    except OSError as e:
        raise QbError("cannot read %s: %s" % (path, e.strerror))


def from_log(path):
    """A serial log: raw, a results file off the stick, or a LAVA job log. A LAVA result
    export of one job gives that job's run (lavaexport.py); of several, an error."""
    raw = _read_text(path)
    from . import lavaexport
    if lavaexport.looks_like(raw):
        runs = lavaexport.runs(path, raw)
        if len(runs) > 1:
            raise QbError("%s is a LAVA result export of %d jobs: qb report reads them all; for this command "
                          "export one job (/results/<job>/yaml)" % (path, len(runs)))
        return runs[0]
    # Straight off the stick, or out of a LAVA job log, too.
    text = qbrecords.lava_log_text(qbrecords.results_file_text(raw))
    try:
        mtime = datetime.datetime.fromtimestamp(os.stat(path).st_mtime).astimezone()
    except OSError as e:
        raise QbError("cannot read %s: %s" % (path, e.strerror))
    records, problems = qbrecords.parse_text(text)
    if not records and not problems:
        raise QbError("%s holds no QuietBench records (no line with \"@qb {...} crc\"): not a QuietBench log, "
                      "results file or LAVA job log" % path)
    problems = sorted(problems + run_problems(records, problems, len(qbrecords.split_lines(text)), text),
                      key=lambda p: p[0])
    for r in records:
        r.file = path
    return Run(path, mtime, records,
               [{"file": path, "line": no, "reason": why, "text": raw} for no, why, raw in problems])


# ---- results.json --------------------------------------------------------------
def default_dir(log):
    """build/x.log -> build/x.run"""
    return os.path.splitext(log)[0] + ".run"


def csv_name(workload):
    return (re.sub(r"[^A-Za-z0-9_.-]", "_", str(workload)) or "unknown") + ".csv"


def _cell(v):
    if v is None:
        return ""
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"))
    return str(v)


def flatten(rec, prefix=""):
    """One CSV row: nested objects become a.b columns, lists are joined with ';'."""
    out = {}
    for k, v in rec.items():
        key = prefix + k
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        elif isinstance(v, list):
            out[key] = ";".join(_cell(x) for x in v)
        else:
            out[key] = _cell(v)
    return out


def write_csv(path, results):
    rows = []
    for r in results:
        row = {"line": str(r.line)}
        row.update(flatten(r))
        rows.append(row)
    cols = []
    for row in rows:
        cols += [c for c in row if c not in cols]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(rows)


def write(run, outdir):
    """Write outdir/results.json and one CSV per workload; return the paths written."""
    os.makedirs(outdir, exist_ok=True)
    target = os.path.join(outdir, RESULTS)
    try:  # CSVs of an earlier parse into the same directory would be stale
        with open(target) as f:
            for name in json.load(f).get("csv", []):
                if os.path.basename(name) == name:
                    os.remove(os.path.join(outdir, name))
    except (OSError, ValueError, AttributeError):
        pass
    written, csvs = [], []
    for wl in run.workloads():
        res = run.results(wl)
        if res:
            name = csv_name(wl)
            write_csv(os.path.join(outdir, name), res)
            csvs.append(name)
            written.append(os.path.join(outdir, name))
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "log": run.source,
        "log_mtime": run.mtime.isoformat(timespec="seconds") if run.mtime else None,
        "context": run.context(),
        "problems": run.problems,
        "csv": csvs,
        "records": [{"file": getattr(r, "file", run.source), "line": r.line, "record": r} for r in run.records],
    }
    with open(target, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return [target] + written


def read_results(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise QbError("cannot read %s: %s" % (path, e.strerror))
    except ValueError as e:
        raise QbError("%s is not valid JSON: %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise QbError("%s is not a qb results file" % path)
    if doc.get("format_version", 0) > FORMAT_VERSION:
        raise QbError("%s has format version %s; this qb reads up to %d"
                      % (path, doc.get("format_version"), FORMAT_VERSION))
    records = []
    for e in doc.get("records", []):
        r = qbrecords.Record(e["record"])
        r.line, r.file = e.get("line", 0), e.get("file", doc.get("log"))
        records.append(r)
    mtime = doc.get("log_mtime")
    return Run(doc.get("log") or path, datetime.datetime.fromisoformat(mtime) if mtime else None,
               records, doc.get("problems", []))


def _is_results(path):
    if path.endswith(".json"):
        return True
    with open(path, "rb") as f:
        head = f.read(4096).lstrip()
    return head.startswith(b"{") and b'"format"' in head and FORMAT.encode() in head


def load_all(arg, warn=True):
    """Like load, but a LAVA result export gives a run for each of its jobs."""
    if os.path.isfile(arg) and not _is_results(arg):
        from . import lavaexport
        raw = _read_text(arg)
        if lavaexport.looks_like(raw):
            runs = lavaexport.runs(arg, raw)
            for r in runs:
                _warn(arg, r, warn)
            return runs
    return [load(arg, warn)]


def _warn(arg, run, warn):
    if warn and run.problems:
        print("qb: warning: %s has %d problem(s); the first: %s (%s)"
              % (arg, len(run.problems), describe(run.problems[0]).split("\n")[0],
                 "qb table lists them" if run.lava_job else "see qb parse"), file=sys.stderr)


def load(arg, warn=True):
    """A RUN argument: a qb parse directory, its results.json, or a raw log (parsed, nothing written)."""
    if os.path.isdir(arg):
        path = os.path.join(arg, RESULTS)
        if not os.path.exists(path):
            raise QbError("%s has no %s (run qb parse first, or name the log)" % (arg, RESULTS))
        run = read_results(path)
    elif os.path.isfile(arg):
        run = read_results(arg) if _is_results(arg) else from_log(arg)
    else:
        raise QbError("%s: no such run, results.json or log" % arg)
    _warn(arg, run, warn)
    return run
