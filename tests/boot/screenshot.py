#!/usr/bin/env python3
"""screenshot - boot QuietBench in QEMU, take a screendump of the summary screen and read its text back.

Boots build/quietbench.efi through tools/qemu-run with `finish=halt
profile=quick workloads=selftest` and a monitor socket, waits for the serial
log's `done` record and the "halted" line that follows the summary screen,
takes a QEMU `screendump` (PPM), saves it as build/screenshot.png (PNG written
with zlib and struct only), and quits QEMU. A second boot does the same on a
1920x1080 screen (build/screenshot-1920x1080.png), where glyphs are doubled.
The ram-left-out case boots the USB image (make image) through SeaBIOS on a
3 TiB machine without 1 GiB pages: the header and the status line must say
how much RAM was NOT MAPPED, which the others must not. The smbios case tells
QEMU of a product and a DIMM (-smbios type=1 and type=17): the header's third
line must name them and the memory configuration.

The check reads the picture back cell by cell: every character cell must be
exactly one glyph of the font built into the kernel (build/gen/fbcon_font.c,
read through tools/mkfont) in two colours, and the header, the summary and
the status line must say what the run did. The decoded screen is printed. The
last line is "screenshot: N passed, N failed".
"""
import argparse
import importlib.machinery
import importlib.util
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

import smbios_checks

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

def _load_mkfont():
    """tools/mkfont has no .py suffix: load it by path, to read the generated font back with it."""
    loader = importlib.machinery.SourceFileLoader("mkfont", os.path.join(ROOT, "tools", "mkfont"))
    spec = importlib.util.spec_from_loader("mkfont", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


MKFONT = _load_mkfont()

# kernel/console/fbcon.h: grid bounds, the width from which glyphs are doubled, the header's rows where its
# lines fit (a narrow screen wraps them onto more, up to FBCON_HEADER_MAX_ROWS: the rows are read off the screen
# by their background). Its third line is the machine from SMBIOS (issue 37).
MAX_COLS, MAX_ROWS, SCALE2_WIDTH, HEADER_ROWS, HEADER_MAX_ROWS = 256, 128, 1920, 3, 6
BANNER_COLOURS = {"pass": b"\x1e\x7b\x34", "fail": b"\xb0\x1c\x1c"}  # kernel/console/fbcon.c BANNER_*_RGB
BANNER_TEXT = "="  # how a banner row is printed in the decoded screen
ARGS = "finish=halt profile=quick workloads=selftest"
# The narrowest screen also runs noise, whose lines are wider than its 99 cells of text: they must wrap, whole.
CASE_ARGS = {"800x600": "finish=halt profile=quick workloads=selftest,noise"}
SUMMARY_INDENT = 11  # kernel/console/fbcon.h FBCON_SUMMARY_INDENT: where a wrapped summary line goes on
UNKNOWN = "\x00"


# ---- the picture --------------------------------------------------------------
def read_ppm(data):
    """(width, height, RGB bytes) of a binary P6 PPM with maxval 255."""
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or int(fields[3]) != 255:
        raise ValueError("not a P6 PPM with maxval 255")
    w, h = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + 3 * w * h]
    if len(pixels) != 3 * w * h:
        raise ValueError("PPM is truncated: %d of %d bytes" % (len(pixels), 3 * w * h))
    return w, h, pixels


