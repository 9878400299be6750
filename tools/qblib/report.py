"""report.py - a fleet on one page: any number of runs as one self-contained HTML file (qb report).

The page has, in order, each with an anchor in its contents:
  - the machines side by side (report_machines.py): a column per run, with its CPU, CPUs, whether a
    hypervisor ran it and what that means, caches, memory, firmware, how it was run and its noise state;
  - each workload's results as a table: a row per measurement, paired across runs as qb compare pairs
    them (match.py), a column per run; each cell the result's figure (figure.py: clean first) in the
    unit its experiment speaks, its quartiles below it; noisy cells hatched and marked ~, failed ones
    red, unstable ones (cv > 5%) tinted; a cell whose difference from the row's first run is
    significant (signif.py, the test qb compare uses on one run a side: Mann-Whitney U on the two runs'
    repetitions, adjusted by Benjamini-Hochberg over every distinct test on the page, as qb compare
    adjusts over its own) carries an arrow up or down;
  - first-touch's NUMA matrix against the firmware's claims (report_numa.py): measured and claimed latency
    with the ratio, the pairs more than 2x off marked and said in plain words, bandwidths side by side;
  - where a machine ran more than once, its runs in time order, the spread of each figure over them and
    both coefficients of variation qb compare gives: within a run and between the runs (sides.py). Its
    arrows are the same test, each run against the row's oldest, so a pair the results table already
    tested is the same test and is counted once in the correction; the runs are not tested as runs here
    (one run against one; qb compare does that with 3 runs a side or more), the cv between is their spread;
  - every run's plots (qb plot), embedded as PNG data, and the noise histograms of every run that ran
    the noise workload on one log-log axis (plot_noise.py).
The machines table gives each run's clock and noise (report_machines.py).
A run out of a LAVA result export (lavaexport.py) has the machine's CPU, CPUs, NUMA nodes, memory and
TSC and each result's median in the unit its line printed; the page says of everything else that the
export does not hold it. Nothing is fetched: styles and images are in the file, so it reads offline,
and no table sits in a scroll box of its own, so a printout or screenshot holds all of it. A script
at the end marks the page for tests: data-images says whether every image decoded.
"""
import base64
import datetime
import html
import os
import re
import tempfile

