#!/usr/bin/env python3
"""matrix - boot QuietBench across a matrix of QEMU machines and check each run's records (issue 9).

Cells vary one thing at a time: CPU count (with absent MADT entries), NUMA
layout (with a node without memory and a node without CPUs), memory size
(with the full profile shrunk to 128 MiB), CPU model, HPET or PM timer, and
the limits QEMU 7.2 under TCG can reach (65+ NUMA domains, RAM past what 2 MiB
pages map within the page-table budget), and big servers (3 and 6 TiB, slow).
Each cell runs tools/qemu-run with a timeout and checks: every record's CRC,
done ok, no unexpected error records, cpus_online == cpus_found, one cpu
record per MADT processor with the configured state, node and topology, the
caches covering every online CPU, the reference timer, and the cell's own
checks. A failing cell prints its serial log (kept in build/matrix/).

A cell may be marked as a known failure, with the file that causes it and
the exact failure expected: it then shows as "xfail" and does not fail the
matrix, any other failure does, and a pass says to remove the mark.

A cell the host cannot run (QEMU cannot get the memory) is skipped. Slow
cells run only with --slow or by name. The last line is "matrix: N passed,
N failed"; known failures and skipped cells are counted on the line before.
--doc writes the table of configurations and timings as Markdown (make
matrix-doc: docs/matrix.md).

This file holds the cells and runs them; what a cell is: matrix_cell.py; the
checks: matrix_checks.py; the Markdown table: matrix_doc.py.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time

from matrix_cell import MAX_NODES, SMP_TIMEOUT_MS, Cell, node_map, numa_qemu
from matrix_checks import (CPU_MODELS, check, check_all_mapped, check_ap_startup, check_common, check_cpus,
                           check_first_touch_numa, check_first_touch_sizes, check_left_out_without_1g, check_limit_nodes,
                           check_locality_sizes, check_mem_above_4g,
                           check_numa_targets)
from matrix_doc import write_doc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402


# ---- Cells --------------------------------------------------------------------
# A node with memory only (3), one with CPUs only (2), two with both.
NUMA4 = [("0", 256), ("1", 256), ("2-3", 0), (None, 512)]
NUMA2 = [("0-1", 512), ("2-3", 512)]
NUMA1 = [("0-1", 1024)]
# Two domains past QB_MAX_NODES: 66 nodes of 16 MiB, CPUs on the first two.
NUMA66 = [("0", 16), ("1", 16)] + [(None, 16)] * 64
# Big servers (issue 32): 3 TiB in two nodes, 6 TiB in four, a CPU on each; the host commits none of it.
NODE_1T5 = 1536 * 1024
BIG3T = [("0", NODE_1T5), ("1", NODE_1T5)]
BIG6T = [("0", NODE_1T5), ("1", NODE_1T5), ("2", NODE_1T5), ("3", NODE_1T5)]
# An Intel model: on AMD ones QEMU moves RAM above 4 GiB to start at 1 TiB. 43 bits: 8 TiB of addresses.
BIG_CPU = "Skylake-Server,phys-bits=43"
NO_HOST_MEMORY = r"cannot set up guest memory|Cannot allocate memory"


CELLS = [
    # CPUs (1 GiB, -cpu max, HPET).
    Cell("smp1", "cpus", "1"),
    Cell("smp2", "cpus", "2"),
    Cell("smp3", "cpus", "3", slow=True),
    Cell("smp5", "cpus", "5", slow=True),
    Cell("smp8", "cpus", "8"),
    Cell("smp16", "cpus", "16", slow=True),
    Cell("smp4-maxcpus8", "cpus", "4,maxcpus=8", checks=[check_ap_startup(SMP_TIMEOUT_MS * 1000 * 9 // 10)]),
    # NUMA: SRAT with 1, 2 and 4 nodes.
    Cell("numa1", "numa", "2", qemu=numa_qemu(NUMA1), nodes=node_map(NUMA1), mem_nodes=[0],
         note="NUMA: 1 node with both CPUs and all memory", slow=True),
    Cell("numa2", "numa", "4", qemu=numa_qemu(NUMA2), nodes=node_map(NUMA2), numa_nodes=2, mem_nodes=[0, 1],
         note="NUMA: 2 nodes of 2 CPUs and 512M"),
    Cell("numa4-uneven", "numa", "4", qemu=numa_qemu(NUMA4), nodes=node_map(NUMA4), numa_nodes=4,
         mem_nodes=[0, 1, 3], empty_nodes=[2],
         note="NUMA: node 0 CPU 0 and 256M, node 1 CPU 1 and 256M, node 2 CPUs 2-3 and no memory, node 3 512M and no CPUs"),
    Cell("numa4-uneven-first-touch", "numa", "4", qemu=numa_qemu(NUMA4), nodes=node_map(NUMA4), numa_nodes=4,
         mem_nodes=[0, 1, 3], empty_nodes=[2], args="profile=quick workloads=first-touch",
         checks=[check_first_touch_numa({0, 1, 2}, {0, 1, 3})],
         note="NUMA as numa4-uneven"),
    # Memory: 128 MiB and 6 GiB (1 GiB is every other cell); the full profile shrunk to 128 MiB.
    Cell("mem128m", "memory", "2", mem=128, slow=True),
    Cell("mem6g", "memory", "2", mem=6144, checks=[check_mem_above_4g]),
    Cell("mem128m-full-locality", "memory", "2", mem=128, args="profile=full workloads=locality reps=1",
         checks=[check_locality_sizes]),
    Cell("mem128m-full-first-touch", "memory", "2", mem=128, args="profile=full workloads=first-touch reps=1",
         checks=[check_first_touch_sizes]),
    # Slow (not in make test-matrix): the full first-touch where it fits; the demand-zero fix of issue 9.
    Cell("mem1g-full-first-touch", "memory", "2", args="profile=full workloads=first-touch reps=1",
         checks=[check_first_touch_sizes], timeout=400, slow=True),
    # CPU models (-cpu max is every other cell).
    Cell("cpu-skylake-server", "cpu model", "2", cpu="Skylake-Server"),
    Cell("cpu-epyc", "cpu model", "2", cpu="EPYC", slow=True),
    Cell("cpu-qemu64", "cpu model", "2", cpu="qemu64"),
    # Timers: the HPET is every other cell.
    Cell("no-hpet", "timer", "2", machine="hpet=off"),
    # Limits QEMU can reach: more NUMA domains than QB_MAX_NODES, RAM past what 2 MiB pages map within the budget.
    Cell("limit-66-nodes", "limits", "2", mem=66 * 16, qemu=numa_qemu(NUMA66), nodes=node_map(NUMA66),
         numa_nodes=MAX_NODES, mem_nodes=[0, 1], errors=[r"^acpi SRAT domain limit, 2 entries dropped"],
         checks=[check_limit_nodes], note="NUMA: 66 nodes of 16M, CPUs on nodes 0 and 1", slow=True),
    Cell("limit-66-nodes-first-touch", "limits", "2", mem=66 * 16, qemu=numa_qemu(NUMA66), nodes=node_map(NUMA66),
         numa_nodes=MAX_NODES, mem_nodes=[0, 1], errors=[r"^acpi SRAT domain limit, 2 entries dropped"],
         args="profile=quick workloads=first-touch", checks=[check_limit_nodes, check_numa_targets({0, 1})],
         note="NUMA as limit-66-nodes: every one of the 64 nodes kept a target of first-touch's matrix"),
    # Without 1 GiB pages OVMF itself does not start on 3 TiB (no line in 10 minutes): SeaBIOS and multiboot2.
    Cell("limit-3t-no-1g-pages", "limits", "2", mem=3 * 1024 * 1024, cpu=BIG_CPU + ",pdpe1gb=off",
         qemu=numa_qemu(BIG3T, reserve=False), nodes=node_map(BIG3T), numa_nodes=2, mem_nodes=[0], empty_nodes=[1],
         errors=[r"^paging \d+ bytes of RAM from 0x[0-9a-f]+ not mapped: this CPU has no 1 GiB pages"],
         checks=[check_left_out_without_1g], left_out=True, firmware="seabios",
         note="NUMA: 2 nodes of 1.5 TiB, a CPU each, RAM not reserved on the host; no 1 GiB pages",
         host_skip=NO_HOST_MEMORY),
    # Big servers: every byte mapped, every node's memory a column of the first-touch NUMA matrix; through
    # both boot paths (UEFI's under OVMF: slow).
    Cell("bigmem-6t-4nodes-bios", "big memory", "4", mem=6 * 1024 * 1024, cpu=BIG_CPU,
         qemu=numa_qemu(BIG6T, reserve=False), nodes=node_map(BIG6T), numa_nodes=4, mem_nodes=[0, 1, 2, 3],
         args="profile=quick workloads=first-touch", checks=[check_all_mapped, check_first_touch_numa({0, 1, 2, 3},
                                                                                                   {0, 1, 2, 3})],
         firmware="seabios", note="NUMA: 4 nodes of 1.5 TiB, a CPU each, RAM not reserved on the host",
         host_skip=NO_HOST_MEMORY),
    Cell("bigmem-3t-2nodes", "big memory", "2", mem=3 * 1024 * 1024, cpu=BIG_CPU, qemu=numa_qemu(BIG3T, reserve=False),
         nodes=node_map(BIG3T), numa_nodes=2, mem_nodes=[0, 1], args="profile=quick workloads=first-touch",
         checks=[check_all_mapped, check_first_touch_numa({0, 1}, {0, 1})], timeout=300, slow=True,
         note="NUMA: 2 nodes of 1.5 TiB, a CPU each, RAM not reserved on the host", host_skip=NO_HOST_MEMORY),
    Cell("bigmem-6t-4nodes", "big memory", "4", mem=6 * 1024 * 1024, cpu=BIG_CPU, qemu=numa_qemu(BIG6T, reserve=False),
         nodes=node_map(BIG6T), numa_nodes=4, mem_nodes=[0, 1, 2, 3], args="profile=quick workloads=first-touch",
         checks=[check_all_mapped, check_first_touch_numa({0, 1, 2, 3}, {0, 1, 2, 3})], timeout=400, slow=True,
         note="NUMA: 4 nodes of 1.5 TiB, a CPU each, RAM not reserved on the host", host_skip=NO_HOST_MEMORY),
]
for _c in CELLS:
    _c.checks = list(_c.checks) + [CPU_MODELS[_c.cpu.split(",")[0]]]


# ---- Running --------------------------------------------------------------------
def run_cell(cell, efi, image, logdir):
    log = os.path.join(logdir, cell.name + ".log")
    if os.path.exists(log):
        os.remove(log)
    boot = ["--efi", efi] if cell.firmware == "ovmf" else ["--image", image, "--sata", "--firmware", cell.firmware]
    cmd = [os.path.join(ROOT, "tools", "qemu-run")] + boot + ["--smp", cell.smp, "--mem", str(cell.mem),
           "--cpu", cell.cpu, "--timeout", str(cell.timeout), "--log", log, "--quiet"]
    if cell.machine:
        cmd += ["--machine-opts", cell.machine]
    cmd += ["--qemu-arg=" + a for a in cell.qemu] + ["--", cell.args]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.time() - t0
    errors = []
    if cell.host_skip and p.returncode != 0:
        # QEMU's own messages land in the serial log (qemu-run merges its stderr).
        with open(log, encoding="latin-1") if os.path.exists(log) else open(os.devnull) as f:
            said = f.read(4096)
        if re.search(cell.host_skip, p.stdout + said):
            return None, elapsed, said.strip() or p.stdout, log
    if p.returncode == 124:
        errors.append("timed out after %d s" % cell.timeout)
    elif p.returncode not in (0, 1):
        errors.append("qemu-run exit status %d" % p.returncode)
    recs, problems = qbrecords.parse_file(log) if os.path.exists(log) else ([], [])
    check_common(cell, recs, problems, errors)
    if recs:
        check_cpus(cell, recs, errors)
        for c in cell.checks:
            c(cell, recs, errors)
    check(p.returncode == 0 or errors, "qemu-run exit status %d, but every check passed" % p.returncode, errors)
    return errors, elapsed, p.stdout, log


def verdict(cell, errors):
    """(result, counts as a failure) for the table."""
    if errors is None:
        return "skipped: the host cannot give QEMU this machine", False
    if not errors:
        return ("XPASS: remove the known-failure mark", False) if cell.known_failure else ("ok", False)
    # The known failure, in a run that still ended cleanly (a done record, intact records, no timeout).
    clean = not any(re.search(r"^(no done record|timed out|line \d+: damaged|done is not the last)", e) for e in errors)
    if cell.known_failure and clean and any(re.search(cell.known_failure[0], e) for e in errors):
        return "xfail", False
    return "FAIL", True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "quietbench.img"),
                    help="the USB image (make image) that SeaBIOS cells boot")
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "matrix"))
    ap.add_argument("--jobs", type=int, default=1, help="cells run at the same time")
    ap.add_argument("--doc", help="write the table of configurations and timings here (Markdown)")
    ap.add_argument("--slow", action="store_true", help="also run the slow cells (named cells always run)")
    ap.add_argument("--only-slow", action="store_true", help="only the slow cells (make test-slow)")
    ap.add_argument("--list", action="store_true", help="list the cells and exit")
    ap.add_argument("cells", nargs="*", help="run only these cells")
    a = ap.parse_args()
    cells = [c for c in CELLS if c.name in a.cells or
             (not a.cells and (c.slow if a.only_slow else a.slow or not c.slow))]
    if a.list or not cells:
        for c in CELLS:
            print("%-26s %-10s %s  [%s]%s" % (c.name, c.group, c.config_text().replace("`", ""), c.args,
                                                " (slow)" if c.slow else ""))
        return 0 if a.list else 2
    os.makedirs(a.logdir, exist_ok=True)
    efi, image = os.path.abspath(a.efi), os.path.abspath(a.image)
    load = os.getloadavg()[0]
    t0 = time.time()
    rows, failed = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = [(c, pool.submit(run_cell, c, efi, image, a.logdir)) for c in cells]
        for cell, fut in futs:
            errors, elapsed, out, log = fut.result()
            result, bad = verdict(cell, errors)
            failed += bad
            rows.append((cell, elapsed, result))
            print("%-5s %s (%.1f s)" % (result.split(":")[0], cell.name, elapsed))
            if errors is None:
                print("  " + out.strip().replace("\n", "\n  "))
            if result == "xfail":
                print("  known failure: " + cell.known_failure[1])
            if errors and (bad or os.environ.get("MATRIX_VERBOSE")):
                for e in errors:
                    print("  - " + e)
                print("  runner: " + out.strip().replace("\n", "\n  runner: "))
                print("  ---- serial log %s ----" % log)
                if os.path.exists(log):
                    with open(log, encoding="latin-1") as f:
                        sys.stdout.write(f.read())
                print("\n  ---- end of log ----")
            sys.stdout.flush()
    total = time.time() - t0
    print("\n%-26s %8s  %s" % ("cell", "seconds", "result"))
    for cell, secs, result in rows:
        print("%-26s %8.1f  %s" % (cell.name, secs, result))
    print("%-26s %8.1f" % ("total", total))
    if a.doc:
        write_doc(a.doc, rows, total, max(1, a.jobs), load)
        print("matrix: table written to %s" % a.doc)
    xfail = sum(r == "xfail" for _, _, r in rows)
    skipped = sum(r.startswith("skipped") for _, _, r in rows)
    if xfail or skipped:
        print("matrix: %d known failures (xfail), %d skipped" % (xfail, skipped))
    print("matrix: %d passed, %d failed" % (len(rows) - failed - xfail - skipped, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

