"""numa_claims.py - the firmware's claims beside first-touch's NUMA matrix (docs/records.md, `matrix`): for each
CPU node and memory target the measured latency next to the HMAT's claim, in ns, with their ratio, and the
measured single-CPU read bandwidth next to the HMAT's bandwidth, which is shown but not judged (the HMAT's figure
is the initiator's whole, not one CPU's).

A latency claim more than OFF_FACTOR away from the measurement, either way, is called out plainly: it is a finding
about the machine (or its firmware), not an error of the run. Under a hypervisor the claims are the virtual
machine's configuration and the latencies an emulator's, and the views say that too. The ratio is recomputed here
from the measured and claimed ns, not taken from the record. `qb table`, `qb report` and `qb plot` use this module.
"""
from . import machine

OFF_FACTOR = 2.0  # a latency claim this far from the measurement, either way, is called out
BW_NOT_JUDGED = ("bandwidth: measured is one CPU's sequential read, claimed is the HMAT's for the whole initiator: "
                 "shown side by side, not judged")
FINDING = ("a finding about this machine or its firmware, not an error of the run")


def target_names(m):
    """Column names of a NUMA matrix: its targets' names, else "node N" for each node."""
    ts = m.get("targets")
    if isinstance(ts, list) and ts:
        return [str(t.get("name", "node %s" % t.get("node"))) if isinstance(t, dict) else str(t) for t in ts]
    return ["node %s" % n for n in (m.get("nodes") or [])]


def grid_of(m, key):
    g = m.get(key)
    return g if isinstance(g, list) else None


def at(g, i, j):
    try:
        v = g[i][j]
    except (IndexError, TypeError):
        return None
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def off(ratio):
    """True when a ratio of measured to claimed is more than OFF_FACTOR away from 1, either way."""
    return ratio is not None and ratio > 0 and (ratio > OFF_FACTOR or ratio < 1.0 / OFF_FACTOR)


def latency_pairs(m):
    """Each (row, target) pair of a numa-latency matrix with a measurement or a claim: dicts with row, target,
    measured_ns, claimed_ns, ratio (None unless both) and off."""
    ns, claimed = grid_of(m, "ns"), grid_of(m, "claimed_ns")
    names = target_names(m)
    out = []
    for i, row in enumerate(m.get("nodes") or []):
        for j, name in enumerate(names):
            mv, cv = at(ns, i, j), at(claimed, i, j)
            if mv is None and cv is None:
                continue
            ratio = mv / cv if mv is not None and cv else None
            out.append({"row": row, "target": name, "measured_ns": mv, "claimed_ns": cv, "ratio": ratio,
                        "off": off(ratio)})
    return out


def bandwidth_pairs(m):
    """Each pair of a numa-bandwidth matrix with a measurement or a claim: measured and claimed in GB/s (the
    HMAT's MB/s / 1000), never judged."""
    gbs, claimed = grid_of(m, "gb_per_s"), grid_of(m, "claimed_mb_per_s")
    names = target_names(m)
    out = []
    for i, row in enumerate(m.get("nodes") or []):
        for j, name in enumerate(names):
            mv, cv = at(gbs, i, j), at(claimed, i, j)
            if mv is None and cv is None:
                continue
            out.append({"row": row, "target": name, "measured_gb_per_s": mv,
                        "claimed_gb_per_s": None if cv is None else cv / 1000.0})
    return out


def findings(m):
    """The latency pairs more than OFF_FACTOR off their claim."""
    return [p for p in latency_pairs(m) if p["off"]]


def matrices(run):
    """(latency matrix, bandwidth matrix) of first-touch's NUMA part, either None."""
    lat = bw = None
    for m in run.matrices("first-touch"):
        if m.get("variant") == "numa-latency":
            lat = m
        elif m.get("variant") == "numa-bandwidth":
            bw = m
    return lat, bw


def has_claims(m):
    """Whether a numa-latency matrix has any latency claim."""
    return m is not None and any(p["claimed_ns"] is not None for p in latency_pairs(m))


def verdict(m, run=None):
    """One plain sentence on the latency claims: how many pairs are more than OFF_FACTOR off (a finding),
    or that all are within it, or why there are none."""
    pairs = [p for p in latency_pairs(m) if p["ratio"] is not None]
    if not pairs:
        why = m.get("claims_note") or "no pair has both a measurement and a claim"
        return "firmware's latency claims: none to compare (%s)" % why
    bad = [p for p in pairs if p["off"]]
    if not bad:
        return "all %d pairs are within %gx of the firmware's latency claims" % (len(pairs), OFF_FACTOR)
    worst = max(bad, key=lambda p: max(p["ratio"], 1.0 / p["ratio"]))
    text = ("%d of %d pairs differ from the firmware's latency claim by more than %gx (the most: node %s -> %s, "
            "%.1f ns measured against %.1f ns claimed, %s): %s"
            % (len(bad), len(pairs), OFF_FACTOR, worst["row"], worst["target"], worst["measured_ns"],
               worst["claimed_ns"], ratio_text(worst["ratio"]), FINDING))
    if run is not None and machine.hypervisor(run):
        text += "; under a hypervisor the claims are the virtual machine's configuration and the latencies an " \
                "emulator's"
    return text


def ratio_text(r):
    """"10.0x the claim", "0.10x the claim (10.0x below)"."""
    if r is None:
        return "-"
    return "%.2fx the claim" % r if r >= 1 else "%.2fx the claim (%.1fx below)" % (r, 1.0 / r)


def text_lines(run):
    """qb table's lines: each pair's measured and claimed latency with the ratio and a plain mark where it is
    off, the verdict, then bandwidth side by side."""
    from .text import grid, sig
    lat, bw = matrices(run)
    if lat is None or ("claimed_ns" not in lat and "ns" not in lat):
        return []
    src = lat.get("claims_source") or "none"
    out = ["  firmware's claims beside the measurements (%s, HMAT %s; SLIT distance):"
           % (src, lat.get("claim") or "latency")]
    dist = grid_of(lat, "distance")
    names = target_names(lat)
    rows = []
    for p in latency_pairs(lat):
        i, j = (lat.get("nodes") or []).index(p["row"]), names.index(p["target"])
        d = at(dist, i, j)
        rows.append(["node %s" % p["row"], p["target"], sig(p["measured_ns"], 4), sig(p["claimed_ns"], 4),
                     "-" if p["ratio"] is None else "%.2fx" % p["ratio"], "-" if d is None else "%d" % d,
                     ("MORE THAN %gx OFF" % OFF_FACTOR) if p["off"] else ""])
    if rows:
        out += grid(["CPU on", "memory", "measured ns", "claimed ns", "ratio", "distance", ""], rows)
    out.append("  " + verdict(lat, run))
    if bw is not None:
        brows = [["node %s" % p["row"], p["target"], sig(p["measured_gb_per_s"], 4), sig(p["claimed_gb_per_s"], 4)]
                 for p in bandwidth_pairs(bw)]
        if any(r[3] != "-" for r in brows):
            out += grid(["CPU on", "memory", "measured GB/s", "claimed GB/s"], brows)
            out.append("  " + BW_NOT_JUDGED)
    return out + [""]
