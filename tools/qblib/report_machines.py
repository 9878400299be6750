"""report_machines.py - the machines table of qb report: a column per run, a row per thing to know.

Runs on one machine share CPU model, CPUs found, memory and firmware (machine_key). The table names a
hypervisor where one ran the machine, with the line saying what is virtual there, and says of what a
record does not hold why it is missing (a LAVA result export; the Linux twin's firmware), never "None".
Each run's core clock (clock.py) and its noise workload's line (noise.py) have a row each; its product, BIOS
and memory modules (SMBIOS: the machine record, machine.py and memory.py) too, and products_table() groups
the fleet by product.
"""
import html

from . import clock
from . import compare
from . import machine
from . import memory
from . import noise as qbnoise


def esc(v):
    return html.escape("" if v is None else str(v))


def machine_key(run):
    """Runs on one machine share CPU model, CPUs found, memory and firmware, and (SMBIOS) product, BIOS and
    memory configuration."""
    b = run.boot
    return (b.get("cpu_model"), b.get("cpus_found"), (b.get("memory_bytes") or 0) >> 30,
            b.get("firmware_vendor"), b.get("firmware_revision"), b.get("platform", "bare-metal"),
            machine.product(run), machine.bios(run), memory.config_text(run))


def caches(run):
    seen, out = set(), []
    for c in run.of_kind("cache"):
        k = (c.get("level"), c.get("type"))
        if k in seen:
            continue
        seen.add(k)
        n = sum(1 for x in run.of_kind("cache") if (x.get("level"), x.get("type")) == k)
        out.append("L%s %s %d KiB x%d" % (c.get("level"), (c.get("type") or "")[:1], (c.get("size") or 0) >> 10, n))
    return ", ".join(out) or "none in the records"


def noise_state(run):
    s = next((r for r in run.of_kind("state") if r.get("scope") == "run"), None)
    if not s:
        return "no state record"
    src = s.get("noise_sources") or {}
    have = [k for k, v in src.items() if v is True]
    return "turbo %s; prefetch %s; idle %s; PMU %s; noise sources: %s" % (
        s.get("turbo"), s.get("prefetch"), s.get("idle_wait"), s.get("pmu"), ", ".join(have) or "none")


def clock_cell(run):
    return clock.run_text(run).split(": ", 1)[1]


def noise_cell(run):
    """The noise workload's line, or what stood in its place (skipped, not run)."""
    got = qbnoise.results(run)
    if got:
        return " / ".join(qbnoise.line(r).split(": ", 1)[1] for r in got)
    return "; ".join(qbnoise.skipped(run)) or "no noise workload in this run"


def virtual(run):
    return machine.virtual_note(run) or "no hypervisor (CPUID.1:ECX[31] clear): bare metal"


def budget(run):
    plan = run.first("plan") or {}
    return "%s, %s" % (compare.profile(run), "%s s" % plan["budget_s"] if plan.get("budget_s") else "no budget")


def done(run):
    d = run.done
    if d is None:
        return "missing: the run is incomplete"
    return "%s, %s ms, %s error record(s)" % (d.get("status"), d.get("elapsed_ms"), d.get("errors"))


def tsc(run):
    hz = machine.tsc_hz(run)
    return "%.6g GHz (%s)" % (hz / 1e9, run.boot.get("tsc_source", "?")) if hz else "frequency unknown"


MACHINE_ROWS = [
    ("CPU", lambda r: "%s (%s)" % (r.boot.get("cpu_model"), r.boot.get("cpu_vendor"))),
    ("CPUs online / found", lambda r: "%s / %s" % (r.cpus_online(), r.boot.get("cpus_found"))),
    ("virtual machine", virtual),
    ("NUMA nodes", lambda r: r.boot.get("numa_nodes")),
    ("caches", caches),
    ("memory", lambda r: "%.1f GiB" % ((r.boot.get("memory_bytes") or 0) / 2**30)),
    ("product", machine.product),
    ("BIOS", machine.bios),
    ("memory modules", memory.config_text),
    ("firmware", machine.firmware),
    ("platform, loader", lambda r: "%s, %s" % (machine.platform(r), r.boot.get("loader"))),
    ("TSC", tsc),
    ("core clock", clock_cell),
    ("noise workload", noise_cell),
    ("profile, budget", budget),
    ("noise state", noise_state),
    ("build", lambda r: r.boot.get("build")),
    ("done", done),
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


def machines_table(runs, labels):
    h = ["<table><tr><th></th>%s</tr>" % "".join("<th>%s</th>" % esc(x) for x in labels)]
    for title, fn in MACHINE_ROWS:
        cells = []
        for r in runs:
            text = machine_cell(r, title, fn)
            cls = ' class="virtual"' if title == "virtual machine" and machine.virtual_note(r) else ""
            cells.append("<td%s>%s</td>" % (cls, esc(text)))
        h.append("<tr><th>%s</th>%s</tr>" % (esc(title), "".join(cells)))
    h.append("</table>")
    return "\n".join(h)


def products_table(runs, labels):
    """The fleet by product (SMBIOS type 1): each product's machines (M numbers of the machines table), its
    runs, and the BIOS versions and memory configurations they had, so that a product whose machines differ
    shows it."""
    groups = {}
    for run, label in zip(runs, labels):
        g = groups.setdefault(machine_cell(run, "product", machine.product),
                              {"machines": [], "runs": 0, "bios": [], "memory": []})
        g["runs"] += 1
        m = label.split(":", 1)[0]
        for key, value in (("machines", m), ("bios", machine_cell(run, "BIOS", machine.bios)),
                           ("memory", machine_cell(run, "memory modules", memory.config_text))):
            if value not in g[key]:
                g[key].append(value)
    h = ["<table><tr><th>product</th><th>machines</th><th>runs</th><th>BIOS</th><th>memory modules</th></tr>"]
    for product, g in sorted(groups.items()):
        h.append("<tr><th>%s</th><td>%s</td><td>%d</td><td>%s</td><td>%s</td></tr>"
                 % (esc(product), esc(", ".join(g["machines"])), g["runs"], "<br>".join(esc(x) for x in g["bios"]),
                    "<br>".join(esc(x) for x in g["memory"])))
    h.append("</table>")
    return "\n".join(h)
