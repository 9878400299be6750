#!/usr/bin/env python3
"""make_seeds - write the fuzz seed corpora in tests/fuzz/corpus/NAME/ from real inputs.

Usage: tests/fuzz/make_seeds.py [--check]

Sources (all captured from QEMU 7.2 q35; tests/fuzz/README.md says how):
  acpi, acpi_table  tests/fixtures/acpi/*.bin (OVMF) and data/seabios-q35-smp2.acpi;
                    acpi_table also the DMAR and IVRS of tests/fixtures/real (linuxhw/ACPI)
                    and the HMAT of tests/fixtures/real/tables
  options           the command lines of tests/boot, the GRUB menu and README
  mb2               data/grub-2.06-seabios-q35.mbi, GRUB's boot information at EBX
  efi_mmap          data/ovmf-q35-1g-smp4.sfo, OVMF's map from the shell's "memmap -sfo"
  record            records of tests/tools/data/*.log, as fuzz_record.c programs
  record_line       the same records as lines
  smbios            tests/fixtures/smbios/*.bin: QEMU's tables (dump=smbios) and real machines' dumps
A few seeds are derived from those (named *-derived*): QEMU's x86 tables have
no SPCR, so one is added in the layout tests/unit/acpi_fixture.c builds, and
the multiboot2 and memory-map shapes GRUB and OVMF also produce (framebuffer,
basic memory only, 40-byte descriptors) are written from the real ones.

Only the files named here are written; --check says whether they are
up to date (exit status 1 if not) without writing.
"""
import glob
import hashlib
import json
import os
import re
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, "data")
CORPUS = os.path.join(HERE, "corpus")

seeds = {}  # (harness, file name) -> bytes


def seed(harness, name, data):
    seeds[(harness, name)] = bytes(data)


# ---- ACPI -------------------------------------------------------------------

def read_fixture(path):
    """A QBACPI01 file as (rsdp, [(phys, bytes)])."""
    b = open(path, "rb").read()
    assert b[:8] == b"QBACPI01", path
    rsdp = struct.unpack_from("<Q", b, 8)[0]
    pos, regions = 16, []
    while pos < len(b):
        phys, n = struct.unpack_from("<QI", b, pos)
        regions.append((phys, b[pos + 12:pos + 12 + n]))
        pos += 12 + n
    return rsdp, regions


def write_fixture(rsdp, regions):
    out = bytearray(b"QBACPI01") + struct.pack("<Q", rsdp)
    for phys, data in regions:
        out += struct.pack("<QI", phys, len(data)) + data
    return out


def fix_checksum(table):
    t = bytearray(table)
    t[9] = 0
    t[9] = (-sum(t)) & 0xff
    return t


def spcr_table():
    """SPCR rev 2 for COM1 at 115200, as tests/unit/acpi_fixture.c's fx_build_q35() lays it out."""
    t = bytearray(80)
    t[0:4] = b"SPCR"
    struct.pack_into("<I", t, 4, len(t))
    t[8] = 2
    t[10:16], t[16:24], t[28:32] = b"BOCHS ", b"BXPC    ", b"BXPC"
    struct.pack_into("<II", t, 24, 1, 1)
    struct.pack_into("<I", t, 32, 1)
    t[36] = 0                                   # Interface Type: 16550
    struct.pack_into("<IQ", t, 40, 0x01000801, 0x3f8)  # Base Address: I/O, 8 bits
    t[52], t[53] = 1, 4                         # Interrupt Type 8259, IRQ 4
    struct.pack_into("<I", t, 54, 4)            # GSI
    t[58], t[60], t[62] = 7, 1, 3               # 115200, 1 stop bit, ANSI
    struct.pack_into("<I", t, 64, 0xffffffff)   # not a PCI device
    return fix_checksum(t)


def with_spcr(rsdp, regions, phys):
    """The fixture with an SPCR at phys added to its XSDT."""
    out = []
    for p, data in regions:
        if data[:4] == b"XSDT":
            x = bytearray(data) + struct.pack("<Q", phys)
            struct.pack_into("<I", x, 4, len(x))
            data = fix_checksum(x)
        out.append((p, data))
    out.append((phys, spcr_table()))
    return write_fixture(rsdp, out)


