"""machine.py - what a run's boot and cache records say about the machine that every view repeats:
a hypervisor and what it means for the numbers, the caches that give sizes their roles, the line size.

A hypervisor is named from the boot record: `hypervisor` (CPUID.1:ECX[31]) and, in newer records,
`hypervisor_name` and `virtual_note` (docs/records.md). An older record has the bit alone: the
views still say the machine is virtual, and that its name is not in the record.
"""

VIRTUAL_WHAT = "caches, SMT siblings and timers are virtual; these numbers are not bare metal's"
DEFAULT_LINE = 64  # bytes: when a run has no cache records


def hypervisor(run):
    """The hypervisor's name; "unnamed" for an older record that has the CPUID bit only; None on bare metal
    (or when the boot record does not say: a LAVA export)."""
    b = run.boot
    if b.get("hypervisor_name"):
        return str(b["hypervisor_name"])
    if b.get("hypervisor") is True:
        return "unnamed"
    return None


def virtual_note(run):
    """One line saying the machine is virtual and what that means, or None on bare metal."""
    b = run.boot
    if b.get("virtual_note"):
        return str(b["virtual_note"])
    name = hypervisor(run)
    if name is None:
        return None
    if name == "unnamed":
        return "virtual machine (a hypervisor: CPUID.1:ECX[31]; this older record does not name it): " + VIRTUAL_WHAT
    return "virtual machine (%s): %s" % (name, VIRTUAL_WHAT)


def platform(run):
    b = run.boot
    return "linux twin" if b.get("platform") == "linux" or b.get("loader") == "linux" else "bare metal"


def _data_caches(run):
    return [c for c in run.of_kind("cache") if c.get("type") in ("data", "unified") and c.get("size")]


def cache_bounds(run):
    """{"L1": largest L1 data cache, "L2": smallest L2, "LLC_min", "LLC_max": the last level's smallest and
    largest instance} in bytes, or None without cache records. On a machine whose last level is its L2
    (this project's VM), the LLC is the L2."""
    cs = _data_caches(run)
    if not cs:
        return None
    levels = {}
    for c in cs:
        levels.setdefault(c.get("level"), []).append(c["size"])
    last = max(levels)
    return {"L1": max(levels.get(1, [0])), "L2": min(levels[2]) if 2 in levels else None,
            "LLC_min": min(levels[last]), "LLC_max": max(levels[last]), "LLC_level": last}


def role_holds(role, nbytes, bounds):
    """True when nbytes is what `role` means on the machine: L1 < bytes <= L2 for L2; L2 < bytes <= the
    smallest LLC for LLC; bytes >= 4 x the largest LLC for DRAM (the design of issue 23)."""
    if bounds is None or not isinstance(nbytes, (int, float)):
        return False
    l1, l2 = bounds["L1"], bounds["L2"]
    if role == "L2":
        return l2 is not None and l1 < nbytes <= l2
    if role == "LLC":
        return l2 is not None and bounds["LLC_level"] > 2 and l2 < nbytes <= bounds["LLC_min"]
    if role == "DRAM":
        return nbytes >= 4 * bounds["LLC_max"]
    return False


def line_bytes(run):
    """The cache line size from the L1 data cache's record (64 without one)."""
    for c in run.of_kind("cache"):
        if c.get("level") == 1 and c.get("type") in ("data", "unified") and c.get("line"):
            return int(c["line"])
    return DEFAULT_LINE


def tsc_hz(run):
    """TSC ticks per second, or None when unknown (the record says 0)."""
    hz = run.boot.get("tsc_hz")
    return float(hz) if isinstance(hz, (int, float)) and hz > 0 else None


def firmware(run):
    """The firmware as the boot record gives it, or why it is not there (never "None")."""
    b = run.boot
    parts = [str(x) for x in (b.get("firmware_vendor"), b.get("firmware_revision")) if x not in (None, "")]
    if parts:
        return " ".join(parts)
    if b.get("bios_version"):
        return "BIOS %s" % b["bios_version"]
    if platform(run) == "linux twin":
        return "not visible to the Linux twin"
    return "not in the boot record"


def _smbios(run):
    return run.first("machine") or {}


def product(run):
    """"Dell Inc. PowerEdge R630" from the machine record's system (SMBIOS type 1), or why it is not known."""
    m = _smbios(run)
    if not m:
        return "not recorded (records before the machine record)"
    y = m.get("system") or {}
    name = " ".join(str(x) for x in (y.get("manufacturer"), y.get("product")) if x)
    if y.get("product"):
        return name
    return "unknown (%s)" % (m.get("source_note") or "the table names no product")


def bios(run):
    """"BIOS 2.3.4 (11/08/2016), Dell Inc." from SMBIOS type 0, or why it is not known."""
    m = _smbios(run)
    if not m:
        return "not recorded (records before the machine record)"
    b = m.get("bios") or {}
    if not b.get("version"):
        return "unknown (%s)" % (m.get("source_note") or "the table gives no BIOS version")
    out = "BIOS %s" % b["version"]
    if b.get("date"):
        out += " (%s)" % b["date"]
    return out + (", %s" % b["vendor"] if b.get("vendor") else "")


def system_line(run):
    """"system: Dell Inc. PowerEdge R630, BIOS 2.3.4 (11/08/2016), Dell Inc.; memory: 2 of 24 slots: ..." for a
    table's heading, or None for a run without the machine record (older logs, a LAVA export)."""
    m = _smbios(run)
    if not m:
        return None
    from . import memory
    return "system: %s, %s; memory: %s" % (product(run), bios(run), memory.config_text(run))
