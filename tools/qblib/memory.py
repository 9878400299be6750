"""memory.py - a run's memory as its SMBIOS records give it, and what qb compare marks when two machines' memory
differs.

The `machine` record (docs/records.md) holds the one-line `memory_config` ("16 of 32 slots: 16 x 32 GiB
DDR5-4800 RDIMM, ECC; 8 per node"), the arrays' error correction and `dimms_per_node`; each populated slot has
a `memory_device` record with its `configured_mts`. Two runs whose memory differs in configured speed, in
modules per node or in error correction measure different machines, whatever their CPUs: a pair from them
says so beside the clock's mark (clock.pair_note), "memory differs: configured speed 4800 / 5600 MT/s". Only
what both sides know is compared: a side without the records (older runs, the twin without root) marks
nothing, and the header says why.
"""

BEFORE = "not recorded (records before the machine record)"
ECC_WORDS = ("Single-bit ECC", "Multi-bit ECC", "CRC")


def record(run):
    """The run's `machine` record, or None."""
    return run.first("machine")


def devices(run):
    """The populated system-memory slots' `memory_device` records."""
    return [d for d in run.of_kind("memory_device") if d.get("array_use") in (None, "System Memory")]


def config(run):
    """The memory_config line, or None."""
    m = record(run)
    return m.get("memory_config") if m else None


def config_text(run):
    """The memory_config line, or why there is none (never "None")."""
    m = record(run)
    if not m:
        return BEFORE
    if m.get("memory_config"):
        return str(m["memory_config"])
    return "unknown: %s" % (m.get("memory_config_note") or m.get("source_note") or "no reason given")


def configured_speeds(run):
    """The configured speeds (MT/s) of the populated slots, as a sorted tuple; None where no slot says."""
    got = sorted({d["configured_mts"] for d in devices(run) if isinstance(d.get("configured_mts"), int)})
    return tuple(got) or None


def ecc(run):
    """"ECC", "no ECC", "mixed" or None (unknown) over the system memory arrays."""
    m = record(run)
    arrays = [a for a in (m or {}).get("memory_arrays") or [] if a.get("use") == "System Memory"]
    if not arrays:
        return None
    kinds = {"ECC" if a.get("ecc") in ECC_WORDS else "no ECC" if a.get("ecc") == "None" else "?" for a in arrays}
    if kinds == {"ECC"} or kinds == {"no ECC"}:
        return kinds.pop()
    return "mixed" if "?" not in kinds else None


def per_node(run):
    """Modules on each node, as a tuple; None where the record cannot say."""
    m = record(run)
    v = (m or {}).get("dimms_per_node")
    return tuple(v) if isinstance(v, list) else None


def _list_text(v, sep):
    return sep.join(str(x) for x in v)


# (what, the run's value, its text, the unit after "A / B")
ASPECTS = (("configured speed", configured_speeds, lambda v: _list_text(v, ","), " MT/s"),
           ("DIMMs per node", per_node, lambda v: _list_text(v, "+"), ""),
           ("ECC", ecc, str, ""))


def _side(runs):
    """The first run of a side that has a machine record (the side's memory), or the first run."""
    return next((r for r in runs if record(r)), runs[0] if runs else None)


def differences(ra, rb):
    """What differs in the two runs' memory, as "what A / B" each; only what both runs know."""
    out = []
    for what, f, text, unit in ASPECTS:
        va, vb = f(ra), f(rb)
        if va is not None and vb is not None and va != vb:
            out.append("%s %s / %s%s" % (what, text(va), text(vb), unit))
    return out


def pair_note(runs_a, runs_b):
    """"memory differs: configured speed 4800 / 5600 MT/s" for a pair whose sides' memory differs, else None."""
    ra, rb = _side(runs_a), _side(runs_b)
    if ra is None or rb is None:
        return None
    diffs = differences(ra, rb)
    return "memory differs: " + "; ".join(diffs) if diffs else None


def header_line(runs_a, runs_b):
    """"memory: A <config>, B <config>" and, where they differ, that every pair says so."""
    ra, rb = _side(runs_a), _side(runs_b)
    line = "memory: A %s, B %s" % (config_text(ra), config_text(rb))
    note = pair_note(runs_a, runs_b)
    if note:
        line += "; %s: every pair from these runs is marked" % note
    return line
