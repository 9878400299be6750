"""report_numa.py - qb report's section on first-touch's NUMA matrix against the firmware's claims
(numa_claims.py): per run, each CPU node and memory target with the measured latency, the HMAT's claim, their
ratio and the SLIT's distance, the pairs more than 2x off marked, the verdict in plain words (a finding about the
machine, not an error of the run), and the bandwidths side by side, not judged."""
import html

from . import numa_claims


def esc(v):
    return html.escape("" if v is None else str(v))


def num(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


def run_section(run, label):
    lat, bw = numa_claims.matrices(run)
    if lat is None or "ns" not in lat and "claimed_ns" not in lat:
        return ""
    h = ["<h3>%s</h3>" % esc(label),
         '<p class="note">Claims from %s (HMAT %s); distance: the SLIT\'s.</p>'
         % (esc(lat.get("claims_source") or "nowhere"), esc(lat.get("claim") or "latency")),
         "<table><tr><th>CPU on</th><th>memory</th><th>measured ns</th><th>claimed ns</th><th>ratio</th>"
         "<th>distance</th></tr>"]
    names = numa_claims.target_names(lat)
    nodes = lat.get("nodes") or []
    for p in numa_claims.latency_pairs(lat):
        d = numa_claims.at(lat.get("distance"), nodes.index(p["row"]), names.index(p["target"]))
        cls = ' class="num off" title="more than %gx off the claim"' % numa_claims.OFF_FACTOR if p["off"] \
            else ' class="num"'
        h.append("<tr><td>node %s</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td%s>%s%s</td>"
                 "<td class=\"num\">%s</td></tr>"
                 % (esc(p["row"]), esc(p["target"]), num(p["measured_ns"]), num(p["claimed_ns"]), cls,
                    "-" if p["ratio"] is None else "%.2fx" % p["ratio"],
                    " <b>more than %gx off</b>" % numa_claims.OFF_FACTOR if p["off"] else "",
                    "-" if d is None else "%d" % d))
    h.append("</table>")
    h.append('<p class="finding">%s</p>' % esc(numa_claims.verdict(lat, run)))
    if bw is not None:
        pairs = numa_claims.bandwidth_pairs(bw)
        if any(p["claimed_gb_per_s"] is not None for p in pairs):
            h.append("<table><tr><th>CPU on</th><th>memory</th><th>measured GB/s</th><th>claimed GB/s</th></tr>")
            h += ["<tr><td>node %s</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td></tr>"
                  % (esc(p["row"]), esc(p["target"]), num(p["measured_gb_per_s"], "%.3g"),
                     num(p["claimed_gb_per_s"], "%.4g")) for p in pairs]
            h.append("</table>")
            h.append('<p class="note">%s</p>' % esc(numa_claims.BW_NOT_JUDGED))
    return "\n".join(h)


def section(runs, labels):
    """The whole section's HTML, or "" when no run has a NUMA matrix with claims beside it."""
    parts = [run_section(run, label) for run, label in zip(runs, labels)]
    parts = [p for p in parts if p]
    if not parts:
        return ""
    return "\n".join(['<h2 id="numa-claims">NUMA: the firmware\'s claims beside the measurements</h2>',
                      '<p class="note">Latency claims more than %gx from the measurement, either way, are '
                      "marked: %s.</p>" % (numa_claims.OFF_FACTOR, numa_claims.FINDING)] + parts)