def acpi_seeds():
    fixtures = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/acpi/*.bin")))
    fixtures.append(os.path.join(DATA, "seabios-q35-smp2.acpi"))
    tables = {}
    for path in fixtures:
        name = os.path.splitext(os.path.basename(path))[0]
        seed("acpi", name + ".bin", open(path, "rb").read())
        rsdp, regions = read_fixture(path)
        for phys, data in regions:
            sig = data[:4].decode("ascii", "replace")
            if sig in ("APIC", "SRAT", "FACP", "HPET", "SPCR", "SLIT", "HMAT") and data not in tables.values():
                tables["%s-%s.bin" % (name, sig)] = data
    rsdp, regions = read_fixture(os.path.join(ROOT, "tests/fixtures/acpi/q35-smp4.bin"))
    seed("acpi", "q35-smp4-spcr-derived.bin", with_spcr(rsdp, regions, 0x3f771000))
    tables["spcr-derived-SPCR.bin"] = spcr_table()
    # QEMU's firmware has no DMAR or IVRS: those of real machines (linuxhw/ACPI),
    # and a real server's HMAT beside QEMU's.
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/real/*.bin")) +
                       glob.glob(os.path.join(ROOT, "tests/fixtures/real/tables/*.bin"))):
        name = os.path.splitext(os.path.basename(path))[0]
        for phys, data in read_fixture(path)[1]:
            sig = data[:4].decode("ascii", "replace")
            if sig in ("DMAR", "IVRS", "HMAT"):
                tables["real-%s-%s.bin" % (name, sig)] = data
    for name, data in tables.items():
        seed("acpi_table", name, data)


# ---- command lines ----------------------------------------------------------

def options_seeds():
    lines = set()
    src = open(os.path.join(ROOT, "tests/boot/run_boot_tests.py")).read()
    for args in re.findall(r'args="([^"*]*)"', src):
        lines.add("profile=quick " + args + " finish=qemu")
    src = open(os.path.join(ROOT, "tests/boot/image_tests.py")).read()
    for opts in re.findall(r'qb_options=\\?"([^"\\]*)\\?"', src):
        lines.add(opts)
    src = open(os.path.join(ROOT, "boot/grub/grub.cfg")).read()
    for words in re.findall(r"^\s*qb_boot ?(.*)$", src, re.M):
        lines.add(("finish=qemu " + words).strip())
    for words in re.findall(r'ARGS="([^"]*)"', open(os.path.join(ROOT, "README.md")).read()):
        lines.add(words)
    # How firmware passes them: a UEFI shell or boot entry puts the program first,
    # OVMF's -kernel/-append may add initrd=, GRUB's multiboot2 line ends with a path.
    lines.add("\\EFI\\BOOT\\QUIETBENCH.EFI profile=quick finish=qemu")
    lines.add("initrd=\\initrd profile=quick finish=qemu")
    lines.add("cpus=1 safe turbo=off prefetch=keep dump=acpi smp_timeout_ms=5000 iters=1000 selftest_iters=10")
    for line in lines:
        if line:  # named by content, so that a new line renames nothing
            seed("options", "cmdline-%s.txt" % hashlib.sha1(line.encode()).hexdigest()[:12], line.encode())


# ---- multiboot2 -------------------------------------------------------------

def mb2_tags(blob):
    """The tags of a boot information block as [(type, body)], end tag excluded."""
    total = struct.unpack_from("<I", blob)[0]
    off, tags = 8, []
    while off + 8 <= total:
        t, size = struct.unpack_from("<II", blob, off)
        if t == 0:
            break
        tags.append((t, blob[off + 8:off + size]))
        off += (size + 7) & ~7
    return tags


def mb2_block(tags):
    out = bytearray(8)
    for t, body in tags + [(0, b"")]:
        out += struct.pack("<II", t, 8 + len(body)) + body
        out += b"\0" * (-len(out) % 8)
    struct.pack_into("<II", out, 0, len(out), 0)
    return out


def mb2_seeds():
    real = open(os.path.join(DATA, "grub-2.06-seabios-q35.mbi"), "rb").read()
    seed("mb2", "grub-2.06-seabios-q35.mbi", real)
    tags = mb2_tags(real)
    rsdp_v2 = read_fixture(os.path.join(ROOT, "tests/fixtures/acpi/q35-smp4.bin"))[1][0][1]
    # GRUB on UEFI: an EFI64 system table tag, the ACPI 2.0 RSDP, a 32-bit BGRX framebuffer.
    fb = struct.pack("<QIIIBBH", 0x80000000, 5120, 1280, 800, 32, 1, 0) + bytes([16, 8, 8, 8, 0, 8]) + b"\0\0"
    uefi = [t for t in tags if t[0] not in (14, 7, 8, 10)]
    uefi += [(12, struct.pack("<Q", 0x3f9ee018)), (15, rsdp_v2), (8, fb)]
    seed("mb2", "grub-uefi-derived.mbi", mb2_block(uefi))
    # Only basic memory information and a 16-bit framebuffer.
    fb16 = struct.pack("<QIIIBBH", 0xfd000000, 2048, 1024, 768, 16, 1, 0) + bytes([11, 5, 5, 6, 0, 5]) + b"\0\0"
    basic = [t for t in tags if t[0] in (1, 2, 4, 14)] + [(8, fb16)]
    seed("mb2", "grub-basic-derived.mbi", mb2_block(basic))


# ---- UEFI memory map --------------------------------------------------------

EFI_TYPES = {
    "Reserved": 0, "LoaderCode": 1, "LoaderData": 2, "BootServiceCode": 3, "BootServiceData": 4,
    "RuntimeCode": 5, "RuntimeData": 6, "Available": 7, "UnusableMemory": 8, "ACPIReclaimMemory": 9,
    "ACPIMemoryNVS": 10, "MemoryMappedIO": 11, "MemoryMappedIOPortSpace": 12, "PalCode": 13,
    "PersistentMemory": 14, "Unaccepted": 15,
}


def efi_map(descs, desc_size, raw_cap=1024, out_cap=512):
    out = bytearray(struct.pack("<IHH", desc_size, raw_cap, out_cap))
    for t, start, pages, attr in descs:
        d = struct.pack("<IIQQQQ", t, 0, start, 0, pages, attr)
        out += d + b"\0" * (desc_size - len(d))
    return out


def efi_seeds():
    descs = []
    for line in open(os.path.join(DATA, "ovmf-q35-1g-smp4.sfo")):
        f = line.strip().split(",")
        if f[0] != "MemoryMap":
            continue
        name, start, end, pages, attr = (x.strip('"') for x in f[1:6])
        assert (int(end, 16) + 1 - int(start, 16)) == int(pages, 16) * 4096, line
        descs.append((EFI_TYPES[name], int(start, 16), int(pages, 16), int(attr, 16)))
    seed("efi_mmap", "ovmf-q35-1g-smp4.map", efi_map(descs, 48))
    # The same memory as a firmware that coalesces would report it: boot services
    # code and data become conventional memory and neighbours of one type merge
    # (about the 25 entries of the kernel's memory record).
    merged = []
    for t, start, pages, attr in descs:
        t = 7 if t in (3, 4) else t
        if merged and merged[-1][0] == t and merged[-1][1] + merged[-1][2] * 4096 == start:
            merged[-1] = (t, merged[-1][1], merged[-1][2] + pages, attr)
        else:
            merged.append((t, start, pages, attr))
    seed("efi_mmap", "ovmf-merged-derived.map", efi_map(merged, 48))
    seed("efi_mmap", "ovmf-desc40-derived.map", efi_map(merged, 40))


# ---- records ----------------------------------------------------------------

OP = {"u64": 0, "i64": 1, "bool": 2, "null": 3, "str": 4, "strn": 5, "hex": 6, "f64": 7,
      "obj_begin": 8, "obj_end": 9, "arr_begin": 10, "arr_end": 11}
HEX_RE = re.compile(r"^0x[0-9a-f]+$")


class Num(str):
    """A JSON number, kept as its text."""


class Obj:
    """A JSON object, its members in order."""

    def __init__(self, pairs):
        self.pairs = pairs


def key_tok(k):
    if k is None:
        return b"\xff"
    b = k.encode()
    assert len(b) < 255
    return bytes([len(b)]) + b


def str_tok(s):
    b = s.encode("latin-1")
    assert len(b) < 0xffff
    return struct.pack("<H", len(b)) + b


def program(value, key=None):
    """fuzz_record.c operations that write value under key."""
    if isinstance(value, Obj):
        out = bytes([OP["obj_begin"]]) + key_tok(key)
        for k, v in value.pairs:
            out += program(v, k)
        return out + bytes([OP["obj_end"]])
    if isinstance(value, list):
        out = bytes([OP["arr_begin"]]) + key_tok(key)
        for v in value:
            out += program(v, None)
        return out + bytes([OP["arr_end"]])
    if value is None:
        return bytes([OP["null"]]) + key_tok(key)
    if value is True or value is False:
        return bytes([OP["bool"]]) + key_tok(key) + bytes([int(value)])
    if isinstance(value, Num):
        if "." in value or "e" in value or "E" in value:
            decimals = len(value.split(".")[1]) if "." in value else 0
            return (bytes([OP["f64"]]) + key_tok(key) + struct.pack("<d", float(value)) +
                    struct.pack("<b", decimals))
        n = int(value)
        if n < 0:
            return bytes([OP["i64"]]) + key_tok(key) + struct.pack("<q", n)
        return bytes([OP["u64"]]) + key_tok(key) + struct.pack("<Q", n)
    if HEX_RE.match(value) and "0x%x" % int(value, 16) == value:
        return bytes([OP["hex"]]) + key_tok(key) + struct.pack("<Q", int(value, 16))
    return bytes([OP["str"]]) + key_tok(key) + str_tok(value)


def record_program(line):
    """The program that writes the record line, with a buffer that fits it exactly."""
    text = line[len("@qb "):line.rindex(" ")]
    obj = json.loads(text, object_pairs_hook=Obj, parse_float=Num, parse_int=Num)
    pairs = obj.pairs
    assert pairs[0][0] == "v" and pairs[1][0] == "kind"
    out = struct.pack("<H", min(len(line) + 1, 0xffff)) + str_tok(pairs[1][1])
    for k, v in pairs[2:]:
        out += program(v, k)
    return out


def record_seeds():
    by_kind = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/tools/data/*.log"))):
        for raw in open(path, encoding="ascii", errors="replace"):
            line = raw.rstrip("\r\n")
            i = line.find("@qb {")
            if i < 0:
                continue
            line = line[i:]
            body, crc = line[4:].rsplit(" ", 1)
            if "%08x" % zlib.crc32(body.encode()) != crc:
                continue
            kind = json.loads(body)["kind"]
            # Two of each kind, the shortest and the longest below 3 KiB.
            fit = [l for l in by_kind.get(kind, []) + [line] if len(l) < 3072]
            fit.sort(key=len)
            by_kind[kind] = fit[:1] + fit[-1:] if len(fit) > 1 else fit
    for kind, lines in sorted(by_kind.items()):
        for i, line in enumerate(dict.fromkeys(lines)):
            seed("record_line", "%s-%d.txt" % (kind, i), line.encode())
            seed("record", "%s-%d.prog" % (kind, i), record_program(line))


# ---- SMBIOS -----------------------------------------------------------------

def smbios_seeds():
    """The dumps of tests/fixtures/smbios as they are: QEMU's own (OVMF's 2.8 and 3.0 entry points, SeaBIOS's)
    and real machines' (tests/fixtures/smbios/README.md), the table at offset 32 as fuzz_smbios.c reads it."""
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "smbios", "*.bin"))):
        seed("smbios", os.path.basename(path), open(path, "rb").read())


def main():
    check = "--check" in sys.argv[1:]
    acpi_seeds()
    options_seeds()
    mb2_seeds()
    efi_seeds()
    record_seeds()
    smbios_seeds()
    stale = 0
    for (harness, name), data in sorted(seeds.items()):
        path = os.path.join(CORPUS, harness, name)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old == data:
            continue
        stale += 1
        if check:
            print("make_seeds: %s is out of date" % os.path.relpath(path, ROOT))
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    total = sum(len(d) for d in seeds.values())
    print("make_seeds: %d seeds, %d bytes%s" % (len(seeds), total,
          (", %d out of date" if check else ", %d written") % stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
