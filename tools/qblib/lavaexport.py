"""lavaexport.py - runs out of a LAVA server's result export (qb report, qb table).

A LAVA server exports a job's test cases as YAML (`/results/<job>/yaml`, or
`lavacli results <job> --yaml`) or CSV (`/results/<job>/csv`): one entry per
test case with job, suite, name, result, measurement, unit, logged and
metadata (lava-server 2023.01, lava_results_app export_testcase). With the
`lava` option the kernel's qb-lava: lines make these test cases (suite
"quietbench", see tools/lava/):

  machine.cpu.<vendor>.<model>   pass  <CPUs found> cpus   (spaces as '_')
  machine.cpus-online            pass  <n> cpus
  machine.numa-nodes             pass  <n> nodes
  machine.memory                 pass  <MiB> MiB
  machine.tsc                    pass  <MHz> MHz
  <workload>-<n>-<variant>-<threads>t  pass|fail|skip  <median> ns | <n> reps

LAVA's `name` is the id lowercased with every non-word run as '_', so the id
is taken from metadata.extra's test_case_id, which keeps it as printed.

An export holds only these: no serial output, so no records other than what
they give. Each job becomes a Run whose boot and result records are built from
its test cases and whose `lava_job` says so; everything else about the machine
(caches, firmware, noise state, plots) is absent, and qb report says why.
"""
import ast
import csv
import datetime
import io
import re

from . import run as qbrun

SUITE = "quietbench"
CASE = re.compile(r"^(?P<workload>.+?)-(?P<n>\d+)-(?P<variant>.+)-(?P<threads>\d+)t$")
CHECK = {"pass": "ok", "fail": "fail", "skip": "skipped"}
SHORT_MARK = "(short)"  # after the unit of a short result (cut by the budget), whose LAVA result is fail
NOISY_MARK = "(noisy)"  # after the unit of a noisy figure (fewer than half of its repetitions clean)


def looks_like(text):
    """True for a LAVA result export (YAML or CSV), judged by its first lines."""
    head = text.lstrip()[:2000]
    if head.startswith("job,suite,result,measurement,unit"):
        return True
    return head.startswith("- ") and re.search(r"^  suite: ", head, re.M) is not None and \
        re.search(r"^  job: ", head, re.M) is not None and re.search(r"^  result: ", head, re.M) is not None


def _cases(text, path):
    """The export's test cases as dicts with job, suite, name, result, measurement, unit, logged, metadata."""
    if text.lstrip().startswith("job,suite,"):
        rows = list(csv.DictReader(io.StringIO(text.lstrip())))
        for r in rows:
            try:  # the CSV export writes metadata as a Python dict's repr
                r["metadata"] = ast.literal_eval(r.get("metadata") or "{}")
            except (ValueError, SyntaxError):
                r["metadata"] = {}
        return rows
    try:
        import yaml
    except ImportError:
        raise qbrun.QbError("%s: a LAVA YAML export needs PyYAML (Debian's python3-yaml)" % path)
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise qbrun.QbError("%s: not a readable LAVA result export: %s" % (path, str(e).splitlines()[0]))
    if not isinstance(doc, list) or not all(isinstance(d, dict) for d in doc):
        raise qbrun.QbError("%s: not a LAVA result export (a list of test cases)" % path)
    return doc


def _case_id(c):
    extra = (c.get("metadata") or {}).get("extra")
    for e in extra if isinstance(extra, list) else [extra]:
        if isinstance(e, dict) and e.get("test_case_id"):
            return str(e["test_case_id"])
    return str(c.get("name", ""))


