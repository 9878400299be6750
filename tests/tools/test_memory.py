"""test_memory - the SMBIOS views (issue 37): qb compare marks every pair from two QEMU boots that differ only in
-smbios type=17,speed= (4800 against 5600 MT/s: tests/tools/data/qemu-smbios-*.log) beside the clock's mark, and
none when a log is compared with itself or with a log from before the machine record; memory.py tells a
difference in modules per node and in error correction the same way, and marks nothing a side does not know; qb
table's heading and qb report name the product, its BIOS and its memory, and qb report groups the fleet by
product."""
import re

from qbtest import qb

A, B = "tests/tools/data/qemu-smbios-4800.log", "tests/tools/data/qemu-smbios-5600.log"
OLD = "tests/tools/data/qemu-quick-smp2.log"  # 2 CPUs, before the machine record
MARK = "memory differs: configured speed 4800 / 5600 MT/s"


def pair_rows(text):
    return [ln for ln in text.splitlines() if re.match(r"\s+(padded-increment|start-skew)\s", ln)]


def test_compare_marks_each_pair_whose_memory_speed_differs():
    r = qb("compare", A, B)
    assert r.returncode == 0, r.stderr
    rows = pair_rows(r.stdout)
    assert len(rows) == 2 and all(ln.rstrip().endswith(MARK) for ln in rows), r.stdout
    head = next(ln for ln in r.stdout.splitlines() if ln.startswith("memory: "))
    assert head == ("memory: A 1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC, B 1 of 1 slot: 1 x 1 GiB RAM-5600 DIMM, "
                    "ECC; %s: every pair from these runs is marked" % MARK)


def test_compare_marks_nothing_when_memory_is_the_same_or_unknown():
    same = qb("compare", A, A)
    assert same.returncode == 0 and "memory differs" not in same.stdout
    old = qb("compare", OLD, A)
    assert old.returncode == 0 and "memory differs" not in old.stdout
    assert "memory: A not recorded (records before the machine record), B 1 of 1 slot" in old.stdout


def test_memory_aspects():
    from qblib import memory

    class Run:
        def __init__(self, machine, devices):
            self.recs = {"machine": [machine] if machine else [], "memory_device": devices}

        def first(self, kind):
            return (self.recs.get(kind) or [None])[0]

        def of_kind(self, kind):
            return self.recs.get(kind, [])

    def run(ecc="Multi-bit ECC", per_node=(8, 8), mts=4800):
        arrays = [{"use": "System Memory", "ecc": ecc}]
        return Run({"memory_arrays": arrays, "dimms_per_node": list(per_node) if per_node else None,
                    "memory_config": "x"}, [{"array_use": "System Memory", "configured_mts": mts}] * 2)

    assert memory.differences(run(), run()) == []
    assert memory.differences(run(), run(mts=5600)) == ["configured speed 4800 / 5600 MT/s"]
    assert memory.differences(run(), run(per_node=(8, 6))) == ["DIMMs per node 8+8 / 8+6"]
    assert memory.differences(run(), run(ecc="None")) == ["ECC ECC / no ECC"]
    assert memory.differences(run(), run(per_node=None)) == []           # a side that cannot say: no mark
    assert memory.pair_note([run()], [run(ecc="Unknown")]) is None
    assert memory.pair_note([Run(None, [])], [run()]) is None


def test_table_heading_names_the_machine_and_its_memory():
    r = qb("table", B)
    assert r.returncode == 0, r.stderr
    assert ("system: Acme Labs Roadrunner 9000, BIOS 0.0.0 (02/06/2015), EFI Development Kit II / OVMF; "
            "memory: 1 of 1 slot: 1 x 1 GiB RAM-5600 DIMM, ECC") in r.stdout.splitlines()[:3]
    old = qb("table", OLD)
    assert old.returncode == 0 and "system:" not in old.stdout


def test_report_groups_by_product(tmp_path):
    out = tmp_path / "r.html"
    r = qb("report", A, B, OLD, "-o", out)
    assert r.returncode == 0, r.stderr
    h = out.read_text()
    assert '<h3 id="products">By product</h3>' in h
    body = h[h.index('id="products"'):]
    row = re.search(r"<tr><th>Acme Labs Roadrunner 9000</th><td>(M\d, M\d)</td><td>2</td><td>(.*?)</td><td>(.*?)</td>",
                    body)
    assert row, body[:2000]
    assert row.group(2) == "BIOS 0.0.0 (02/06/2015), EFI Development Kit II / OVMF"
    assert row.group(3) == ("1 of 1 slot: 1 x 1 GiB RAM-4800 DIMM, ECC<br>1 of 1 slot: 1 x 1 GiB RAM-5600 DIMM, ECC")
    assert "<th>not recorded (records before the machine record)</th>" in body
    assert "<tr><th>memory modules</th>" in h and "<tr><th>BIOS</th>" in h and "<tr><th>product</th>" in h


TWIN = "tests/tools/data/twin-smbios-none.log"


def test_twin_on_a_machine_without_smbios_says_so():
    """This project's VM has neither /sys/firmware/dmi nor /sys/class/dmi/id: the twin's record says so, and the
    views say why they have no product or memory."""
    import argparse
    import os
    import sys
    from qbtest import ROOT
    import qbrecords
    sys.path.insert(0, os.path.join(ROOT, "tests", "twin"))
    import check_twin
    recs, problems = qbrecords.parse_file(os.path.join(ROOT, TWIN))
    assert not problems
    m = qbrecords.of_kind(recs, "machine")[0]
    assert m["source"] == "none"
    assert m["source_note"] == ("no /sys/firmware/dmi on this system (Linux found no SMBIOS table); "
                                "no /sys/class/dmi/id either")
    assert m["system"]["product"] is None and m["memory_config"] is None
    t = check_twin.Tally()
    check_twin.check_smbios(recs, argparse.Namespace(here=False), t)
    assert t.failed == [] and t.passed == 1
    r = qb("table", TWIN)
    assert "system: unknown (no /sys/firmware/dmi on this system" in r.stdout
    assert "memory: unknown: no SMBIOS table read" in r.stdout
