"""report.py - a fleet on one page: any number of runs as one self-contained HTML file (qb report).

The page has, in order:
  - the machines side by side: a column per run, with its CPU, CPUs, caches,
    memory, firmware, how it was run (loader, profile, budget) and its noise
    state (turbo, prefetchers, idle wait, PMU, noise sources);
  - each workload's results as a table: a row per measurement (workload,
    variant, threads, params), a column per run, the median in its unit;
    unstable (cv > 5%) and failed cells marked;
  - where a machine ran more than once, its runs in time order and the
    spread of each median over them;
  - every run's plots (qb plot), embedded as PNG data.
A run out of a LAVA result export (lavaexport.py) has the machine's CPU,
CPUs, NUMA nodes, memory and TSC and each result's median in ns; the
page says of everything else that the export does not hold it.
Nothing is fetched: styles and images are in the file, so it reads offline.
A script at the end marks the page for tests: data-images says whether
every image decoded.
"""
import base64
import datetime
import html
import json
import os
import tempfile

from .compare import key as result_key
from .table import num, params_text

UNSTABLE_CV = 0.05

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d1d1f; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { margin-top: 1.8em; border-bottom: 2px solid #1c3f73; padding-bottom: 0.2em; }
h3 { margin-top: 1.2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #c8ccd2; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #e8edf5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.fail { background: #fbe3e3; color: #a00; }
td.unstable { background: #fff6d6; }
td.skipped { color: #888; }
.scroll { max-height: 32em; overflow: auto; }
.note { color: #555; }
figure { display: inline-block; margin: 0.5em; }
figure img { max-width: 640px; border: 1px solid #ccc; }
figcaption { font-size: 0.85em; color: #555; }
"""


def esc(v):
    return html.escape("" if v is None else str(v))


def machine_key(run):
    """Runs on one machine share CPU model, CPUs found, memory and firmware."""
    b = run.boot
    return (b.get("cpu_model"), b.get("cpus_found"), (b.get("memory_bytes") or 0) >> 30,
            b.get("firmware_vendor"), b.get("firmware_revision"), b.get("platform", "bare-metal"))


def when(run):
    return run.mtime or datetime.datetime.fromtimestamp(0).astimezone()


def caches(run):
    seen, out = set(), []
    for c in run.of_kind("cache"):
        k = (c.get("level"), c.get("type"))
        if k in seen:
            continue
        seen.add(k)
        n = sum(1 for x in run.of_kind("cache") if (x.get("level"), x.get("type")) == k)
        out.append("L%s %s %d KiB x%d" % (c.get("level"), (c.get("type") or "")[:1], (c.get("size") or 0) >> 10, n))
    return ", ".join(out) or "unknown"


def profile(run):
    for w in str(run.boot.get("cmdline", "")).split():
        if w.startswith("profile="):
            return w[8:]
    return "full"


def noise_state(run):
    s = next((r for r in run.of_kind("state") if r.get("scope") == "run"), None)
    if not s:
        return "no state record"
    src = s.get("noise_sources") or {}
    have = [k for k, v in src.items() if v is True]
    return "turbo %s; prefetch %s; idle %s; PMU %s; noise sources: %s" % (
        s.get("turbo"), s.get("prefetch"), s.get("idle_wait"), s.get("pmu"), ", ".join(have) or "none")


MACHINE_ROWS = [
    ("CPU", lambda r: "%s (%s)" % (r.boot.get("cpu_model"), r.boot.get("cpu_vendor"))),
    ("CPUs online / found", lambda r: "%s / %s" % (r.cpus_online(), r.boot.get("cpus_found"))),
    ("NUMA nodes", lambda r: r.boot.get("numa_nodes")),
    ("caches", caches),
    ("memory", lambda r: "%.1f GiB" % ((r.boot.get("memory_bytes") or 0) / 2**30)),
    ("firmware", lambda r: "%s %s" % (r.boot.get("firmware_vendor"), r.boot.get("firmware_revision") or
                                      r.boot.get("bios_version") or "")),
    ("platform, loader", lambda r: "%s, %s" % (r.boot.get("platform", "bare-metal"), r.boot.get("loader"))),
    ("TSC", lambda r: "%s Hz (%s)" % (r.boot.get("tsc_hz"), r.boot.get("tsc_source"))),
    ("profile, budget", lambda r: "%s, %s" % (profile(r), "%s s" % (r.first("plan") or {}).get("budget_s")
                                                if (r.first("plan") or {}).get("budget_s") else "none")),
    ("noise state", noise_state),
    ("build", lambda r: r.boot.get("build")),
    ("done", lambda r: "%s, %s ms, %s error record(s)" % ((r.done or {}).get("status"), (r.done or {}).get("elapsed_ms"),
                                                          (r.done or {}).get("errors"))),
]


LAVA_HAS = ("CPU", "CPUs online / found", "NUMA nodes", "memory", "TSC")


def machine_cell(run, title, fn):
    """A machine row's text for one run; a LAVA export's run says what it lacks."""
    if run.lava_job and title not in LAVA_HAS:
        j = run.lava_job
        if title == "platform, loader":
            return "LAVA job %s (result export: %d QuietBench test cases)" % (j["id"], j["cases"])
        if title == "done":
            return "no done record in a LAVA result export; LAVA's job test case: %s" % j["result"]
        return "- (not in a LAVA result export)"
    return fn(run)


def cell(r):
    """A result as a table cell: (text, css class)."""
    if r is None:
        return "", ""
    if r.get("check") == "skipped":
        return "skipped", "skipped"
    med = r.get("median")
    text = "%s %s" % (num(med), r.get("unit", "")) if med is not None else r.get("check", "-")
    cls = "num"
    if r.get("check") == "fail":
        cls += " fail"
    elif r.get("check") == "short":  # cut short by the budget: a figure, but not a full measurement
        cls += " unstable"
        text += " (short)"
    elif (r.get("cv") or 0) > UNSTABLE_CV:
        cls += " unstable"
        text += " ~"
    return text, cls


def result_rows(runs, workload):
    """[(label, [result or None per run])] in first-seen order."""
    order, table = [], {}
    for i, run in enumerate(runs):
        for r in run.results(workload):
            k = result_key(r, ())
            if k not in table:
                table[k] = [None] * len(runs)
                order.append((k, r))
            table[k][i] = table[k][i] or r
    return [("%s %s %st" % (r.get("variant"), params_text(r.get("params") or {}), r.get("threads")), table[k])
            for k, r in order]


def results_table(labels, rows):
    out = ['<div class="scroll"><table><tr><th>measurement</th>%s</tr>' % "".join("<th>%s</th>" % esc(x) for x in labels)]
    for label, cells in rows:
        tds = []
        for r in cells:
            text, cls = cell(r)
            tds.append('<td class="%s">%s</td>' % (cls, esc(text)))
        out.append("<tr><td>%s</td>%s</tr>" % (esc(label), "".join(tds)))
    out.append("</table></div>")
    return "\n".join(out)


def spread(cells):
    v = [r.get("median") for r in cells if r and r.get("median")]
    return "%.1f%%" % ((max(v) / min(v) - 1) * 100) if len(v) > 1 and min(v) > 0 else ""


def plots(run, tmp):
    """The run's plots (qb plot) as (title, base64 PNG)."""
    from . import plot  # matplotlib: only when there is something to draw
    out = []
    d = tempfile.mkdtemp(dir=tmp)
    for p in plot.plot_all(run, d):
        with open(p, "rb") as f:
            out.append((os.path.basename(p), base64.b64encode(f.read()).decode()))
    return out


def render(runs, names, with_plots=True):
    labels = []
    machines = {}
    for run in runs:
        machines.setdefault(machine_key(run), []).append(run)
    mach_no = {k: i + 1 for i, k in enumerate(machines)}
    for run, name in zip(runs, names):
        labels.append("M%d: %s" % (mach_no[machine_key(run)], os.path.basename(name.rstrip("/"))))
    h = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
         "<title>QuietBench report: %d runs on %d machines</title><style>%s</style></head><body>"
         % (len(runs), len(machines), CSS),
         "<h1>QuietBench: %d runs on %d machine(s)</h1>" % (len(runs), len(machines)),
         '<p class="note">Written %s by qb report. Medians in each result\'s own unit; ~ marks a result whose '
         "repetitions vary by more than 5%% (cv); red, a failed check.</p>"
         % esc(datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"))]

    h.append("<h2>Machines</h2><table><tr><th></th>%s</tr>" % "".join("<th>%s</th>" % esc(x) for x in labels))
    for title, fn in MACHINE_ROWS:
        h.append("<tr><th>%s</th>%s</tr>" % (esc(title), "".join("<td>%s</td>" % esc(machine_cell(r, title, fn)) for r in runs)))
    h.append("</table>")

    workloads = []
    for run in runs:
        workloads += [w for w in run.workloads() if w not in workloads]
    h.append("<h2>Results</h2>")
    for w in workloads:
        h.append("<h3>%s</h3>" % esc(w))
        h.append(results_table(labels, result_rows(runs, w)))

    repeated = [(k, rs) for k, rs in machines.items() if len(rs) > 1]
    h.append("<h2>Over time</h2>")
    if not repeated:
        h.append('<p class="note">No machine ran more than once.</p>')
    for k, rs in repeated:
        rs = sorted(rs, key=when)
        cols = [when(r).strftime("%Y-%m-%d %H:%M") + " " + os.path.basename(names[runs.index(r)].rstrip("/"))
                for r in rs]
        h.append("<h3>M%d: %s, %s CPUs, %d runs</h3>" % (mach_no[k], esc(k[0]), esc(k[1]), len(rs)))
        h.append('<div class="scroll"><table><tr><th>measurement</th>%s<th>spread</th></tr>'
                 % "".join("<th>%s</th>" % esc(c) for c in cols))
        for w in workloads:
            for label, cells in result_rows(rs, w):
                tds = "".join('<td class="%s">%s</td>' % (cell(r)[1], esc(cell(r)[0])) for r in cells)
                h.append("<tr><td>%s: %s</td>%s<td class=\"num\">%s</td></tr>" % (esc(w), esc(label), tds, spread(cells)))
        h.append("</table></div>")

    if with_plots:
        h.append("<h2>Plots</h2>")
        with tempfile.TemporaryDirectory(prefix="qb-report-") as tmp:
            for run, label in zip(runs, labels):
                figs = [] if run.lava_job else plots(run, tmp)
                h.append("<h3>%s</h3>" % esc(label))
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
             " document.body.dataset.tables = document.querySelectorAll('table').length; });</script>")
    h.append("</body></html>")
    return "\n".join(h)


def summary(runs):
    return json.dumps({"runs": len(runs), "machines": len({machine_key(r) for r in runs})})
