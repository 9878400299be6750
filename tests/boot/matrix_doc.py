"""matrix_doc - the boot matrix's table of configurations and timings as Markdown (make matrix-doc writes
docs/matrix.md from a run of tests/boot/matrix.py)."""
import datetime

from matrix_cell import QUICK
from matrix_checks import CPU_MODELS


def describe(check_fn):
    """A check's one-line description: the first line of its docstring."""
    return (check_fn.__doc__ or check_fn.__name__).strip().split("\n")[0].rstrip(".")


def write_doc(path, rows, total, jobs, load):
    """The table of configurations and timings, as Markdown."""
    lines = [
        "# The boot matrix",
        "",
        "*For developers: the machines QuietBench is booted on under QEMU before a change lands, and how long each",
        "takes.*",
        "",
        "`make test-matrix` (tests/boot/matrix.py) boots QuietBench in QEMU 7.2 under TCG with",
        "OVMF in each configuration below, with `%s` unless the cell says otherwise." % QUICK,
        "Every cell checks every record's CRC, `done` ok (and last), that no unexpected",
        "`error` record was printed, `cpus_online == cpus_found`, one `cpu` record per",
        "MADT processor (state, online, node, package/die/core/thread), caches covering",
        "every online CPU, the reference timer, usable and free memory, and the selftest",
        "on every CPU. Unless the configuration says otherwise a cell has 1 GiB,",
        "`-cpu max` and an HPET. A failing cell prints its serial log (kept in",
        "`build/matrix/`).",
        "",
        "Seconds are the wall time of one boot on the project's 2-core machine, %s at a time," % jobs,
        "with a host load average of %.1f when the run started (other jobs share the" % load,
        "machine; an idle one is faster). `make matrix-doc` reruns every cell, slow ones",
        "included, and rewrites this file (generated %s)." % datetime.date.today().isoformat(),
        "",
        "| cell | what | configuration | command line | checks beyond the common ones | seconds | result |",
        "|---|---|---|---|---|---|---|",
    ]
    for cell, secs, result in rows:
        extra = "; ".join(describe(f) for f in cell.checks
                          if cell.cpu != "max" or f is not CPU_MODELS["max"])
        name = "`%s`%s" % (cell.name, " (slow)" if cell.slow else "")
        lines.append("| %s | %s | %s | `%s` | %s | %.1f | %s |" % (name, cell.group, cell.config_text(), cell.args,
                                                                extra or "-", secs, result))
    quick = sum(secs for c, secs, _ in rows if not c.slow)
    lines += ["", "Total: %.0f s for %d cells; `make test-matrix` leaves out the slow ones: %.0f s."
              % (total, len(rows), quick if jobs == 1 else total), ""]
    xf = [(c, r) for c, _, r in rows if c.known_failure]
    if xf:
        lines += ["## Known failures", "",
                  "These cells are marked with the exact failure expected: it shows as `xfail`",
                  "and does not fail the matrix, but only if the run still ended cleanly (a",
                  "`done` record, every CRC intact, no timeout); any other failure does.", ""]
        lines += ["- `%s` (%s): %s." % (c.name, r, c.known_failure[1]) for c, r in xf]
        lines.append("")
    lines += DOC_TAIL
    with open(path, "w") as f:
        f.write("\n".join(lines))


