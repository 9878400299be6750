"""qbtest - what the tests of tools/qb share: the paths, the real logs' names, running qb, and record and PNG helpers."""
import json
import os
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools")
QB = os.path.join(TOOLS, "qb")
DATA = os.path.join(HERE, "data")
sys.path.insert(0, TOOLS)

LOGS = ["smp4.log", "smp8-2sockets-smt-numa2.log", "counter-smp4.log", "counter-2sockets-smt.log",
        "bad-options.log", "fault-ap.log", "locality-smp4.log", "twin-quick.log", "twin-full-100s.log",
        "qemu-quick-smp2.log", "twin-quick-v23.log", "twin-full-120s.log", "locality-starts-smp4.log",
        "locality-numa2.log"]
# Issue 23's record format, real runs of one build (tests/tools/data/README.md).
V23 = {"qemu": "qemu-quick-smp2.log", "twin": "twin-quick-v23.log", "twin_full": "twin-full-120s.log"}
LAYOUTS = [  # the layouts of counter-smp4.log (array-packed came later)
    "packed", "padded", "array-header", "array-header-padded", "shared-atomic"]
WIDE, SQUARE = (900, 550), (800, 700)  # qblib/plot.py: WIDE and SQUARE at 100 dpi


def qb(*args):
    return subprocess.run([sys.executable, QB] + [str(a) for a in args], capture_output=True, text=True, cwd=ROOT)


def data(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()


def rec_line(obj):
    """A record line as the kernel prints it: @qb {json} crc."""
    js = json.dumps(obj, separators=(",", ":"))
    return "@qb %s %08x" % (js, zlib.crc32(js.encode()) & 0xFFFFFFFF)


def record_lines(blob):
    """(0-based line index, line) of every record line, splitting at LF like grep -n."""
    return [(i, ln) for i, ln in enumerate(blob.split(b"\n")) if b"@qb " in ln]


def write(tmp_path, name, blob):
    p = tmp_path / name
    p.write_bytes(blob)
    return p


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    sig, _, chunk, w, h = struct.unpack(">8sI4sII", head)
    assert sig == b"\x89PNG\r\n\x1a\n" and chunk == b"IHDR", "%s is not a PNG" % path
    return w, h


def load_results(outdir):
    with open(os.path.join(outdir, "results.json")) as f:
        return json.load(f)


def synthetic_log(tmp_path, records, name="synthetic.log"):
    """A log around the given records: boot, one cpu, the records, done with the right count."""
    boot = {"v": 1, "kind": "boot", "build": "test", "cpu_model": "Test CPU", "cpu_vendor": "Test",
            "tsc_hz": 1000000000, "tsc_source": "cpuid-15h", "cpus_found": 1, "cpus_online": 1, "numa_nodes": 2}
    cpu = {"v": 1, "kind": "cpu", "index": 0, "online": True}
    done = {"v": 1, "kind": "done", "status": "ok", "records": len(records) + 3, "errors": 0}
    lines = ["text before"] + [rec_line(r) for r in [boot, cpu] + records + [done]]
    return write(tmp_path, name, ("\r\n".join(lines) + "\r\n").encode())


def flush_result(variant, cold_reference, set_bytes, median):
    return {"v": 1, "kind": "result", "workload": "flush", "variant": variant, "threads": 1, "cpus": [0],
            "params": {"set_bytes": set_bytes, "cold_reference": cold_reference}, "unit": "ticks", "n": 3,
            "min": median - 1, "median": float(median), "max": median + 1, "cv": 0.01, "check": "ok"}
