"""stream.py - two runs' record streams compared for what a change of plumbing must not change (qb same-stream).

A refactor of the framework (issue 36) must leave what a run measures as it was: the same results, in the same
order, each with the same workload, variant, check, reason and params; the same configurations planned (the
plan_configs records' names, kinds and least forms, in order); the same workloads; the same matrices. Timings
and what depends on the host are left out, since two runs of one build differ in them:
- in a result: every statistic, measure, sample, noise and counter field, planned_s, measured_s, reps_kept and
  the CPUs; of its params the flush verdict (the flush check's, judged anew each run) and anything in
  HOST_PARAMS;
- in a plan configuration: its units, repetitions and planned_s (calibration's);
- in a matrix: its values.
A check of "short" against "ok" is a difference: without a budget (profile=quick) nothing is cut.
"""
from qblib import run as qbrun  # noqa: F401  (the package's loader: records are parsed as qb parse does)
import qbrecords

HOST_PARAMS = ("flush_verdict", "huge_proof", "huge_source")


def _params(p):
    return {k: v for k, v in sorted((p or {}).items()) if k not in HOST_PARAMS}


def key_stream(records):
    """What must not change, in order: a list of (kind, identity) tuples, each identity a dict."""
    out = []
    for r in records:
        k = r.get("kind")
        if k == "result":
            out.append(("result", {"workload": r.get("workload"), "variant": r.get("variant"),
                                   "threads": r.get("threads"), "check": r.get("check"),
                                   "reason": r.get("reason"), "params": _params(r.get("params"))}))
        elif k == "plan_configs":
            for c in r.get("configs", []):
                out.append(("plan_config", {"workload": r.get("workload"), "name": c.get("name"),
                                            "kind": c.get("kind"), "least": bool(c.get("least")),
                                            "skipped": c.get("skipped") is not None}))
        elif k == "workload":
            out.append(("workload", {"name": r.get("name"), "configs": r.get("configs"),
                                     "skipped": r.get("skipped")}))
        elif k == "matrix":
            out.append(("matrix", {"workload": r.get("workload"), "variant": r.get("variant"),
                                   "check": r.get("check"), "params": _params(r.get("params"))}))
    return out


def _label(entry):
    kind, ident = entry
    if kind == "result":
        return "result %s/%s (%s threads)" % (ident["workload"], ident["variant"], ident["threads"])
    if kind == "plan_config":
        return "plan configuration %s/%s" % (ident["workload"], ident["name"])
    if kind == "workload":
        return "workload %s" % ident["name"]
    return "matrix %s/%s" % (ident["workload"], ident["variant"])


def differences(a, b):
    """Lines that say how stream b differs from stream a (lists from key_stream); empty when they are the same.
    Entries are aligned by difflib over their labels, so that one dropped or added entry is one line, not a cascade."""
    import difflib
    la, lb = [_label(e) for e in a], [_label(e) for e in b]
    out = []
    sm = difflib.SequenceMatcher(a=la, b=lb, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                if a[i] != b[j]:
                    fields = sorted(k for k in set(a[i][1]) | set(b[j][1]) if a[i][1].get(k) != b[j][1].get(k))
                    for f in fields:
                        out.append("#%d %s: %s %r -> %r" % (i + 1, la[i], f, a[i][1].get(f), b[j][1].get(f)))
            continue
        for i in range(i1, i2):
            out.append("#%d %s: only before%s" % (i + 1, la[i], " (moved or replaced)" if op == "replace" else ""))
        for j in range(j1, j2):
            out.append("#%d %s: only after%s" % (j + 1, lb[j], " (moved or replaced)" if op == "replace" else ""))
    return out


def compare_files(before, after):
    ra, rb = qbrecords.parse_file(before), qbrecords.parse_file(after)
    ra = ra[0] if isinstance(ra, tuple) else ra
    rb = rb[0] if isinstance(rb, tuple) else rb
    a, b = key_stream(ra), key_stream(rb)
    return a, b, differences(a, b)