DOC_TAIL = [
    "## What the cells show",
    "",
    "- `smp4-maxcpus8`: QEMU lists 8 processors in the MADT and enables 4. The other 4 are",
    "  `cpu` records with state `not-present` and `online` false, `cpus_found` is 4, and",
    "  `ap_startup_us` stays far below the 1 s AP timeout: absent CPUs are not waited for.",
    "- `numa4-uneven`: node 2 has CPUs and no memory (its `free_bytes` is 0), node 3 has",
    "  memory and no CPUs; every CPU carries its SRAT node. QEMU 7.2 takes a node without",
    "  `memdev` as memory-less and a node without `cpus` as CPU-less.",
    "- `mem128m-full-locality`: the full profile at 128 MiB. Each result records the bytes it",
    "  used (`params.bytes`): `l2` is the seed's 64 Ki ints, `llc` half the L3, and `dram`",
    "  is skipped with the reason when 4x the L3 does not fit in half the free memory.",
    "- `mem1g-full-first-touch` (slow, about 90 s): the full first-touch profile where it fits.",
    "  Before the fix it ended in a page fault: the seed's copy faults `src` and `dst` in",
    "  alternately, so freeing one left a hole per 4 KiB page, pmm's range table (1024",
    "  entries) overflowed and the rest was lost (about 250 MiB per copy case), until no",
    "  2 MiB page was left for `demand-zero-2m`. Freed demand-zero pages now wait in",
    "  kernel/mm/demand.c and go back sorted, so they merge.",
    "- CPU models: `qemu64` reports `rdtscp` false, `tsc_invariant` false and caches from",
    "  0x80000005/6 with `sharing_assumed`; `Skylake-Server` caches come from leaf 4. Under TCG",
    "  no model has an invariant TSC or TOPOEXT (QEMU drops both), so `EPYC` and `max` also",
    "  assume cache sharing, and `-cpu max` is an AMD-like \"QEMU TCG CPU\".",
    "- `no-hpet`: `-machine q35,hpet=off`; the TSC is calibrated against the ACPI PM timer",
    "  (`reference_timer` and `tsc_source` `pm-timer`); every other cell uses the HPET.",
    "- `bigmem-*`: terabytes in nodes of 1.5 TiB, a CPU on each, `reserve=off` so the host",
    "  commits none of it (nothing in the boot touches RAM page by page). Every byte is",
    "  mapped, in about 120 KiB of tables, and every node's memory is a column of the",
    "  first-touch NUMA matrix. The OVMF cells (the UEFI loader) are slow and run in",
    "  `make test-slow`; the SeaBIOS one (the multiboot2 loader) in `make test-matrix`.",
    "",
    "## Limits",
    "",
    "| limit | value | shown in QEMU | past it |",
    "|---|---|---|---|",
    "| NUMA nodes | 64 (`QB_MAX_NODES`) | `limit-66-nodes` | an `acpi` `error` record for the SRAT (\"domain limit, N entries dropped\"); the 64 lowest domains are kept, and the memory of the others stays usable |",
    "| physical memory mapped | all RAM below the CPU's address width and 128 TiB, in 1 GiB pages; without them what 6 MiB of tables (`QB_PT_BUDGET`) map in 2 MiB pages, about 1.5 TiB | `bigmem-*`: 3 and 6 TiB all mapped; `limit-3t-no-1g-pages`: 3 TiB on `Skylake-Server,pdpe1gb=off` (the host reserves none of it) | a `paging` `error` record per reason with its bytes, where they start and why; `unmapped_ram_bytes` in the `memory` and `done` records, the screen's header and end line; the run uses the RAM below |",
    "| CPUs | 1024 (`QB_MAX_CPUS`); x2APIC for APIC IDs above 254 | not in the matrix: QEMU 7.2's TCG has no x2APIC (\"TCG doesn't support requested feature: x2apic\"), so at most 255 xAPIC CPUs; QEMU 10 boots 768 (2 sockets x 192 cores x 2 threads, APIC IDs to 895) in `make test-slow` (tests/boot/big_smp_tests.py) | MADT entries past the limit are dropped with an `error` record (host unit tests) |",
    "",
    "With an AMD CPU model (`-cpu max` under TCG), QEMU 7.2 moves all RAM above 4 GiB to",
    "start at 1 TiB once it would reach the HyperTransport hole below 1 TiB; the big cells",
    "use `Skylake-Server,phys-bits=43` (8 TiB of addresses) for the layout Intel servers",
    "have. Until issue 32 the kernel mapped RAM below 1 TiB only (`limit-1100g` showed it):",
    "on 3 TiB in two nodes node 1's memory was never measured, its column of the first-touch",
    "NUMA matrix null. Without 1 GiB pages OVMF itself does not start on 3 TiB (no line on",
    "serial in 10 minutes), so `limit-3t-no-1g-pages` boots through SeaBIOS and the image's",
    "multiboot2 path, as `bigmem-6t-4nodes-bios` does with them: each takes seconds where",
    "OVMF takes half a minute for terabytes.",
    "",
]