def write_png(path, w, h, rgb):
    """An 8-bit RGB PNG (ISO/IEC 15948): IHDR, one IDAT with filter 0 on every line, IEND."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)
    raw = b"".join(b"\x00" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


class Screen:
    """The character grid of a screendump, decoded against the kernel's font."""

    def __init__(self, w, h, rgb, font_c):
        self.w, self.h, self.rgb = w, h, rgb
        self.fw, self.fh, glyphs, replacement = MKFONT.read_generated(font_c)
        self.scale = 2 if w >= SCALE2_WIDTH else 1
        self.cw, self.ch = self.fw * self.scale, self.fh * self.scale
        self.cols, self.rows = min(w // self.cw, MAX_COLS), min(h // self.ch, MAX_ROWS)
        self.by_bits = {}
        for c, rows in sorted(glyphs.items(), key=lambda kv: kv[0] != " "):
            self.by_bits.setdefault(tuple(rows), c)
        self.by_bits.setdefault(tuple(replacement), "\ufffd")
        self.colors = {}  # (col, row) -> (fg, bg)
        # The end-of-run banner: whole cell rows below the header whose left
        # and right edges are the pass or fail colour, with large letters in
        # between; they are no glyphs, so they are read as a band, not text.
        self.banner_rows, self.banner_colour, self.banner_lit = [], None, 0
        for r in range(HEADER_ROWS, self.rows - 1):
            edge = {self.pixel(0, r * self.ch + y) for y in range(self.ch)}
            edge |= {self.pixel(self.w - 1, r * self.ch + y) for y in range(self.ch)}
            if len(edge) == 1 and next(iter(edge)) in BANNER_COLOURS.values():
                self.banner_rows.append(r)
                self.banner_colour = next(k for k, v in BANNER_COLOURS.items() if v in edge)
                self.banner_lit += sum(1 for y in range(self.ch) for x in range(0, self.w, 4)
                                       if self.pixel(x, r * self.ch + y) == b"\xff\xff\xff")
            elif self.banner_rows:
                break
        self.text = [self._decode_row(r) if r not in self.banner_rows else BANNER_TEXT * self.cols
                     for r in range(self.rows)]
        head_bg = (self.colors.get((1, 0)) or (None, None))[1]
        self.header_rows = 0
        while self.header_rows < self.rows and (self.colors.get((1, self.header_rows)) or (None, None))[1] == head_bg:
            self.header_rows += 1

    def pixel(self, x, y):
        i = 3 * (y * self.w + x)
        return self.rgb[i:i + 3]

    def _decode_cell(self, col, row):
        x0, y0 = col * self.cw, row * self.ch
        cell = [[self.pixel(x0 + gx * self.scale, y0 + gy * self.scale) for gx in range(self.fw)]
                for gy in range(self.fh)]
        # A doubled glyph must fill each 2x2 block with one colour.
        for gy in range(self.fh):
            for gx in range(self.fw):
                for k in range(self.scale * self.scale):
                    if self.pixel(x0 + gx * self.scale + k % self.scale,
                                  y0 + gy * self.scale + k // self.scale) != cell[gy][gx]:
                        return UNKNOWN
        colours = {}
        for line in cell:
            for p in line:
                colours[p] = colours.get(p, 0) + 1
        if len(colours) == 1:
            self.colors[(col, row)] = (None, next(iter(colours)))
            return " "
        if len(colours) != 2:
            return UNKNOWN
        for fg in sorted(colours, key=colours.get):  # the glyph usually covers fewer pixels
            bits = tuple(sum(1 << (self.fw - 1 - gx) for gx in range(self.fw) if line[gx] == fg) for line in cell)
            c = self.by_bits.get(bits)
            if c is not None:
                bg = next(k for k in colours if k != fg)
                self.colors[(col, row)] = (fg, bg)
                return c
        return UNKNOWN

    def _decode_row(self, row):
        return "".join(self._decode_cell(c, row) for c in range(self.cols))

    def find(self, needle):
        """(row, col) of the first occurrence of needle, or None."""
        for r, line in enumerate(self.text):
            c = line.find(needle)
            if c >= 0:
                return r, c
        return None


# ---- QEMU -------------------------------------------------------------------------
def monitor_command(path, command, timeout=30):
    """Send one command to the human monitor and return its output up to the next prompt."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    buf = b""
    while b"(qemu)" not in buf:
        buf += s.recv(4096)
    s.sendall(command.encode() + b"\n")
    out = b""
    try:
        while out.count(b"(qemu)") < 1:
            chunk = s.recv(4096)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    s.close()
    return out.decode("latin-1")


def boot_and_dump(a, ppm, log_path, qemu_args=(), boot=None, args=None):
    """Boot (boot: qemu-run's arguments for the machine, else a.efi with 1 GiB), wait for the summary, screendump
    to ppm, quit. Returns (ok, message)."""
    sock = os.path.join(os.path.dirname(ppm), "monitor.sock")
    machine = boot if boot is not None else ["--efi", a.efi, "--mem", "1024"]
    cmd = [os.path.join(ROOT, "tools", "qemu-run")] + machine + ["--smp", str(a.smp),
           "--timeout", str(a.timeout), "--monitor", sock] + ["--qemu-arg=" + q for q in qemu_args] + ["--", args or a.args]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    log = bytearray()
    seen = {"done": threading.Event(), "halted": threading.Event()}

    def pump():
        for line in iter(proc.stdout.readline, b""):
            log.extend(line)
            if b'"kind":"done"' in line:
                seen["done"].set()
            if seen["done"].is_set() and b"quietbench: halted" in line:
                seen["halted"].set()

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        if not seen["done"].wait(a.timeout):
            return False, "no done record within %d s" % a.timeout
        if not seen["halted"].wait(30):
            return False, "no 'quietbench: halted' line after the done record"
        reply = monitor_command(sock, "screendump " + ppm)
        deadline = time.time() + 10
        while time.time() < deadline and not os.path.exists(ppm):
            time.sleep(0.1)
        if not os.path.exists(ppm):
            return False, "screendump wrote nothing: %s" % reply.strip()
        monitor_command(sock, "quit")
        proc.wait(30)
        return True, "qemu-run exit status %s" % proc.returncode
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)  # the session we started: qemu-run and its QEMU
            proc.wait()
        t.join(5)
        with open(log_path, "wb") as f:
            f.write(bytes(log))


# ---- checks ------------------------------------------------------------------------
def serial_summary_lines(log_path):
    """What the summary screen must show whole: the serial log's "summary: " lines and the noise line the run
    ends with (printed after "progress: all workloads done")."""
    with open(log_path, encoding="latin-1") as f:
        lines = [line.rstrip("\r\n") for line in f]
    want = [line[len("summary: "):] for line in lines if line.startswith("summary: ")]
    for i, line in enumerate(lines[:-1]):
        if line.startswith("progress: all workloads done") and lines[i + 1].startswith("noise"):
            want.append(lines[i + 1])
    return want


def screen_summary_entries(scr):
    """The summary lines as the screen shows them: a row from column 1 starts one, a row indented past the
    workload's name goes on with it (wrapped), up to the results' title. Whitespace is normalised."""
    entries, cont = [], " " * (1 + SUMMARY_INDENT)
    for line in scr.text[scr.header_rows + len(scr.banner_rows) + 1:-1]:
        line = line.rstrip()
        if line[1:].startswith("Results ("):
            break
        if line.startswith(cont) and line.strip() and entries:
            entries[-1] += " " + line.strip()
        elif line.strip():
            entries.append(line.strip())
    return [" ".join(e.split()) for e in entries]


def check_summary_whole(scr, log_path, must_wrap=False):
    """Every summary line of the serial log is on the screen whole, wrapped if it is wider than the screen; where
    the case was made to wrap one (must_wrap), one is wider."""
    want = serial_summary_lines(log_path)
    shown = screen_summary_entries(scr)
    missing = [w for w in want if " ".join(w.split()) not in shown]
    wide = [w for w in want if len(w) > scr.cols - 1]
    return [("every summary line of the serial log on the screen, whole (%d, %d of them wider than the screen)"
             % (len(want), len(wide)), want and not missing and (wide or not must_wrap),
             "missing or cut: %r; on the screen: %r" % (missing, shown))]


def run_checks(scr, rgb, want_size, left_out=False):
    results = []

    def check(name, cond, detail=""):
        results.append((name, bool(cond), detail))

    lit = sum(1 for i in range(0, len(rgb), 3 * 97) if rgb[i:i + 3] != b"\x00\x00\x00")
    check("non-blank", lit * 97 * 3 > len(rgb) // 50, "%d of %d sampled pixels lit" % (lit, len(rgb) // (3 * 97)))
    unknown = sum(line.count(UNKNOWN) for line in scr.text)
    check("every cell is one glyph in two colours", unknown == 0, "%d cells match no glyph" % unknown)
    check("header names QuietBench at row 0, column 1", scr.text[0][1:11] == "QuietBench", repr(scr.text[0][:40]))
    head = [scr.text[r].rstrip() for r in range(scr.header_rows)]
    check("header rows: three, more only on a narrow screen", scr.header_rows == HEADER_ROWS or
          (scr.cols < 160 and HEADER_ROWS < scr.header_rows <= HEADER_MAX_ROWS),
          "%d rows at %d columns" % (scr.header_rows, scr.cols))
    check("header names the machine and its memory (SMBIOS)",
          any(re.search(r"memory: \d+ of \d+ slots?: \d+ x ", line) for line in head), repr(head))
    check("header shows the CPUs", any("CPUs online" in line for line in head), repr(head))
    check("header says the machine is virtual, first",
          any(line[1:].startswith("virtual machine (QEMU TCG)  |  ") for line in head), repr(head))
    check("header shows everything down to the firmware, nothing cut", any(re.search(r"UEFI \d+\.\d+", line)
          for line in head) and all(len(line) <= scr.cols for line in head), repr(head))
    check("header says RAM was NOT MAPPED" if left_out else "header: all RAM mapped",
          any(re.search(r"GiB RAM \(\d+(\.\d)? GiB NOT MAPPED\)", line) for line in head) == left_out, repr(head))
    hdr = scr.colors.get((1, 0))
    body = scr.colors.get((1, scr.header_rows + len(scr.banner_rows)))
    check("header has its own background", hdr and body and hdr[1] != body[1], "%s vs %s" % (hdr, body))
    below = scr.header_rows + len(scr.banner_rows)
    check("a green PASS banner right under the header", scr.banner_colour == "pass" and len(scr.banner_rows) >= 3
          and scr.banner_rows[0] == scr.header_rows and scr.banner_lit > 200,
          "rows %s, colour %s, %d white pixels sampled" % (scr.banner_rows, scr.banner_colour, scr.banner_lit))
    check("summary title under the banner", scr.text[below][1:8] == "Summary", repr(scr.text[below][:40]))
    sel = [line for line in scr.text[scr.header_rows:-1] if line[1:9] == "selftest"]
    check("summary line for selftest says ok", any(" ok," in line for line in sel),
          repr([line.rstrip() for line in sel]))
    check("summary has the selftest's key numbers, in ns", any("ns/increment" in line for line in sel),
          repr([line.rstrip() for line in sel]))
    status = scr.text[-1]
    check("status line: done, status ok", status[1:].startswith("done: status ok"), repr(status.rstrip()))
    check("status line says RAM was NOT MAPPED" if left_out else "status line: all RAM mapped",
          (re.search(r", \d+(\.\d)? GiB of RAM NOT MAPPED", status) is not None) == left_out, repr(status.rstrip()))
    check("screen size", (scr.w, scr.h) == want_size or want_size is None, "%dx%d" % (scr.w, scr.h))
    check("font cells as expected", scr.cw == scr.fw * scr.scale and scr.cols >= 40, "%dx%d cells of %dx%d px, scale %d"
          % (scr.cols, scr.rows, scr.cw, scr.ch, scr.scale))
    return results


# Each case: name, extra QEMU arguments, the screen size OVMF should pick, PNG name.
# OVMF's video driver takes its mode from the display's EDID, so the second
# case gets a 1920x1080 screen, where glyphs are drawn doubled.
CASES = [
    ("default", [], (1280, 800), "screenshot.png"),
    # 3 TiB on a CPU without 1 GiB pages (the page-table budget leaves half of it out) through SeaBIOS and the
    # multiboot2 path, as OVMF does not start there: the header and the status line say so; GRUB picks the mode.
    ("ram-left-out", [], None, "screenshot-ram-left-out.png"),
    ("1920x1080", ["-vga", "none", "-device", "VGA,edid=on,xres=1920,yres=1080"], (1920, 1080),
     "screenshot-1920x1080.png"),
    ("1024x768", ["-vga", "none", "-device", "VGA,edid=on,xres=1024,yres=768"], (1024, 768),
     "screenshot-1024x768.png"),
    ("800x600", ["-vga", "none", "-device", "VGA,edid=on,xres=800,yres=600"], (800, 600),
     "screenshot-800x600.png"),
    # Issue 37: QEMU told of a product and a DIMM (tests/boot/smbios_checks.py): the header's third line names them.
    ("smbios", list(smbios_checks.QEMU_ARGS), (1280, 800), "screenshot-smbios.png"),
]
# What the header must show in a case, beyond every case's checks.
HEADER_SHOWS = {"smbios": "%s %s  |  BIOS 0.0.0 (02/06/2015)  |  memory: %s" % (
    smbios_checks.MANUFACTURER, smbios_checks.PRODUCT, smbios_checks.CONFIG)}


def left_out_machine(a):
    """qemu-run's arguments for the ram-left-out case: the image, 3 TiB the host commits none of, no 1 GiB pages."""
    return ["--image", a.image, "--sata", "--firmware", "seabios", "--mem", str(3 << 20),
            "--cpu", "Skylake-Server,phys-bits=43,pdpe1gb=off", "--machine-opts", "memory-backend=mx",
            "--qemu-arg=-object", "--qemu-arg=memory-backend-ram,id=mx,size=3T,reserve=off"]


def run_case(a, name, qemu_args, want_size, png):
    """Boot one case (or read --ppm), save the PNG, decode and check it. Returns (passed, failed)."""
    log_path = os.path.splitext(png)[0] + ".log"
    left_out = name == "ram-left-out"
    with tempfile.TemporaryDirectory(prefix="qb-shot-") as tmp:
        ppm = a.ppm or os.path.join(tmp, "screen.ppm")
        if not a.ppm:
            t0 = time.time()
            args = CASE_ARGS.get(name) if a.args == ARGS else None
            ok, msg = boot_and_dump(a, ppm, log_path, qemu_args, left_out_machine(a) if left_out else None, args)
            print("screenshot %s: boot %s (%.1f s): %s" % (name, "ok" if ok else "FAILED", time.time() - t0, msg))
            if not ok:
                print("FAIL %s: boot" % name)
                print("  ---- serial log %s ----" % log_path)
                with open(log_path, encoding="latin-1") as f:
                    sys.stdout.write(f.read())
                print("  ---- end of log ----")
                return 0, 1
        with open(ppm, "rb") as f:
            w, h, rgb = read_ppm(f.read())
    write_png(png, w, h, rgb)
    scr = Screen(w, h, rgb, a.font_c)
    print("screenshot %s: %s, %dx%d, %dx%d cells" % (name, png, w, h, scr.cols, scr.rows))
    for r, line in enumerate(scr.text):
        if line.strip():
            print("  %3d |%s" % (r, line.rstrip().replace(UNKNOWN, "#")))
    results = run_checks(scr, rgb, None if a.ppm else want_size, left_out)
    if not a.ppm:
        results += check_summary_whole(scr, log_path, must_wrap=name in CASE_ARGS and a.args == ARGS)
    if name in HEADER_SHOWS:
        head = [scr.text[r].rstrip() for r in range(scr.header_rows)]
        results.append(("header shows %r" % HEADER_SHOWS[name], any(line[1:] == HEADER_SHOWS[name] for line in head),
                        repr(head)))
    for check_name, ok, detail in results:
        print("%s %s: %s%s" % ("ok  " if ok else "FAIL", name, check_name, ("  (" + detail + ")") if detail else ""))
    passed = sum(1 for _, ok, _ in results if ok)
    return passed, len(results) - passed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--efi", default=os.path.join(ROOT, "build", "quietbench.efi"))
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "quietbench.img"),
                    help="the USB image (make image) the ram-left-out case boots through SeaBIOS")
    ap.add_argument("--font-c", default=os.path.join(ROOT, "build", "gen", "fbcon_font.c"))
    ap.add_argument("--outdir", default=os.path.join(ROOT, "build"), help="where the PNGs and serial logs go")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--ppm", help="check this screendump instead of booting")
    ap.add_argument("--args", default=ARGS, help="the kernel command line (default: %(default)s); the README's "
                    "screenshots use 'finish=halt profile=quick'")
    ap.add_argument("cases", nargs="*", help="run only these cases (%s)" % ", ".join(c[0] for c in CASES))
    a = ap.parse_args()
    a.efi, a.image = os.path.abspath(a.efi), os.path.abspath(a.image)
    os.makedirs(a.outdir, exist_ok=True)
    passed = failed = 0
    for name, qemu_args, want_size, png in CASES:
        if a.cases and name not in a.cases:
            continue
        p, f = run_case(a, name, qemu_args, want_size, os.path.join(a.outdir, png))
        passed, failed = passed + p, failed + f
        if a.ppm:
            break
    print("screenshot: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
