"""measure.py - a result's measures: its ticks in the unit its experiment speaks (issue 23's design).

A measure converts one sample in ticks (one entry of `samples`) as `scale * ticks`, or `scale / ticks`
when it is `inverse` (a rate). A result's record carries its measures (`measures`, primary first) in
newer runs; for older ones they are computed here from the ticks, the boot record's TSC frequency and
the workload's divisor, as the kernel computes them:

  counter      ns_per_increment  (slowest thread's ticks / increments per thread: params.iters)
  locality     ns_per_element (ticks / params.ints), gb_per_s (params.bytes / time)
  first-touch  per-page steps: ns_per_page, and gb_per_s of zeroing where a page is zeroed;
               hot-access: ns_per_access; copy-* and numa-*: ns_per_page (ticks / pages of
               params.bytes) and gb_per_s (params.bytes / time)
  flush        ns_per_access (the timed pass's ticks / lines of params.set_bytes)
  selftest     ns, and any other workload
Without a TSC frequency the same divisors give ticks per unit, named so ("ticks/increment").
A LAVA result export holds each result's median in the unit its line printed: that is its measure.
"""
from . import machine

PAGE = 4096
ZEROING = ("demand-zero-4k", "demand-zero-2m", "zero-rep-stosb", "zero-nt", "zero-clzero")
PER_PAGE = ("page-fault-entry", "tlb-miss", "tlb-miss-cached") + ZEROING

# name -> (unit, what a reader reads on an axis)
NAMES = {
    "ns_per_increment": ("ns/increment", "ns per increment (slowest thread)"),
    "ns_per_element": ("ns/element", "ns per element summed"),
    "ns_per_page": ("ns/page", "ns per page"),
    "ns_per_access": ("ns/access", "ns per access"),
    "gb_per_s": ("GB/s", "GB/s (higher is faster)"),
    "ns": ("ns", "ns"),
}


class Measure:
    """One measure of a result: name, unit, scale and inverse as in the record's `measures`."""

    def __init__(self, name, unit, scale, inverse=False, label=None, stats=None):
        self.name, self.unit, self.scale, self.inverse = name, unit, scale, bool(inverse)
        self.label = label or NAMES.get(name, (unit, unit))[1]
        self.stats = stats  # the record's own median, q1, q3 in this measure (newer records), else None

    def of(self, ticks):
        """A value in ticks in this measure; None where it has none (no scale, or a rate of 0 ticks)."""
        if ticks is None or self.scale is None:
            return None
        if self.inverse:
            return self.scale / ticks if ticks > 0 else None
        return self.scale * ticks

    def __repr__(self):
        return "Measure(%s, %s, scale=%r%s)" % (self.name, self.unit, self.scale, ", inverse" if self.inverse else "")


def from_record(r):
    """The record's own measures (a list, primary first), [] when it has none, None for an older record
    that predates them."""
    ms = r.get("measures")
    if "measures" not in r:
        return None
    if not isinstance(ms, dict):
        return []
    out = []
    for name, m in ms.items():
        if not isinstance(m, dict):
            continue
        stats = {k: m.get(k) for k in ("median", "q1", "q3")}
        out.append(Measure(name, m.get("unit") or NAMES.get(name, (name,))[0], m.get("scale"), m.get("inverse"),
                           stats=stats))
    return out


def _in_ticks(name, unit):
    """The same measure without a TSC frequency: ns_per_page -> ticks_per_page, "ticks/page"."""
    return ("ticks" + name[2:] if name.startswith("ns") else name), unit.replace("ns", "ticks", 1)


def _per(name, hz, divisor):
    """A time measure per `divisor` units: ns (or ticks without hz) per unit."""
    unit, label = NAMES[name]
    if not divisor:
        return None
    if hz:
        return Measure(name, unit, 1e9 / hz / divisor, label=label)
    tname, tunit = _in_ticks(name, unit)
    return Measure(tname, tunit, 1.0 / divisor, label=label.replace("ns", "ticks", 1))


def _rate(hz, nbytes, label=None):
    """GB/s of nbytes per sample: bytes x hz / 1e9 / ticks (no rate without hz)."""
    if not hz or not nbytes:
        return None
    return Measure("gb_per_s", "GB/s", nbytes * hz / 1e9, inverse=True, label=label or NAMES["gb_per_s"][1])


def derived(r, run, ticks=False):
    """The measures of an older record, primary first, from its ticks, params and the run's TSC frequency
    (in ticks per unit with ticks=True, or without a TSC frequency)."""
    wl, var = r.get("workload"), str(r.get("variant"))
    p = r.get("params") or {}
    hz = None if ticks else machine.tsc_hz(run)
    if wl == "counter":
        out = [_per("ns_per_increment", hz, p.get("iters"))]
    elif wl == "locality":
        out = [_per("ns_per_element", hz, p.get("ints")), _rate(hz, p.get("bytes"))]
    elif wl == "first-touch":
        page = r.get("page_bytes") or p.get("page_bytes")
        if var == "hot-access":
            out = [_per("ns_per_access", hz, 1)]
        elif var in PER_PAGE or (page and not var.startswith(("copy-", "numa-"))):
            out = [_per("ns_per_page", hz, 1)]
            if var in ZEROING:
                out.append(_rate(hz, page or PAGE, "GB/s of zeroing (higher is faster)"))
        elif p.get("bytes"):
            out = [_per("ns_per_page", hz, p["bytes"] / PAGE), _rate(hz, p["bytes"])]
        else:
            out = [_per("ns", hz, 1)]
    elif wl == "flush":
        lines = (p.get("set_bytes") or 0) // machine.line_bytes(run)
        out = [_per("ns_per_access", hz, lines)]
    else:
        out = [_per("ns", hz, 1)]
    return [m for m in out if m is not None]


def of(r, run, ticks=False):
    """A result's measures, primary first: the record's own, else derived; a LAVA export's result (its
    median in the unit its line printed) has that unit as its one measure, without a scale. With
    ticks=True: the same measures in ticks (qb table --ticks)."""
    own = None if ticks else from_record(r)
    if own is not None:
        return own
    if r.get("unit") not in (None, "ticks"):
        u = str(r["unit"])
        return [Measure(u.replace("/", "_per_"), u, None, label=u)]
    if r.get("median") is None and r.get("check") == "skipped":
        return []
    return derived(r, run, ticks)


def primary(r, run, ticks=False):
    ms = of(r, run, ticks)
    return ms[0] if ms else None


def named(r, run, name, ticks=False):
    """The measure of that name (gb_per_s, say), or None."""
    return next((m for m in of(r, run, ticks) if m.name == name), None)


MATRIX_UNITS = {  # a matrix record's unit -> (unit shown, factor as a function of the TSC frequency)
    "ticks_per_increment": ("ns/increment", lambda hz: 1e9 / hz),
    "ticks_per_load": ("ns/load", lambda hz: 1e9 / hz),
    "bytes_per_tick": ("GB/s", lambda hz: hz / 1e9),
}


def matrix_unit(m, run):
    """(unit, factor) to show a matrix record's values in: ns or GB/s where the TSC frequency is known,
    else its own unit with factor 1."""
    u = str(m.get("unit", "value"))
    hz = machine.tsc_hz(run)
    if u in MATRIX_UNITS and hz:
        name, f = MATRIX_UNITS[u]
        return name, f(hz)
    return u.replace("_", " "), 1.0
