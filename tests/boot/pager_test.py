#!/usr/bin/env python3
"""pager_test - the end screen with a USB keyboard: boot the USB image with a keyboard on the same xHCI, press keys through QEMU's monitor, and read the screen back.

Boots build/quietbench.img under OVMF from QEMU's xHCI (the stick on port 1,
`usb-kbd` on port 2) with `finish=halt workloads=selftest dump=usb` (the usb_trace records make the
log longer than a screen). When the serial
log says the pager found the keyboard, it presses `l` (the log), Page Down,
`t` (the results as tables) and `s` (the summary) with `sendkey`, takes a
`screendump` after each, and decodes the screen with tests/boot/screenshot.py
against the kernel's font:

  log        the title "Log: lines 1-N of M" and the kernel's first line
  page down  the title moves on ("lines K-..." with K > 1)
  tables     "Results: lines", a "== selftest" heading and the padded-increment row, ok
  summary    the summary screen again

Between polls the pager must rest: serial says "hlt, woken by the local
APIC timer", and QEMU, whose other CPU is halted, must use less than half
a host CPU over 3 s at the end screen (a PAUSE loop keeps one at 100%).

A second boot without the keyboard must keep the summary on screen and say
why on serial. A third, with `-cpu max,-arat` (no ARAT in CPUID.06H:EAX[2]:
the local APIC timer may stop in deep C-states), must choose PAUSE and say
why. The screens go to build/pager-*.png. The last line is
"pager tests: N passed, N failed".
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import caselib  # noqa: E402
import screenshot  # noqa: E402

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
FAT_OFFSET = "@@1M"
CFG = 'set qb_options="finish=halt workloads=selftest dump=usb"\nset timeout=0\nset default=quick\n'


class Boot:
    """QEMU with the stick (and a keyboard), its serial lines collected as they come."""

    def __init__(self, image, tmp, keyboard, cpu="max"):
        self.tmp = tmp
        self.disk = os.path.join(tmp, "stick.img")
        shutil.copyfile(image, self.disk)
        cfg = os.path.join(tmp, "quietbench.cfg")
        with open(cfg, "w") as f:
            f.write(CFG)
        subprocess.run(["mcopy", "-o", "-i", self.disk + FAT_OFFSET, cfg, "::/quietbench.cfg"], check=True)
        vars_copy = os.path.join(tmp, "vars.fd")
        shutil.copyfile(OVMF_VARS, vars_copy)
        self.sock = os.path.join(tmp, "monitor.sock")
        cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", cpu, "-smp", "2",
               "-m", "1024", "-display", "none", "-serial", "stdio", "-monitor", "unix:%s,server,nowait" % self.sock,
               "-no-reboot", "-drive", "if=pflash,format=raw,readonly=on,file=" + OVMF_CODE,
               "-drive", "if=pflash,format=raw,file=" + vars_copy,
               "-drive", "if=none,id=stick,format=raw,file=" + self.disk,
               "-device", "qemu-xhci,id=xhci,addr=5", "-device", "usb-storage,bus=xhci.0,port=1,drive=stick"]
        if keyboard:
            cmd += ["-device", "usb-kbd,bus=xhci.0,port=2"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.log = bytearray()
        self.t = threading.Thread(target=self._pump, daemon=True)
        self.t.start()

    def _pump(self):
        for chunk in iter(lambda: self.proc.stdout.read1(4096), b""):
            self.log.extend(chunk)

    def text(self):
        return self.log.decode("latin-1")

    def wait_for(self, pattern, timeout):
        """The first match of pattern after the log's current end... or anywhere, within timeout s."""
        end = time.time() + timeout
        while time.time() < end:
            m = re.search(pattern, self.text())
            if m:
                return m
            if self.proc.poll() is not None:
                return None
            time.sleep(0.2)
        return None

    def count(self, pattern):
        return len(re.findall(pattern, self.text()))

    def screen(self, name, font_c, outdir):
        ppm = os.path.join(self.tmp, name + ".ppm")
        if os.path.exists(ppm):
            os.remove(ppm)  # taken again: wait for the new one, not the last
        screenshot.monitor_command(self.sock, "screendump " + ppm)
        end = time.time() + 10
        while time.time() < end and not (os.path.exists(ppm) and os.path.getsize(ppm) > 0):
            time.sleep(0.1)
        time.sleep(0.3)
        with open(ppm, "rb") as f:
            w, h, rgb = screenshot.read_ppm(f.read())
        screenshot.write_png(os.path.join(outdir, "pager-%s.png" % name), w, h, rgb)
        return screenshot.Screen(w, h, rgb, font_c)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.t.join(5)


def key(b, k, pattern, before, timeout=30):
    """Press k, and wait for the pager's serial line after it (the count of pattern grows)."""
    screenshot.monitor_command(b.sock, "sendkey " + k)
    end = time.time() + timeout
    while time.time() < end and b.count(pattern) <= before:
        time.sleep(0.2)
    return b.count(pattern) > before