from . import figure as qbfigure
from . import match
from . import report_numa
from . import signif
from .report_machines import machine_key, machines_table, products_table
from .sides import SideFigure
from .text import UNSTABLE_CV_PCT, sig

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d1d1f; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { margin-top: 1.8em; border-bottom: 2px solid #1c3f73; padding-bottom: 0.2em; }
h3 { margin-top: 1.2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #c8ccd2; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #e8edf5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num small { color: #666; }
td.fail { background: #fbe3e3; color: #a00; }
td.unstable { background: #fff6d6; }
td.noisy { background: repeating-linear-gradient(135deg, #fff 0 5px, #eee 5px 10px); }
td.skipped { color: #888; }
td.virtual { color: #a00; }
td.ref { outline: 2px solid #1c3f73; outline-offset: -2px; }
td.off { background: #ffe0b2; font-weight: bold; }
p.finding { font-weight: bold; color: #7a3b00; }
.mark { color: #a00; font-weight: bold; }
.up, .down { font-weight: bold; color: #1c3f73; }
.note { color: #555; }
.legend li { margin: 0.15em 0; }
nav ul { margin: 0.3em 0; }
figure { display: inline-block; margin: 0.5em; }
figure img { max-width: 640px; border: 1px solid #ccc; }
figcaption { font-size: 0.85em; color: #555; }
@media print { body { margin: 0.5em; font-size: 10px; } figure img { max-width: 48%; } }
"""


def esc(v):
    return html.escape("" if v is None else str(v))


def anchor(*parts):
    return re.sub(r"[^a-z0-9]+", "-", "-".join(str(p) for p in parts).lower()).strip("-")


def when(run):
    return run.mtime or datetime.datetime.fromtimestamp(0).astimezone()


def cell(r, run, ref=None, verdict=None):
    """A result as a table cell: (html, css class, tooltip). ref: the row's first figure, to test against;
    verdict: that test, already corrected with the page's others (without it: tested here, alone)."""
    if r is None:
        return "", "", ""
    if r.get("check") == "skipped":
        return "skipped", "skipped", r.get("reason", "")
    f = qbfigure.of(r, run)
    if f.value is None:
        return esc(r.get("check", "-")), "num", ""
    cls = ["num"]
    tip = ["%s %s" % (sig(f.value), f.unit or "")]
    text = esc(sig(f.value))
    if f.noisy:
        cls.append("noisy")
        text += '<span class="mark">%s</span>' % qbfigure.MARK
        tip.append(f.noisy_text())
    if verdict is None and ref is not None and ref is not f:
        verdict = signif.test(ref, f)
        signif.correct([verdict])
    if verdict is not None:
        v = verdict
        tip.append("against the row's first run%s: " % (" (over its CPUs)" if f.over else "") + v.text())
        if v.significant:
            up = f.value > ref.value
            text += ' <span class="%s" title="significant">%s</span>' % ("up" if up else "down",
                                                                          "&#9650;" if up else "&#9660;")
    if r.get("check") == "fail":
        cls.append("fail")
    elif r.get("check") == "short":  # cut short by the budget: a figure, but not a full measurement
        cls.append("unstable")
        text += " (short)"
        tip.append("short: %s" % (r.get("reason") or "cut by the budget"))
    elif f.cv_pct is not None and f.cv_pct > UNSTABLE_CV_PCT and not f.noisy and f.over is None:
        cls.append("unstable")
    if f.cv_pct is not None:
        tip.append("cv %.1f%%" % f.cv_pct + (" over %s" % f.over if f.over else ""))  # noise: across its CPUs
    if f.q1 is not None and f.q3 is not None:
        text += "<br><small>%s-%s</small>" % (esc(sig(f.q1, 3)), esc(sig(f.q3, 3)))
    return text, " ".join(cls), "; ".join(tip)


def row_label(row):
    """(variant, threads, placement, size, params) cells of a row; a LAVA export's case number joins params."""
    lab = row.label()
    merged = row.merged()
    place = lab["placement"] + ("" if not merged else " (%s)" % "; ".join(sorted(set(merged.values()))))
    params = lab["params"]
    first = next(c for c in row.cells if c is not None)
    case = (first.get("params") or {}).get("case")
    if case is not None and params == "-":
        params = "case=%s" % case
    return [lab["variant"], lab["threads"], place, lab["size"], params]


def unit_of(row, runs):
    for i in row.present:
        f = qbfigure.of(row.cells[i], runs[i])
        if f.unit:
            return f.unit
    return "-"


def reference(row, runs):
    """The figure the row's others are tested against: its first run's with samples, else its first."""
    figs = [qbfigure.of(row.cells[i], runs[i]) for i in row.present if row.cells[i].get("check") != "skipped"]
    figs = [f for f in figs if f.value is not None]
    return next((f for f in figs if f.samples), figs[0] if figs else None)


def tests(runs, rows, seen=None):
    """{(id(row), run index): verdict} of every cell tested against its row's reference (uncorrected). seen:
    {(reference result, result) ids: verdict} of the page's other tables: a pair one of them tested (the Over-time
    table's against the Results table's) gets that same verdict, to be counted once in the correction."""
    out = {}
    seen = {} if seen is None else seen
    for row in rows:
        ref = reference(row, runs)
        for i, r in enumerate(row.cells):
            if ref is None or r is None or ref.r is r or r.get("check") == "skipped":
                continue
            f = qbfigure.of(r, runs[i])
            if f.value is not None:
                key = tuple(sorted((id(ref.r), id(r))))  # a pair either way round: one hypothesis, one p
                if key not in seen:
                    seen[key] = signif.test(ref, f)
                out[(id(row), i)] = seen[key]
    return out


def results_table(runs, labels, rows, extra_header=(), extra=None, verdicts=None):
    """A table: the row's labels, its unit, a cell per run (tested against the row's first figure; verdicts:
    those tests, corrected over the page, else tested and corrected over this table)."""
    if verdicts is None:
        verdicts = tests(runs, rows)
        signif.correct(list(verdicts.values()))
    out = ["<table><tr><th>variant</th><th>threads</th><th>placement</th><th>size</th><th>params</th>"
           "<th>unit</th>%s%s</tr>" % ("".join("<th>%s</th>" % esc(x) for x in labels),
                                       "".join("<th>%s</th>" % esc(x) for x in extra_header))]
    for row in rows:
        ref = reference(row, runs)
        tds = []
        for i, r in enumerate(row.cells):
            mine = ref is not None and ref.r is r
            text, cls, tip = cell(r, runs[i], None if mine or r is None or r.get("check") == "skipped" else ref,
                                  verdicts.get((id(row), i)))
            if mine and len(row.present) > 1:
                cls += " ref"
                tip += "; the row's reference: the others are tested against it"
            tds.append('<td class="%s" title="%s">%s</td>' % (cls, esc(tip), text))
        more = "".join('<td class="num">%s</td>' % esc(x) for x in (extra(row) if extra else []))
        out.append("<tr>%s<td>%s</td>%s%s</tr>" % ("".join("<td>%s</td>" % esc(x) for x in row_label(row)),
                                                     esc(unit_of(row, runs)), "".join(tds), more))
    out.append("</table>")
    return "\n".join(out)


def spread(row, runs):
    v = [qbfigure.of(r, runs[i]).value for i, r in enumerate(row.cells) if r is not None]
    v = [x for x in v if x]
    return "%.1f%%" % ((max(v) / min(v) - 1) * 100) if len(v) > 1 and min(v) > 0 else ""


def spreads(row, runs):
    """The over-time columns of a row: spread, cv within a run (median over the runs), cv between the runs."""
    f = SideFigure(row.cells, runs)
    return [spread(row, runs)] + ["" if v is None else "%.1f%%" % v for v in (f.within_cv, f.between_cv)]


def noise_plot(runs, labels, tmp):
    """Every run's noise histogram on one log-log axis, as base64 PNG, or None where no run has one."""
    from . import plot_noise
    groups = {}
    for run, label in zip(runs, labels):
        if not run.lava_job:
            groups.setdefault(label.split(":", 1)[0], []).append(run)
    path = plot_noise.overlay(list(groups.items()), os.path.join(tmp, "noise-histograms.png"))
    if path is None:
        return None
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def plots(run, tmp):
    """The run's plots (qb plot) as (title, base64 PNG), written quietly to a directory that goes away."""
    from . import plot  # matplotlib: only when there is something to draw
    out = []
    d = tempfile.mkdtemp(dir=tmp)
    for p in plot.plot_all(run, d, quiet=True):
        with open(p, "rb") as f:
            out.append((os.path.basename(p), base64.b64encode(f.read()).decode()))
    return out


LEGEND = ('<ul class="note legend">'
          "<li>Each cell: the figure of a result, the median of its clean repetitions in the row's unit, and "
          "below it their quartiles (q1-q3). Rows pair on workload, variant, threads, placement and size role, "
          "never on iteration counts or the profile.</li>"
          '<li><span class="mark">~</span> on a hatched cell: noisy, fewer than half of the repetitions clean: '
          "the figure is over all of them.</li>"
          '<li><span class="up">&#9650;</span> / <span class="down">&#9660;</span>: higher or lower than the '
          "row's reference (outlined: its first run with samples), and significantly so: %s, each p adjusted by "
          "the %s over every test on this page, an arrow only where the adjusted p is at most %g; @CORRECTION@. No "
          "arrow: not significant, or the test cannot tell (no samples). Repetitions of one run are taken back "
          "to back and understate the spread between boots: for runs as runs, qb compare takes several a "
          "side.</li>"
          "<li>Red: a failed check. Tinted: cv over %g%%. A cell's tooltip has the details.</li></ul>"
          % (esc(signif.STATED_REPS), esc(signif.METHOD), signif.Q, UNSTABLE_CV_PCT))


def render(runs, names, with_plots=True):
    machines = {}
    for run in runs:
        machines.setdefault(machine_key(run), []).append(run)
    mach_no = {k: i + 1 for i, k in enumerate(machines)}
    labels = ["M%d: %s" % (mach_no[machine_key(run)], os.path.basename(name.rstrip("/")))
              for run, name in zip(runs, names)]
    workloads = []
    for run in runs:
        workloads += [w for w in run.workloads() if w not in workloads]
    repeated = [(k, rs) for k, rs in machines.items() if len(rs) > 1]

    h = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
         "<title>QuietBench report: %s</title><style>%s</style></head><body>" % (summary(runs), CSS),
         "<h1>QuietBench: %s</h1>" % summary(runs),
         '<p class="note">Written %s by qb report.</p>'
         % esc(datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"))]
    toc = ['<li><a href="#machines">Machines</a></li>', '<li><a href="#results">Results</a><ul>']
    toc += ['<li><a href="#%s">%s</a></li>' % (anchor("results", w), esc(w)) for w in workloads]
    numa = report_numa.section(runs, labels)
    toc += ["</ul></li>"] + (['<li><a href="#numa-claims">NUMA: the firmware\'s claims</a></li>'] if numa else []) + \
        ['<li><a href="#over-time">Over time</a></li>']
    if with_plots:
        toc += ['<li><a href="#plots">Plots</a><ul>'] + \
            ['<li><a href="#%s">%s</a></li>' % (anchor("plots", i + 1), esc(lab)) for i, lab in enumerate(labels)] + \
            ["</ul></li>"]
    h.append("<nav><h2>Contents</h2><ul>%s</ul></nav>" % "".join(toc))

    h.append('<h2 id="machines">Machines</h2>')
    h.append(machines_table(runs, labels))
    h.append('<h3 id="products">By product</h3>')
    h.append(products_table(runs, labels))

    # Every test on the page first, to correct them together; then the tables.
    result_rows = [(w, match.align(runs, w)) for w in workloads]
    over_time = []
    for k, rs in repeated:
        rs = sorted(rs, key=when)
        over_time.append((k, rs, [(w, match.align(rs, w)) for w in workloads]))
    verdicts, pairs = {}, {}
    for _, rows in result_rows:
        verdicts.update(tests(runs, rows, pairs))
    for _, rs, tables in over_time:
        for _, rows in tables:
            verdicts.update(tests(rs, rows, pairs))
    counts = signif.correct(list(pairs.values()))  # each (reference, result) pair once, in whichever tables

    h.append('<h2 id="results">Results</h2>')
    h.append(LEGEND.replace("@CORRECTION@", esc(signif.correction_line(counts))))
    for w, rows in result_rows:
        h.append('<h3 id="%s">%s</h3>' % (anchor("results", w), esc(w)))
        h.append(results_table(runs, labels, rows, verdicts=verdicts))

    if numa:
        h.append(numa)

    h.append('<h2 id="over-time">Over time</h2>')
    if not repeated:
        h.append('<p class="note">No machine ran more than once.</p>')
    for k, rs, tables in over_time:
        cols = [when(r).strftime("%Y-%m-%d %H:%M") + " " + os.path.basename(names[runs.index(r)].rstrip("/"))
                for r in rs]
        h.append('<h3 id="%s">M%d: %s, %s CPUs, %d runs</h3>' % (anchor("over-time", mach_no[k]), mach_no[k],
                                                                 esc(k[0]), esc(k[1]), len(rs)))
        h.append('<p class="note">Oldest first; arrows against the outlined reference, the oldest run with '
                 "samples; spread: the largest figure over the smallest, less one; cv within: the coefficient of "
                 "variation of a run's repetitions, the median over these runs; cv between: of the runs' figures "
                 "(sample standard deviation over the mean), the spread from one boot to the next. The arrows test "
                 "one run's repetitions against the reference's, not the runs as runs (for that, qb compare with "
                 "3 runs a side or more); a pair the results table tested too is one test, counted once.</p>")
        for w, rows in tables:
            if rows:
                h.append("<h4>%s</h4>" % esc(w))
                h.append(results_table(rs, cols, rows, ["spread", "cv within", "cv between"],
                                       lambda row, rs=rs: spreads(row, rs), verdicts=verdicts))

    if with_plots:
        h.append('<h2 id="plots">Plots</h2>')
        with tempfile.TemporaryDirectory(prefix="qb-report-") as tmp:
            noise_png = noise_plot(runs, labels, tmp)
            if noise_png:
                h.append('<h3 id="plots-noise">Noise: every run</h3>')
                h.append('<figure><img alt="noise histograms" src="data:image/png;base64,%s"><figcaption>the noise '
                         "workload's gaps of every run on one axis</figcaption></figure>" % noise_png)
            for i, (run, label) in enumerate(zip(runs, labels)):
                figs = [] if run.lava_job else plots(run, tmp)
                h.append('<h3 id="%s">%s</h3>' % (anchor("plots", i + 1), esc(label)))
                if run.lava_job:
                    h.append('<p class="note">No plots: a LAVA result export holds medians only '
                             '(give the job log for the records).</p>')
                elif not figs:
                    h.append('<p class="note">Nothing to plot in this run.</p>')
                for title, data in figs:
                    h.append('<figure><img alt="%s" src="data:image/png;base64,%s"><figcaption>%s</figcaption></figure>'
                             % (esc(title), data, esc(title)))
    h.append("<script>window.addEventListener('load', function () {"
             " var bad = Array.prototype.filter.call(document.images, function (i) {"
             " return !i.complete || i.naturalWidth === 0; });"
             " document.body.dataset.images = bad.length ? 'broken:' + bad.length : 'ok:' + document.images.length;"
             " document.body.dataset.tables = document.querySelectorAll('table').length;"
             " document.body.dataset.noisy = document.querySelectorAll('td.noisy').length; });</script>")
    h.append("</body></html>")
    return "\n".join(h)


def summary(runs):
    """"5 runs on 3 machines"."""
    n = len({machine_key(r) for r in runs})
    return "%d run%s on %d machine%s" % (len(runs), "" if len(runs) == 1 else "s", n, "" if n == 1 else "s")
