"""match.py - which results of different runs measured the same thing (qb compare, qb report).

Results pair on what defines a measurement: workload, variant (counter's layout), threads,
placement and size role, plus the params in DEFINING (locality's accumulator and start). Never on iteration
counts, totals, elements, repetitions, passes, pages or the profile: a quick and a full run, or bare
metal and the Linux twin, line up wherever they measured the same thing.

The size role (locality) is `params.size_role` in newer records (L2, LLC, DRAM; absent when the size
is none of them on that machine). For an older record it is derived the same way from the run's own
cache records: the size's name says which role it claims (small or l2: L2, llc: LLC, dram: DRAM) and
it holds only when the bytes are that on the machine (machine.role_holds). A size with no role pairs
on its bytes. A result with `same_placements` (one run for placements that pick the same CPUs) pairs
with a result of any of them. A skipped result, which says less about itself, pairs with the
measured one it stands for.

A locality result's start (`params.start`: cold, the data in memory; resident, read just before) is
there in newer records. An older measured record has none: it started cold, unless its run had
flush=none, which flushed nothing (then resident, as flush=none's passes are now).

Where a locality array lives (`params.memory_placement`, issue 32) defines the result too. A run on one
NUMA node has none, old or new: its array is on its threads' node, and such results pair with each other
as before. On several nodes a newer record says it: `node N`, `interleaved` (over the threads' nodes) or
`thread-local` (each blocked thread's part on its node). `node N` where every CPU of the result is on
node N is the one-node case again (memory where the threads are), so it pairs as a record without the
param does: a one-node run's results line up with a two-node run's single-node ones. An older record of a
run of several nodes has none, but its array was one block on the first CPU's node: it counts as `node N`
of that node (the run's cpu records say which), and so pairs only where a newer record is there too.
"""
from . import machine

DEFINING = {"locality": ("accumulator", "start", "memory_placement")}
CLAIMED_ROLE = {"small": "L2", "l2": "L2", "llc": "LLC", "dram": "DRAM"}  # "small": the oldest records' name
KEY_FIELDS = ("workload", "variant", "threads", "placement", "size", "params")


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return ("%d %s" if float(n).is_integer() else "%.1f %s") % (n, unit)
        n /= 1024.0
    return str(n)


def newer(r):
    """A record of issue 23's format, which states its own figure, measures and size role."""
    return any(k in r for k in ("figure", "measures", "noisy"))


def _bounds(run):
    if not hasattr(run, "_qb_cache_bounds"):
        run._qb_cache_bounds = machine.cache_bounds(run)
    return run._qb_cache_bounds


def size_role(r, run):
    """L2, LLC, DRAM or None for a locality result (None for every other workload)."""
    if r.get("workload") != "locality":
        return None
    p = r.get("params") or {}
    if p.get("size_role"):
        return str(p["size_role"])
    claimed = CLAIMED_ROLE.get(str(p.get("size", "")).lower())
    if p.get("bytes") is None or claimed is None:
        return claimed  # a skipped result names its size and nothing else
    if newer(r):
        return None
    return claimed if machine.role_holds(claimed, p["bytes"], _bounds(run)) else None


def size(r, run):
    """The size part of the key: its role, else its bytes ("512 KiB"), else None."""
    role = size_role(r, run)
    if role:
        return role
    p = r.get("params") or {}
    if r.get("workload") == "locality" and isinstance(p.get("bytes"), (int, float)):
        return human_bytes(p["bytes"])
    return None


def threads(r):
    """The result's thread count; a skipped result says it in params, or not at all (None)."""
    t = r.get("threads") or (r.get("params") or {}).get("threads")
    return t or None


def placements(r):
    """The placements the result stands for: its own, or all of same_placements."""
    same = r.get("same_placements")
    if isinstance(same, list) and same:
        return [str(x) for x in same]
    p = (r.get("params") or {}).get("placement")
    return [None if p is None else str(p)]


def start(r):
    """A locality result's start: params.start; for an older measured record, which has none, cold
    (resident where it says flush=none); None for a skipped one that does not say, and for every
    other workload."""
    if r.get("workload") != "locality":
        return None
    p = r.get("params") or {}
    if p.get("start"):
        return str(p["start"])
    if r.get("check") == "skipped":
        return None
    return "resident" if p.get("flush") == "none" else "cold"


def _cpu_nodes(run):
    """{dense CPU: node} from the run's cpu records (cached on the run)."""
    if run is None:
        return {}
    if not hasattr(run, "_qb_cpu_nodes"):
        run._qb_cpu_nodes = {c.get("index"): c.get("node") for c in run.of_kind("cpu")
                             if isinstance(c, dict) and c.get("node") is not None}
    return run._qb_cpu_nodes


def _nodes(run):
    boot = getattr(run, "boot", None) if run is not None else None
    boot = boot() if callable(boot) else boot
    return (boot or {}).get("numa_nodes") or 1