def cpu_share(pid, seconds):
    """The share of one host CPU that process pid used over the next `seconds` (user + system)."""
    def ticks():
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime (proc(5) fields 14 and 15)
    t0, w0 = ticks(), time.time()
    time.sleep(seconds)
    return (ticks() - t0) / os.sysconf("SC_CLK_TCK") / (time.time() - w0)


def has(scr, needle):
    return scr.find(needle) is not None


def with_keyboard(a, tmp, errors):
    b = Boot(a.image, tmp, True)
    try:
        if not b.wait_for(r"pager: a USB keyboard on root port \d+", a.timeout):
            errors.append("the pager did not find the keyboard")
            return b.text()
        rest = b.wait_for(r"pager: between polls every \d+ ms: (.*)", 10)
        if not rest or not rest.group(1).startswith("hlt, woken by the local APIC timer"):
            errors.append("the pager does not rest between polls: %s" % (rest.group(1) if rest else "no line"))
        time.sleep(1)
        used = cpu_share(b.proc.pid, 3.0)
        print("     QEMU used %.0f%% of a host CPU over 3 s at the end screen" % (100 * used))
        if used >= 0.5:
            errors.append("QEMU used %.0f%% of a host CPU at the end screen: the pager spins" % (100 * used))
        summary = b.screen("summary", a.font_c, a.outdir)
        if not has(summary, "Summary"):
            errors.append("the summary is not on screen before a key is pressed")
        if not key(b, "l", r"pager: log lines", 0):
            errors.append("l: no log page")
            return b.text()
        m = re.findall(r"pager: log lines 1-(\d+) of (\d+)", b.text())
        scr = b.screen("log", a.font_c, a.outdir)
        if not m or not has(scr, "Log: lines 1-%s of %s" % m[-1]) or not has(scr, "QuietBench "):
            errors.append("l: the screen does not show the log's first page (%s)" % (m[-1:] or "no line"))
        if not key(b, "pgdn", r"pager: log lines", 1):
            errors.append("Page Down: no second page")
        else:
            m2 = re.findall(r"pager: log lines (\d+)-(\d+) of (\d+)", b.text())[-1]
            scr = b.screen("log2", a.font_c, a.outdir)
            if int(m2[0]) <= 1 or not has(scr, "Log: lines %s-%s of %s" % m2):
                errors.append("Page Down: the title says %s" % (m2,))
        if not key(b, "t", r"pager: tables lines", 0):
            errors.append("t: no tables page")
        else:
            scr = b.screen("tables", a.font_c, a.outdir)
            rows = [ln for ln in scr.text if "padded-increment" in ln]
            if not has(scr, "Results: lines") or not has(scr, "== selftest") or not rows or not rows[0].rstrip().endswith("ok"):
                errors.append("t: the screen does not show the selftest table")
        screenshot.monitor_command(b.sock, "sendkey s")
        # The summary view prints no serial line: look at the screen until it is there (30 s at most).
        until = time.time() + 30
        while True:
            time.sleep(1)
            scr = b.screen("summary-again", a.font_c, a.outdir)
            if has(scr, "Summary") or time.time() > until:
                break
        if not has(scr, "Summary"):
            errors.append("s: the summary did not come back")
        return b.text()
    finally:
        b.close()


def without_arat(a, tmp, errors):
    """-cpu max,-arat: the local APIC timer may stop in a deep C-state, so the pager must not sleep on it."""
    b = Boot(a.image, tmp, True, cpu="max,-arat")
    try:
        rest = b.wait_for(r"pager: between polls every \d+ ms: (.*)", a.timeout)
        want = "pause: CPUID.06H:EAX[2] ARAT is 0"
        if not rest or not rest.group(1).startswith(want):
            errors.append("without ARAT the pager says %r, expected %r..." % (rest.group(1) if rest else None, want))
        return b.text()
    finally:
        b.close()


def without_keyboard(a, tmp, errors):
    b = Boot(a.image, tmp, False)
    try:
        if not b.wait_for(r"quietbench: halted", a.timeout):
            errors.append("no 'halted' line")
        elif "pager: no USB keyboard on the root ports of the stick's controller: the summary stays on screen" not in b.text():
            errors.append("the serial log does not say why there is no pager")
        else:
            scr = b.screen("nokeyboard", a.font_c, a.outdir)
            if not has(scr, "Summary"):
                errors.append("the summary is not on screen")
        return b.text()
    finally:
        b.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "quietbench.img"))
    ap.add_argument("--font-c", default=os.path.join(ROOT, "build", "gen", "fbcon_font.c"))
    ap.add_argument("--outdir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    a = ap.parse_args()
    cases = [("keyboard", lambda t, e: with_keyboard(a, t, e)),
             ("no-keyboard", lambda t, e: without_keyboard(a, t, e)),
             ("no-arat", lambda t, e: without_arat(a, t, e))]
    return caselib.run_cases("pager tests", [c for c in cases if not a.cases or c[0] in a.cases], prefix="qb-pager-")

if __name__ == "__main__":
    sys.exit(main())