def _number(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x == x else None  # NaN: none


def _when(cases):
    for c in cases:
        try:
            return datetime.datetime.fromisoformat(str(c.get("logged")))
        except ValueError:
            continue
    return None


def _job_run(path, job, cases):
    boot = {"kind": "boot"}
    records, problems = [], []
    lava_job = next((c.get("result") for c in cases if c.get("suite") == "lava" and c.get("name") == "job"), None)
    # The monitor's name is the suite; a job whose test actions LAVA numbers calls it "<n>_quietbench".
    mine = [c for c in cases if str(c.get("suite")) == SUITE or re.fullmatch(r"\d+_" + SUITE, str(c.get("suite")))]
    for c in mine:
        i = c.get("_entry", 0)
        cid, value, unit = _case_id(c), _number(c.get("measurement")), str(c.get("unit") or "")
        if cid.startswith("machine.cpu."):
            vendor, _, model = cid[len("machine.cpu."):].partition(".")
            boot.update(cpu_vendor=vendor, cpu_model=model.replace("_", " "))
            boot["cpus_found"] = int(value) if value is not None else None
        elif cid == "machine.cpus-online":
            boot["cpus_online"] = int(value) if value is not None else None
        elif cid == "machine.numa-nodes":
            boot["numa_nodes"] = int(value) if value is not None else None
        elif cid == "machine.memory" and value is not None:
            boot["memory_bytes"] = int(value) << 20
        elif cid == "machine.tsc" and value is not None:
            boot.update(tsc_hz=int(round(value * 1e6)), tsc_source="LAVA export, to the kHz")
        elif cid.startswith("machine."):
            pass  # a machine case this qb does not know: a newer kernel's
        else:
            m = CASE.match(cid)
            if not m or c.get("result") not in CHECK:
                problems.append({"file": path, "line": i, "reason": "LAVA test case %r (%s) is not a QuietBench "
                                 "result" % (cid, c.get("result")), "text": ""})
                continue
            r = {"kind": "result", "workload": m["workload"], "variant": m["variant"],
                 "threads": int(m["threads"]), "params": {"case": int(m["n"])}, "check": CHECK[c["result"]]}
            if unit.endswith(SHORT_MARK):  # a short result: LAVA's fail, its unit marked
                unit = unit[:-len(SHORT_MARK)]
                r["check"] = "short"
            if unit.endswith(NOISY_MARK):  # the line says no more than that: no counts, no flags
                unit = unit[:-len(NOISY_MARK)]
                r["noisy"] = {"clean": None, "reps": None, "flags": [], "from": "the LAVA line's (noisy) mark"}
            if unit == "reps":
                r.update(n=int(value) if value is not None else None, median=None, unit=None)
            else:
                r.update(median=value, unit=unit, median_ns=value if unit == "ns" else None)
            records.append(r)
    if len(boot) == 1:
        problems.append({"file": path, "line": 0, "reason": "LAVA job %s has no machine.* test cases: run with a "
                         "kernel whose lava option prints them" % job, "text": ""})
    if not records:
        problems.append({"file": path, "line": 0, "reason": "LAVA job %s has no QuietBench result test cases "
                         "(suite %s)" % (job, SUITE), "text": ""})
    out = []
    for n, r in enumerate([boot] + records):
        rec = qbrun.qbrecords.Record(r)
        rec.line, rec.file = n, path
        out.append(rec)
    run = qbrun.Run(path, _when(cases), out, problems)
    run.lava_job = {"id": job, "result": lava_job, "cases": len(mine)}
    return run


def runs(path, text):
    """One Run per LAVA job in the export, in the order they first appear."""
    cases = _cases(text, path)
    jobs = []
    for i, c in enumerate(cases, 1):
        if not {"job", "suite", "result"} <= set(c):
            raise qbrun.QbError("%s: entry %d is not a LAVA test case (it lacks job, suite or result): %s"
                                % (path, i, repr(c)[:200]))
        c["_entry"] = i  # its place in the export: problems name it "file:entry"
        if str(c["job"]) not in jobs:
            jobs.append(str(c["job"]))
    if not jobs:
        raise qbrun.QbError("%s: a LAVA result export with no test cases" % path)
    return [_job_run(path, j, [c for c in cases if str(c["job"]) == j]) for j in jobs]