def memory_placement(r, run):
    """Where a locality result's array lived, as it pairs: None where it is on its threads' one node (every
    run of one node; `node N` with every CPU of the result on N), else `params.memory_placement`; for an
    older record of a run of several nodes, `node N` of the run's first CPU. None for other workloads."""
    if r.get("workload") != "locality":
        return None
    p = r.get("params") or {}
    mp = p.get("memory_placement")
    nodes = _cpu_nodes(run)
    if mp is None:
        if r.get("check") == "skipped" or _nodes(run) <= 1 or 0 not in nodes:
            return None
        mp = "node %s" % nodes[0]
    mp = str(mp)
    cpus = r.get("cpus") or []
    if mp.startswith("node ") and cpus and all(str(nodes.get(c)) == mp[5:] for c in cpus):
        return None
    return mp


def defining(r, run=None):
    """The params in DEFINING the result has (its start as start() reads it, its memory placement as
    memory_placement() does), in that order."""
    p = dict(r.get("params") or {})
    if start(r):
        p["start"] = start(r)
    p.pop("memory_placement", None)
    if memory_placement(r, run):
        p["memory_placement"] = memory_placement(r, run)
    return tuple("%s=%s" % (k, p[k]) for k in DEFINING.get(r.get("workload"), ()) if k in p)


def key(r, run, placement):
    return (r.get("workload"), r.get("variant"), threads(r), placement, size(r, run), defining(r, run))


def _params_fit(a, b):
    """Defining params agree on every name both have (a skipped result may leave some out)."""
    da, db = dict(x.split("=", 1) for x in a), dict(x.split("=", 1) for x in b)
    return all(da[k] == db[k] for k in da.keys() & db.keys())


def _fits(ka, kb):
    """Keys that agree wherever both say something (a skipped result leaves threads or size out)."""
    return all(a == b or a is None or b is None or (f == "params" and _params_fit(a, b))
               for f, a, b in zip(KEY_FIELDS, ka, kb))


class Row:
    """One measurement across runs: its key and a result (or None) per run."""

    def __init__(self, k, n):
        self.key = k
        self.cells = [None] * n

    @property
    def present(self):
        return [i for i, c in enumerate(self.cells) if c is not None]

    def label(self):
        """{"variant", "threads", "placement", "size", "params"} as text for the views."""
        wl, var, thr, place, sz, extra = self.key
        return {"workload": wl or "-", "variant": var or "-", "threads": "-" if thr is None else str(thr),
                "placement": place or "-", "size": sz or "-", "params": " ".join(extra) or "-"}

    def merged(self):
        """Runs whose result here stands for several placements: {run index: "compact = scatter"}."""
        return {i: " = ".join(placements(c)) for i, c in enumerate(self.cells)
                if c is not None and len(placements(c)) > 1}


def _skipped(r):
    return r.get("check") == "skipped"


def align(runs, workload=None):
    """Rows of results that measured the same thing, one column per run, in the order they first
    appear (the first run's first). Within a run, results of the same key line up in their order."""
    rows, index = [], {}
    for i, run in enumerate(runs):
        seen = {}
        for r in run.results(workload):
            for pl in placements(r):
                k = key(r, run, pl)
                occ = seen.get(k, 0)
                seen[k] = occ + 1
                if (k, occ) not in index:
                    index[(k, occ)] = Row(k, len(runs))
                    rows.append(index[(k, occ)])
                index[(k, occ)].cells[i] = r
    rows = _join_skipped(rows)
    return _drop_covered(rows)


def _join_skipped(rows):
    """A row whose results are all skipped joins a row of the measured results it stands for."""
    out = []
    for row in rows:
        cells = [c for c in row.cells if c is not None]
        if cells and all(_skipped(c) for c in cells):
            home = next((o for o in out if o is not row and _fits(o.key, row.key)
                         and all(o.cells[i] is None for i in row.present)), None)
            if home is not None:
                for i in row.present:
                    home.cells[i] = row.cells[i]
                continue
        out.append(row)
    # and a measured row may take a skipped row that came before it
    final = []
    for row in out:
        cells = [c for c in row.cells if c is not None]
        if cells and not all(_skipped(c) for c in cells):
            for s in final:
                sc = [c for c in s.cells if c is not None]
                if sc and all(_skipped(c) for c in sc) and _fits(s.key, row.key) and \
                        all(row.cells[i] is None for i in s.present):
                    for i in s.present:
                        row.cells[i] = s.cells[i]
                    final.remove(s)
                    break
        final.append(row)
    return final


def _drop_covered(rows):
    """A row none of whose results is missing from another row is that row's shadow: a result standing
    for two placements appears once per placement only where it pairs there."""
    out = []
    for row in rows:
        mine = [(i, id(row.cells[i])) for i in row.present]
        covered = any(o is not row and len(o.present) >= len(mine) and
                      all(o.cells[i] is not None and id(o.cells[i]) == rid for i, rid in mine) and
                      (len(o.present) > len(mine) or rows.index(o) < rows.index(row))
                      for o in rows)
        if not covered:
            out.append(row)
    return out
