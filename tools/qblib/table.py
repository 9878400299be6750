"""table.py - a run as the text tables people read (qb table), shaped like the seed write-ups.

Every result shows its figure (figure.py): the median of its clean repetitions and their quartiles,
or, when fewer than half of them are clean, the median over all of them with the noisy mark "~".
Figures are in the unit each experiment speaks (measure.py): ns per increment, ns per element and
GB/s, ns per page and GB/s of zeroing, ns per access; `--ticks` gives the same in TSC ticks. cv is
in percent. counter gets the seed's lists (table_counter.py); every other workload a row per result,
the noise workload its line too (noise.py). The header says the run's core clock (clock.py).
"""
from . import clock
from . import figure as qbfigure
from . import machine
from . import match
from . import numa_claims
from . import measure as qbmeasure
from . import noise as qbnoise
from . import run as qbrun
from . import table_counter
from .table_counter import matrix
from .text import UNSTABLE_CV_PCT, cv, grid, num, params_text, quart, sig, value

LEGEND = ("figures: median of the clean repetitions, quartiles q1-q3 beside it; %s; cv in percent"
          % qbfigure.MARK_MEANS)
LEGEND_LAVA = ("figures: each result's median as its qb-lava: line gave it; an export holds no quartiles, clean "
               "counts or noisy marks")


def common_params(res):
    """Params with one value in every measured result: said once in the heading, not per row."""
    measured = [r.get("params") or {} for r in res if r.get("check") != "skipped"]
    if len(measured) < 2:
        return {}
    return {k: v for k, v in measured[0].items() if all(p.get(k, object()) == v for p in measured[1:])}


def checked(r):
    """True when a real noise detector (APERF/MPERF, SMI count, thermal, context
    switches) ran for the result; the TSC going backwards alone checks nothing
    that disturbs a measurement. Records without "detectors" predate it: None."""
    c = r.get("clean")
    if not isinstance(c, dict) or "detectors" not in c:
        return None
    return any(d != "tsc_backwards" for d in c.get("detectors") or [])


def clean_cell(r):
    """Clean repetitions out of all, e.g. "3/3"; "unchecked 3/3" when no real
    detector ran; "1/3 noisy" under the noisy mark; "-" when the result has no repetition log."""
    c = r.get("clean")
    if not isinstance(c, dict):
        return "-"
    cell = "%s/%s" % (c.get("reps", "?"), r.get("n", "?"))
    if checked(r) is False:
        cell = "unchecked " + cell
    return cell + (" noisy" if qbfigure.noisy(r) else "")


def cv_pct(r):
    """The coefficient of variation of the repetitions a result's figure is over, in percent, or None (also where
    its statistics are over something else, statistics_of: the noise workload's CPUs)."""
    if r.get("statistics_of"):
        return None
    b = qbfigure.block(r, qbfigure.basis(r) or "all")
    return None if b.get("cv") is None or b.get("mean") in (None, 0) else 100.0 * b["cv"]


def cv_cell(r):
    """cv in percent, marked unstable past 5%."""
    return cv(cv_pct(r))


def noise_line(res, run=None):
    """One line per workload: how many repetitions were clean, what flagged the others, how many results
    are noisy or unstable, and which noise sources were unavailable."""
    clean = flagged = unchecked = 0
    flags, unavailable = set(), set()
    for r in res:
        c = r.get("clean")
        if isinstance(c, dict):
            if checked(r) is False:
                unchecked += c.get("reps", 0)
            else:
                clean += c.get("reps", 0)
            flagged += c.get("flagged", 0)
        n = r.get("noise")
        if isinstance(n, dict):
            flags.update(n.get("flags") or [])
            unavailable.update(k for k, v in n.items() if v == "unavailable")
        if r.get("counters") == "unavailable":
            unavailable.add("counters")
    if not clean and not flagged and not unchecked:
        return []
    line = "  repetitions: %d clean, %d flagged" % (clean, flagged)
    if flags:
        line += " (%s)" % ", ".join(sorted(flags))
    if unchecked:
        line += ", %d unchecked (no noise detector ran)" % unchecked
    noisy = sum(1 for r in res if qbfigure.noisy(r))
    if noisy:
        line += "; %d result(s) noisy (~)" % noisy
    unstable = sum(1 for r in res if (cv_pct(r) or 0) > UNSTABLE_CV_PCT)
    if unstable:
        line += "; %d result(s) unstable (cv > %g%%)" % (unstable, UNSTABLE_CV_PCT)
    if unavailable:
        line += "; unavailable: %s" % ", ".join(sorted(unavailable))
    return [line]


