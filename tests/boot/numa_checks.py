"""numa_checks - the boot case of a machine with memory-only nodes and the firmware's claims (run_boot_tests.py
"numa-hmat-memory-only"): QEMU's HMAT and SLIT as configured here must come back in the slit, hmat and hmat_lb
records, and beside first-touch's NUMA matrix, in which every node, the CPU-less ones included, has its column.
No timing is checked: under TCG the measured latencies mean nothing (the view logic is tested on synthetic
records, tests/tools/test_numa_claims.py)."""
import qbrecords  # noqa: E402  (run_boot_tests.py puts tools/ on the path first)

CPU_NODES, MEM_NODES = 2, 2  # qemu-run --numa 2+2: nodes 2 and 3 memory-only, initiators 0 and 1
NODES = CPU_NODES + MEM_NODES


def latency(i, t):
    """The read latency configured from CPU node i to memory node t, ns."""
    if i == t:
        return 90
    if t >= CPU_NODES:
        return 250 if t % CPU_NODES == i else 400
    return 160


def bandwidth_gib(i, t):
    return 200 if i == t else 30 if t >= CPU_NODES else 100


DIST = {(0, 1): 21, (0, 2): 17, (0, 3): 28, (1, 2): 28, (1, 3): 17, (2, 3): 34}


def distance(i, j):
    return 10 if i == j else DIST[(min(i, j), max(i, j))]


def hmat_qemu():
    out = []
    for i in range(CPU_NODES):
        for t in range(NODES):
            out += ["-numa", "hmat-lb,initiator=%d,target=%d,hierarchy=memory,data-type=read-latency,latency=%d"
                    % (i, t, latency(i, t)),
                    "-numa", "hmat-lb,initiator=%d,target=%d,hierarchy=memory,data-type=read-bandwidth,bandwidth=%dG"
                    % (i, t, bandwidth_gib(i, t))]
    for (a, b), d in sorted(DIST.items()):
        out += ["-numa", "dist,src=%d,dst=%d,val=%d" % (a, b, d)]
    return tuple(out)


HMAT_QEMU = hmat_qemu()


def check(cond, msg, errors):
    if not cond:
        errors.append(msg)


def close(a, b):
    return isinstance(a, (int, float)) and abs(a - b) < 1e-3 * max(1, abs(b))


def ratio_agrees(ratio, ns, claimed):
    """The record's ratio (3 decimals, from the unrounded latency) against its ns (1 decimal) over the
    claim: they may differ by both roundings, never more."""
    if not isinstance(ratio, (int, float)) or not ns or not claimed:
        return False
    return abs(ratio - ns / claimed) <= 0.0005 + 0.05 / claimed + 1e-9


def check_firmware_records(recs, errors):
    slit = qbrecords.of_kind(recs, "slit")
    check(len(slit) == 1 and slit[0].get("distances") == [[distance(i, j) for j in range(NODES)] for i in range(NODES)],
          "slit record: %s" % slit, errors)
    hmat = qbrecords.of_kind(recs, "hmat")
    check(len(hmat) == 1 and hmat[0].get("revision") == 2 and hmat[0].get("units_known") is True,
          "hmat record: %s" % hmat, errors)
    if hmat:
        doms = {d.get("memory_domain"): d for d in hmat[0].get("memory_domains") or []}
        for t in range(CPU_NODES, NODES):
            check(doms.get(t, {}).get("initiator_domain") == t % CPU_NODES,
                  "hmat: memory-only domain %d's initiator %s" % (t, doms.get(t)), errors)
    lbs = {lb.get("data_type"): lb for lb in qbrecords.of_kind(recs, "hmat_lb") if lb.get("hierarchy") == "memory"}
    check(set(lbs) == {"read-latency", "read-bandwidth"}, "hmat_lb data types %s" % sorted(lbs), errors)
    lat = lbs.get("read-latency", {})
    check(lat.get("unit") == "ns" and lat.get("values") == [[float(latency(i, t)) for t in range(NODES)]
                                                            for i in range(CPU_NODES)],
          "hmat_lb read-latency values %s" % lat.get("values"), errors)


def check_numa_claims(recs, errors):
    """Every node a column, measured from both CPU nodes; the claims and distances beside; sp_memory=on with
    no specific-purpose memory adds no column; done ok (checked by check_common)."""
    check_firmware_records(recs, errors)
    mats = {m.get("variant"): m for m in qbrecords.matrices(recs) if m.get("workload") == "first-touch"}
    lat, bw = mats.get("numa-latency"), mats.get("numa-bandwidth")
    check(lat is not None and bw is not None, "NUMA matrices: %s" % sorted(mats), errors)
    if lat is None or bw is None:
        return
    names = [t.get("name") for t in lat.get("targets") or []]
    check(names == ["node 0", "node 1", "node 2 (no CPUs)", "node 3 (no CPUs)"], "targets %s" % names, errors)
    check(all(t.get("memory") == "general" and t.get("hot_pluggable") is False and t.get("non_volatile") is False
              for t in lat.get("targets") or []), "target flags %s" % lat.get("targets"), errors)
    check(lat.get("claim") == "read-latency" and lat.get("claims_source") == "acpi",
          "claim %s from %s" % (lat.get("claim"), lat.get("claims_source")), errors)
    for i in range(NODES):
        for t in range(NODES):
            row = i < CPU_NODES
            v, ns, cl, ratio = (lat[k][i][t] for k in ("values", "ns", "claimed_ns", "ratio"))
            check((v is not None and v > 0) == row, "latency %d->%d: %s" % (i, t, v), errors)
            check(lat["distance"][i][t] == distance(i, t), "distance %d->%d: %s" % (i, t, lat["distance"][i][t]),
                  errors)
            if row:
                check(close(cl, latency(i, t)), "claimed latency %d->%d: %s" % (i, t, cl), errors)
                check(ratio_agrees(ratio, ns, cl), "ratio %d->%d: %s (ns %s, claimed %s)" % (i, t, ratio, ns, cl),
                      errors)
                cb = bw["claimed_mb_per_s"][i][t]
                check(close(cb, bandwidth_gib(i, t) * 1024), "claimed bandwidth %d->%d: %s" % (i, t, cb), errors)
                check((bw["gb_per_s"][i][t] or 0) > 0, "bandwidth %d->%d: %s" % (i, t, bw["gb_per_s"][i][t]), errors)
    # The kernel counts with the unrounded ratio; a printed 0.500 or 2.000 may have been either side.
    ratios = [lat["ratio"][i][t] for i in range(CPU_NODES) for t in range(NODES) if lat["ratio"][i][t] is not None]
    off = sum(1 for x in ratios if not 0.5 <= x <= 2.0)
    edge = sum(1 for x in ratios if x in (0.5, 2.0))
    got = lat.get("claims_off")
    check(lat.get("claims_compared") == CPU_NODES * NODES and isinstance(got, int) and off <= got <= off + edge,
          "claims compared %s, off %s (expected %d, %d%s)" % (lat.get("claims_compared"), got, CPU_NODES * NODES, off,
                                                              " to %d" % (off + edge) if edge else ""), errors)

