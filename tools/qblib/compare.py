"""compare.py - two runs side by side (bare metal against Linux, or two machines).

Results are matched by workload, variant, threads and params, leaving out
params that name the platform rather than the experiment (PLATFORM_PARAMS,
plus --ignore-param). Each matched pair shows both medians and B/A, marked
with * when the difference is beyond the spread of the runs: each median lies
outside the other run's min-max, or |B/A - 1| exceeds twice the larger CV.
(Requiring both medians outside keeps one wild repetition from hiding or
making a mark.) Skipped results carry fewer params and are paired by subset.
"""
import json

from .table import grid, num, params_text

PLATFORM_PARAMS = ("flush", "platform", "os", "loader")  # how a run was done, not what it measured
# Params in which a workload adapts to the machine or platform it runs on, so
# the same measurement carries other values elsewhere: flush sizes its sets to
# the LLC, picks CLFLUSHOPT where it exists, and has a WBINVD reference only
# on bare metal. They are shown, not matched on.
ADAPTED_PARAMS = {"flush": ("set_bytes", "evict_bytes", "instruction", "cold_reference")}


def defining(r, ignore):
    """The params that define r's measurement: all but the ignored and the adapted ones."""
    skip = set(ignore) | set(ADAPTED_PARAMS.get(r.get("workload"), ()))
    return {k: v for k, v in (r.get("params") or {}).items() if k not in skip}


def key(r, ignore):
    return (r.get("workload"), r.get("variant"), r.get("threads"), json.dumps(defining(r, ignore), sort_keys=True))


def stats(r, ns):
    """(median, min, max, cv) in ticks, or in ns with --ns; None if the result has no median."""
    sfx = "_ns" if ns else ""
    med = r.get("median" + sfx)
    if med is None:
        return None
    return med, r.get("min" + sfx), r.get("max" + sfx), r.get("cv")


def beyond_spread(a, b):
    """True if each median lies outside the other run's min-max, or |B/A-1| > 2 x the larger CV."""
    (ma, lo_a, hi_a, cv_a), (mb, lo_b, hi_b, cv_b) = a, b
    if ma == mb:
        return False
    if None not in (lo_a, hi_a, lo_b, hi_b) and not lo_a <= mb <= hi_a and not lo_b <= ma <= hi_b:
        return True
    cv = max(cv_a or 0.0, cv_b or 0.0)
    return ma != 0 and abs(mb / ma - 1.0) > 2.0 * cv


def _subset(small, big):
    return all(k in big and big[k] == v for k, v in small.items())


def match_skipped(rows, ignore):
    """Pair a skipped result (which carries fewer params) with its measured counterpart in the other run."""
    only_a = [i for i, (a, b) in enumerate(rows) if b is None]
    only_b = [j for j, (a, b) in enumerate(rows) if a is None]
    gone = set()
    for i in only_a:
        a = rows[i][0]
        for j in only_b:
            b = rows[j][1]
            if j in gone or "skipped" not in (a.get("check"), b.get("check")):
                continue
            if (a.get("workload"), a.get("variant")) != (b.get("workload"), b.get("variant")):
                continue
            pa, pb = defining(a, ignore), defining(b, ignore)
            if _subset(pa, pb) or _subset(pb, pa):
                rows[i] = (a, b)
                gone.add(j)
                break
    return [r for j, r in enumerate(rows) if j not in gone]


def pair_rows(ra, rb, ignore, ns):
    """Rows for matched results (in A's order) then B's unmatched ones: (a record, b record, ratio, mark)."""
    pool = {}
    for r in rb.results():
        pool.setdefault(key(r, ignore), []).append(r)
    rows = []
    for a in ra.results():
        hits = pool.get(key(a, ignore))
        rows.append((a, hits.pop(0) if hits else None))
    for rest in pool.values():
        rows += [(None, b) for b in rest]
    rows = match_skipped(rows, ignore)
    out = []
    for a, b in rows:
        sa, sb = (stats(a, ns) if a else None), (stats(b, ns) if b else None)
        ratio, mark = None, ""
        if a is None or b is None:
            mark = "only in " + ("B" if a is None else "A")
        elif sa and sb:
            ratio = sb[0] / sa[0] if sa[0] else None
            mark = "*" if beyond_spread(sa, sb) else ""
        elif (a.get("check") == "skipped") != (b.get("check") == "skipped"):
            mark = "skipped in " + ("A" if a.get("check") == "skipped" else "B")
        fails = [n for n, r in (("A", a), ("B", b)) if r is not None and r.get("check") == "fail"]
        if fails:
            mark = (mark + " check failed in " + "+".join(fails)).strip()
        shorts = [n for n, r in (("A", a), ("B", b)) if r is not None and r.get("check") == "short"]
        if shorts:  # a measurement the budget cut short: fewer repetitions than a statistic needs
            mark = (mark + " short in " + "+".join(shorts)).strip()
        out.append((a, b, ratio, mark))
    return out