def _micro(ticks, run):
    """Ticks as microseconds (a flush's own cost), or None."""
    hz = machine.tsc_hz(run)
    return None if ticks is None or not hz else ticks * 1e6 / hz


def generic(run, wl, ticks=False):
    res = run.results(wl)
    out = []
    if res:
        figs = [qbfigure.of(r, run, ticks=ticks) for r in res]
        units = list(dict.fromkeys(f.unit for f in figs if f.unit))
        one_unit = len(units) <= 1
        second = {}  # the GB/s beside a time, where a result has one
        for r in res:
            ms = qbmeasure.of(r, run, ticks)
            if len(ms) > 1:
                second[id(r)] = qbfigure.of(r, run, ms[1].name, ticks)
        common = common_params(res)
        per_iter = any(isinstance(r.get("iteration_ticks"), list) for r in res)  # first-touch
        per_flush = any("flush_ticks" in r for r in res)  # flush: the flush's own cost and how cold it left the set
        sized = wl == "locality"  # the size as it pairs: its role on this machine, else its bytes; its start
        hide = set(common) | ({"size", "ints", "bytes", "size_role", "start"} if sized else set())
        header = ["variant", "threads"] + (["size", "start"] if sized else []) + \
            ["params", units[0] if one_unit and units else "figure", "q1-q3", "cv %", "clean"]
        header += [second_unit(second)] if second else []
        header += ["per iteration" + (" (%s)" % units[0] if one_unit and units else "")] if per_iter else []
        header += ["flush " + ("ticks" if ticks else "us"), "cold %"] if per_flush else []
        header += ["median ticks"] if ticks else []
        header += ["check"]
        rows = []
        for r, f in zip(res, figs):
            row = [r.get("variant", "-"), num(r.get("threads"))] + \
                ([size_cell(r, run), match.start(r) or "-"] if sized else []) + \
                [params_text(shown_params(r), hide), value(f, unit=not one_unit), quart(f),
                 cv(f.cv_pct) if f.over is None else num(f.cv_pct, 1),  # noise: over its CPUs, never "unstable"
                 clean_cell(r)]
            if second:
                row.append(value(second.get(id(r))))
            if per_iter:
                its = r.get("iteration_ticks") or []
                row.append(" ".join(sig(f.measure.of(x), 3) if f.measure and x is not None else "-" for x in its)
                           or "-")
            if per_flush:
                ft = r.get("flush_ticks")
                row += [num(ft, 1) if ticks else sig(_micro(ft, run), 3), num(r.get("cold_pct"), 1)]
            if ticks:
                row.append(num(f.ticks.get("median"), 1))
            check = r.get("check", "-")
            row.append(check + (": " + r["reason"] if r.get("reason") else ""))
            rows.append(row)
        out.append("%s: %d result(s)%s" % (wl, len(res), ", all with " + params_text(common) if common else ""))
        labels = [x for x in dict.fromkeys(f.measure.label for f in figs if f.measure) if x not in units]
        if labels:
            out.append("  " + "; ".join(labels))
        out += grid(header, rows) + noise_line(res, run) + (size_notes(res, run) if sized else [])
        out += qbnoise.table_lines(run) if wl == qbnoise.WORKLOAD else []
        notes = [r for r in res if r.get("cold_pct") is None and r.get("cold_pct_note")]
        out += ["  cold %% of %s: %s" % (r.get("variant", "-"), r["cold_pct_note"]) for r in notes]
        out += [""]
    for m in run.matrices(wl):
        out += matrix(m, run)
    if wl == "first-touch":
        out += numa_claims.text_lines(run)
    return out


