"""matrix_cell - one cell of the boot matrix (tests/boot/matrix.py): a QEMU configuration and what its records
must say, with the kernel's limits the checks hold it to."""

MiB = 1 << 20
GiB = 1 << 30
QUICK = "profile=quick workloads=selftest"
SMP_TIMEOUT_MS = 1000          # the kernel's default smp_timeout_ms
MAX_NODES = 64                 # kernel/lib/qb_limits.h QB_MAX_NODES
TiB = 1 << 40
PT_BUDGET = 6 << 20            # kernel/lib/qb_limits.h QB_PT_BUDGET: the kernel's identity-map tables


class Cell:
    """One QEMU configuration and what its records must say.

    cpus: CPUs in the MADT (-smp maxcpus), online: those started (-smp N);
    nodes: {apic_id: node} when NUMA is configured (else every CPU is node 0),
    mem_nodes: nodes that must have free memory, empty_nodes: nodes that must
    have none; errors: regexes, each matching one expected error record;
    left_out: RAM is expected to be left out of the page tables (else none may be);
    firmware: "ovmf" (the UEFI loader, -kernel) or "seabios" (the USB image from a SATA disk, through its GRUB's
    multiboot2 path).
    """

    def __init__(self, name, group, smp, mem=1024, cpu="max", machine=None, qemu=(), args=QUICK,
                 online=None, nodes=None, numa_nodes=1, mem_nodes=(), empty_nodes=(), errors=(),
                 checks=(), timeout=120, known_failure=None, note="", slow=False, host_skip=None, left_out=False,
                 firmware="ovmf"):
        self.name, self.group, self.smp, self.mem, self.cpu = name, group, smp, mem, cpu
        self.machine, self.qemu, self.args, self.timeout = machine, list(qemu), args, timeout
        self.cpus = int(dict(kv.split("=") for kv in smp.split(",")[1:]).get("maxcpus", smp.split(",")[0]))
        self.online = online if online is not None else int(smp.split(",")[0])
        self.nodes, self.numa_nodes = nodes, numa_nodes
        self.mem_nodes, self.empty_nodes, self.errors = mem_nodes, empty_nodes, errors
        self.checks, self.known_failure, self.note, self.slow = checks, known_failure, note, slow
        self.host_skip = host_skip  # regex on QEMU's output: the host cannot run this cell
        self.left_out, self.firmware = left_out, firmware

    def qemu_text(self):
        """The configuration as a reader would type it."""
        parts = ["-smp " + self.smp, "-m " + mem_text(self.mem)]
        if self.cpu != "max":
            parts.append("-cpu " + self.cpu)
        if self.machine:
            parts.append("-machine q35," + self.machine)
        if self.firmware == "seabios":
            parts.append("(SeaBIOS, the image on SATA, multiboot2)")
        return " ".join(parts)

    def config_text(self):
        """The configuration for the table: QEMU's flags, then the NUMA layout or other notes."""
        return "`%s`%s" % (self.qemu_text(), ", " + self.note if self.note else "")


def mem_text(mib):
    if mib % (1024 * 1024) == 0:
        return "%dT" % (mib // (1024 * 1024))
    return "%dG" % (mib // 1024) if mib % 1024 == 0 else "%dM" % mib


def numa_qemu(layout, reserve=True):
    """-object/-numa arguments for [(cpus "a-b" or None, MiB or 0), ...], one entry per node id; reserve=False:
    the host commits none of the memory (terabytes the guest never touches whole)."""
    out = []
    for node, (cpus, mib) in enumerate(layout):
        spec = "node,nodeid=%d" % node
        if cpus is not None:
            spec += ",cpus=" + cpus
        if mib:
            out += ["-object", "memory-backend-ram,id=mx%d,size=%dM%s" % (node, mib, "" if reserve else ",reserve=off")]
            spec += ",memdev=mx%d" % node
        out += ["-numa", spec]
    return out


def node_map(layout):
    """{apic_id: node} for a numa_qemu layout (QEMU's cpu index is the APIC ID on one socket)."""
    m = {}
    for node, (cpus, _) in enumerate(layout):
        if cpus is None:
            continue
        lo, _, hi = cpus.partition("-")
        for c in range(int(lo), int(hi or lo) + 1):
            m[c] = node
    return m