def differing(ra, rb, names):
    """Ignored params whose values differ between the runs, e.g. flush: wbinvd / none."""
    out = []
    for n in names:
        va = sorted({str((r.get("params") or {})[n]) for r in ra.results() if n in (r.get("params") or {})})
        vb = sorted({str((r.get("params") or {})[n]) for r in rb.results() if n in (r.get("params") or {})})
        if va != vb:
            out.append("%s (%s / %s)" % (n, ",".join(va) or "-", ",".join(vb) or "-"))
    return out


def platform(run):
    b = run.boot
    return "linux twin" if b.get("platform") == "linux" or b.get("loader") == "linux" else "bare metal"


def profile(run):
    """profile= from the command line the run reports (full when it names none)."""
    words = str(run.boot.get("cmdline") or "").split()
    given = [w.split("=", 1)[1] for w in words if w.startswith("profile=")]
    return given[-1] if given else "full"


def machine(run):
    b = run.boot
    return "%s, %s CPUs" % (b.get("cpu_model", "unknown CPU"), b.get("cpus_found", "?"))


def differences(ra, rb):
    """What makes the two runs more than two measurements of one thing: machine,
    platform, profile and TSC source, each as "what (A / B)"."""
    out = []
    for what, f in (("machine", machine), ("platform", platform), ("profile", profile),
                    ("TSC source", lambda r: r.boot.get("tsc_source", "?"))):
        va, vb = f(ra), f(rb)
        if va != vb:
            out.append("%s (%s / %s)" % (what, va, vb))
    return out


def describe(run, arg):
    b = run.boot
    return "%s: %s, %s CPUs, build %s, %s" % (arg, b.get("cpu_model", "unknown CPU"), run.cpus_online(),
                                            b.get("build", "?"), run.footer().rsplit(", ", 1)[-1])


def render(ra, rb, name_a, name_b, ignore=(), ns=False):
    ignore = set(PLATFORM_PARAMS) | set(ignore)
    unit = "ns" if ns else next((r.get("unit") for r in ra.results() + rb.results() if r.get("unit")), "ticks")
    diffs = differences(ra, rb)
    out = ["warning: the runs differ in %s: a ratio mixes these with what you compare" % "; ".join(diffs)] \
        if diffs else []
    out += ["A " + describe(ra, name_a), "B " + describe(rb, name_b)]
    adapted = sorted({p for ps in ADAPTED_PARAMS.values() for p in ps})
    diff = differing(ra, rb, sorted(ignore | set(adapted)))
    out.append("matched on workload, variant, threads and params, ignoring %s, and flush's %s (sized to each "
               "machine)%s" % (", ".join(sorted(ignore)), ", ".join(adapted),
                               "; they differ: " + "; ".join(diff) if diff else ""))
    out.append("medians in %s; * = beyond the spread of the runs (each median outside the other run's "
               "min-max, or |B/A-1| > 2 x the larger CV)" % unit)
    out.append("")
    rows, marked, matched = [], 0, 0
    for a, b, ratio, mark in pair_rows(ra, rb, ignore, ns):
        r = a if a is not None and (b is None or a.get("check") != "skipped") else b  # the measured one
        p = defining(r, ignore)
        sa, sb = (stats(a, ns) if a else None), (stats(b, ns) if b else None)
        cell_a = num(sa[0], 1) if sa else ("skipped" if a and a.get("check") == "skipped" else "-")
        cell_b = num(sb[0], 1) if sb else ("skipped" if b and b.get("check") == "skipped" else "-")
        rows.append([r.get("workload", "-"), r.get("variant", "-"), num(r.get("threads")), params_text(p),
                     cell_a, cell_b, "-" if ratio is None else "%.2f" % ratio, mark])
        matched += a is not None and b is not None
        marked += mark.startswith("*")
    out += grid(["workload", "variant", "threads", "params", "A median", "B median", "B/A", ""], rows, right=(4, 5, 6))
    out.append("")
    out.append("%d matched, %d beyond the spread, %d only in A, %d only in B" % (
        matched, marked, sum(1 for r in rows if r[7].startswith("only in A")),
        sum(1 for r in rows if r[7].startswith("only in B"))))
    return out