def shown_params(r):
    """The params as a row shows them: a result standing for several placements names them all."""
    p = dict(r.get("params") or {})
    if len(match.placements(r)) > 1:
        p["placement"] = "=".join(match.placements(r))
    return p


def size_cell(r, run):
    """A locality size as it pairs: "L2, 256 KiB", or its bytes alone where it has no role here."""
    p = r.get("params") or {}
    role = match.size_role(r, run)
    nb = match.human_bytes(p["bytes"]) if isinstance(p.get("bytes"), (int, float)) else None
    return ", ".join(x for x in (role, nb) if x) or str(p.get("size", "-"))


def size_notes(res, run):
    """Sizes whose name claims a role they do not have on this machine, said once."""
    out = []
    for r in res:
        p = r.get("params") or {}
        claim = match.CLAIMED_ROLE.get(str(p.get("size", "")).lower())
        if claim and p.get("bytes") and match.size_role(r, run) is None:
            line = "  size %s (%s) is not the %s on this machine: it pairs on its bytes" % (
                p["size"], match.human_bytes(p["bytes"]), claim if claim != "DRAM" else "DRAM (4 x the LLC)")
            if line not in out:
                out.append(line)
    return out


def second_unit(second):
    us = list(dict.fromkeys(f.unit for f in second.values() if f is not None and f.unit))
    return us[0] if len(us) == 1 else "rate"


def header(run):
    """The lines every table starts with: the machine, a hypervisor's note, the run."""
    out = [run.machine_line()]
    if machine.system_line(run):  # SMBIOS: the product, its BIOS and its memory
        out.append(machine.system_line(run))
    note = machine.virtual_note(run)
    if note:
        out.append(note)
    b = run.boot
    if run.lava_job:
        out.append("run: LAVA job %s from %s, a result export: medians only, in the unit each line printed; "
                   "no build, command line, records or error records in it" % (run.lava_job["id"], run.source))
    elif b:
        out.append("run: build %s, cmdline \"%s\", log %s" % (b.get("build", "?"), b.get("cmdline", ""), run.source))
        out.append(clock.run_text(run))
    out.append(LEGEND_LAVA if run.lava_job else LEGEND)
    return out


def render(run, ticks=False):
    """The whole run as text lines."""
    out = header(run) + [""]
    for e in run.of_kind("error"):
        ctx = ", ".join("%s=%s" % (k, v) for k, v in e.items() if k not in ("v", "kind", "what"))
        out.append("error (line %d): %s: %s" % (e.line, e.get("what", "?"), ctx))
    if run.of_kind("error"):
        out.append("")
    for wl in run.workloads():
        out += table_counter.section(run, noise_line, ticks) if wl == "counter" else generic(run, wl, ticks)
    d = run.done
    if run.lava_job:
        out.append("done: no done record in a LAVA result export; LAVA's job test case: %s" % run.lava_job["result"])
        out += ["problem: %s" % qbrun.describe(p) for p in run.problems]
        return out
    if d is None:
        out.append("done: MISSING - the run is incomplete")
    else:
        out.append("done: %s%s, %s records, %s errors, %s ms" % (
            d.get("status"), " (%s)" % d["reason"] if d.get("reason") else "", qbrun.fmt_none(d.get("records")),
            qbrun.fmt_none(d.get("errors")), qbrun.fmt_none(d.get("elapsed_ms"))))
    if run.problems:
        out.append("damaged: %d problem(s), see qb parse" % len(run.problems))
    return out
